// The four games' layouts, the generic layout, and the counters a catalogue
// entry declares (client/web/js/games.js).
import assert from "node:assert/strict";
import test from "node:test";

import { GAMES, LAYOUTS, describeOptions, genericLayout, setCatalogue, withoutAutomatic } from "../../../client/web/js/games.js";

// A catalogue entry as the server sends it (docs/protocol.md, `catalogue`).
function entry(game, fields = {}) {
  return {
    game, title: game, blurb: "", cards: 52, first_deal: 1, last_deal: null, deal_kinds: ["random"],
    choose_random_deal: false, options: [], changeable: [], counters: [], daily_variants: 0, ...fields,
  };
}

function pilesOf(layout) {
  return layout.sections.flatMap((section) => section.slots.map((slot) => slot.pile));
}

test("WordLink lays out stock, waste, four foundations and seven columns; left-handed mirrors the top row", () => {
  const view = { options: { draw: 1 }, piles: {} };
  const right = LAYOUTS.klondike.layout(view, { leftHanded: false });
  assert.equal(right.cols, 7);
  assert.deepEqual(pilesOf(right), ["fs", "fh", "fd", "fc", "w", "s", "t1", "t2", "t3", "t4", "t5", "t6", "t7"]);
  const left = LAYOUTS.klondike.layout(view, { leftHanded: true });
  assert.deepEqual(pilesOf(left).slice(0, 6), ["s", "w", "fs", "fh", "fd", "fc"]);
});

test("every game's layout names each slot once", () => {
  const view = { options: { draw: 3 }, piles: {}, spread: 2 };
  for (const [id, game] of Object.entries(LAYOUTS)) {
    for (const narrow of [false, true]) {
      const piles = pilesOf(game.layout(view, { narrow, leftHanded: false }));
      assert.equal(new Set(piles).size, piles.length, `${id} narrow=${narrow}`);
    }
  }
});

test("Chequers shows its 25 piles and eight foundations", () => {
  const piles = pilesOf(LAYOUTS.chequers.layout({ options: {}, piles: {} }, { narrow: true }));
  assert.equal(piles.filter((pile) => /^t\d+$/.test(pile)).length, 25);
  assert.equal(piles.filter((pile) => /^[ud][shdc]$/.test(pile)).length, 8);
});

test("the board's counters are the catalogue's: cards home, the game's own counters, the changeable options", () => {
  setCatalogue([entry("broken-deck", {
    counters: [{ name: "repairs", label: "Repairs", out_of: 6 }, { name: "left", label: "Left", out_of: null }],
    options: [{ name: "difficulty", label: "Difficulty", toggle: false, choices: [{ value: "relaxed", label: "Relaxed" }] }],
    changeable: ["difficulty"],
  })]);
  const mirror = { view: { options: { difficulty: "relaxed" } }, counters: { foundation: 3, repairs: 2, left: 9 } };
  assert.deepEqual(GAMES["broken-deck"].stats(mirror),
    [["Foundation", "3/52"], ["Repairs", "2/6"], ["Left", 9], ["Difficulty", "Relaxed"]]);
  assert.deepEqual(GAMES["broken-deck"].lobbyOptions[0].choices, [["relaxed", "Relaxed"]]);
  assert.equal(GAMES["broken-deck"].layout, LAYOUTS["broken-deck"].layout);
});

test("a new catalogue replaces the last, and a game without a layout of its own gets the generic one", () => {
  setCatalogue([entry("broken-deck")]);
  setCatalogue([entry("toy", { cards: 13, last_deal: 1000 })]);
  assert.deepEqual(Object.keys(GAMES), ["toy"]);
  assert.equal(GAMES.toy.layout, genericLayout);
  assert.equal(GAMES.toy.lastDeal, 1000);
  const view = { options: {}, piles: { s: { down: 3, up: [] }, t1: { down: 0, up: ["AS"] }, f: { down: 0, up: [] } } };
  const layout = GAMES.toy.layout(view, { narrow: false });
  assert.deepEqual(pilesOf(layout), ["s", "t1", "f"]);
  assert.equal(layout.sections[0].slots[2].kind, "foundation");
});

test("options read as words, without the ones switched off", () => {
  assert.equal(describeOptions({ draw: 3, auto_collect: true, practice: false }), "draw 3, auto collect");
  assert.equal(describeOptions(null), "");
});

test("a daily attempt or a race sends the options that move cards by themselves off, whatever the settings", () => {
  setCatalogue([entry("klondike", { automatic: ["auto_collect"] }), entry("chequers")]);
  const chosen = { draw: 3, auto_collect: true };
  assert.deepEqual(withoutAutomatic(GAMES.klondike, chosen), { draw: 3, auto_collect: false });
  assert.deepEqual(chosen, { draw: 3, auto_collect: true }, "the player's own choice stays for casual games");
  assert.deepEqual(withoutAutomatic(GAMES.chequers, { draw: 1 }), { draw: 1 }, "a catalogue without the field");
});
