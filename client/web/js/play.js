// The game screen: the board plus what surrounds it (counters, timer,
// Undo/Redo/Hint/Restart, Game Options, the result), for the player and,
// read-only, for spectators.
//
// Every action goes to the server and the board redraws only from the
// snapshot and diffs that come back, so the player, every spectator and a
// reloaded page all see the same game.
//
// A race game is the same screen with race manners: no New deal or Game
// Options (everyone plays the one deal), no result dialog (the race
// screen has the results table), and for a spectator while the race runs
// a note that the server shows this board late.  The race screen embeds
// it for the racer's own board (`embedded`).
//
// A game that competes (a ranked daily attempt, any race game) offers no
// Hint or Finish, which the server refuses there, and says why instead;
// a ranked attempt says so in its caption and always shows its clock.
// Resign, and whatever else would end a game, asks first (leaving.js).

import { analysisInWords } from "./analysis.js";
import { Board } from "./board.js";
import { h, formatSeconds, formatTime } from "./dom.js";
import { whileBusy } from "./busy.js";
import { confirmAction } from "./confirm.js";
import { errorSentence } from "./errors.js";
import { GAMES, describeOptions } from "./games.js";
import { hintSentence } from "./hintwords.js";
import { leaveQuestion, rankedCaption } from "./leaving.js";
import { parseMove } from "./notation.js";
import { NARROW_PX } from "./sizing.js";
import { resultWords } from "./races.js";
import { play } from "./sound.js";
import { unlistedSentence } from "./unlisted.js";

const AUTO_HINT_AFTER_MS = 5000;
const HINT_SHOWN_MS = 4000;
// Each toolbar button's icon; its words stay its accessible name (and
// show beside the icon where there is room).  Plain symbols, not emoji:
// a system without an emoji font (Debian's) would draw empty boxes.
const ICONS = {
  undo: "↶", redo: "↷", hint: "?", finish: "✔", restart: "⟲", resign: "⚑", "new-deal": "✚",
  "open-game-options": "☰", "back-to-race": "⚐", "to-lobby": "⌂",
};
// Below the board, besides the page's padding (which on a phone keeps
// clear of the fixed toolbar): a margin for rounding.
const MARGIN_PX = 2;
const REFUSAL_SHOWN_MS = 4000;

export class GameScreen {
  constructor(root, app, { gameId = null, embedded = false } = {}) {
    this.root = root;
    this.app = app;
    this.gameId = gameId;
    this.embedded = embedded;
    this.mirror = null;
    this.over = null;
    this.toolbarKind = null;
    this.boardNode = h("div", { id: "board", class: "board" });
    this.board = new Board(this.boardNode, (intent) => this.intent(intent));
    this.stats = h("dl", { class: "stats", "aria-label": "Game counters" });
    this.message = h("p", { class: "message", role: "status", "aria-live": "polite" });
    this.heading = h("h1", {});
    this.who = h("p", { class: "who" });
    this.toolbar = h("div", { class: "toolbar" });
    this.result = h("div", { class: "result", hidden: true, role: "dialog", "aria-label": "Result" });
    this.celebration = h("div", { class: "celebration", hidden: true, "aria-hidden": "true" });
    this.delayNote = h("p", { class: "delay-note", id: "delay-note", hidden: true });
    this.assistNote = h("p", { class: "assist-note", id: "assist-note", hidden: true });
    // Beside your ranked daily attempt: the ghost bars, then the share text (ghostbars.js).
    this.extras = h("div", { class: "game-extras" });
    root.replaceChildren(h("section", { class: `game${embedded ? " embedded" : ""}` },
      embedded ? null : h("div", { class: "game-head" }, this.heading, this.who), this.delayNote,
      this.stats, this.toolbar, this.assistNote, this.message, this.extras,
      h("div", { class: "board-wrap" }, this.boardNode), this.celebration, this.result));
    this.ticker = setInterval(() => this.tick(), 500);
    this.resized = () => this.relayout();
    window.addEventListener("resize", this.resized);
    // The board's room is what the lines above it leave: a message that
    // wraps or a note that shows moves it, so it is measured again.
    this.above = new ResizeObserver(this.resized);
    for (const node of [this.delayNote, this.stats, this.toolbar, this.message]) this.above.observe(node);
  }

