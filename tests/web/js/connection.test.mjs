// The reconnection policy (client/web/js/reconnect.js, as the SDK exports it) and what the
// banner says while it waits (client/web/js/errors.js).
import assert from "node:assert/strict";
import test from "node:test";

import { RETRY_STEPS_MS, admissionUrl, deviceName, retryPlan } from "../../../client/web/js/sdk.js";
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

test("a device is named by its browser and system", () => {
  assert.equal(deviceName("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"),
    "Chrome on Linux");
  assert.equal(deviceName("Mozilla/5.0 (Android 14; Mobile; rv:121.0) Gecko/121.0 Firefox/121.0"), "Firefox on Android");
  assert.equal(deviceName("Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 Version/17.1 Mobile/15E148 Safari/604.1"),
    "Safari on iPhone");
  assert.equal(deviceName("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36 Edg/120.0"),
    "Edge on Windows");
  assert.equal(deviceName(""), "Browser");
});
