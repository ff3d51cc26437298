// The reconnection policy (client/web/js/connection.js) and what the
// banner says while it waits (client/web/js/errors.js).
import assert from "node:assert/strict";
import test from "node:test";

import { RETRY_STEPS_MS, admissionUrl, retryPlan } from "../../../client/web/js/connection.js";
import { waitingSentence } from "../../../client/web/js/errors.js";

test("the delay grows with the failures, jittered by a quarter either way, up to its last step", () => {
  assert.deepEqual([0, 1, 2, 3].map((failures) => retryPlan(failures, null, 0.5).retryMs), [500, 1000, 2000, 4000]);
  assert.equal(retryPlan(0, null, 0).retryMs, 375);
  assert.equal(retryPlan(0, null, 1).retryMs, 625);
  assert.equal(retryPlan(50, null, 0.5).retryMs, RETRY_STEPS_MS.at(-1));
});

test("a refusal waits at least its Retry-After, and says why", () => {
  const verdict = { code: "cooling_down", message: "connect again in 7 s", retryAfter: 7 };
  const plan = retryPlan(0, verdict, 0.5);
  assert.equal(plan.retryMs, 7500);
  assert.deepEqual(plan.waitingFor, { kind: "refused", code: "cooling_down", message: "connect again in 7 s" });
  assert.equal(retryPlan(5, { ...verdict, retryAfter: 1 }, 0.5).retryMs, 15000, "never sooner than the backoff");
  assert.match(waitingSentence(plan.waitingFor), /asks your network to wait/);
  assert.match(waitingSentence({ kind: "refused", code: "too_many_connections" }), /close another tab/);
  assert.equal(waitingSentence({ kind: "refused", code: "http_503", message: "shutting down" }),
    "The server refused the connection. Shutting down.");
});

test("a server that does not answer, or that would admit us now, is said so", () => {
  assert.deepEqual(retryPlan(1, { unreachable: true }, 0.5).waitingFor, { kind: "unreachable" });
  assert.equal(waitingSentence({ kind: "unreachable" }), "The server is not answering.");
  assert.deepEqual(retryPlan(1, { admitted: true }, 0.5).waitingFor, { kind: "failed" });
  assert.equal(waitingSentence(null), "");
});

test("admission is asked on the WebSocket's own host, over the matching scheme", () => {
  assert.equal(admissionUrl("ws://127.0.0.1:8765/ws"), "http://127.0.0.1:8765/admission");
  assert.equal(admissionUrl("wss://arena.example/ws"), "https://arena.example/admission");
});
