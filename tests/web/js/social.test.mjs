// The friends' board rows, the daily variants, the share text and the
// stats screen's first variant (client/web/js/boardrows.js, dailies.js,
// share.js, stats.js).
import assert from "node:assert/strict";
import test from "node:test";

import { mergeRow, rowWords } from "../../../client/web/js/boardrows.js";
import { variantOfGame, variantsOf } from "../../../client/web/js/dailies.js";
import { absoluteShare, dayBefore } from "../../../client/web/js/share.js";
import { firstVariant } from "../../../client/web/js/stats.js";

const row = (id, fields) => ({ player: { player_id: id, name: id }, me: false, state: "not_started", result: null, place: null,
  time_ms: null, actions: null, cards_home: null, counters: {}, ...fields });

const BOARD = [
  row("bob", { state: "finished", result: "won", place: 1, time_ms: 301250, actions: 128, cards_home: 52 }),
  row("ann", { me: true, state: "playing", time_ms: 95000, actions: 41, cards_home: 9 }),
  row("cat", {}),
];

test("a progress update replaces its row in place and keeps who is me", () => {
  const update = row("ann", { state: "playing", time_ms: 99000, actions: 45, cards_home: 12 });
  const { rows, reread } = mergeRow(BOARD, update);
  assert.equal(reread, false);
  assert.deepEqual(rows.map((known) => known.player.player_id), ["bob", "ann", "cat"]);
  assert.equal(rows[1].me, true);
  assert.equal(rows[1].cards_home, 12);
});

test("a start moves a row up among those playing, most cards home first", () => {
  const { rows } = mergeRow(BOARD, row("cat", { state: "playing", time_ms: 1000, actions: 1, cards_home: 20 }));
  assert.deepEqual(rows.map((known) => known.player.player_id), ["bob", "cat", "ann"]);
});

test("a finish asks for the board again, since places depend on who reads it", () => {
  const { rows, reread } = mergeRow(BOARD, row("cat", { state: "finished", result: "resigned", time_ms: 5000, actions: 3, cards_home: 0 }));
  assert.equal(reread, true);
  assert.deepEqual(rows.map((known) => known.player.player_id), ["bob", "ann", "cat"]);
  const unknown = mergeRow(BOARD, row("dan", { state: "playing", cards_home: 1, actions: 1, time_ms: 1 }));
  assert.equal(unknown.reread, true, "a row the board does not have yet (a new friend) reads it again");
  assert.equal(unknown.rows, BOARD);
});

test("rows in words: counts only", () => {
  assert.deepEqual(rowWords(BOARD[0]), { place: "1", state: "Won", detail: "5:01.2 · 128 actions" });
  assert.deepEqual(rowWords(BOARD[1]), { place: "", state: "Playing", detail: "9 cards home · 41 actions · 1:35 so far" });
  assert.deepEqual(rowWords(BOARD[2]), { place: "", state: "Not started", detail: "" });
});

const INFO = {
  today: "2026-12-02",
  deals: [
    { game: "klondike", title: "WordLink", variant: "draw=1,scoring=standard", options: { draw: 1 } },
    { game: "klondike", title: "WordLink", variant: "draw=3,scoring=standard", options: { draw: 3 } },
  ],
  pending: [{ game: "broken-deck", title: "Broken Deck", variant: "difficulty=relaxed", options: { difficulty: "relaxed" } }],
};

test("the daily variants, pending ones too, and the one a game's options play", () => {
  const variants = variantsOf(INFO);
  assert.deepEqual(variants.map((variant) => variant.key),
    ["klondike/draw=1,scoring=standard", "klondike/draw=3,scoring=standard", "broken-deck/difficulty=relaxed"]);
  assert.equal(variants[1].label, "WordLink · draw 3");
  const game = { draw: 3, scoring: "standard", auto_collect: false };
  assert.equal(variantOfGame(variants, "klondike", game).variant, "draw=3,scoring=standard");
  assert.equal(variantOfGame(variants, "chequers", {}), null);
});

test("the share text's link is made absolute to the page's address", () => {
  const share = { link: "/#daily=klondike/draw=1,scoring=standard/2026-12-01",
    text: "Solitaire Arena daily · WordLink draw=1,scoring=standard · 2026-12-01\nWon in 2:51, 131 actions · streak 8\n/#daily=klondike/draw=1,scoring=standard/2026-12-01" };
  const shared = absoluteShare(share, "https://arena.example");
  assert.equal(shared.url, "https://arena.example/#daily=klondike/draw=1,scoring=standard/2026-12-01");
  assert.equal(shared.text.split("\n")[2], shared.url);
  assert.equal(shared.text.split("\n")[1], "Won in 2:51, 131 actions · streak 8");
});

test("the stats screen opens on the remembered variant, else the one played last", () => {
  const stats = (game, variant, dates) => ({ game, variant, history: dates.map((date) => ({ date })) });
  const variants = [stats("klondike", "a", ["2026-11-01"]), stats("klondike", "b", ["2026-11-30"]), stats("chequers", "c", [])];
  assert.equal(firstVariant(variants, null), "klondike/b");
  assert.equal(firstVariant(variants, "chequers/c"), "chequers/c");
  assert.equal(firstVariant(variants, "gone/x"), "klondike/b");
  assert.equal(firstVariant([stats("chequers", "c", [])], null), "chequers/c");
  assert.equal(firstVariant([], null), null);
});

test("the day before, across a month and a year", () => {
  assert.equal(dayBefore("2026-12-01"), "2026-11-30");
  assert.equal(dayBefore("2027-01-01"), "2026-12-31");
  assert.equal(dayBefore("2028-03-01"), "2028-02-29");
});
