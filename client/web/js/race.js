// The race screen (`#race/<race id>`): the lobby of a race with its invite
// code and the host's Start button, the countdown, everyone's progress,
// the racer's own board while the race runs, then the results table and
// a rematch.
//
// Racers and spectators share the screen; what differs is what they may
// do (the host starts, racers play and ask for a rematch) and what they
// may see (a racer's own board here; spectators open a racer's board,
// which the server shows them delayed while the race runs; rivals see no
// board until the end).  Every time shown is computed on the server's
// clock (servertime.js): the countdown is `starts_at` minus the server's
// now, never the local clock alone.

import { restoreBusy, whileBusy } from "./busy.js";
import { h, formatPreciseTime, formatTime } from "./dom.js";
import { errorSentence } from "./errors.js";
import { GAMES, describeOptions } from "./games.js";
import { GameScreen } from "./play.js";
import { APART_WORDS, RACER_STATE_WORDS, finishBanner, homeShare, raceLink, resultWords, spacedCode } from "./races.js";

const TICK_MS = 200;
const GO_SHOWN_MS = 1200;
const BOARD_LATE_MS = 2000;
const PHASE_WORDS = { lobby: "Lobby", expired: "Invite expired", countdown: "Starting", running: "Racing", finished: "Finished" };

export class RaceScreen {
  constructor(root, app, raceId) {
    this.root = root;
    this.app = app;
    this.raceId = raceId;
    this.model = null;
    this.game = null;
    this.gameId = null;
    this.boardAsked = false;
    this.shownPhase = null;
    this.heading = h("h1", {}, "Race");
    this.who = h("p", { class: "who" });
    this.badge = h("span", { class: "phase", id: "race-phase" });
    this.bar = h("div", { class: "race-bar" });
    this.message = h("p", { class: "message", role: "status", "aria-live": "polite" });
    this.racers = h("table", { class: "racers", id: "racers", "aria-label": "Racers" });
    this.results = h("div", { class: "results-table", id: "race-results", hidden: true });
    this.banner = h("div", { class: "finish-banner", id: "race-banner", role: "status", hidden: true });
    this.boardArea = h("div", { class: "race-board" });
    this.countdown = h("div", { class: "countdown", id: "countdown", hidden: true, "aria-live": "assertive" });
    this.section = h("section", { class: "race" },
      h("div", { class: "game-head" }, this.heading, this.badge, this.who),
      this.bar, this.banner, this.message,
      h("div", { class: "race-body" }, h("div", { class: "race-side" }, this.results, this.racers), this.boardArea),
      this.countdown);
    root.replaceChildren(this.section);
    this.ticker = setInterval(() => this.tick(), TICK_MS);
  }

  destroy() {
    clearInterval(this.ticker);
    this.game?.destroy();
  }

  // The embedded board, if it shows `gameId` (main.js routes snapshots,
  // diffs and game_over here).
  gameScreenFor(gameId) {
    return this.game !== null && this.gameId === gameId ? this.game : null;
  }

  get me() { return this.app.playerId(); }
  get racing() { return this.model !== null && this.model.isRacer(this.me); }
  now() { return this.app.serverClock.now(); }

  say(text, kind = "info") {
    this.message.textContent = text;
    this.message.dataset.kind = kind;
  }

  // A new race message or progress line.
  update(model) {
    this.model = model;
    const info = model.info;
    this.heading.textContent = `${info.title} race`;
    const facts = [describeOptions(info.options), dealWords(info), `hosted by ${info.host.name}`,
      this.racing ? "you race" : "you watch"].filter(Boolean);
    this.who.replaceChildren(...facts.flatMap((fact, i) => [i ? " · " : "", h("span", {}, fact)]));
    this.render();
  }

  render() {
    const phase = this.model.phase(this.now());
    this.shownPhase = phase;
    this.section.dataset.phase = phase;
    this.badge.textContent = PHASE_WORDS[phase] ?? phase;
    this.renderBar(phase);
    this.renderRacers(phase);
    this.renderResults(phase);
    this.renderBoard(phase);
    this.tick();
  }

  // ------------------------------------------------------------ the bar above

