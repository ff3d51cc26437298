// Keyboard shortcuts (client/web/js/keys.js): which key asks for what.
import assert from "node:assert/strict";
import test from "node:test";

import { SHORTCUTS, shortcutOf } from "../../../client/web/js/keys.js";

test("Ctrl+Z undoes, Ctrl+Y and Shift+Ctrl+Z redo, Cmd counts as Ctrl", () => {
  assert.equal(shortcutOf({ key: "z", ctrlKey: true }), "undo");
  assert.equal(shortcutOf({ key: "Z", ctrlKey: true, shiftKey: true }), "redo");
  assert.equal(shortcutOf({ key: "y", ctrlKey: true }), "redo");
  assert.equal(shortcutOf({ key: "z", metaKey: true }), "undo");
});

test("the plain letters, in either case, and ? for the help", () => {
  assert.equal(shortcutOf({ key: "u" }), "undo");
  assert.equal(shortcutOf({ key: "U", shiftKey: true }), "undo");
  assert.equal(shortcutOf({ key: "r" }), "redo");
  assert.equal(shortcutOf({ key: "d" }), "draw");
  assert.equal(shortcutOf({ key: "h" }), "hint");
  assert.equal(shortcutOf({ key: "Escape" }), "deselect");
  assert.equal(shortcutOf({ key: "?", shiftKey: true }), "help");
});

test("Space draws only when no card or button has the focus", () => {
  assert.equal(shortcutOf({ key: " " }), "draw");
  assert.equal(shortcutOf({ key: " " }, { onControl: true }), null);
});

test("the browser's own shortcuts and other keys are left alone", () => {
  assert.equal(shortcutOf({ key: "r", ctrlKey: true }), null);
  assert.equal(shortcutOf({ key: "y", ctrlKey: true, shiftKey: true }), null);
  assert.equal(shortcutOf({ key: "u", altKey: true }), null);
  assert.equal(shortcutOf({ key: "x" }), null);
  assert.equal(shortcutOf({ key: "Enter" }), null);
});

test("every action a key asks for is listed in the help", () => {
  const listed = new Set(SHORTCUTS.map((shortcut) => shortcut.action));
  for (const key of ["u", "r", "d", "h", "?", "Escape"]) assert.ok(listed.has(shortcutOf({ key })), key);
});
