// Keyboard shortcuts on the game screen, and the `?` overlay listing them.
//
// A shortcut presses the toolbar's own button (Undo, Redo, Hint), so it
// does exactly what the button does and nothing the button would not: a
// Hint key in a ranked game finds no Hint button and does nothing.  Keys
// typed into a field, or pressed while a dialog is open, are left alone;
// Space draws only when no card or button has the focus (there it
// presses what has the focus, as everywhere on the web).

import { h } from "./dom.js";

/** Every shortcut, as the help overlay and docs/web.md list them. */
export const SHORTCUTS = Object.freeze([
  { keys: ["Ctrl+Z", "U"], action: "undo", words: "Undo the last move" },
  { keys: ["Ctrl+Y", "Shift+Ctrl+Z", "R"], action: "redo", words: "Redo the move undone" },
  { keys: ["D", "Space"], action: "draw", words: "Draw from the stock (Space when no card or button has the focus)" },
  { keys: ["H"], action: "hint", words: "Show a hint, where hints are offered" },
  { keys: ["Escape"], action: "deselect", words: "Drop the selected card" },
  { keys: ["?"], action: "help", words: "Show this list" },
]);

const PLAIN = { u: "undo", r: "redo", d: "draw", h: "hint", "?": "help", Escape: "deselect" };

/**
 * The shortcut a key press asks for, or null.
 * @param {{key: string, ctrlKey?: boolean, metaKey?: boolean, shiftKey?: boolean, altKey?: boolean}} event
 * @param {{onControl?: boolean}} where `onControl`: a card, pile or button has the focus
 * @returns {string|null} an action of SHORTCUTS
 */
export function shortcutOf(event, { onControl = false } = {}) {
  if (event.altKey) return null;
  const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
  if (event.ctrlKey || event.metaKey) {
    if (key === "z") return event.shiftKey ? "redo" : "undo";
    return key === "y" && !event.shiftKey ? "redo" : null;
  }
  if (key === " ") return onControl ? null : "draw";
  return PLAIN[key] ?? null;
}

/**
 * Listen for the shortcuts on `doc` for the page `app` (its current screen).
 * @param {Document} doc
 * @param {{screen: object|null}} app
 */
export function bindShortcuts(doc, app) {
  doc.getElementById("open-shortcuts")?.addEventListener("click", () => {
    doc.getElementById("settings")?.close();
    showHelp(doc);
  });
  doc.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || doc.querySelector("dialog[open]")) return;
    const target = event.target;
    if (target.closest?.("input, select, textarea, [contenteditable]")) return;
    const onControl = Boolean(target.closest?.("button, a, [data-spot], summary"));
    const action = shortcutOf(event, { onControl });
    if (action === null) return;
    if (action === "help") {
      event.preventDefault();
      showHelp(doc);
      return;
    }
    // A game screen of its own, or the one a race screen embeds (a replay has a board but no toolbar).
    const game = [app.screen, app.screen?.game].find((screen) => screen?.toolbar && screen?.board) ?? null;
    if (game && perform(game, action)) event.preventDefault();
  });
}

// Do `action` on the game screen `game`; whether anything was done.
function perform(game, action) {
  if (action === "deselect") {
    if (!game.board.selection) return false;
    game.board.clearSelection();
    return true;
  }
  if (action === "draw") {
    const move = game.playing ? game.board.stockAction() : null;
    if (move) game.intent({ type: "move", move });
    return move !== null;
  }
  const button = game.toolbar.querySelector(`#${action}`);
  if (!button || button.disabled || button.hidden) return false;
  button.click();
  return true;
}

/**
 * Open the overlay listing the shortcuts (a modal <dialog>).
 * @param {Document} doc
 */
export function showHelp(doc) {
  let dialog = doc.getElementById("shortcuts");
  if (!dialog) {
    dialog = h("dialog", { id: "shortcuts", "aria-labelledby": "shortcuts-title" },
      h("form", { method: "dialog" },
        h("h2", { id: "shortcuts-title" }, "Keyboard shortcuts"),
        h("table", { class: "shortcuts" },
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Keys"), h("th", { scope: "col" }, "Does"))),
          h("tbody", {}, SHORTCUTS.map(({ keys, words }) => h("tr", {},
            h("td", {}, keys.flatMap((key, i) => [i ? " or " : null, h("kbd", {}, key)])), h("td", {}, words))))),
        h("p", { class: "note" }, "On the board: Tab and the arrow keys move between piles and cards, "
          + "Enter or Space picks a card up and puts it down."),
        h("div", { class: "actions" }, h("button", { value: "close" }, "Close"))));
    doc.body.append(dialog);
  }
  dialog.showModal();
}
