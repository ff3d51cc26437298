// The lobby: choose a game, its options and a deal; race friends on it
// (create a race, or join one by its invite code); your friends (the
// friends panel) and devices (the devices panel); see your live games
// and your last races; watch other people's live games or a race by its
// link; read the daily leaderboards (your friends' beside the global
// one) and your own records; open your daily stats and your leagues.

import { restoreBusy, whileBusy } from "./busy.js";
import { h } from "./dom.js";
import { GAMES, describeOptions, gameTitle } from "./games.js";
import { LeaderboardPanel } from "./leaderboard.js";
import { RecordsPanel } from "./records.js";
import { resultWords } from "./races.js";

const CHOICES_KEY = "arena.lobby";
const DEAL_LABELS = { random: "Random deal", winnable: "Winning deal", daily: "Daily challenge", number: "Deal number" };
const RACE_DEALS = [["daily", "Today's daily deal"], ["winnable", "A winnable deal"]];
const RACE_PHASE_WORDS = { lobby: "not started", expired: "invite expired", countdown: "starting", running: "running", finished: "finished" };

function loadChoices() {
  try {
    return JSON.parse(localStorage.getItem(CHOICES_KEY) ?? "{}") ?? {};
  } catch {
    return {};
  }
}

export class Lobby {
  constructor(root, actions) {
    this.root = root;
    this.actions = actions;
    this.choices = { game: "klondike", deal: "random", number: 1, options: {}, raceDeal: "daily", ...loadChoices() };
    this.liveGames = null;
    this.ownGames = null;
    this.races = null;
    this.welcome = null;
    this.raceCode = "";
    this.nameDraft = null;
    this.watchDraft = "";
    this.records = new RecordsPanel(actions.request);
    this.leaderboard = new LeaderboardPanel(actions.request, (playerId) => this.records.show(playerId));
  }

  saveChoices() {
    localStorage.setItem(CHOICES_KEY, JSON.stringify(this.choices));
  }

  show({ welcome, liveGames, ownGames, races }) {
    this.welcome = welcome;
    this.liveGames = liveGames;
    this.ownGames = ownGames;
    this.races = races;
    this.render();
  }

  // The games come from the server's catalogue (games.js): until it has
  // arrived there is nothing to choose, and a game saved in this browser's
  // choices that the server no longer offers gives way to its first game.
  render() {
    const offered = Object.keys(GAMES);
    if (offered.length && !GAMES[this.choices.game]) this.choices.game = offered[0];
    const choosing = offered.length
      ? [this.newGamePanel(), this.racePanel()]
      : [h("section", { class: "panel new-game" }, h("h2", {}, "New game"), h("p", { class: "note", id: "games-loading" }, "Loading the games…"))];
    const typing = this.fieldBeingTyped();
    this.root.replaceChildren(h("div", { class: "lobby" },
      this.namePanel(), ...choosing, this.actions.friendsPanel(), this.myGamesPanel(), this.livePanel(),
      h("div", { class: "daily-boards" }, this.leaderboard.node, this.actions.friendsBoard()),
      this.dailyLinks(), this.records.node, this.actions.devicesPanel()));
    restoreBusy(this.root);
    this.resumeTyping(typing);
  }

  // The lobby is rebuilt whenever its lists change (a live game starts, a
  // friend comes online); someone typing in one of its fields goes on
  // typing there, caret and selection where they were.
  fieldBeingTyped() {
    const field = document.activeElement;
    if (!(field instanceof HTMLInputElement) || !field.id || !this.root.contains(field)) return null;
    return { id: field.id, start: field.selectionStart, end: field.selectionEnd };
  }

  resumeTyping(typing) {
    if (typing === null) return;
    const field = this.root.querySelector(`#${CSS.escape(typing.id)}`);
    if (!(field instanceof HTMLInputElement)) return;
    field.focus();
    if (typing.start !== null && typing.end !== null) field.setSelectionRange(typing.start, typing.end);
  }

  // Your daily stats and your leagues have screens of their own.
  dailyLinks() {
    return h("nav", { class: "panel daily-links", "aria-label": "Your dailies" },
      h("a", { href: "#stats", id: "open-stats" }, "Your daily stats"), h("a", { href: "#leagues", id: "open-leagues" }, "Leagues"));
  }

