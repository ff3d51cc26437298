// The replay screen (`#replay/<game id>`): a finished game step by step,
// with a scrubber (first, previous, play, next, last, and a slider), the
// move list, and the analysis marked on it.
//
// Everything shown comes from the server: `replay` gives the first view
// and each action's diff (replaysteps.js turns them into positions), and
// `analyse` where the game stopped being winnable.  The winning line is
// played by the server too (`replay` with `line` from the last winnable
// position), since the page has no rules engine; it then takes the
// scrubber's place until "Back to the game", so it is stepped on the
// board, one move at a time, rather than printed.
//
// Moves read in words (movewords.js), each from the position it was
// played in; the notation stays in each move's tooltip.  An arrow on the
// board shows the move that lost the game (on the position it was played
// from) and, on the winning line, the move that comes next.  The
// analysis folds away in a <details>, closed on a phone, below the board,
// so that opening it never pushes the board off the screen.
//
// The server refuses a replay of a live game and of a deal still secret
// (a daily before its reveal, a race game before the race ends): the
// screen then says why and shows no board.

import { MoveArrow } from "./arrow.js";
import { Board } from "./board.js";
import { h } from "./dom.js";
import { errorSentence } from "./errors.js";
import { GAMES } from "./games.js";
import { moveWords } from "./movewords.js";
import { actionLabel, analysisMarks, fetchReplay, replaySteps, scrub } from "./replaysteps.js";
import { NARROW_PX } from "./sizing.js";

const PLAY_STEP_MS = 700;
const MAX_LINE = 400; // protocol.to_server.MAX_REPLAY_LINE: a longer line is refused
const SCRUBBER = [
  ["first", "⇤", "First"], ["previous", "←", "Previous"], ["play", "▶", "Play"], ["next", "→", "Next"],
  ["last", "⇥", "Last"],
];

export class ReplayScreen {
  constructor(root, app, gameId) {
    this.app = app;
    this.gameId = gameId;
    this.game = null;
    this.steps = null;
    this.track = null;
    this.step = 0;
    this.marks = null;
    this.analysis = null;
    this.loading = null;
    this.boardNode = h("div", { id: "board", class: "board" });
    this.board = new Board(this.boardNode, () => {});
    this.heading = h("h1", {}, "Replay");
    this.who = h("p", { class: "who" });
    this.message = h("p", { class: "message", role: "status", "aria-live": "polite" });
    this.position = h("span", { class: "replay-position", id: "replay-position" });
    this.slider = h("input", { type: "range", min: "0", max: "0", value: "0", id: "replay-slider",
      "aria-label": "Step", oninput: () => this.show(Number(this.slider.value)) });
    this.buttons = Object.fromEntries(SCRUBBER.map(([name, icon, words]) => [name,
      h("button", { type: "button", class: "small", id: `replay-${name}`, "aria-label": words, title: words,
        onclick: () => (name === "play" ? this.togglePlay() : this.show(scrub(name, this.step, this.track.length))) },
      icon)]));
    this.words = h("p", { class: "replay-words", id: "replay-words", "aria-live": "polite" });
    this.markBody = h("div", { class: "replay-analysis-body" });
    this.mark = h("details", { class: "replay-analysis", id: "replay-analysis", hidden: true,
      open: window.innerWidth > NARROW_PX }, h("summary", {}, "Where did it go wrong?"), this.markBody);
    this.moves = h("ol", { class: "move-list", id: "move-list", start: "0", "aria-label": "Moves" });
    const wrap = h("div", { class: "board-wrap" }, this.boardNode);
    this.arrow = new MoveArrow(wrap, this.boardNode);
    this.keys = (event) => this.key(event);
    root.replaceChildren(h("section", { class: "game replay" },
      h("div", { class: "game-head" }, this.heading, this.who),
      h("div", { class: "scrubber", role: "group", "aria-label": "Replay controls" },
        Object.values(this.buttons), this.slider, this.position),
      this.words, this.message,
      h("div", { class: "replay-body" }, wrap, this.mark, this.moves),
      h("div", { class: "actions" }, h("button", { type: "button", onclick: () => app.toLobby() }, "Lobby"))));
    this.resized = () => this.render();
    window.addEventListener("resize", this.resized);
    document.addEventListener("keydown", this.keys);
  }

