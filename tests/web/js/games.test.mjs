// The four games' layouts and counters (client/web/js/games.js).
import assert from "node:assert/strict";
import test from "node:test";

import { GAMES, describeOptions } from "../../../client/web/js/games.js";

function pilesOf(layout) {
  return layout.sections.flatMap((section) => section.slots.map((slot) => slot.pile));
}

test("WordLink lays out stock, waste, four foundations and seven columns; left-handed mirrors the top row", () => {
  const view = { options: { draw: 1 }, piles: {} };
  const right = GAMES.klondike.layout(view, { leftHanded: false });
  assert.equal(right.cols, 7);
  assert.deepEqual(pilesOf(right), ["fs", "fh", "fd", "fc", "w", "s", "t1", "t2", "t3", "t4", "t5", "t6", "t7"]);
  const left = GAMES.klondike.layout(view, { leftHanded: true });
  assert.deepEqual(pilesOf(left).slice(0, 6), ["s", "w", "fs", "fh", "fd", "fc"]);
});

test("every game's layout names each slot once", () => {
  const view = { options: { draw: 3 }, piles: {}, spread: 2 };
  for (const [id, game] of Object.entries(GAMES)) {
    for (const narrow of [false, true]) {
      const piles = pilesOf(game.layout(view, { narrow, leftHanded: false }));
      assert.equal(new Set(piles).size, piles.length, `${id} narrow=${narrow}`);
    }
  }
});

test("Chequers shows its 25 piles and eight foundations", () => {
  const piles = pilesOf(GAMES.chequers.layout({ options: {}, piles: {} }, { narrow: true }));
  assert.equal(piles.filter((pile) => /^t\d+$/.test(pile)).length, 25);
  assert.equal(piles.filter((pile) => /^[ud][shdc]$/.test(pile)).length, 8);
});

test("WordLink counts the cards on its foundations", () => {
  const view = { options: {}, piles: { fs: { down: 0, up: ["AS", "2S"] }, fh: { down: 0, up: ["AH"] } } };
  assert.deepEqual(GAMES.klondike.stats({ view, counters: {} }), [["Foundation", "3/52"]]);
});

test("options read as words, without the ones switched off", () => {
  assert.equal(describeOptions({ draw: 3, auto_collect: true, practice: false }), "draw 3, auto collect");
  assert.equal(describeOptions(null), "");
});
