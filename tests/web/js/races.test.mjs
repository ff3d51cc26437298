// A race as the page knows it (client/web/js/races.js).
import assert from "node:assert/strict";
import test from "node:test";

import { RaceModel, finishBanner, homeShare, ordinal, spacedCode } from "../../../client/web/js/races.js";

const seconds = (ms) => `${ms / 1000} s`;

function info(fields = {}) {
  return {
    race_id: "r1", phase: "countdown", starts_at: 1000, ends_at: 61000, invite_expires_ms: 500,
    racers: [{ player_id: "a", name: "Ann", state: "waiting", elapsed_ms: 0, foundation: 0, moves: 0, game_id: "g1" }],
    ...fields,
  };
}

test("the banner names the winner and the places in order", () => {
  const results = [
    { place: 2, player_id: "b", name: "Bob", time_ms: 9000 },
    { place: null, player_id: "c", name: "Cal", time_ms: 4000 },
    { place: 1, player_id: "a", name: "Ann", time_ms: 7000 },
  ];
  assert.deepEqual(finishBanner(results, "b", seconds), { headline: "Ann wins!", places: ["1st Ann 7 s", "2nd You 9 s"] });
  assert.equal(finishBanner(results, "a", seconds).headline, "You win!");
  assert.equal(finishBanner([{ place: null, player_id: "a", name: "Ann", time_ms: 1 }], "a", seconds).headline,
    "Nobody finished the deal.");
});

test("places read as ordinals", () => {
  assert.deepEqual([1, 2, 3, 4, 11, 12, 13, 21, 22, 111].map(ordinal),
    ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "111th"]);
});

test("the progress bar is the share of the cards home", () => {
  assert.equal(homeShare({ foundation: 13 }, 52), 0.25);
  assert.equal(homeShare({ foundation: 60 }, 52), 1);
  assert.equal(homeShare({ foundation: 3 }, 0), 0);
});

test("the countdown turns into the race at starts_at on the server's clock", () => {
  const model = new RaceModel(info(), 900);
  assert.equal(model.phase(999), "countdown");
  assert.equal(model.countdownMs(400), 600);
  assert.equal(model.phase(1000), "running");
  assert.equal(model.stateOf(model.entries()[0], 1500), "playing");
});

test("an older progress line than the one known is dropped", () => {
  const model = new RaceModel(info(), 900);
  model.progress({ player_id: "a", name: "Ann", state: "playing", foundation: 5 }, 2000);
  model.progress({ player_id: "a", name: "Ann", state: "playing", foundation: 2 }, 1500);
  assert.equal(model.entries()[0].racer.foundation, 5);
});

test("invite codes are shown in two halves", () => {
  assert.equal(spacedCode("FWRDBTKR"), "FWRD-BTKR");
  assert.equal(spacedCode(null), "");
});