  destroy() {
    this.stop();
    window.removeEventListener("resize", this.resized);
    document.removeEventListener("keydown", this.keys);
  }

  gameScreenFor() {
    return null;
  }

  // Ask for the replay (every page) and then its analysis; once per screen
  // unless it failed (a reconnection asks again).
  load() {
    this.loading ??= this.fetch().catch((error) => {
      this.loading = null;
      if (error.code !== "offline") this.message.textContent = errorSentence(error);
    });
    return this.loading;
  }

  async fetch() {
    this.message.textContent = "Loading the replay…";
    const { start, result, steps } = await fetchReplay((message) => this.app.request(message), this.gameId);
    this.game = start;
    this.steps = steps;
    this.heading.textContent = `Replay: ${start.title}`;
    this.who.textContent = `${start.owner.name} · ${result} after ${steps.length - 1} steps`;
    this.message.textContent = "";
    this.useTrack(this.steps, this.steps.length - 1);
    if (result !== "won") await this.analyse();
  }

  page(fields) {
    return this.app.request({ type: "replay", game_id: this.gameId, ...fields });
  }

  async analyse() {
    this.mark.hidden = false;
    this.markBody.replaceChildren(h("p", {}, "Looking for where the game was lost…"));
    try {
      this.analysis = await this.app.request({ type: "analyse", game_id: this.gameId });
    } catch (error) {
      this.markBody.replaceChildren(h("p", {}, errorSentence(error)));
      return;
    }
    this.marks = analysisMarks(this.steps, this.analysis);
    this.renderMark();
    this.renderMoves();
  }

  // The position the losing move was played from (else the last winnable one).
  get losingFrom() {
    const { losingStep, winnableStep } = this.marks;
    return losingStep === null ? winnableStep : losingStep - 1;
  }

  renderMark() {
    const { sentence, winnableStep, losingStep } = this.marks;
    const solution = this.analysis.solution;
    const playable = winnableStep !== null && solution.length > 0;
    const onLine = this.track !== this.steps;
    const moves = `${solution.length} move${solution.length === 1 ? "" : "s"}`;
    this.markBody.replaceChildren(
      h("p", { id: "analysis-sentence" }, sentence),
      playable ? h("p", { id: "analysis-line" }, `From there a winning line of ${moves}: step through it on the board.`) : null,
      h("div", { class: "actions" },
        losingStep !== null ? h("button", { type: "button", id: "to-losing",
          onclick: () => this.backToGame(this.losingFrom) }, "Show the losing move")
          : winnableStep === null ? null : h("button", { type: "button", id: "to-winnable",
            onclick: () => this.backToGame(winnableStep) }, `Go to step ${winnableStep}`),
        playable && !onLine ? h("button", { type: "button", class: "primary", id: "play-winning-line",
          onclick: () => this.winningLine() }, "Step through the winning line") : null,
        onLine ? h("button", { type: "button", id: "back-to-game",
          onclick: () => this.backToGame(this.losingFrom) }, "Back to the game") : null));
  }

  // The server plays the winning line from the last winnable position;
  // the scrubber then steps through it instead of the game.
  async winningLine() {
    const from = this.steps[this.marks.winnableStep];
    try {
      const reply = await this.page({ from_seq: from.seq, line: this.analysis.solution.slice(0, MAX_LINE) });
      this.useTrack(replaySteps(reply.start, reply.diffs), 0);
    } catch (error) {
      this.message.textContent = errorSentence(error);
    }
    this.renderMark();
  }

  backToGame(step) {
    this.useTrack(this.steps, step);
    this.renderMark();
  }

  useTrack(track, step) {
    this.stop();
    this.track = track;
    this.step = step;
    this.slider.max = String(track.length - 1);
    this.renderMoves();
  }

  show(step) {
    this.step = step;
    this.render();
  }

