// The page's state store (client/web/js/store.js).
import assert from "node:assert/strict";
import test from "node:test";

import { Store } from "../../../client/web/js/store.js";

test("an update merges the patch and tells each listener which keys changed", () => {
  const store = new Store({ route: "lobby", welcome: null });
  const heard = [];
  store.subscribe((state, changed) => heard.push([state.route, [...changed]]));
  store.update({ route: "race", welcome: null });
  assert.deepEqual(heard, [["race", ["route"]]]);
  assert.equal(store.state.welcome, null);
});

test("an update that changes nothing notifies nobody", () => {
  const store = new Store({ route: "lobby" });
  let calls = 0;
  store.subscribe(() => { calls += 1; });
  store.update({ route: "lobby" });
  assert.equal(calls, 0);
});

test("an unsubscribed listener hears nothing more", () => {
  const store = new Store({ n: 0 });
  let calls = 0;
  const stop = store.subscribe(() => { calls += 1; });
  store.update({ n: 1 });
  stop();
  store.update({ n: 2 });
  assert.equal(calls, 1);
});
