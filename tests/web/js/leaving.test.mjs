// What leaving a game costs (client/web/js/leaving.js).
import assert from "node:assert/strict";
import test from "node:test";

import { leaveQuestion, rankedCaption } from "../../../client/web/js/leaving.js";

test("a ranked attempt's caption says daily, ranked, one attempt and the date", () => {
  assert.equal(rankedCaption("2026-12-03"), "Daily · ranked · one attempt · 2026-12-03");
});

test("every way out of a ranked attempt asks, and says it forfeits", () => {
  for (const action of ["new-deal", "game-options", "leave"]) {
    const question = leaveQuestion({ action, rankedDaily: "2026-12-03", race: false, underWay: false });
    assert.match(question.text, /forfeits/);
    assert.match(question.text, /2026-12-03/);
    assert.match(question.confirm, /^Forfeit/);
    assert.equal(question.cancel, "Keep playing");
  }
});

test("a casual game under way asks before New deal and Game Options, not before the lobby", () => {
  const ask = (action, underWay) => leaveQuestion({ action, rankedDaily: null, race: false, underWay });
  assert.match(ask("new-deal", true).text, /resigns/);
  assert.match(ask("game-options", true).text, /resigns/);
  assert.equal(ask("leave", true), null);
  assert.equal(ask("new-deal", false), null);
});

test("resigning always asks, in words that fit the game", () => {
  const ranked = leaveQuestion({ action: "resign", rankedDaily: "2026-12-03", race: false, underWay: true });
  assert.match(ranked.text, /one ranked attempt/);
  const race = leaveQuestion({ action: "resign", rankedDaily: null, race: true, underWay: true });
  assert.match(race.text, /race/);
  const casual = leaveQuestion({ action: "resign", rankedDaily: null, race: false, underWay: false });
  assert.equal(casual.confirm, "Resign");
});
