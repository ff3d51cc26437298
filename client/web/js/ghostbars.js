// Ghost races beside your ranked daily attempt: pick a friend, a league
// mate or the day's leader who finished, and their attempt runs beside
// yours as a bar (cards home, actions, state) at the same time from its
// start as yours.  The server paces each ghost (`ghost`, then
// `ghost_update` when your clock reaches its next change), so the page
// never holds a ghost's future, and a ghost carries counts only: never a
// card, a pile or a move.  When the attempt ends, the bars stay as they
// stood and the result card gets the share text.
//
// Ghosts live on the connection: after a reconnection the page asks for
// each again (it resumes at your clock); a page that comes back to the
// game screen picks them up from their next update.

import { h } from "./dom.js";
import { errorSentence } from "./errors.js";
import { GAMES } from "./games.js";
import { dailyVariants, variantOfGame } from "./dailies.js";
import { dayBefore, shareBox } from "./share.js";
import { Fanout } from "./fanout.js";

const FINAL_STATUSES = new Set(["won", "resigned", "abandoned"]);
const STATE_WORDS = { playing: "playing", won: "won", lost: "lost", resigned: "resigned", abandoned: "abandoned" };
const shownBars = new Fanout({
  ghost_update: (bars, update) => bars.received(update),
  welcome: (bars) => bars.askAgain(),
});

// One bar per player: the server races a player once per attempt, so the
// day's leader asked for after the same friend is that friend's bar.
function ghostKey(ghost) {
  return ghost.player.player_id;
}

/**
 * One bar: a name, cards home out of the deal's cards, and the counts.
 * @param {{name: string, cardsHome: number, cards: number, actions: number, state: string, you?: boolean, key: string}} line
 * @returns {HTMLElement}
 */
function barRow(line) {
  const share = line.cards ? Math.min(1, line.cardsHome / line.cards) : 0;
  return h("li", { class: line.you ? "ghost-line you" : "ghost-line", dataset: { ghost: line.key, state: line.state } },
    h("span", { class: "ghost-name" }, line.name),
    h("span", { class: "progress", role: "progressbar", "aria-valuemin": "0", "aria-valuemax": String(line.cards),
      "aria-valuenow": String(line.cardsHome), "aria-label": `${line.name}: cards home` },
    h("span", { style: `width: ${(share * 100).toFixed(1)}%` })),
    h("span", { class: "ghost-counts" },
      `${line.cardsHome}/${line.cards} · ${line.actions} actions${line.state === "playing" ? "" : ` · ${STATE_WORDS[line.state] ?? line.state}`}`));
}

/** The ghost bars beside a ranked daily attempt (`GhostBars.forScreen`). */
export class GhostBars {
  /**
   * The ghost bars of a game screen, or null unless the game is your
   * ranked daily attempt (the snapshot's `ranked_daily`, so an attempt
   * started on another device has them too).
   * @param {object} app the page
   * @param {object} screen the game screen (its `extras` slot, its mirror)
   * @param {object} mirror the game's view, once its snapshot came
   * @returns {GhostBars|null}
   */
  static forScreen(app, screen, mirror) {
    if (!screen.mine || !mirror.rankedDaily) return null;
    return new GhostBars(app, screen);
  }

  constructor(app, screen) {
    this.app = app;
    this.screen = screen;
    this.gameId = screen.gameId;
    this.ghosts = new Map();
    this.candidates = [];
    this.ended = false;
    /** @type {HTMLElement | null} the share text's box, once the attempt has ended */
    this.shareBox = null;
    this.list = h("ul", { class: "ghost-bars", id: "ghost-bars", "aria-label": "You and your ghosts" });
    this.picker = h("div", { class: "ghost-picker" });
    this.node = h("section", { class: "ghosts", id: "ghosts", "aria-label": "Ghost race" }, this.picker, this.list);
    screen.extras.replaceChildren(this.node);
    shownBars.show(app.connection, this);
    this.ticker = setInterval(() => this.render(), 1000);
    this.loadCandidates();
    this.render();
  }

  destroy() {
    clearInterval(this.ticker);
    shownBars.hide(this);
  }

