// The SDK's request correlation (client/web/js/requests.js), its waits on
// events (emitter.js) and its default token storage (connection.js).
import assert from "node:assert/strict";
import test from "node:test";

import { Emitter, Offline, PendingRequests, RequestTimeout, ServerError, memoryStorage } from "../../../client/web/js/sdk.js";

test("each request gets the next id, and the reply with that id settles it alone", async () => {
  const pending = new PendingRequests();
  const first = pending.open("new_game", null);
  const second = pending.open("move", null);
  assert.deepEqual([first.id, second.id], [1, 2]);
  assert.equal(pending.settle({ type: "diff", id: 2, seq: 1 }), true);
  assert.equal(pending.settle({ type: "diff", seq: 2 }), false, "a message without an id answers nothing");
  assert.equal(pending.settle({ type: "diff", id: 2, seq: 3 }), false, "a request has one reply");
  assert.equal(pending.settle({ type: "ack", id: "2" }), false, "ids are the numbers this client sent");
  assert.deepEqual(await second.reply, { type: "diff", id: 2, seq: 1 });
  assert.equal(pending.size, 1);
  pending.settle({ type: "game_started", id: 1, game_id: "g_1" });
  assert.equal((await first.reply).game_id, "g_1");
});

test("an error reply rejects its request with the server's stable code", async () => {
  const pending = new PendingRequests();
  const { id, reply } = pending.open("move", null);
  pending.settle({ type: "error", id, code: "illegal_move", message: "t1 is empty", reason: "empty_source", game_id: "g_1" });
  const error = await reply.then(() => null, (caught) => caught);
  assert.ok(error instanceof ServerError);
  assert.deepEqual([error.code, error.message, error.reason, error.gameId], ["illegal_move", "t1 is empty", "empty_source", "g_1"]);
});

test("a request without a reply times out, and its late reply settles nothing", async () => {
  const pending = new PendingRequests();
  const { id, reply } = pending.open("analyse", 5);
  const error = await reply.then(() => null, (caught) => caught);
  assert.ok(error instanceof RequestTimeout);
  assert.equal(error.code, "timeout");
  assert.equal(error.message, "analyse: no answer from the server within 0.005 s");
  assert.equal(pending.settle({ type: "analysis", id }), false);
  assert.equal(pending.size, 0);
});

test("a lost connection rejects every request still waiting", async () => {
  const pending = new PendingRequests();
  const replies = [pending.open("move", 60000).reply, pending.open("hint", null).reply];
  pending.rejectAll(new Offline());
  for (const outcome of await Promise.allSettled(replies)) {
    assert.equal(outcome.status, "rejected");
    assert.equal(outcome.reason.code, "offline");
  }
  assert.equal(pending.size, 0);
});

test("a wait on events settles on the first one it decides, and stops listening", async () => {
  const events = new Emitter();
  const seen = [];
  events.on("change", (payload) => seen.push(payload));
  const wait = events.next(["change", "over"], (payload, type) => (payload > 1 ? { value: `${type} ${payload}` } : undefined), null,
    () => new Error("never"));
  events.emit("change", 1);
  events.emit("over", 2);
  assert.equal(await wait, "over 2");
  assert.equal(events.listeners.get("over").size, 0);
  assert.equal(events.listeners.get("change").size, 1, "other listeners stay");
  assert.deepEqual(seen, [1]);
  const refused = events.next(["refused"], (error) => ({ error }), null, () => new Error("never"));
  events.emit("refused", new Error("too_many_identities"));
  await assert.rejects(refused, /too_many_identities/);
  await assert.rejects(events.next(["never"], () => undefined, 1, () => new RequestTimeout("hello", 1)), RequestTimeout);
  assert.equal(events.listeners.get("never").size, 0);
});

test("an unsubscribed listener hears nothing more", () => {
  const events = new Emitter();
  const heard = [];
  const stop = events.on("diff", (payload) => heard.push(payload));
  events.emit("diff", 1);
  stop();
  events.emit("diff", 2);
  assert.deepEqual(heard, [1]);
});

test("the default token storage keeps strings for the process", () => {
  const storage = memoryStorage();
  assert.equal(storage.getItem("arena.token"), null);
  storage.setItem("arena.token", "abc");
  assert.equal(storage.getItem("arena.token"), "abc");
  storage.removeItem("arena.token");
  assert.equal(storage.getItem("arena.token"), null);
});
