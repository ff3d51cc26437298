// A game mirrored from its snapshot and numbered diffs (client/web/js/mirror.js),
// with the same operations as engine/views.py.
import assert from "node:assert/strict";
import test from "node:test";

import { Mirror, applyOps } from "../../../client/web/js/mirror.js";

function snapshot(seq = 3) {
  return {
    game_id: "g1", game: "klondike", title: "WordLink", owner: { player_id: "p1", name: "Ann" }, practice: false,
    seq, status: "playing", counters: { moves: seq }, score: 0, legal: ["s-w"],
    clock: { started_ms: 1000, elapsed_ms: 500, finished_ms: null },
    view: { piles: { s: { down: 2, up: [] }, w: { down: 0, up: ["AS"] } }, options: { draw: 1 } },
  };
}

function diff(seq, ops, fields = {}) {
  return { seq, ops, status: "playing", counters: { moves: seq }, score: 0, legal: [], clock: snapshot().clock, ...fields };
}

test("a pile operation keeps the bottom cards, adds the new ones and sets the face-down count", () => {
  const view = applyOps(snapshot().view, [{ op: "pile", pile: "w", keep: 1, down: 0, add: ["2S"] },
    { op: "pile", pile: "s", keep: 0, down: 1, add: [] }]);
  assert.deepEqual(view.piles.w.up, ["AS", "2S"]);
  assert.equal(view.piles.s.down, 1);
});

test("a set operation sets or, with null, removes a view key", () => {
  const set = applyOps(snapshot().view, [{ op: "set", key: "spread", value: 4 }]);
  assert.equal(set.spread, 4);
  assert.equal("spread" in applyOps(set, [{ op: "set", key: "spread", value: null }]), false);
});

test("a diff never edits the view it was applied to", () => {
  const before = snapshot().view;
  applyOps(before, [{ op: "pile", pile: "w", keep: 0, down: 0, add: [] }]);
  assert.deepEqual(before.piles.w.up, ["AS"]);
});

test("a diff that keeps more cards than the pile has, or an unknown operation, is refused", () => {
  assert.throws(() => applyOps(snapshot().view, [{ op: "pile", pile: "w", keep: 2, down: 0, add: [] }]));
  assert.throws(() => applyOps(snapshot().view, [{ op: "swap" }]));
});

test("diffs apply in order; an echo is stale and a skipped number asks for a resync", () => {
  const mirror = new Mirror(snapshot(3));
  assert.equal(mirror.apply(diff(3, [])), "stale");
  assert.equal(mirror.apply(diff(5, [])), "gap");
  assert.equal(mirror.seq, 3);
  assert.equal(mirror.apply(diff(4, [{ op: "pile", pile: "w", keep: 0, down: 0, add: [] }])), "applied");
  assert.equal(mirror.seq, 4);
  assert.deepEqual(mirror.view.piles.w.up, []);
  assert.equal(mirror.counters.moves, 4);
});

test("a diff that does not fit the view is a gap, and the view stays as it was", () => {
  const mirror = new Mirror(snapshot(3));
  assert.equal(mirror.apply(diff(4, [{ op: "pile", pile: "w", keep: 9, down: 0, add: [] }])), "gap");
  assert.deepEqual(mirror.view.piles.w.up, ["AS"]);
});

test("a finish offer holds only at the seq it names", () => {
  const mirror = new Mirror(snapshot(3));
  mirror.finishOffer = { seq: 3, moves: 5 };
  assert.equal(mirror.canFinish(), true);
  mirror.apply(diff(4, []));
  assert.equal(mirror.canFinish(), false);
});

test("a game is no longer under way once its game_over came, even before the diff that ends it", () => {
  const mirror = new Mirror(snapshot());
  assert.equal(mirror.underWay, true);
  mirror.over = { game_id: "g1", result: "resigned" };
  assert.equal(mirror.status, "playing");
  assert.equal(mirror.underWay, false);
});
