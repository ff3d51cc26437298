// A replay's positions, move list and analysis marks (client/web/js/replaysteps.js).
import assert from "node:assert/strict";
import test from "node:test";

import { actionLabel, analysisMarks, playedLines, replaySteps, scrub } from "../../../client/web/js/replaysteps.js";

const START = {
  seq: 0, status: "playing", counters: { moves: 0 }, score: 0,
  view: { game: "klondike", options: { draw: 1 },
    piles: { s: { down: 3, up: [] }, w: { down: 0, up: [] }, t1: { down: 1, up: ["KS"] }, t2: { down: 0, up: [] } } },
};

function diff(seq, kind, text, ops, status = "playing") {
  return { seq, action: { kind, text }, ops, status, counters: { moves: seq }, score: 0 };
}

const DRAW = (left, waste) => [{ op: "pile", pile: "s", keep: 0, down: left, add: [] },
  { op: "pile", pile: "w", keep: 0, down: 0, add: waste }];

// draw, draw, undo, draw (the same card again), draw, resign.
const DIFFS = [
  diff(1, "move", "draw", DRAW(2, ["AC"])),
  diff(2, "move", "draw", DRAW(1, ["AC", "2C"])),
  diff(3, "undo", "", DRAW(2, ["AC"])),
  diff(4, "redo", "", DRAW(1, ["AC", "2C"])),
  diff(5, "move", "draw", DRAW(0, ["AC", "2C", "3C"])),
  diff(6, "resign", "", [], "resigned"),
];

test("the steps are the deal, then each diff applied to the step before", () => {
  const steps = replaySteps(START, DIFFS);
  assert.equal(steps.length, 7);
  assert.equal(steps[0].action, null);
  assert.deepEqual(steps[2].view.piles.w.up, ["AC", "2C"]);
  assert.deepEqual(steps[3].view.piles.w.up, ["AC"]);
  assert.deepEqual(steps[5].view.piles.s, { down: 0, up: [] });
  assert.equal(steps[6].status, "resigned");
  assert.deepEqual(START.view.piles.w.up, [], "the first view is not changed in place");
});

test("a replay that skips a seq is refused rather than shown wrong", () => {
  assert.throws(() => replaySteps(START, [DIFFS[0], DIFFS[2]]), /skips from 1 to 3/);
});

test("the played line after each step leaves out undone moves and starts again at a restart", () => {
  const lines = playedLines([
    { kind: "move", text: "a" }, { kind: "move", text: "b" }, { kind: "undo", text: "" },
    { kind: "hint", text: "x" }, { kind: "redo", text: "" }, { kind: "restart", text: "" }, { kind: "move", text: "c" },
  ]);
  assert.deepEqual(lines, [[], ["a"], ["a", "b"], ["a"], ["a"], ["a", "b"], [], ["c"]]);
});

test("lost_at marks the last step at the winnable position and the step of the losing move", () => {
  const steps = replaySteps(START, DIFFS);
  const analysis = { verdict: "lost_at", line: ["draw", "draw", "draw"], last_winnable: 1, losing_move: "draw",
    certain: true, solution: ["w-t1"] };
  const marks = analysisMarks(steps, analysis);
  assert.equal(marks.winnableStep, 3, "the undo at step 3 is the last time the line was one draw");
  assert.equal(marks.losingStep, 4, "and the redo played the losing draw again");
  assert.equal(marks.losingWords, "draw one");
  assert.equal(marks.sentence, "Still winnable until move 1 (step 3); move 2, draw one, lost it.");
});

test("an undo back to the winnable position moves the mark to the later step", () => {
  const steps = replaySteps(START, DIFFS);
  const analysis = { verdict: "lost_at", line: ["draw", "draw", "draw"], last_winnable: 2, losing_move: "draw",
    certain: false, solution: [] };
  const marks = analysisMarks(steps, analysis);
  assert.equal(marks.winnableStep, 4, "the redo at step 4 is the last time the line was two draws");
  assert.equal(marks.losingStep, 5);
  assert.match(marks.sentence, /until move 2 \(step 4\), at least; move 3, draw one, lost it\.$/);
});

test("still_winnable marks the last position before the resignation", () => {
  const steps = replaySteps(START, DIFFS);
  const analysis = { verdict: "still_winnable", line: ["draw", "draw", "draw"], last_winnable: 3, losing_move: null,
    certain: true, solution: ["w-t1"] };
  const marks = analysisMarks(steps, analysis);
  assert.equal(marks.winnableStep, 5);
  assert.equal(marks.losingStep, null);
  assert.equal(marks.losingWords, null);
  assert.equal(marks.sentence, "Still winnable at the end (move 3).");
});

test("a won game and a deal never shown winnable mark no step", () => {
  const steps = replaySteps(START, DIFFS);
  for (const verdict of ["won", "never_shown_winnable"]) {
    const marks = analysisMarks(steps, { verdict, line: [], last_winnable: null, losing_move: null, certain: false,
      solution: [] });
    assert.equal(marks.winnableStep, null, verdict);
    assert.equal(marks.losingStep, null, verdict);
  }
});

test("a losing move is put in words from the position it was played in", () => {
  const steps = replaySteps(START, [diff(1, "move", "t1-t2", [{ op: "pile", pile: "t1", keep: 0, down: 0, add: [] },
    { op: "pile", pile: "t2", keep: 0, down: 0, add: ["KS"] }]), diff(2, "resign", "", [], "resigned")]);
  const marks = analysisMarks(steps, { verdict: "lost_at", line: ["t1-t2"], last_winnable: 0, losing_move: "t1-t2",
    certain: true, solution: ["draw"] });
  assert.equal(marks.winnableStep, 0);
  assert.equal(marks.losingStep, 1);
  assert.equal(marks.sentence, "Still winnable until move 0 (step 0); move 1, K♠ from column 1 to empty column 2, lost it.");
});

test("the move list names moves in words from the position before them, other actions in words too", () => {
  assert.equal(actionLabel(null), "Deal");
  assert.equal(actionLabel({ kind: "move", text: "t1-t2" }, START.view), "K♠ from column 1 to empty column 2");
  assert.equal(actionLabel({ kind: "move", text: "t3-fh" }), "t3-fh", "with no position, the notation");
  assert.equal(actionLabel({ kind: "undo", text: "" }), "Undo");
  assert.equal(actionLabel({ kind: "resign", text: "" }), "Resigned");
  assert.equal(actionLabel({ kind: "resign", text: "abandoned" }), "Abandoned");
});

test("the scrubber's buttons stay within the steps", () => {
  assert.equal(scrub("first", 4, 7), 0);
  assert.equal(scrub("previous", 0, 7), 0);
  assert.equal(scrub("previous", 4, 7), 3);
  assert.equal(scrub("next", 6, 7), 6);
  assert.equal(scrub("next", 4, 7), 5);
  assert.equal(scrub("last", 0, 7), 6);
  assert.throws(() => scrub("sideways", 0, 7), /no scrubber button/);
});