  destroy() {
    clearInterval(this.ticker);
    clearTimeout(this.autoHintTimer);
    clearTimeout(this.hintTimer);
    clearTimeout(this.refusalTimer);
    window.removeEventListener("resize", this.resized);
    this.above.disconnect();
  }

  gameScreenFor(gameId) {
    return this.gameId === gameId ? this : null;
  }

  // The race this game belongs to, once the page knows it (else null).
  get race() {
    return this.mirror ? this.app.raceOfGame(this.mirror.gameId) : null;
  }

  get mine() {
    return this.mirror !== null && this.mirror.owner.player_id === this.app.playerId();
  }

  get playing() {
    const mirror = this.mirror;
    return mirror !== null && this.mine && mirror.status === "playing" && !this.over;
  }

  // Measured against other players: no assist is offered.
  get competes() {
    return this.mirror !== null && (this.mirror.rankedDaily !== null || this.race !== null);
  }

  // A new snapshot or diff of this screen's game.
  update(mirror) {
    const first = this.mirror === null || this.mirror.gameId !== mirror.gameId;
    this.mirror = mirror;
    if (first) {
      this.over = null;
      this.result.hidden = true;
      this.celebration.hidden = true;
      this.toolbarKind = null;
    }
    const game = GAMES[mirror.game];
    this.heading.textContent = mirror.title;
    this.root.querySelector(".game").classList.toggle("spectating", !this.mine);
    this.raceChanged();
    const narrow = this.boardNode.clientWidth < NARROW_PX;
    const layout = game.layout(mirror.view, { narrow, leftHanded: this.app.settings.leftHanded });
    this.board.show({ view: mirror.view, layout, legal: mirror.legal, interactive: this.playing,
      dealt: first && !mirror.counters.moves, height: this.boardRoom() });
    this.renderStats();
    this.armAutoHint();
    // A game just started is played from the keyboard at once, not seven Tabs later.
    if (first && this.playing && !this.embedded) this.board.focusFirst();
  }

  // What depends on the game's race (which the page may learn after the
  // first snapshot, and whose end lifts the delay): the caption, the
  // buttons and the delay note.  The board is not redrawn.
  raceChanged() {
    const mirror = this.mirror;
    if (!mirror) return;
    const ranked = mirror.rankedDaily ? `${rankedCaption(mirror.rankedDaily)} · ` : "";
    this.who.textContent = this.mine
      ? `${ranked}${describeOptions(mirror.view.options)}${mirror.practice ? " · practice" : ""}`
      : `Watching ${mirror.owner.name}${mirror.practice ? " (practice)" : ""}${this.race ? " in a race" : ""}`;
    this.who.classList.toggle("ranked-daily", Boolean(ranked));
    this.assistNote.hidden = !(this.mine && this.competes);
    this.assistNote.textContent = this.race
      ? "A race: no hints or automatic finish, everyone plays by hand."
      : "Ranked: no hints or automatic finish; undo counts as an action.";
    this.renderToolbar();
    this.setButtons();
    this.showDelay();
  }

  // The board has the height from its top to the bottom of the screen, or
  // on a phone to the fixed toolbar; where that is too little (a race
  // screen's table above it), the page scrolls instead and the width
  // alone sizes the cards.
  boardRoom() {
    const top = this.boardNode.getBoundingClientRect().top + window.scrollY;
    const page = this.boardNode.closest("main");
    const padding = page ? parseFloat(getComputedStyle(page).paddingBottom) : 0;
    const toolbar = getComputedStyle(this.toolbar).position === "fixed" ? this.toolbar.offsetHeight : 0;
    const room = window.innerHeight - top - Math.max(padding, toolbar) - MARGIN_PX;
    return room > window.innerHeight / 3 ? room : null;
  }