  render() {
    if (!this.track) return;
    const at = this.track[this.step];
    const meta = GAMES[this.game.game];
    const narrow = this.boardNode.clientWidth < NARROW_PX;
    const layout = meta.layout(at.view, { narrow, leftHanded: this.app.settings.leftHanded });
    this.board.show({ view: at.view, layout, legal: null, interactive: false });
    this.slider.value = String(this.step);
    const onLine = this.track !== this.steps;
    this.position.textContent = `${onLine ? "Winning line, move" : "Step"} ${this.step} of ${this.track.length - 1}`;
    this.buttons.first.disabled = this.buttons.previous.disabled = this.step === 0;
    this.buttons.next.disabled = this.buttons.last.disabled = this.step === this.track.length - 1;
    for (const item of this.moves.children) {
      const current = Number(item.dataset.step) === this.step;
      item.classList.toggle("current", current);
      if (current) item.setAttribute("aria-current", "step");
      else item.removeAttribute("aria-current");
    }
    this.keepInList(this.moves.children[this.step]);
    this.words.textContent = this.stepWords(onLine);
    const action = at.action;
    if (action?.kind === "move") this.words.title = action.text;
    else this.words.removeAttribute("title");
    this.showArrow(onLine);
  }

  // The current move scrolls into the list's view, never the page's: on
  // a phone the list is under the board, and scrolling the page to it
  // would take the board off the screen at every step.
  keepInList(item) {
    if (!item) return;
    const list = this.moves;
    const bottom = item.offsetTop + item.offsetHeight;
    if (item.offsetTop < list.scrollTop) list.scrollTop = item.offsetTop;
    else if (bottom > list.scrollTop + list.clientHeight) list.scrollTop = bottom - list.clientHeight;
  }

  // What the shown step did, in words: the move that made this position.
  stepWords(onLine) {
    if (this.step === 0) return onLine ? "The last position the game could still be won from." : "The deal.";
    const words = this.label(this.step);
    return this.marks?.losingStep === this.step && !onLine ? `${words}: this move lost the game.` : `${words}.`;
  }

  label(step) {
    return actionLabel(this.track[step].action, this.track[step - 1].view);
  }

  // On the game, the losing move's arrow on the position it was played
  // from; on the winning line, the next move's.
  showArrow(onLine) {
    const at = this.track[this.step];
    if (onLine && this.step < this.track.length - 1) {
      const next = this.track[this.step + 1].action;
      this.arrow.show(at.view, next.text, `Next: ${moveWords(at.view, next.text)}`, "next");
    } else if (!onLine && this.marks && this.marks.losingStep !== null && this.step === this.losingFrom) {
      this.arrow.show(at.view, this.analysis.losing_move, `The move that lost the game: ${this.marks.losingWords}`, "losing");
    } else {
      this.arrow.clear();
    }
  }

  renderMoves() {
    const onLine = this.track !== this.steps;
    const marks = onLine ? null : this.marks;
    const first = onLine ? "Last winnable position" : actionLabel(null);
    this.moves.replaceChildren(...this.track.map((at, step) => {
      const winnable = marks?.winnableStep === step;
      const losing = marks?.losingStep === step;
      return h("li", { dataset: { step: String(step) }, class: [winnable ? "winnable" : "", losing ? "losing" : ""]
        .filter(Boolean).join(" ") || null },
      h("button", { type: "button", class: "link", title: at.action?.kind === "move" ? at.action.text : null,
        onclick: () => this.show(step) }, step ? this.label(step) : first),
      winnable ? h("span", { class: "mark" }, " still winnable") : null,
      losing ? h("span", { class: "mark" }, " lost it") : null);
    }));
    this.render();
  }

  togglePlay() {
    if (this.timer) {
      this.stop();
      return;
    }
    if (this.step === this.track.length - 1) this.show(0);
    this.buttons.play.textContent = "❚❚";
    this.buttons.play.setAttribute("aria-label", "Pause");
    this.timer = setInterval(() => {
      if (this.step >= this.track.length - 1) this.stop();
      else this.show(this.step + 1);
    }, PLAY_STEP_MS);
  }

  stop() {
    clearInterval(this.timer);
    this.timer = null;
    this.buttons.play.textContent = "▶";
    this.buttons.play.setAttribute("aria-label", "Play");
  }

  // Left and right arrows step, Home and End jump (outside text fields).
  key(event) {
    if (!this.track || event.target.closest?.("input, textarea, select")) return;
    const button = { ArrowLeft: "previous", ArrowRight: "next", Home: "first", End: "last" }[event.key];
    if (!button) return;
    event.preventDefault();
    this.show(scrub(button, this.step, this.track.length));
  }
}
