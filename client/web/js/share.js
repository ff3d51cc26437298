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

// The share text of the first of `dates` with an ended attempt (null
// for the server's today).
async function firstShare(app, daily, dates) {
  for (const [index, date] of dates.entries()) {
    const request = { type: "stats", game: daily.game, variant: daily.variant, share: true };
    if (date) request.date = date;
    try {
      return (await app.request(request)).share;
    } catch (error) {
      const later = index < dates.length - 1 && error.code === "unavailable" && error.reason === "not_played";
      if (!later) throw error;
    }
  }
  return null;
}

/**
 * A box with the share text of a ranked attempt (asked of the server:
 * `stats` with `share`) and its Share button; it stays empty while the
 * server has nothing to share (no ended attempt).  `dates` are tried in
 * order: an attempt that ended just after midnight, in the grace period,
 * is the day before's.
 * @param {{request: Function, toast: Function}} app the page
 * @param {{game: string, variant: string, dates?: (string|null)[]}} daily which attempt (null: the server's today)
 * @param {string} id the box's element id
 * @returns {HTMLElement}
 */
export function shareBox(app, { game, variant, dates = [null] }, id) {
  const box = h("div", { class: "share", id, "aria-live": "polite" });
  firstShare(app, { game, variant }, dates).then((share) => {
    const shared = absoluteShare(share, window.location.origin);
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

/**
 * The day before a YYYY-MM-DD day.
 * @param {string} day a UTC day
 * @returns {string}
 */
export function dayBefore(day) {
  return new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
}
