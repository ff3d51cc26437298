// The address as the route (client/web/js/router.js).
import assert from "node:assert/strict";
import test from "node:test";

import { parseRoute, routeHash, sameRoute } from "../../../client/web/js/router.js";

test("each screen has its address, and back", () => {
  for (const route of [{ kind: "lobby" }, { kind: "play", gameId: "g 1/2" }, { kind: "watch", gameId: "g2" },
    { kind: "replay", gameId: "g 3" }, { kind: "race", raceId: "r-1" }]) {
    assert.deepEqual(parseRoute(routeHash(route)), route);
  }
});

test("an unknown, empty or malformed address is the lobby", () => {
  assert.deepEqual(parseRoute(""), { kind: "lobby" });
  assert.deepEqual(parseRoute("#settings"), { kind: "lobby" });
  assert.deepEqual(parseRoute("#race/%zz"), { kind: "lobby" });
  assert.deepEqual(parseRoute("#play/"), { kind: "lobby" });
});

test("the same screen twice is the same route", () => {
  assert.equal(sameRoute({ kind: "play", gameId: "a" }, { kind: "play", gameId: "a" }), true);
  assert.equal(sameRoute({ kind: "play", gameId: "a" }, { kind: "watch", gameId: "a" }), false);
  assert.equal(sameRoute(null, { kind: "lobby" }), false);
});

test("a friend's invite link is the lobby with the code to offer", () => {
  assert.deepEqual(parseRoute("#friend=abcd-2345"), { kind: "lobby", friendCode: "ABCD-2345" });
  assert.equal(routeHash(parseRoute("#friend=ABCD2345")), "#lobby");
  assert.deepEqual(parseRoute("#friend="), { kind: "lobby" });
  assert.deepEqual(parseRoute("#friend=<script>"), { kind: "lobby" });
});

test("the stats and leagues screens, a league's invite link and a shared daily have their addresses", () => {
  for (const route of [{ kind: "stats" }, { kind: "leagues" },
    { kind: "daily", game: "klondike", variant: "draw=1,scoring=standard", date: "2026-12-01" }]) {
    assert.deepEqual(parseRoute(routeHash(route)), route);
  }
  assert.deepEqual(parseRoute("#league=7kq2-m9xd"), { kind: "leagues", leagueCode: "7KQ2-M9XD" });
  assert.equal(routeHash(parseRoute("#league=7KQ2-M9XD")), "#leagues");
  assert.deepEqual(parseRoute("#daily=klondike/draw=1,scoring=standard/2026-12-01"),
    { kind: "daily", game: "klondike", variant: "draw=1,scoring=standard", date: "2026-12-01" });
  for (const bad of ["#daily=klondike/draw=1", "#daily=klondike//2026-12-01", "#daily=Klon dike/x/2026-12-01", "#league=", "#stats/x"]) {
    assert.deepEqual(parseRoute(bad), { kind: "lobby" }, bad);
  }
});