  relayout() {
    if (this.mirror) this.update(this.mirror);
  }

  // The buttons depend on whose game it is and whether it is a race game
  // (which the page may learn after the first snapshot), so they are
  // rebuilt when that changes.
  renderToolbar() {
    const race = this.race;
    const kind = `${this.mine ? "own" : "other"}-${race ? "race" : this.competes ? "ranked" : "game"}`;
    if (kind === this.toolbarKind) return;
    this.toolbarKind = kind;
    const game = GAMES[this.mirror.game];
    const button = (id, label, onclick) => h("button", { type: "button", id, onclick, "aria-label": label, title: label },
      h("span", { class: "icon", "aria-hidden": "true" }, ICONS[id]), h("span", { class: "label" }, label));
    const raceButton = race && !this.embedded
      ? button("back-to-race", "Race", () => this.app.openRace(race.raceId)) : null;
    this.toolbar.replaceChildren(...[
      button("undo", "Undo", () => this.action("undo")),
      button("redo", "Redo", () => this.action("redo")),
      this.competes ? null : button("hint", "Hint", () => this.askHint(false)),
      this.competes ? null : button("finish", "Finish", () => this.finish()),
      button("restart", "Restart", () => this.action("restart")),
      button("resign", "Resign", () => this.resign()),
      race ? null : button("new-deal", "New deal", (event) => whileBusy(event.currentTarget, () => this.app.starter.newDeal(this.mirror))),
      !race && game.gameOptions.length
        ? button("open-game-options", "Game Options", () => this.app.starter.openGameOptions(this.mirror)) : null,
      raceButton,
      this.embedded ? null : button("to-lobby", "Lobby", () => this.app.toLobby()),
    ].filter(Boolean));
  }

  // While a race runs, the server shows spectators a racer's board late
  // (fairness); say by how much, as the page measured it.
  showDelay() {
    const race = this.race;
    const delayMs = this.app.delayOf(this.mirror.gameId);
    const delayed = race !== null && !this.mine && delayMs !== null
      && race.phase(this.app.serverClock.now()) === "running";
    this.delayNote.hidden = !delayed;
    if (delayed) {
      this.delayNote.textContent = `Delayed by ${formatSeconds(delayMs)}: while the race runs, spectators see `
        + "racers' boards late, so nobody can pass moves on to a racer.";
    }
  }

  // Resigning cannot be taken back: a dialog asks first, saying what it costs.
  async resign() {
    const question = leaveQuestion({ action: "resign", rankedDaily: this.mirror.rankedDaily, race: this.race !== null,
      underWay: true });
    if (await confirmAction({ ...question, id: "confirm-resign" }) && this.playing) await this.action("resign");
  }

  setButtons() {
    const playing = this.playing;
    const assists = this.mirror.legal !== null;
    for (const id of ["undo", "redo", "hint"]) {
      const button = this.toolbar.querySelector(`#${id}`);
      if (button) button.disabled = !playing || !assists;
    }
    const finish = this.toolbar.querySelector("#finish");
    if (finish) {
      const offered = playing && this.mirror.canFinish();
      finish.hidden = !offered;
      finish.title = offered ? `The server has a proven path to the foundations: ${this.mirror.finishOffer.moves} moves` : "";
    }
    for (const id of ["restart", "new-deal", "open-game-options", "resign"]) {
      const button = this.toolbar.querySelector(`#${id}`);
      if (button) {
        button.hidden = !this.mine;
        button.disabled = (id === "restart" || id === "resign") && !playing;
      }
    }
  }

