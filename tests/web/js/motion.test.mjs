// What moves where after a redraw (client/web/js/motion.js, planMotion).
import assert from "node:assert/strict";
import test from "node:test";

import { originOf, planMotion } from "../../../client/web/js/motion.js";

const at = (left, top, spot) => ({ left, top, ...(spot ? { spot } : {}) });

test("a card that changed place slides from the old place; one that stayed does not move", () => {
  const before = new Map([["AS", at(10, 20)], ["KH", at(100, 100)]]);
  const after = new Map([["AS", at(50, 80)], ["KH", at(100, 100)]]);
  assert.deepEqual(planMotion(before, after), [{ key: "AS", kind: "slide", dx: -40, dy: -60 }]);
});

test("a face-down card turned up in place flips", () => {
  const before = new Map([["back:t3:2", at(30, 40)]]);
  const after = new Map([["7D", at(30, 40, "t3:2")]]);
  assert.deepEqual(planMotion(before, after), [{ key: "7D", kind: "flip", dx: 0, dy: 0 }]);
});

test("a card new to the board arrives from its origin, or simply appears", () => {
  const before = new Map([["back:s:0", at(0, 0)]]);
  const after = new Map([["QC", at(60, 0)], ["back:s:0", at(0, 0)]]);
  const stock = (key) => originOf(key, before, "back:s:0");
  assert.deepEqual(planMotion(before, after, stock), [{ key: "QC", kind: "arrive", dx: -60, dy: 0 }]);
  assert.deepEqual(planMotion(before, after), []);
});

test("a repaired card comes from one of its halves", () => {
  const before = new Map([["AH<", at(5, 5)], ["AH>", at(90, 5)]]);
  assert.deepEqual(originOf("AH", before, null), at(5, 5));
  assert.equal(originOf("KS", before, null), null);
});

test("a move undone slides back the way it came", () => {
  const there = new Map([["5S", at(200, 0)]]);
  const back = new Map([["5S", at(40, 150)]]);
  const [forth] = planMotion(back, there);
  const [undo] = planMotion(there, back);
  assert.deepEqual([forth.dx, forth.dy], [-undo.dx, -undo.dy]);
});
