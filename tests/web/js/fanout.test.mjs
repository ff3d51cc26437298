// One listener per connection, fanned out to the panels shown
// (client/web/js/fanout.js), on the SDK's own emitter (the connection's
// base class).
import assert from "node:assert/strict";
import test from "node:test";

import { Emitter } from "../../../client/web/js/emitter.js";
import { Fanout } from "../../../client/web/js/fanout.js";

function panels() {
  const heard = [];
  const fanout = new Fanout({
    update: (panel, payload) => heard.push([panel, "update", payload]),
    welcome: (panel) => heard.push([panel, "welcome"]),
  });
  return { fanout, heard };
}

test("each shown panel hears each event, by its handler", () => {
  const connection = new Emitter();
  const { fanout, heard } = panels();
  fanout.show(connection, "a");
  fanout.show(connection, "b");
  connection.emit("update", 1);
  connection.emit("welcome", {});
  connection.emit("other", 2);
  assert.deepEqual(heard, [["a", "update", 1], ["b", "update", 1], ["a", "welcome"], ["b", "welcome"]]);
});

test("the connection gets one listener per event however many panels come and go", () => {
  const connection = new Emitter();
  const { fanout, heard } = panels();
  for (const panel of ["a", "b", "c"]) {
    fanout.show(connection, panel);
    fanout.hide(panel);
  }
  fanout.show(connection, "d");
  assert.equal(connection.listeners.get("update").size, 1);
  assert.equal(connection.listeners.get("welcome").size, 1);
  connection.emit("update", 7);
  assert.deepEqual(heard, [["d", "update", 7]]);
});

test("a hidden panel hears nothing more; the others still do", () => {
  const connection = new Emitter();
  const { fanout, heard } = panels();
  fanout.show(connection, "a");
  fanout.show(connection, "b");
  fanout.hide("a");
  connection.emit("update", 3);
  assert.deepEqual(heard, [["b", "update", 3]]);
});

test("a new connection gets its own listeners", () => {
  const first = new Emitter();
  const second = new Emitter();
  const { fanout, heard } = panels();
  fanout.show(first, "a");
  fanout.show(second, "b");
  second.emit("update", 5);
  assert.equal(second.listeners.get("update").size, 1);
  assert.deepEqual(heard, [["a", "update", 5], ["b", "update", 5]]);
});

test("a panel a handler shows or hides changes only the events after it", () => {
  const connection = new Emitter();
  const heard = [];
  const fanout = new Fanout({
    update: (panel) => {
      heard.push(panel);
      if (panel === "a") {
        fanout.hide("b");
        fanout.show(connection, "c");
      }
    },
  });
  fanout.show(connection, "a");
  fanout.show(connection, "b");
  connection.emit("update");
  connection.emit("update");
  assert.deepEqual(heard, ["a", "b", "a", "c"]);
});