  renderStats() {
    const mirror = this.mirror;
    const game = GAMES[mirror.game];
    const rows = [["Moves", mirror.counters.moves ?? 0]];
    if (this.showsClock) rows.push(["Time", formatTime(mirror.elapsedMs())]);
    if (mirror.score !== null && mirror.score !== undefined) rows.push(["Score", mirror.score]);
    rows.push(...game.stats(mirror));
    if (mirror.counters.hints) rows.push(["Hints", mirror.counters.hints]);
    if (mirror.counters.undos) rows.push(["Undos", mirror.counters.undos]);
    if (this.over) rows.push(["Status", this.over.result]);
    else if (mirror.status !== "playing") rows.push(["Status", statusWords(mirror)]);
    this.stats.replaceChildren(...rows.map(([label, value]) => h("div", { dataset: { stat: label.toLowerCase() } },
      h("dt", {}, label), h("dd", {}, String(value)))));
  }

  // A ranked attempt's clock is what it is ranked by, so it shows whatever the Timer setting says.
  get showsClock() {
    return this.app.settings.timer || this.mirror?.rankedDaily != null;
  }

  tick() {
    if (this.mirror && !this.delayNote.hidden) this.showDelay();
    if (!this.mirror || !this.showsClock) return;
    const time = this.stats.querySelector('[data-stat="time"] dd');
    if (time) time.textContent = formatTime(this.mirror.elapsedMs());
  }

  say(text, kind = "info") {
    this.message.textContent = text;
    this.message.dataset.kind = kind;
  }

  // ------------------------------------------------------------ actions

  // Every game action names the seq of the board it was decided on, so a
  // click from a second tab, or a repeated one, on a board that has moved
  // on is refused (stale_state) instead of being applied twice.
  act(type, fields = {}) {
    return this.app.request({ type, game_id: this.mirror.gameId, seq: this.mirror.seq, ...fields });
  }

  async intent(intent) {
    this.say("");
    this.armAutoHint();
    try {
      if (intent.type === "move") {
        await this.act("move", { move: intent.move });
        play(intent.move === "draw" ? "draw" : "move", this.app.settings);
      } else {
        const reply = await this.act("auto_move", { src: intent.src, count: intent.count });
        if (reply.type === "ack") this.say("That card has no move right now.");
        else play("move", this.app.settings);
      }
    } catch (error) {
      this.failed(error);
      if (intent.type === "move" && error.code === "illegal_move") this.board.refused(parseMove(intent.move).src);
    }
  }

  async action(kind) {
    this.say("");
    try {
      await this.act(kind);
    } catch (error) {
      this.failed(error);
    }
  }

  // A refusal is said for a moment, then the line clears (unless
  // something else was said since).
  failed(error) {
    const sentence = errorSentence(error);
    this.say(sentence, "error");
    play("error", this.app.settings);
    clearTimeout(this.refusalTimer);
    this.refusalTimer = setTimeout(() => {
      if (this.message.textContent === sentence) this.say("");
    }, REFUSAL_SHOWN_MS);
  }

  // Safe automatic finishing: the server plays its proven path, and the
  // board follows the diffs like any other moves.
  async finish() {
    this.say("");
    try {
      const reply = await this.act("finish");
      this.say(`Finished automatically in ${reply.moves.length} moves.`);
    } catch (error) {
      this.failed(error);
    }
  }

  // Where did it go wrong: the server's solver replays the finished game.
  async analyse() {
    const place = this.result.querySelector(".analysis");
    place.textContent = "Looking for where the game was lost…";
    try {
      const gameId = this.mirror.gameId;
      const reply = await this.app.request({ type: "analyse", game_id: gameId });
      place.textContent = await analysisInWords((message) => this.app.request(message), gameId, reply);
    } catch (error) {
      place.textContent = errorSentence(error);
    }
  }

  async askHint(automatic) {
    try {
      const reply = await this.act("hint");
      if (!automatic) this.say(hintSentence(this.mirror.view, reply));
      if (!reply.move) return;
      this.board.setHint({ ...parseMove(reply.move), sourceOnly: automatic });
      clearTimeout(this.hintTimer);
      this.hintTimer = setTimeout(() => this.board.setHint(null), HINT_SHOWN_MS);
    } catch (error) {
      if (!automatic) this.failed(error);
    }
  }

