// Move notation and the spoken pile names (client/web/js/notation.js).
import assert from "node:assert/strict";
import test from "node:test";

import { moveText, parseMove, pileName, pileWords, rowPlace } from "../../../client/web/js/notation.js";

test("a move's text parses into source, destination and count, and back", () => {
  assert.deepEqual(parseMove("t1-t4x3"), { src: "t1", dst: "t4", count: 3 });
  assert.deepEqual(parseMove("w-fs"), { src: "w", dst: "fs", count: 1 });
  assert.deepEqual(parseMove("draw"), { src: "draw", dst: null, count: 1 });
  assert.equal(moveText("t1", "t4", 3), "t1-t4x3");
  assert.equal(moveText("w", "fs", 1), "w-fs");
});

test("the spread row's places are r1, r2 … and nothing else is one", () => {
  assert.equal(rowPlace("r1"), 0);
  assert.equal(rowPlace("r13"), 12);
  assert.equal(rowPlace("r"), null);
  assert.equal(rowPlace("t1"), null);
  assert.equal(rowPlace(undefined), null);
});

test("piles are named in words, not codes", () => {
  assert.equal(pileName("fs", "foundation"), "spades foundation");
  assert.equal(pileName("fc", "foundation"), "clubs foundation");
  assert.equal(pileName("uh", "foundation"), "hearts foundation up");
  assert.equal(pileName("dd", "foundation"), "diamonds foundation down");
  assert.equal(pileName("t3", "tableau"), "column 3");
  assert.equal(pileName("c1", "cell"), "free cell 1");
  assert.equal(pileName("r", "repair"), "Repair Slot");
  assert.equal(pileName("r", "row"), "spread row");
  assert.equal(pileName("p1", "pack"), "Ace pack");
  assert.equal(pileName("p12", "pack"), "Queen pack");
  assert.equal(pileName("v", "reserve"), "reserve");
});

test("a pile with nothing to pick up says what it holds", () => {
  assert.equal(pileWords("s", "stock", { down: 23, up: [] }), "stock, 23 cards");
  assert.equal(pileWords("s", "stock", { down: 1, up: [] }), "stock, 1 card");
  assert.equal(pileWords("s", "stock", { down: 0, up: [] }), "stock, empty");
  assert.equal(pileWords("t3", "tableau", { down: 4, up: [] }), "column 3, 4 face-down cards");
  assert.equal(pileWords("fs", "foundation", { down: 0, up: [] }), "spades foundation, empty");
});
