// Today's daily variants as the server lists them (`daily`), asked once
// per page and shared by the friends' board, the leagues, the stats
// screen and the ghost bars, and the pure look-ups between a game's
// options and the variant name (`draw=1,scoring=standard`) the social
// messages use.

import { describeOptions } from "./games.js";

/**
 * The variants of a `daily_info` reply, proven or still pending, each
 * with a key (`game/variant`) and a label for a menu.
 * @param {object} info the server's daily_info
 * @returns {{key: string, game: string, variant: string, options: object, title: string, label: string}[]}
 */
export function variantsOf(info) {
  return [...info.deals, ...(info.pending ?? [])].map((deal) => ({
    key: `${deal.game}/${deal.variant}`, game: deal.game, variant: deal.variant, options: deal.options, title: deal.title,
    label: [deal.title, describeOptions(deal.options)].filter(Boolean).join(" · "),
  }));
}

/**
 * The daily variant a game with these options plays: the one whose own
 * options (`{"draw": 1}`) all agree with the game's, or null.
 * @param {object[]} variants from variantsOf
 * @param {string} game the game's id
 * @param {object} options the game's options (all of them, as a snapshot's view has them)
 * @returns {object|null}
 */
export function variantOfGame(variants, game, options) {
  return variants.find((variant) => variant.game === game
    && Object.entries(variant.options).every(([name, value]) => options?.[name] === value)) ?? null;
}

let asked = null;

/**
 * The daily variants and today's date, asked of the server once per page
 * (a failed ask is asked again next time).
 * @param {(message: object) => Promise<object>} request the connection's request
 * @returns {Promise<{today: string, variants: object[]}>}
 */
export function dailyVariants(request) {
  asked ??= request({ type: "daily" }).then((info) => ({ today: info.today, variants: variantsOf(info) }));
  asked.catch(() => { asked = null; });
  return asked;
}