  renderBar(phase) {
    const info = this.model.info;
    const host = info.host.player_id === this.me;
    const button = (id, label, onclick, primary = false) =>
      h("button", { type: "button", id, class: primary ? "primary" : null,
        onclick: (event) => whileBusy(event.currentTarget, onclick) }, label);
    const parts = [];
    if (phase === "lobby" && this.racing) {
      parts.push(h("div", { class: "invite" },
        h("span", { class: "label" }, "Invite code"),
        h("strong", { id: "race-invite-code", class: "code" }, spacedCode(info.code)),
        h("small", {}, `Friends join with it in the lobby until ${clockTime(info.invite_expires_ms)}.`)));
      parts.push(this.spectatorLink(raceLink(info.race_id)));
    }
    if (phase === "lobby") {
      parts.push(host
        ? button("start-race", "Start the race", () => this.start(), true)
        : h("p", { class: "note" }, `Waiting for ${info.host.name} to start the race.`));
    } else if (phase === "expired") {
      parts.push(h("p", { class: "note" }, "The invite expired before the race started; create a new race in the lobby."));
    } else if (phase === "countdown") {
      parts.push(h("p", { class: "clock-line" }, "Starts in ", h("strong", { id: "race-starts-in" }, "")));
    } else if (phase === "running") {
      parts.push(h("p", { class: "clock-line" }, "Time left ", h("strong", { id: "race-time-left" }, "")));
    } else if (phase === "finished") {
      const facts = [
        info.deal !== null ? `Deal ${info.deal}` : null,
        info.seed ? `Deal seed ${info.seed}, revealed` : null,
        info.daily && !info.seed ? `The daily deal of ${info.daily}, revealed with the day` : null,
        info.verified ? "a winnable deal" : null,
      ];
      parts.push(h("p", { class: "note" }, ["The race is over.", facts.filter(Boolean).join(", ")].join(" ")));
      if (info.rematch) {
        parts.push(button("open-rematch", "Go to the rematch", () => this.app.openRace(info.rematch), true));
      } else if (this.racing) {
        parts.push(button("rematch", "Rematch", () => this.rematch(), true));
      }
    }
    if (!this.racing) parts.push(h("p", { class: "note", id: "boards-open" }, boardsOpenWords(info, phase)));
    parts.push(button("race-to-lobby", "Lobby", () => this.app.toLobby()));
    this.bar.replaceChildren(...parts);
    restoreBusy(this.bar);
  }

  // The link to pass on, with a Copy button; where the browser does not
  // allow copying (a page not served over HTTPS), the link is selected
  // and the page says to copy it by hand.
  spectatorLink(link) {
    const input = h("input", { id: "spectator-link", readonly: true, value: link, "aria-label": "Link for spectators",
      onfocus: (event) => event.target.select() });
    const copy = async () => {
      try {
        await navigator.clipboard.writeText(link);
        this.say("Link copied: anyone who opens it watches the race.");
      } catch {
        input.focus();
        input.select();
        this.say("This browser did not allow copying: the link is selected, copy it with Ctrl+C (or long-press).");
      }
    };
    return h("div", { class: "choice spectator-link" }, h("span", {}, "Link for spectators"),
      h("div", { class: "copy-row" }, input, h("button", { type: "button", id: "copy-spectator-link", onclick: copy }, "Copy")));
  }

  async start() {
    this.say("");
    try {
      await this.app.request({ type: "start_race", race_id: this.raceId });
    } catch (error) {
      this.say(errorSentence(error), "error");
    }
  }

  async rematch() {
    this.say("");
    try {
      const reply = await this.app.request({ type: "rematch", race_id: this.raceId });
      this.app.openRace(reply.race.race_id);
    } catch (error) {
      this.say(errorSentence(error), "error");
    }
  }

  // ------------------------------------------------------------ progress and results

  renderRacers(phase) {
    const model = this.model;
    const game = model.info.game;
    // The game's own counters, as its catalogue entry labels them (Broken
    // Deck's repairs out of six …): one column each.
    const { cards, counters } = GAMES[game] ?? { cards: 52, counters: [] };
    const watchable = !this.boardsHidden(phase) && (phase === "finished" || (phase === "running" && !this.racing));
    const head = ["Racer", "State", "Cards home", ...counters.map((counter) => counter.label), "Moves", "Time",
      watchable ? "" : null];
    this.racers.hidden = phase === "finished";
    const rows = model.entries().map((entry) => {
      const { racer } = entry;
      const state = model.stateOf(entry, this.now());
      return h("tr", { dataset: { player: racer.player_id, state }, class: racer.player_id === this.me ? "me" : null },
        h("th", { scope: "row" }, racerName(racer, model.info, this.me)),
        h("td", { dataset: { col: "state" } }, RACER_STATE_WORDS[state] ?? state),
        h("td", { dataset: { col: "foundation" } }, `${racer.foundation}/${cards}`, progressBar(racer, cards)),
        ...counters.map(({ name, out_of: outOf }) => {
          const value = racer.counters[name] ?? 0;
          return h("td", { dataset: { col: name } }, outOf === null ? String(value) : `${value}/${outOf}`);
        }),
        h("td", { dataset: { col: "moves" } }, String(racer.moves)),
        h("td", { dataset: { col: "time" } }, formatTime(model.elapsedMs(entry, this.now()))),
        watchable ? h("td", {}, this.boardButton(racer)) : null);
    });
    this.racers.replaceChildren(
      h("thead", {}, h("tr", {}, head.filter((label) => label !== null).map((label) => h("th", { scope: "col" }, label)))),
      h("tbody", {}, rows));
  }

