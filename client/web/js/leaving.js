// What leaving a game costs, asked before it happens.
//
// A ranked daily attempt is one per player, variant and day: New deal,
// Game Options, the Lobby button (or any other route away) and Resign
// all end it, so each asks first and says it forfeits.  A casual game
// under way asks before New deal and Game Options, which resign it; going
// to the lobby keeps it (it waits under "Your games"), so that asks
// nothing.  Closing the tab cannot resign anything: the browser asks its
// own question (beforeunload) while a ranked attempt or a race game is
// being played, because its clock keeps running on the server.

/** The words that open a ranked attempt's caption. */
export const RANKED_WORDS = "Daily · ranked · one attempt";

// Each action's words: what it is, its button in a ranked attempt, and in
// a casual game under way (leaving one costs nothing, so it is never asked).
const ACTION_WORDS = {
  "new-deal": ["A new deal", "Forfeit and deal again", "Resign and deal again"],
  "game-options": ["Changing the options", "Forfeit and restart", "Resign and restart"],
  leave: ["Leaving", "Forfeit and leave", null],
};

/**
 * The caption of a ranked attempt: "Daily · ranked · one attempt · 2026-12-03".
 * @param {string} date the daily's UTC date
 * @returns {string}
 */
export function rankedCaption(date) {
  return `${RANKED_WORDS} · ${date}`;
}

/**
 * The question to ask before `action` on a game, or null when it costs nothing.
 * @param {{action: "new-deal"|"game-options"|"leave"|"resign", rankedDaily: string|null,
 *   race: boolean, underWay: boolean}} game `rankedDaily` is the date of the daily
 *   this game is the ranked attempt at (else null); `underWay`: yours, still
 *   being played, with at least one move made.
 * @returns {{title: string, text: string, confirm: string, cancel: string}|null}
 */
export function leaveQuestion({ action, rankedDaily, race, underWay }) {
  const cancel = "Keep playing";
  if (action === "resign") {
    const text = rankedDaily
      ? `This is your one ranked attempt at the daily deal of ${rankedDaily}: resigning ends it for good. `
        + "You can practise the deal afterwards, unranked."
      : race ? "Resigning ends your race: you take no place, and the others race on."
        : "The game ends as resigned.";
    return { title: rankedDaily ? "Resign your ranked attempt?" : "Resign this game?", text, confirm: "Resign", cancel };
  }
  const [doing, forfeit, resign] = ACTION_WORDS[action];
  if (rankedDaily) {
    return {
      title: "Forfeit your ranked attempt?",
      text: `This is your one ranked attempt at the daily deal of ${rankedDaily}. ${doing} forfeits it: `
        + "it ends as resigned, and today's deal can then only be practised, unranked.",
      confirm: forfeit,
      cancel,
    };
  }
  if (!underWay || race || action === "leave") return null;
  return { title: "Resign this game?", text: `${doing} resigns the game under way: it ends as resigned.`, confirm: resign, cancel };
}