  // Friends from the friends list, league mates from your leagues, and
  // the day's leader: whom the server lets you race.
  async loadCandidates() {
    const me = this.app.playerId();
    const seen = new Set([me]);
    const people = [];
    const add = (player, group) => {
      if (seen.has(player.player_id)) return;
      seen.add(player.player_id);
      people.push({ id: player.player_id, name: player.name, group });
    };
    for (const friend of this.app.social.friends.filter((entry) => entry.state === "friend")) add(friend, "Friends");
    try {
      const { leagues } = await this.app.request({ type: "leagues" });
      for (const league of leagues) for (const member of league.members) add(member.player, league.name);
    } catch (error) {
      if (error.code !== "offline") this.app.toast(errorSentence(error));
    }
    this.candidates = people;
    this.renderPicker();
  }

  get mirror() {
    return this.screen.mirror;
  }

  async race(choice) {
    const request = { type: "race_ghost", game_id: this.gameId };
    if (choice === "leader") request.leader = true;
    else request.player_id = choice;
    try {
      const reply = await this.app.request(request);
      this.ghosts.set(ghostKey(reply.ghost), reply.ghost);
      this.render();
    } catch (error) {
      this.app.toast(errorSentence(error));
    }
  }

  received(update) {
    if (update.game_id !== this.gameId) return;
    this.ghosts.set(ghostKey(update.ghost), update.ghost);
    this.render();
  }

  askAgain() {
    if (this.ended || !this.node.isConnected) return;
    for (const [key, ghost] of this.ghosts) if (ghost.state === "playing") this.race(ghost.leader ? "leader" : key);
  }

  renderPicker() {
    if (this.ended) return;
    const select = h("select", { id: "ghost-choice", "aria-label": "Whose ghost to race" },
      h("option", { value: "leader" }, "Today's leader"),
      [...new Set(this.candidates.map((person) => person.group))].map((group) => h("optgroup", { label: group },
        this.candidates.filter((person) => person.group === group).map((person) => h("option", { value: person.id }, person.name)))));
    this.picker.replaceChildren(h("form", { class: "options", onsubmit: (event) => {
      event.preventDefault();
      this.race(select.value);
    } }, h("label", { class: "choice" }, "Race a ghost", select), h("button", { type: "submit", id: "race-ghost" }, "Race")));
  }

  // The attempt ended: no more choosing, and the share text once the
  // day's variants are known (placeShare).
  finished() {
    this.ended = true;
    this.picker.replaceChildren();
    const mirror = this.mirror;
    dailyVariants((message) => this.app.request(message)).then(({ today, variants }) => {
      const variant = variantOfGame(variants, mirror.game, mirror.view.options);
      if (!variant) return;
      const daily = { game: variant.game, variant: variant.variant, dates: [today, dayBefore(today)] };
      this.shareBox = shareBox(this.app, daily, "result-share");
      this.placeShare();
    }, () => {});
  }

  // The share text goes on the result card (which would cover it anywhere
  // else on a phone), above its buttons, or here while the screen shows no
  // result card.  The game's end and the day's variants (often known
  // already) come in either order, so a card shown after the text was
  // placed takes it then (main.js calls this after the screen's gameOver).
  placeShare() {
    const box = this.shareBox;
    if (!box) return;
    const card = this.screen.result;
    const shown = card && !card.hidden;
    const buttons = shown ? card.querySelector(".actions") : null;
    if (buttons) {
      if (box.nextElementSibling !== buttons) buttons.before(box);
    } else if (shown) {
      if (box.parentNode !== card) card.append(box);
    } else if (box.parentNode !== this.picker) {
      this.picker.replaceChildren(box);
    }
  }

  render() {
    const mirror = this.mirror;
    if (!mirror) return;
    if (!this.ended && (this.screen.over || FINAL_STATUSES.has(mirror.status))) this.finished();
    const cards = GAMES[mirror.game]?.cards ?? 52;
    const own = { key: "you", name: "You", you: true, cardsHome: mirror.counters.foundation ?? 0, cards,
      actions: mirror.seq, state: mirror.status };
    const ghosts = [...this.ghosts.entries()].map(([key, ghost]) => ({ key,
      name: ghost.leader ? `${ghost.player.name} (leader)` : ghost.player.name,
      cardsHome: ghost.cards_home, cards, actions: ghost.actions, state: ghost.state }));
    this.list.hidden = ghosts.length === 0;
    this.list.replaceChildren(...[own, ...ghosts].map(barRow));
  }
}
