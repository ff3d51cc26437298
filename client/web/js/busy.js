// A button whose request takes a while (a deal being prepared and proven,
// a race created, an analysis) shows it is working: after WORKING_AFTER_MS
// it is disabled, marked aria-busy and drawn with a spinner, so nobody
// wonders whether the press counted or presses again.  A quicker answer
// shows nothing, which is less flicker than a spinner for every click.
//
// The screens redraw often (the lobby on every list it receives), so the
// state is kept by the button's id and put back on the redrawn button
// (`restoreBusy`); a second press while the first is pending is ignored.
// While the work asks the player something (a confirm.js dialog before a
// new deal) nothing is shown: the page waits for the player, not the server.

/** After how long a pending request shows that it is working. */
export const WORKING_AFTER_MS = 300;

const pending = new Map();

/**
 * Run `work` for `button`, showing it is working if it takes longer than WORKING_AFTER_MS.
 * @template T
 * @param {HTMLButtonElement} button a button with an id
 * @param {() => Promise<T>} work
 * @returns {Promise<T|undefined>} what `work` returns; undefined for a press while one is pending
 */
export async function whileBusy(button, work) {
  const id = button.id;
  if (pending.has(id)) return undefined;
  const state = { shown: false };
  pending.set(id, state);
  const working = () => {
    if (document.querySelector("dialog.confirm[open]")) {
      state.timer = setTimeout(working, WORKING_AFTER_MS);
      return;
    }
    state.shown = true;
    show(document.getElementById(id), true);
  };
  state.timer = setTimeout(working, WORKING_AFTER_MS);
  try {
    return await work();
  } finally {
    clearTimeout(state.timer);
    pending.delete(id);
    if (state.shown) show(document.getElementById(id), false);
  }
}

/**
 * Put the working state back on the buttons of `root` that a redraw replaced.
 * @param {ParentNode} root
 */
export function restoreBusy(root) {
  for (const [id, state] of pending) {
    const button = root.querySelector(`#${CSS.escape(id)}`);
    if (button && state.shown) show(button, true);
  }
}

function show(button, working) {
  if (!button) return;
  button.disabled = working;
  button.classList.toggle("busy", working);
  if (working) button.setAttribute("aria-busy", "true");
  else button.removeAttribute("aria-busy");
}
