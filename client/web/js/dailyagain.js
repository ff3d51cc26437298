// A second press of "Daily challenge": the server deals a practice game
// once your ranked attempt at today's deal has ended, which the board
// would only mark with a small "practice".  So the page asks first: it
// finds the variant the chosen options pick (`daily`), reads your day of
// it (`stats`), and if today's attempt is done says so and offers the
// practice game by name.
//
// Why ask the server rather than remember it here: the attempt may have
// been played on another device, or before this browser's storage was
// cleared.

import { confirmAction } from "./confirm.js";
import { formatTime } from "./dom.js";

/**
 * The daily variant `options` pick for `game`: the deal whose every option
 * has the chosen value.
 * @param {Array<{game: string, variant: string, options: object}>} deals the `daily` reply's deals
 * @param {string} game
 * @param {object} options the options a `new_game` would send
 * @returns {object|null}
 */
export function dailyVariantOf(deals, game, options) {
  return deals.find((deal) => deal.game === game
    && Object.entries(deal.options).every(([name, value]) => options[name] === value)) ?? null;
}

/**
 * The question that offers practice once today's ranked attempt is done.
 * @param {{title: string, date: string, line: {won: boolean, time_ms: number, actions: number}}} done
 * @returns {{title: string, text: string, confirm: string, cancel: string}}
 */
export function practiceQuestion({ title, date, line }) {
  const how = line.won ? `you won it in ${formatTime(line.time_ms)}` : "it ended without a win";
  return {
    title: "Your ranked attempt is done",
    text: `You have played your one ranked attempt at ${title}'s daily deal of ${date}: ${how}. `
      + "You can play the same deal again as practice: it is not timed for the leaderboard and counts nowhere.",
    confirm: "Practice today's deal",
    cancel: "Not now",
  };
}

/**
 * Your ended ranked attempt at today's daily of `game` with `options`, or
 * null (none yet, or the server could not say: then the start goes ahead
 * and the server decides).
 * @param {(message: object) => Promise<object>} request
 * @param {string} game
 * @param {object} options
 * @returns {Promise<{title: string, date: string, line: object}|null>}
 */
export async function endedAttempt(request, game, options) {
  try {
    const info = await request({ type: "daily" });
    const deal = dailyVariantOf(info.deals, game, options);
    if (!deal) return null;
    const stats = await request({ type: "stats", game, variant: deal.variant });
    const variant = stats.variants.find((entry) => entry.variant === deal.variant);
    const line = variant?.history.find((day) => day.date === info.today);
    return line ? { title: deal.title, date: info.today, line } : null;
  } catch {
    return null;
  }
}

/**
 * Before a start of today's daily: whether it is practice (true once the
 * ranked attempt is done and the player agreed), or null if the player
 * chose not to play it again.
 * @param {(message: object) => Promise<object>} request
 * @param {string} game
 * @param {object} options
 * @returns {Promise<boolean|null>}
 */
export async function askPractice(request, game, options) {
  const done = await endedAttempt(request, game, options);
  if (!done) return false;
  return (await confirmAction({ ...practiceQuestion(done), id: "confirm-practice" })) ? true : null;
}
