// The result card's analysis sentence and the arrow's ends
// (client/web/js/analysis.js, client/web/js/arrow.js).
import assert from "node:assert/strict";
import test from "node:test";

import { analysisInWords, analysisSummary } from "../../../client/web/js/analysis.js";
import { arrowEnds } from "../../../client/web/js/arrow.js";

const LOST = { verdict: "lost_at", line: ["w-t2"], last_winnable: 0, losing_move: "w-t2", certain: true,
  solution: ["draw", "w-t1"] };

const START = {
  seq: 0, status: "playing", counters: { moves: 0 }, score: 0, title: "WordLink", owner: { name: "Ann" },
  view: { game: "klondike", options: { draw: 1 },
    piles: { s: { down: 1, up: [] }, w: { down: 0, up: ["KH"] }, t1: { down: 0, up: ["2C"] }, t2: { down: 0, up: [] } } },
};
const DIFFS = [
  { seq: 1, action: { kind: "move", text: "w-t2" }, status: "playing", counters: { moves: 1 }, score: 0,
    ops: [{ op: "pile", pile: "w", keep: 0, down: 0, add: [] }, { op: "pile", pile: "t2", keep: 0, down: 0, add: ["KH"] }] },
  { seq: 2, action: { kind: "resign", text: "" }, status: "resigned", counters: { moves: 1 }, score: 0, ops: [] },
];

test("the result card says the losing move in words and never prints the winning line", () => {
  const sentence = analysisSummary(LOST, "K♥ from the waste to empty column 2");
  assert.equal(sentence, "Move 1, K♥ from the waste to empty column 2, lost it. "
    + "Replay shows it on the board and steps through a winning line.");
  assert.doesNotMatch(sentence, /w-t1|draw/);
  assert.match(analysisSummary({ ...LOST, certain: false }, null), /^Move 1 lost it \(at the latest\)\./);
  assert.equal(analysisSummary({ verdict: "never_shown_winnable", certain: true }, null),
    "This deal could not be won from the start.");
  assert.match(analysisSummary({ verdict: "still_winnable", solution: ["draw"] }, null), /^It could still be won/);
});

test("the losing move's words come from the replay's position, page by page", async () => {
  const asked = [];
  const request = async (message) => {
    asked.push(message.from_seq ?? 0);
    const from = message.from_seq ?? 0;
    return { type: "replay", result: "resigned", last_seq: 2, start: START, diffs: DIFFS.slice(from, from + 1) };
  };
  const sentence = await analysisInWords(request, "g1", LOST);
  assert.deepEqual(asked, [0, 1], "the second page starts where the first ended");
  assert.match(sentence, /^Move 1, K♥ from the waste to empty column 2, lost it\./);
});

test("a replay that cannot be had leaves the move's number alone", async () => {
  const request = async () => {
    throw Object.assign(new Error("busy"), { code: "rate_limited" });
  };
  assert.match(await analysisInWords(request, "g1", LOST), /^Move 1 lost it\./);
  assert.equal(await analysisInWords(request, "g1", { verdict: "won" }), "This game was won.");
});

test("an arrow joins the moved card's place to the target's top", () => {
  const view = START.view;
  assert.deepEqual(arrowEnds(view, "w-t2"), { src: "w", srcIndex: 0, dst: "t2", dstIndex: null });
  assert.deepEqual(arrowEnds(view, "w-t1"), { src: "w", srcIndex: 0, dst: "t1", dstIndex: 0 });
  assert.deepEqual(arrowEnds(view, "draw"), { src: "s", srcIndex: null, dst: "w", dstIndex: null });
  const row = { piles: { s: { down: 3, up: [] }, r: { down: 0, up: ["5H", "6H", "7H"] }, uh: { down: 0, up: [] } } };
  assert.deepEqual(arrowEnds(row, "r3-r1"), { src: "r", srcIndex: 2, dst: "r", dstIndex: 0 });
  assert.deepEqual(arrowEnds(row, "r2-uh"), { src: "r", srcIndex: 1, dst: "uh", dstIndex: null });
  assert.deepEqual(arrowEnds(row, "draw"), { src: "s", srcIndex: null, dst: "r", dstIndex: null });
  assert.equal(arrowEnds(view, "t9-t1"), null, "a pile the view has not: no arrow");
  assert.equal(arrowEnds({ piles: {} }, "draw"), null);
});
