// A question before an action that cannot be taken back (resigning,
// leaving a ranked attempt, starting over): a modal <dialog>, so focus
// stays inside it, Escape cancels, and a screen reader reads the question.
// The safe answer has the focus, so a stray Enter never forfeits a game.

import { h } from "./dom.js";

/**
 * Ask a yes/no question in a modal dialog.
 * @param {{title: string, text: string, confirm: string, cancel?: string, id?: string}} question
 *   `confirm` labels the button that goes ahead, `cancel` the one that keeps things as they are.
 * @returns {Promise<boolean>} true when the player chose `confirm`.
 */
export function confirmAction({ title, text, confirm, cancel = "Cancel", id = "confirm" }) {
  document.getElementById(id)?.close();
  document.getElementById(id)?.remove();
  const keep = h("button", { value: "cancel", id: `${id}-cancel`, autofocus: true }, cancel);
  const dialog = h("dialog", { id, class: "confirm", "aria-labelledby": `${id}-title`, "aria-describedby": `${id}-text` },
    h("form", { method: "dialog" },
      h("h2", { id: `${id}-title` }, title),
      h("p", { id: `${id}-text` }, text),
      h("div", { class: "actions" },
        keep,
        h("button", { value: "confirm", id: `${id}-ok`, class: "danger" }, confirm))));
  document.body.append(dialog);
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      resolve(dialog.returnValue === "confirm");
      dialog.remove();
    }, { once: true });
    dialog.showModal();
    keep.focus();
  });
}
