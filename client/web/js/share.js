// A result to share after a ranked daily attempt: the server's share
// text (the words `arena stats --share` prints), its link made absolute
// to this page's address, given to the system's share sheet where the
// browser has one (a phone) or copied to the clipboard.

import { h } from "./dom.js";
import { errorSentence } from "./errors.js";

/**
 * The share text and link with the link made absolute: the server names
 * it relative to its own address, which is this page's origin.
 * @param {{text: string, link: string}} share the server's share text
 * @param {string} origin the page's origin, e.g. https://arena.example
 * @returns {{text: string, url: string}}
 */
export function absoluteShare(share, origin) {
  const url = `${origin}${share.link}`;
  return { text: share.text.replace(share.link, url), url };
}

// Share sheet first (phones: send it to a chat), else the clipboard;
// the toast says what happened, or shows the text to copy by hand.
async function deliver({ text }, toast) {
  if (typeof navigator.share === "function") {
    try {
      await navigator.share({ text });
      return;
    } catch (error) {
      if (error?.name === "AbortError") return;
    }
  }
  try {
    await navigator.clipboard.writeText(text);
    toast("Result copied: paste it to your friends.");
  } catch {
    toast(text);
  }
}

/**
 * A box with the share text of a ranked attempt (asked of the server:
 * `stats` with `share`) and its Share button; it stays empty while the
 * server has nothing to share yet (an attempt still running, or none).
 * @param {{request: Function, toast: Function}} app the page
 * @param {{game: string, variant: string, date?: string}} daily which attempt
 * @param {string} id the box's element id
 * @returns {HTMLElement}
 */
export function shareBox(app, daily, id) {
  const box = h("div", { class: "share", id, "aria-live": "polite" });
  const request = { type: "stats", game: daily.game, variant: daily.variant, share: true };
  if (daily.date) request.date = daily.date;
  app.request(request).then((reply) => {
    const shared = absoluteShare(reply.share, window.location.origin);
    box.replaceChildren(
      h("pre", { class: "share-text", id: `${id}-text` }, shared.text),
      h("button", { type: "button", class: "primary", id: `${id}-button`, onclick: () => deliver(shared, app.toast.bind(app)) },
        typeof navigator.share === "function" ? "Share result" : "Copy result"));
  }, (error) => {
    const quiet = error.code === "offline" || (error.code === "unavailable" && error.reason === "not_played");
    if (!quiet) box.replaceChildren(h("p", { class: "note" }, errorSentence(error)));
  });
  return box;
}
