// The friends' board of a daily variant: you and your friends today,
// beside the lobby's global leaderboard (and on a shared daily's page).
// It watches the board (`friends_board` with `watch`), so a friend's
// start, progress and finish show at once; the server watches one board
// per connection, so the board read last is the one kept live (the
// lobby's, or a shared daily's page), read again with its screen after a
// reconnection.  A finish reads the board again, since places depend on
// who is asking.

import { h } from "./dom.js";
import { errorSentence } from "./errors.js";
import { dailyVariants } from "./dailies.js";
import { mergeRow, rowWords } from "./boardrows.js";
import { Fanout } from "./fanout.js";

const LEADERBOARD_CHOICE_KEY = "arena.leaderboard";
const CHOICE_KEY = "arena.friendsboard";
// Every board shown hears each update; the one showing its variant and day keeps it.
const shownBoards = new Fanout({ friends_board_update: (board, update) => board.updated(update) });

/**
 * A "Friends today" board, choosing its variant (the lobby's) or fixed
 * to one daily (`fixed`: game, variant, date).
 */
export class FriendsBoard {
  constructor(app, { fixed = null, id = "friends-board" } = {}) {
    this.app = app;
    this.fixed = fixed;
    this.id = id;
    this.variants = null;
    this.key = fixed ? `${fixed.game}/${fixed.variant}` : localStorage.getItem(CHOICE_KEY) ?? localStorage.getItem(LEADERBOARD_CHOICE_KEY);
    this.board = null;
    this.problem = null;
    this.node = h("section", { class: "panel friends-board", id, "aria-labelledby": `${id}-title` });
    shownBoards.show(app.connection, this);
    this.render();
  }

  destroy() {
    shownBoards.hide(this);
  }

  chosen() {
    return this.variants?.find((variant) => variant.key === this.key) ?? this.variants?.[0] ?? null;
  }

  // Read the board (and watch it); never throws.
  async refresh() {
    try {
      this.variants ??= (await dailyVariants((message) => this.app.request(message))).variants;
      const chosen = this.chosen();
      if (!chosen) return;
      const request = { type: "friends_board", game: chosen.game, options: chosen.options, watch: true };
      if (this.fixed?.date) request.date = this.fixed.date;
      this.board = await this.app.request(request);
      this.problem = null;
    } catch (error) {
      if (error.code !== "offline") this.problem = errorSentence(error);
    } finally {
      this.render();
    }
  }

  updated(update) {
    const board = this.board;
    if (!board || update.game !== board.game || update.variant !== board.variant || update.date !== board.date) return;
    const { rows, reread } = mergeRow(board.rows, update.row);
    this.board = { ...board, rows };
    this.render();
    // Off screen (the lobby's board during a game) it is read again when shown.
    if (reread && this.node.isConnected) this.refresh();
  }

  choose(key) {
    this.key = key;
    localStorage.setItem(CHOICE_KEY, key);
    this.board = null;
    this.refresh();
  }

  render() {
    const chosen = this.chosen();
    const select = this.fixed ? null : h("select", { id: `${this.id}-variant`, "aria-label": "Game and variant",
      onchange: (event) => this.choose(event.target.value) },
    (this.variants ?? []).map((variant) => h("option", { value: variant.key }, variant.label)));
    if (select && chosen) select.value = chosen.key;
    this.node.replaceChildren(
      h("h2", { id: `${this.id}-title` }, "Friends today"),
      select ? h("div", { class: "options" }, select) : null,
      this.problem ? h("p", { class: "note", role: "alert" }, this.problem) : this.table());
  }

  table() {
    const board = this.board;
    if (board === null) return h("p", { class: "note" }, "Loading your friends' board…");
    if (board.rows.length < 2) {
      return h("p", { class: "note" }, "Add friends (Friends, above) to see how they do on the daily beside you.");
    }
    return boardTable(`${this.id}-table`, `${board.title} · ${board.date} (UTC)`, board.rows);
  }
}

/**
 * A board's rows as a table (the friends' board, a league's board).
 * @param {string} id the table's element id
 * @param {string} caption what the board is
 * @param {object[]} rows the rows, in order
 * @returns {HTMLElement}
 */
export function boardTable(id, caption, rows) {
  return h("table", { class: "racers ranking social-board", id },
    h("caption", {}, caption),
    h("thead", {}, h("tr", {}, ["#", "Player", "Today", ""].map((label) => h("th", { scope: "col" }, label)))),
    h("tbody", {}, rows.map((row) => {
      const words = rowWords(row);
      return h("tr", { class: row.me ? "me" : null, dataset: { player: row.player.player_id, state: row.state } },
        h("td", {}, words.place),
        h("th", { scope: "row" }, row.player.name),
        h("td", {}, words.state),
        h("td", { class: "detail" }, words.detail));
    })));
}