  namePanel() {
    const input = h("input", { id: "player-name", maxlength: 32, value: this.nameDraft ?? this.actions.name(),
      placeholder: "Your name", "aria-label": "Your name", oninput: (event) => { this.nameDraft = event.target.value; } });
    const save = () => {
      const name = input.value.trim();
      if (!name) return;
      this.nameDraft = null;
      this.actions.rename(name);
    };
    return h("section", { class: "panel name" },
      h("label", { for: "player-name" }, "Playing as"), input,
      h("button", { type: "button", onclick: save }, "Save name"),
      h("button", { type: "button", class: "link", id: "to-use-code", onclick: () => this.actions.useCode() },
        "Already playing on another device?"));
  }

  newGamePanel() {
    const chosen = this.choices.game;
    const tiles = Object.entries(GAMES).map(([id, game]) => h("button", {
      type: "button", class: `tile${id === chosen ? " chosen" : ""}`, "aria-pressed": id === chosen ? "true" : "false",
      dataset: { game: id }, onclick: () => { this.choices.game = id; this.saveChoices(); this.render(); },
    }, h("strong", {}, game.title), h("span", {}, game.blurb)));
    const game = GAMES[chosen];
    if (!game.deals.includes(this.choices.deal)) this.choices.deal = "random";
    return h("section", { class: "panel new-game" },
      h("h2", {}, "New game"),
      h("div", { class: "tiles" }, tiles),
      h("div", { class: "options" }, this.optionFields(chosen), this.dealFields(chosen)),
      h("div", { class: "actions" },
        h("button", { type: "button", id: "start-game", class: "primary",
          onclick: (event) => whileBusy(event.currentTarget, () => this.start()) }, `Play ${game.title}`),
        game.deals.includes("daily") && h("button", { type: "button", id: "daily-challenge",
          onclick: (event) => whileBusy(event.currentTarget, () => this.start("daily")) }, "Daily challenge")));
  }

  optionFields(gameId) {
    const saved = (this.choices.options[gameId] ??= {});
    return GAMES[gameId].lobbyOptions.map((option) => {
      const id = `option-${option.name}`;
      if (option.toggle) {
        return h("label", { class: "switch" }, h("input", { type: "checkbox", id, checked: Boolean(saved[option.name]),
          onchange: (event) => { saved[option.name] = event.target.checked; this.saveChoices(); } }), ` ${option.label}`);
      }
      const select = h("select", { id, onchange: (event) => { saved[option.name] = event.target.value; this.saveChoices(); } },
        option.choices.map(([value, label]) => h("option", { value }, label)));
      select.value = saved[option.name] ?? option.choices[0][0];
      return h("label", { class: "choice" }, option.label, select);
    });
  }

  dealFields(gameId) {
    const game = GAMES[gameId];
    const select = h("select", { id: "deal-kind", onchange: (event) => {
      this.choices.deal = event.target.value; this.saveChoices(); this.render();
    } }, game.deals.map((kind) => h("option", { value: kind }, DEAL_LABELS[kind])));
    select.value = this.choices.deal;
    const number = this.choices.deal === "number" && h("input", {
      id: "deal-number", type: "number", min: game.firstDeal, max: game.lastDeal, value: String(this.choices.number),
      "aria-label": "Deal number", oninput: (event) => { this.choices.number = Number(event.target.value); this.saveChoices(); },
    });
    return h("label", { class: "choice" }, "Deal", select, number);
  }

  // The chosen game's options as the lobby shows them.
  chosenOptions() {
    const gameId = this.choices.game;
    const options = {};
    for (const option of GAMES[gameId].lobbyOptions) {
      const value = this.choices.options[gameId]?.[option.name];
      options[option.name] = option.toggle ? Boolean(value) : (value ?? option.choices[0][0]);
    }
    return options;
  }

  start(dealKind = this.choices.deal) {
    const deal = dealKind === "number" ? Math.trunc(Number(this.choices.number)) : dealKind;
    return this.actions.start({ game: this.choices.game, deal, options: this.chosenOptions() });
  }

