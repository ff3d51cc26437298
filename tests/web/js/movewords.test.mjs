// Moves in words, for every game (client/web/js/movewords.js).
import assert from "node:assert/strict";
import test from "node:test";

import { cardText, lineWords, moveWords, pileKinds } from "../../../client/web/js/movewords.js";

const EMPTY = { down: 0, up: [] };

function view(game, piles, extra = {}) {
  return { game, options: {}, piles, ...extra };
}

function klondike(piles, draw = 1) {
  const all = { s: EMPTY, w: EMPTY, fs: EMPTY, fh: EMPTY, fd: EMPTY, fc: EMPTY };
  for (let i = 1; i <= 7; i += 1) all[`t${i}`] = EMPTY;
  return view("klondike", { ...all, ...piles }, { options: { draw } });
}

test("a card is its face: rank and suit symbol, a half says which", () => {
  assert.equal(cardText("7C"), "7♣");
  assert.equal(cardText("TH"), "10♥");
  assert.equal(cardText("QSb"), "Q♠");
  assert.equal(cardText("QS<"), "left half of Q♠");
  assert.equal(cardText("KD>"), "right half of K♦");
});

test("WordLink: columns, the waste, the foundations and the stock in words", () => {
  const at = klondike({
    s: { down: 5, up: [] }, w: { down: 0, up: ["4D", "QS"] }, fd: { down: 0, up: ["7D"] },
    t2: { down: 2, up: ["7C"] }, t3: { down: 1, up: ["8D"] }, t4: { down: 0, up: ["KH", "QC", "JD", "TS"] },
    t5: { down: 3, up: ["8D", "7S", "6H"] }, t6: { down: 0, up: ["JC"] },
  });
  assert.equal(moveWords(at, "t2-t3"), "7♣ from column 2 onto 8♦");
  assert.equal(moveWords(at, "w-t7"), "Q♠ from the waste to empty column 7");
  assert.equal(moveWords(at, "t3-fd"), "8♦ from column 3 to the foundation");
  assert.equal(moveWords(at, "t5-t6x2"), "7♠ and the card on it from column 5 onto J♣");
  assert.equal(moveWords(at, "t4-t7x4"), "K♥ and the 3 cards on it from column 4 to empty column 7");
  assert.equal(moveWords(at, "fd-t1"), "7♦ from the diamonds foundation to empty column 1");
  assert.equal(moveWords(at, "draw"), "draw one");
});

test("WordLink's draw counts what the stock still holds and turns an empty stock over", () => {
  assert.equal(moveWords(klondike({ s: { down: 24, up: [] } }, 3), "draw"), "draw three");
  assert.equal(moveWords(klondike({ s: { down: 2, up: [] } }, 3), "draw"), "draw two");
  assert.equal(moveWords(klondike({ s: EMPTY, w: { down: 0, up: ["AS", "2S"] } }, 3), "draw"), "turn the stock over");
});

test("a face-down card is never named: the words say only how many cards move", () => {
  const hidden = klondike({ t2: { down: 3, up: ["7C"] }, t3: { down: 0, up: ["8D"] } });
  assert.equal(moveWords(hidden, "t2-t3x2"), "2 cards from column 2 onto 8♦");
  assert.doesNotMatch(moveWords(klondike({ s: { down: 3, up: [] } }), "draw"), /[♠♥♦♣]/);
});

function brokenDeck(piles) {
  const all = { r: EMPTY, fs: EMPTY, fh: EMPTY, fd: EMPTY, fc: EMPTY };
  for (let i = 1; i <= 4; i += 1) all[`c${i}`] = EMPTY;
  for (let i = 1; i <= 8; i += 1) all[`t${i}`] = EMPTY;
  return view("broken-deck", { ...all, ...piles }, { options: { difficulty: "standard" } });
}

test("Broken Deck: free cells, the Repair Slot and a repair", () => {
  const at = brokenDeck({
    t1: { down: 0, up: ["KD", "QS<"] }, t2: { down: 0, up: ["QS>"] }, t3: { down: 0, up: ["KH"] },
    c2: { down: 0, up: ["QC"] }, r: { down: 0, up: ["QS<"] }, fh: { down: 0, up: ["QH"] },
  });
  assert.equal(moveWords(at, "t1-c1"), "left half of Q♠ from column 1 to free cell 1");
  assert.equal(moveWords(at, "c2-t3"), "Q♣ from free cell 2 onto K♥");
  assert.equal(moveWords(at, "t3-fh"), "K♥ from column 3 to the foundation");
  assert.equal(moveWords(at, "t2-r"), "right half of Q♠ from column 2 to the Repair Slot, repairing Q♠");
  assert.equal(moveWords(at, "r-t5"), "left half of Q♠ from the Repair Slot to empty column 5");
  const waiting = brokenDeck({ t1: { down: 0, up: ["QS<"] } });
  assert.equal(moveWords(waiting, "t1-r"), "left half of Q♠ from column 1 to the Repair Slot");
});

