// A second press of "Daily challenge" (client/web/js/dailyagain.js).
import assert from "node:assert/strict";
import test from "node:test";

import { dailyVariantOf, endedAttempt, practiceQuestion } from "../../../client/web/js/dailyagain.js";

const DEALS = [
  { game: "klondike", title: "WordLink", variant: "draw=1,scoring=standard", options: { draw: 1, scoring: "standard" } },
  { game: "klondike", title: "WordLink", variant: "draw=3,scoring=standard", options: { draw: 3, scoring: "standard" } },
];

test("the variant is the deal whose every option has the chosen value", () => {
  const chosen = { draw: 3, scoring: "standard", auto_collect: false };
  assert.equal(dailyVariantOf(DEALS, "klondike", chosen).variant, "draw=3,scoring=standard");
  assert.equal(dailyVariantOf(DEALS, "klondike", { draw: 3, scoring: "vegas" }), null);
  assert.equal(dailyVariantOf(DEALS, "chequers", chosen), null);
});

test("the question names practice and says how the ranked attempt went", () => {
  const question = practiceQuestion({ title: "WordLink", date: "2026-12-03", line: { won: true, time_ms: 95_000, actions: 120 } });
  assert.match(question.text, /one ranked attempt at WordLink's daily deal of 2026-12-03: you won it in 1:35/);
  assert.equal(question.confirm, "Practice today's deal");
  const lost = practiceQuestion({ title: "WordLink", date: "2026-12-03", line: { won: false, time_ms: 5000, actions: 3 } });
  assert.match(lost.text, /ended without a win/);
});

// The replies a server gives, in order, for the two requests asked.
function replies(stats) {
  const asked = [];
  const request = async (message) => {
    asked.push(message);
    if (message.type === "daily") return { today: "2026-12-03", deals: DEALS };
    return stats;
  };
  return { asked, request };
}

test("today's line in the variant's history is the ended attempt", async () => {
  const line = { date: "2026-12-03", won: false, time_ms: 1000, actions: 2 };
  const { asked, request } = replies({ variants: [{ variant: "draw=1,scoring=standard", history: [line] }] });
  const done = await endedAttempt(request, "klondike", { draw: 1, scoring: "standard" });
  assert.deepEqual(done, { title: "WordLink", date: "2026-12-03", line });
  assert.deepEqual(asked[1], { type: "stats", game: "klondike", variant: "draw=1,scoring=standard" });
});

test("no line for today, or a server that cannot say, starts the game as asked", async () => {
  const yesterday = { date: "2026-12-02", won: true, time_ms: 1000, actions: 2 };
  const { request } = replies({ variants: [{ variant: "draw=1,scoring=standard", history: [yesterday] }] });
  assert.equal(await endedAttempt(request, "klondike", { draw: 1, scoring: "standard" }), null);
  const failing = async () => { throw Object.assign(new Error("offline"), { code: "offline" }); };
  assert.equal(await endedAttempt(failing, "klondike", { draw: 1 }), null);
});