  // Race friends on the game and options chosen above.
  racePanel() {
    const game = GAMES[this.choices.game];
    const deal = h("select", { id: "race-deal", onchange: (event) => { this.choices.raceDeal = event.target.value; this.saveChoices(); } },
      RACE_DEALS.map(([value, label]) => h("option", { value }, label)));
    deal.value = this.choices.raceDeal;
    const code = h("input", { id: "race-code", value: this.raceCode, maxlength: 20, autocomplete: "off",
      autocapitalize: "characters", spellcheck: "false", placeholder: "Invite code, e.g. FWRD-BTKR",
      "aria-label": "Invite code", oninput: (event) => { this.raceCode = event.target.value; } });
    const create = () => this.actions.createRace({ game: this.choices.game, options: this.chosenOptions(), deal: deal.value });
    return h("section", { class: "panel races" },
      h("h2", {}, "Race friends"),
      h("p", { class: "note" }, `Everyone plays the same ${game.title} deal with the options above; the fastest win takes it.`),
      h("div", { class: "options" },
        h("label", { class: "choice" }, "Deal", deal),
        h("button", { type: "button", id: "create-race", class: "primary",
          onclick: (event) => whileBusy(event.currentTarget, create) }, "Create a race")),
      h("form", { class: "join-race", onsubmit: (event) => {
        event.preventDefault();
        const text = code.value.trim();
        if (text) whileBusy(event.currentTarget.querySelector("#join-race"), () => this.actions.joinRace(text));
      } }, code, h("button", { type: "submit", id: "join-race" }, "Join race")),
      this.raceHistory());
  }

  raceHistory() {
    if (!this.races?.length) return null;
    const myId = this.welcome?.player_id;
    return h("div", { class: "race-history" }, h("h3", {}, "Your races"),
      h("ul", { class: "games", id: "race-history" }, this.races.map((race) => {
        const mine = race.results?.find((row) => row.player_id === myId);
        const outcome = mine ? (mine.place ? `place ${mine.place}` : resultWords(mine.result)) : RACE_PHASE_WORDS[race.phase];
        return h("li", {},
          h("span", {}, h("strong", {}, race.title), ` with ${race.racers.map((racer) => racer.name).join(", ")}`,
            h("small", {}, ` · ${outcome}`)),
          h("button", { type: "button", dataset: { race: race.race_id }, onclick: () => this.actions.openRace(race.race_id) }, "Open"));
      })));
  }

  myGamesPanel() {
    const mine = this.ownGames ?? [];
    if (!mine.length) return null;
    return h("section", { class: "panel my-games" }, h("h2", {}, "Your games"),
      h("ul", { class: "games" }, mine.map((summary) => h("li", {},
        h("span", {}, `${gameTitle(summary.game)} ${describeOptions(summary.options)}`),
        h("button", { type: "button", onclick: () => this.actions.resume(summary.game_id) }, "Resume")))));
  }

  livePanel() {
    const games = this.liveGames;
    const myId = this.welcome?.player_id;
    const others = (games ?? []).filter((summary) => summary.owner.player_id !== myId);
    const list = games === null
      ? h("p", { class: "note" }, "Loading live games…")
      : others.length
        ? h("ul", { class: "games", id: "live-games" }, others.map((summary) => h("li", {},
          h("span", {}, h("strong", {}, summary.owner.name), ` plays ${gameTitle(summary.game)}`,
            h("small", {}, ` ${describeOptions(summary.options)}`)),
          h("button", { type: "button", dataset: { watch: summary.game_id },
            onclick: () => this.actions.watch(summary.game_id) }, "Watch"))))
        : h("p", { class: "note" }, "Nobody else is playing right now.");
    const idInput = h("input", { id: "watch-id", value: this.watchDraft, placeholder: "Game id (g_…) or race link",
      "aria-label": "Game id or race link to watch", oninput: (event) => { this.watchDraft = event.target.value; } });
    return h("section", { class: "panel live" },
      h("h2", {}, "Live games"),
      h("button", { type: "button", class: "refresh", onclick: () => this.actions.refresh() }, "Refresh"),
      list,
      h("form", { class: "watch-by-id", onsubmit: (event) => {
        event.preventDefault();
        const id = idInput.value.trim();
        const race = /(?:^|#race\/)(r_[^/?#\s]+)$/.exec(id);
        if (race) this.actions.openRace(decodedOrAsTyped(race[1]));
        else if (id) this.actions.watch(id);
      } }, idInput, h("button", { type: "submit" }, "Watch")));
  }
}

// A race id pasted from an address bar may be percent-encoded; a stray
// "%" that decodes to nothing is kept as typed (the server then says no
// race has it) rather than throwing from the form's handler.
function decodedOrAsTyped(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
