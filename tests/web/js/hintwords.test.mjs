// A hint's sentence (client/web/js/hintwords.js).
import assert from "node:assert/strict";
import test from "node:test";

import { hintSentence } from "../../../client/web/js/hintwords.js";

const VIEW = {
  game: "klondike", options: { draw: 1 },
  piles: { s: { down: 3, up: [] }, w: { down: 0, up: [] }, t1: { down: 1, up: ["KS"] }, t2: { down: 0, up: [] } },
};

test("no move is the sentence the player knows", () => {
  assert.equal(hintSentence(VIEW, { move: null, confidence: null }), "No useful move found.");
});

test("the move is in words, with the share of the deals tried it wins", () => {
  assert.equal(hintSentence(VIEW, { move: "t1-t2", confidence: 0.75 }),
    "Hint: K♠ from column 1 to empty column 2. It wins in 75% of the deals of the hidden cards tried.");
});

test("every deal won, none won, and a server that sends no confidence", () => {
  assert.match(hintSentence(VIEW, { move: "draw", confidence: 1 }), /^Hint: .*\. It wins in every deal/);
  assert.match(hintSentence(VIEW, { move: "draw", confidence: 0 }), /No win found yet: it leads to a card not seen yet\.$/);
  assert.equal(hintSentence(VIEW, { move: "draw" }), hintSentence(VIEW, { move: "draw", confidence: null }));
  assert.doesNotMatch(hintSentence(VIEW, { move: "draw" }), /win/);
});