  // A ranked race's deal is secret while it runs (a daily race's until
  // the day's reveal): the server shows its boards to nobody but their
  // players, so no board is offered, only the progress above.
  boardsHidden(phase) {
    const info = this.model.info;
    return info.ranked !== false && (phase !== "finished" || info.daily !== null);
  }

  boardButton(racer) {
    if (!racer.game_id || racer.player_id === this.me) return null;
    return h("button", { type: "button", class: "small", dataset: { watchBoard: racer.player_id },
      onclick: () => this.app.watchRaceBoard(racer.game_id) }, "Board");
  }

  // After the race every racer's board, yours too, opens as a replay.
  replayButton(racer) {
    if (!racer.game_id) return null;
    return h("button", { type: "button", class: "small", dataset: { replayBoard: racer.player_id },
      onclick: () => this.app.go({ kind: "replay", gameId: racer.game_id }) }, "Replay");
  }

  renderResults(phase) {
    const results = this.model.info.results;
    this.results.hidden = phase !== "finished" || !results;
    this.banner.hidden = this.results.hidden;
    if (this.results.hidden) return;
    const { headline, places } = finishBanner(results, this.me, formatPreciseTime);
    this.banner.replaceChildren(h("strong", {}, headline),
      h("ol", { class: "places" }, places.map((place) => h("li", {}, place))));
    const head = ["Place", "Racer", "Result", "Time", "Moves", "Cards home", ""];
    const rows = results.map((row) => {
      const racer = this.model.racers.get(row.player_id)?.racer ?? { player_id: row.player_id, name: row.name, game_id: null };
      return h("tr", { dataset: { player: row.player_id }, class: row.player_id === this.me ? "me" : null },
        h("td", { dataset: { col: "place" } }, row.place === null ? "–" : String(row.place)),
        h("th", { scope: "row" }, racerName(racer, this.model.info, this.me), row.ranked
          ? h("span", { class: "ranked", title: "Their ranked daily attempt: a win enters the daily leaderboard" }, " ★")
          : null, row.apart ? h("span", { class: "apart", dataset: { apart: row.apart } }, ` (${APART_WORDS[row.apart] ?? row.apart})`)
          : null),
        h("td", { dataset: { col: "result" } }, resultWords(row.result)),
        h("td", { dataset: { col: "time" } }, formatPreciseTime(row.time_ms)),
        h("td", { dataset: { col: "moves" } }, String(row.moves)),
        h("td", { dataset: { col: "foundation" } }, String(row.foundation)),
        h("td", {}, this.boardsHidden(phase) ? null
          : [this.boardButton(racer), this.replayButton(racer)]));
    });
    this.results.replaceChildren(
      h("h2", {}, "Results"),
      h("table", { class: "racers results" },
        h("thead", {}, h("tr", {}, head.map((label) => h("th", { scope: "col" }, label)))),
        h("tbody", {}, rows)));
  }

  // ------------------------------------------------------------ the racer's own board

  renderBoard(phase) {
    const gameId = this.racing ? this.model.gameOf(this.me) : null;
    this.section.classList.toggle("with-board", this.racing);
    if (!this.racing) {
      this.dropBoard(); // stops the board's timers and resize listener, and forgets its game
      this.boardArea.replaceChildren();
      return;
    }
    if (gameId === null || phase === "countdown" || phase === "lobby" || phase === "expired") {
      this.dropBoard();
      const waiting = phase === "countdown" ? "Get ready: your board appears when the countdown ends."
        : phase === "expired" ? "" : "Your board appears here when the race starts.";
      this.boardArea.replaceChildren(h("p", { class: "note board-waiting" }, waiting));
      return;
    }
    // Once shown, the board redraws from its own snapshot and diffs only:
    // a redraw for each rival's move would drop a drag in progress.
    if (this.gameId !== gameId) {
      this.dropBoard();
      this.gameId = gameId;
      this.boardAsked = false;
      this.game = new GameScreen(this.boardArea, this.app, { gameId, embedded: true });
      const mirror = this.app.mirrors.get(gameId);
      if (mirror) this.game.update(mirror);
    }
  }

