// The SDK's pace under the server's message rate (client/web/js/pacing.js).
import assert from "node:assert/strict";
import test from "node:test";

import { Outbox, Pacer } from "../../../client/web/js/pacing.js";

test("a burst goes at once up to a little under the server's, then one message per token", () => {
  const pacer = new Pacer(20, 40, 0);
  const delays = Array.from({ length: 38 }, () => pacer.delayMs(0));
  assert.deepEqual(delays.slice(0, 36), Array(36).fill(0), "36 of the server's 40 at once");
  assert.deepEqual(delays.slice(36), [56, 112], "then 18 a second: each waits behind the one before");
});

test("tokens come back with time, never beyond the burst", () => {
  const pacer = new Pacer(10, 10, 0);
  for (let sent = 0; sent < 9; sent += 1) pacer.delayMs(0);
  assert.ok(pacer.delayMs(0) > 0);
  assert.equal(pacer.delayMs(10_000), 0);
  assert.equal(pacer.tokens, pacer.capacity - 1);
});

test("held-back frames leave in the order they were pushed, none overtaking", async () => {
  const sent = [];
  let now = 0;
  const outbox = new Outbox((frame) => sent.push(frame), () => now);
  outbox.push("before the limits");
  outbox.limit({ messages_per_second: 1000, burst: 2 });
  for (const frame of ["a", "b", "c", "d"]) outbox.push(frame);
  assert.deepEqual(sent, ["before the limits", "a"]);
  now = 100;
  outbox.push("e");
  assert.deepEqual(sent, ["before the limits", "a"], "a frame with its token waits behind the held-back ones");
  await new Promise((resolve) => { setTimeout(resolve, 5); });
  assert.deepEqual(sent, ["before the limits", "a", "b", "c", "d", "e"]);
});

test("stopping drops what is held back", async () => {
  const sent = [];
  const outbox = new Outbox((frame) => sent.push(frame), () => 0);
  outbox.limit({ messages_per_second: 1, burst: 1 });
  outbox.push("a");
  outbox.push("b");
  outbox.stop();
  await new Promise((resolve) => { setTimeout(resolve, 5); });
  assert.deepEqual(sent, ["a"]);
  assert.equal(outbox.queue.length, 0);
});