  // Auto hints (WordLink's setting): a movable card lights up after five
  // seconds without a move.  Each idle spell asks once; the server counts
  // it as a hint, as the rule text charges for it.
  armAutoHint() {
    clearTimeout(this.autoHintTimer);
    if (!this.app.settings.autoHints || !this.playing || this.competes || this.mirror.legal === null) return;
    this.autoHintTimer = setTimeout(() => {
      if (this.playing) this.askHint(true);
    }, AUTO_HINT_AFTER_MS);
  }

  // ------------------------------------------------------------ the end

  gameOver(message) {
    this.over = message;
    clearTimeout(this.autoHintTimer);
    this.board.show({ view: this.mirror.view, layout: this.board.layout, legal: null, interactive: false });
    this.setButtons();
    if (this.race) {
      this.raceGameOver(message);
      return;
    }
    const mine = this.mine;
    const won = message.result === "won";
    const headline = won
      ? (mine ? "You won!" : `${this.mirror.owner.name} won!`)
      : `Game over: ${message.result}`;
    const celebrate = won && !this.app.settings.skipCelebration;
    // The deal is null while it is secret (a race game watched while the race runs).
    const facts = [`${message.moves} moves`, formatTime(message.time_ms)];
    if (message.deal !== null && message.deal !== undefined) facts.unshift(`Deal ${message.deal}`);
    if (message.score !== null && message.score !== undefined) facts.push(`score ${message.score}`);
    // The celebration falls behind the result card, never over its text.
    this.celebration.replaceChildren(...(celebrate
      ? "♠♥♦♣♠♥♦♣♠♥♦♣".split("").map((symbol, i) => h("span", { style: `--i:${i}` }, symbol)) : []));
    this.celebration.hidden = !celebrate;
    // replaceChildren, unlike h, would show a null child as the text "null".
    this.result.replaceChildren(...[
      h("h2", {}, headline),
      h("p", {}, facts.join(" · ")),
      mine && message.unlisted?.length ? h("p", { class: "note", id: "unlisted" }, unlistedSentence(message.unlisted)) : null,
      won ? null : h("p", { class: "analysis", role: "status", "aria-live": "polite" }),
      h("div", { class: "actions" },
        won ? null : h("button", { type: "button", id: "analyse",
          onclick: (event) => whileBusy(event.currentTarget, () => this.analyse()) }, "Where did it go wrong?"),
        h("button", { type: "button", id: "open-replay",
          onclick: () => this.app.go({ kind: "replay", gameId: this.mirror.gameId }) }, "Replay"),
        mine ? h("button", { type: "button", id: "result-new-deal", class: "primary",
          onclick: (event) => whileBusy(event.currentTarget, () => this.app.starter.newDeal(this.mirror)) }, "New deal") : null,
        h("button", { type: "button", onclick: () => this.app.toLobby() }, "Lobby")),
    ].filter(Boolean));
    this.renderStats();
    this.result.hidden = false;
    if (won && mine) play("win", this.app.settings);
  }

  // In a race the deal stays secret until everyone is done, and the race
  // screen shows the results table: a line here is enough.
  raceGameOver(message) {
    const facts = `${message.moves} moves in ${formatTime(message.time_ms)}`;
    const who = this.mine ? "You" : this.mirror.owner.name;
    this.say(message.result === "won"
      ? `${who} finished the deal: ${facts}.`
      : `${who} ended the race: ${resultWords(message.result).toLowerCase()}, after ${facts}.`);
    if (message.result === "won" && this.mine) play("win", this.app.settings);
  }
}

function statusWords(mirror) {
  if (mirror.status === "lost") {
    return mirror.legal !== null ? "no moves left (Undo can recover)" : "no moves left";
  }
  return mirror.status;
}