function laras(piles, spread = 0) {
  const all = { s: EMPTY, r: EMPTY };
  for (const suit of "shdc") all[`u${suit}`] = all[`d${suit}`] = EMPTY;
  for (let i = 1; i <= 13; i += 1) all[`p${i}`] = EMPTY;
  return view("laras-game", { ...all, ...piles }, { spread });
}

test("Lara's Game: packs, the spread row and its places, up and down foundations", () => {
  const at = laras({
    s: { down: 30, up: [] }, p3: { down: 0, up: ["9C", "2H"] }, r: { down: 0, up: ["5H", "QSb", "7C"] },
    uh: { down: 0, up: ["AH"] }, ds: { down: 0, up: ["KS"] },
  }, 7);
  assert.equal(moveWords(at, "p3-uh"), "2♥ from the 3 pack to the up foundation");
  assert.equal(moveWords(at, "r2-ds"), "Q♠ from the spread row to the down foundation");
  assert.equal(moveWords(at, "r3-r1"), "7♣ from the spread row to place 1 in the spread row");
  assert.equal(moveWords(at, "r1-p5"), "5♥ from the spread row to the 5 pack");
  assert.equal(moveWords(at, "draw"), "turn a stock card and spread its pack");
});

function chequers(piles) {
  const all = { v: EMPTY };
  for (const suit of "shdc") all[`u${suit}`] = all[`d${suit}`] = EMPTY;
  for (let i = 1; i <= 25; i += 1) all[`t${i}`] = { down: 0, up: ["2C"] };
  return view("chequers", { ...all, ...piles });
}

test("Chequers: piles, the reserve and its refill, the eight foundations", () => {
  const at = chequers({
    t3: { down: 0, up: ["6H", "5H"] }, t5: { down: 0, up: ["6H"] }, t9: { down: 0, up: ["AD"] },
    v: { down: 2, up: ["9C"] }, t12: { down: 0, up: ["TC"] }, dh: { down: 0, up: ["KH"] },
  });
  assert.equal(moveWords(at, "t3-t5"), "5♥ from column 3 onto 6♥");
  assert.equal(moveWords(at, "t9-ud"), "A♦ from column 9 to the up foundation; the reserve refills it");
  assert.equal(moveWords(at, "v-t12"), "9♣ from the reserve onto 10♣");
  const late = chequers({ v: EMPTY, t4: EMPTY, t7: { down: 0, up: ["QH"] } });
  assert.equal(moveWords(late, "t7-dh"), "Q♥ from column 7 to the down foundation");
  assert.equal(moveWords(late, "t8-t4"), "2♣ from column 8 to empty column 4");
});

test("a game without a layout of its own names its piles by their codes", () => {
  const at = view("new-game", { a: { down: 0, up: ["3S"] }, b: { down: 0, up: ["4H"] } });
  assert.deepEqual([...pileKinds(at).keys()], ["a", "b"]);
  assert.equal(moveWords(at, "a-b"), "3♠ from a onto 4♥");
});

test("text that names no pile of the view comes back as it is", () => {
  const at = klondike({});
  assert.equal(moveWords(at, "t9-t1"), "t9-t1");
  assert.equal(moveWords(at, "t1-t2x0"), "t1-t2x0");
  assert.equal(moveWords(at, "shuffle"), "shuffle");
  assert.equal(moveWords({ game: "klondike", piles: {} }, "draw"), "draw");
  assert.equal(moveWords({ game: "klondike", piles: { w: { down: 0, up: ["KH"] }, t7: EMPTY } }, "w-t7"),
    "K♥ from the waste to empty column 7", "a view without its options");
  assert.equal(moveWords({ game: "klondike" }, "w-t7"), "w-t7");
});

test("a line is put in words move by move, each from the position before it", () => {
  const before = klondike({ w: { down: 0, up: ["KH"] }, s: { down: 1, up: [] } });
  const after = klondike({ t7: { down: 0, up: ["KH"] }, s: { down: 1, up: [] } });
  assert.deepEqual(lineWords([before, after], ["w-t7", "draw"]), ["K♥ from the waste to empty column 7", "draw one"]);
  assert.deepEqual(lineWords([before], ["w-t7", "draw"]), ["K♥ from the waste to empty column 7", "draw"]);
});