  dropBoard() {
    this.game?.destroy();
    this.game = null;
    this.gameId = null;
  }

  // The server hands each racer their board at starts_at; ask for it
  // only if it is late (a reload during the countdown, a lost frame).
  askForLateBoard(now) {
    if (this.boardAsked || this.game === null || this.app.mirrors.has(this.gameId)) return;
    if (now - this.model.info.starts_at < BOARD_LATE_MS || !this.app.connection.online) return;
    this.boardAsked = true;
    this.app.request({ type: "watch", game_id: this.gameId }).catch((error) => this.say(errorSentence(error), "error"));
  }

  // ------------------------------------------------------------ the clock

  tick() {
    if (!this.model) return;
    const now = this.now();
    const phase = this.model.phase(now);
    if (phase !== this.shownPhase) {
      this.render();
      return;
    }
    const info = this.model.info;
    const startsIn = this.section.querySelector("#race-starts-in");
    if (startsIn) startsIn.textContent = `${Math.ceil(this.model.countdownMs(now) / 1000)} s`;
    const timeLeft = this.section.querySelector("#race-time-left");
    if (timeLeft) timeLeft.textContent = formatTime(this.model.timeLeftMs(now) ?? 0);
    for (const entry of this.model.entries()) {
      const cell = this.racers.querySelector(`tr[data-player="${CSS.escape(entry.racer.player_id)}"] [data-col="time"]`);
      if (cell) cell.textContent = formatTime(this.model.elapsedMs(entry, now));
    }
    this.showCountdown(phase, now, info.starts_at);
    if (phase === "running" && this.racing) this.askForLateBoard(now);
  }

  showCountdown(phase, now, startsAt) {
    const sinceStart = startsAt === null ? null : now - startsAt;
    const counting = phase === "countdown";
    const go = phase === "running" && sinceStart !== null && sinceStart < GO_SHOWN_MS;
    this.countdown.hidden = !(counting || go);
    if (counting) {
      const seconds = Math.ceil(this.model.countdownMs(now) / 1000);
      this.countdown.textContent = String(seconds);
      this.countdown.dataset.seconds = String(seconds);
    } else if (go) {
      this.countdown.textContent = "Go!";
      this.countdown.dataset.seconds = "0";
    }
  }
}

// A racer's cards home as a bar (the cell's text says the numbers).
function progressBar(racer, cards) {
  const share = homeShare(racer, cards);
  return h("span", { class: "progress", role: "progressbar", "aria-valuemin": "0", "aria-valuemax": String(cards),
    "aria-valuenow": String(racer.foundation), "aria-label": `${racer.name}: cards home` },
  h("span", { style: `width: ${(share * 100).toFixed(1)}%` }));
}

// When a spectator sees the racers' boards: a ranked race's deal is
// secret while it runs, a daily race's until the day's reveal.
function boardsOpenWords(info, phase) {
  if (info.ranked === false) {
    return phase === "finished" ? "Open a racer's board or replay below."
      : "While the race runs, each racer's board opens from the table, shown a little late.";
  }
  if (info.deal_kind === "daily") {
    return `Racers' boards open when ${info.daily ? `the daily deal of ${info.daily}` : "today's daily deal"} is revealed, `
      + "after the day ends; "
      + "until then the table shows their progress.";
  }
  return phase === "finished" ? "The race is over: every racer's board and replay opens from the results."
    : "Racers' boards open here when the race ends; until then the table shows their progress.";
}

function dealWords(info) {
  if (info.deal_kind === "daily") return info.daily ? `daily deal of ${info.daily}` : "today's daily deal";
  if (info.deal_kind === "winnable") return "a winnable deal";
  return "a numbered deal";
}

// "Ann (you, host)", the marks in small print.
function racerName(racer, info, me) {
  const marks = [racer.player_id === me ? "you" : null, racer.player_id === info.host.player_id ? "host" : null];
  const extra = marks.filter(Boolean).join(", ");
  return [racer.name, extra ? h("small", { class: "tag" }, ` (${extra})`) : null];
}

function clockTime(ms) {
  return new Date(ms).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}
