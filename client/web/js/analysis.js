// The result card's answer to "Where did it go wrong?": one sentence in
// words, never the solver's line of codes (the replay steps through that
// line on the board, one move at a time).
//
// The losing move is put in words from the position it was played in,
// which only the replay has: the card asks for the replay too, and says
// the move by its number alone if that fails.

import { analysisMarks, fetchReplay } from "./replaysteps.js";

/**
 * The result card's sentence for an `analysis` reply.
 * @param {object} reply the server's `analysis`
 * @param {?string} losingWords the losing move in words (null when not known)
 * @returns {string}
 */
export function analysisSummary(reply, losingWords) {
  const stepThrough = "Replay shows it on the board and steps through a winning line.";
  switch (reply.verdict) {
    case "won":
      return "This game was won.";
    case "still_winnable":
      return `It could still be won from the last position. ${stepThrough}`;
    case "lost_at":
      return `Move ${reply.last_winnable + 1}${losingWords ? `, ${losingWords},` : ""} lost it`
        + `${reply.certain ? "" : " (at the latest)"}. ${stepThrough}`;
    default:
      return reply.certain ? "This deal could not be won from the start."
        : "The solver found no win for this deal within its budget.";
  }
}

/**
 * `analysisSummary` with the losing move's words, from the game's replay.
 * @param {(message: object) => Promise<object>} request the app's request function
 * @param {string} gameId the finished game
 * @param {object} reply the server's `analysis` of it
 * @returns {Promise<string>}
 */
export async function analysisInWords(request, gameId, reply) {
  if (reply.verdict !== "lost_at") return analysisSummary(reply, null);
  try {
    const { steps } = await fetchReplay(request, gameId);
    return analysisSummary(reply, analysisMarks(steps, reply).losingWords);
  } catch {
    return analysisSummary(reply, null);
  }
}
