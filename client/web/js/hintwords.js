// A hint in a sentence: the move in words and how sure the hint is.  The
// server's `confidence` is the share of the deals of the hidden cards it
// tried in which the move wins (docs/protocol.md, *hint*); with none won,
// the move is its best lead towards a card not seen yet.  A number alone
// ("75%") would read as a chance of winning the game, which it is not, so
// the sentence says what was counted.  Pure, for the unit tests.

import { moveWords } from "./movewords.js";

/**
 * The sentence shown when a hint comes back.
 * @param {object} view the board the hint was asked on (a snapshot's view)
 * @param {{move: string|null, confidence?: number|null}} reply the `hint` reply
 * @returns {string}
 */
export function hintSentence(view, reply) {
  if (!reply.move) return "No useful move found.";
  const words = `Hint: ${moveWords(view, reply.move)}.`;
  const sure = reply.confidence;
  if (typeof sure !== "number") return words;
  if (sure >= 1) return `${words} It wins in every deal of the hidden cards tried.`;
  if (sure > 0) return `${words} It wins in ${Math.round(sure * 100)}% of the deals of the hidden cards tried.`;
  return `${words} No win found yet: it leads to a card not seen yet.`;
}
