// Moves in words: "7♣ from column 2 onto 8♦", "draw three", "K♥ from the
// waste to empty column 7", instead of the notation's "t2-t4", "draw",
// "w-t7" (docs/notation.md, *Moves in words*).  Pure, for the unit tests.
//
// A move's words come from the position it is played in: the card named
// is the one the move takes from its source there, and the card it lands
// on is the destination's top there.  A view never holds a face-down
// card, so the words cannot name one: a draw says how many cards it
// turns, not which.  The piles are named as the board names them to a
// screen reader (notation.js's `pileName`, with the kind each game's
// layout gives the pile), so what is read in the move list is what is
// heard on the board.

import { parseCard } from "./cards.js";
import { genericLayout, LAYOUTS } from "./games.js";
import { parseMove, pileName, rowPlace } from "./notation.js";

const NUMBER_WORDS = ["no", "one", "two", "three"];
const ROW_PILE = "r";

/**
 * A card as short as its face shows it: "7♣", "10♥", "left half of Q♠".
 * @param {string} code a card code ("7C", "TH", "QS<")
 * @returns {string}
 */
export function cardText(code) {
  const card = parseCard(code);
  const face = `${card.rank}${card.symbol}`;
  return card.half ? `${card.half} half of ${face}` : face;
}

/**
 * The words of a move played in a position.  Text that does not name
 * piles of the position comes back as it is: a move list never fails to
 * show a move.
 * @param {object} view the position, as the server sends it (`game`, `options`, `piles`, Lara's Game's `spread`)
 * @param {string} text the move's notation ("t2-t4", "draw")
 * @returns {string}
 */
export function moveWords(view, text) {
  const move = parseMove(String(text));
  if (move.dst === null) return actionWords(view, move.src);
  const from = source(view, move);
  const to = destination(view, move);
  if (!from || !to || !Number.isInteger(move.count) || move.count < 1) return String(text);
  const moved = from.cards.length === move.count ? from.cards : [];
  const what = movedText(moved, move.count);
  return `${what} ${from.words} ${to.words(moved[0])}${refill(view, from, move.count)}`;
}

/**
 * The words of a whole line, each move from the position before it.
 * @param {object[]} views `views[i]` is the position move `i` is played in
 * @param {string[]} moves the moves' notation
 * @returns {string[]}
 */
export function lineWords(views, moves) {
  return moves.map((text, i) => (views[i] ? moveWords(views[i], text) : String(text)));
}

/**
 * Each pile's kind (tableau, foundation, cell …) as the game's layout
 * draws it; a game without a layout of its own gets the generic one.
 * @param {object} view a position
 * @returns {Map<string, string>} pile code → kind
 */
export function pileKinds(view) {
  const draw = LAYOUTS[view.game]?.layout ?? genericLayout;
  const kinds = new Map();
  // A view short of a field a layout reads gets it empty: words never throw.
  const full = { options: {}, piles: {}, ...view };
  for (const section of draw(full, {}).sections) for (const slot of section.slots) kinds.set(slot.pile, slot.kind);
  return kinds;
}

function actionWords(view, action) {
  if (action !== "draw") return action;
  const stock = view.piles?.s;
  if (!stock) return action;
  const left = stock.down + stock.up.length;
  if (view.game === "laras-game") return "turn a stock card and spread its pack";
  if (left === 0) return "turn the stock over";
  const turned = Math.min(Number(view.options?.draw) || 1, left);
  return `draw ${NUMBER_WORDS[turned] ?? turned}`;
}

// Where the cards come from: {pile, kind, cards, words}, or null when the
// view has no such pile.  A spread card (Lara's Game's "r3") is one card
// of the row, not the row's top.
function source(view, move) {
  const place = rowPlace(move.src);
  const code = place === null ? move.src : ROW_PILE;
  const pile = view.piles?.[code];
  const kind = pileKinds(view).get(code);
  if (!pile || !kind) return null;
  const cards = place === null ? pile.up.slice(-move.count) : pile.up.slice(place, place + 1);
  return { pile: code, kind, cards, words: `from ${placeName(view, code, kind)}` };
}

// Where the cards go: {words(card)}, or null when the view has no such pile.
function destination(view, move) {
  const place = rowPlace(move.dst);
  if (place !== null) return { words: () => `to place ${place + 1} in the spread row` };
  const pile = view.piles?.[move.dst];
  const kind = pileKinds(view).get(move.dst);
  if (!pile || !kind) return null;
  const top = pile.up[pile.up.length - 1];
  const empty = pile.down + pile.up.length === 0;
  switch (kind) {
    case "foundation":
      return { words: () => `to the ${foundationName(move.dst)}` };
    case "tableau":
      if (top) return { words: () => `onto ${cardText(top)}` };
      return { words: () => `to ${empty ? "empty " : ""}${placeName(view, move.dst, kind)}` };
    case "repair":
      return { words: (card) => `to the Repair Slot${repairs(card, top) ? `, repairing ${cardText(top.slice(0, 2))}` : ""}` };
    default:
      return { words: () => `to ${placeName(view, move.dst, kind)}` };
  }
}

// WordLink and Broken Deck keep one foundation a suit ("fs"): the card
// says which.  Lara's Game and Chequers keep two ("us" up from the Ace,
// "ds" down from the King): the direction is the news.
function foundationName(code) {
  if (code[0] === "u") return "up foundation";
  if (code[0] === "d") return "down foundation";
  return "foundation";
}

// "the waste", "column 2", "free cell 1", "the Repair Slot": a pile's
// name as the object of "from" or "to"; a game without a layout of its
// own has no names but its codes.
function placeName(view, code, kind) {
  if (!LAYOUTS[view.game]) return code;
  const name = pileName(code, kind);
  return ["tableau", "cell"].includes(kind) ? name : `the ${name}`;
}

function movedText(cards, count) {
  if (!cards.length) return count === 1 ? "a card" : `${count} cards`;
  if (count === 1) return cardText(cards[0]);
  return `${cardText(cards[0])} and the ${count - 1 === 1 ? "card" : `${count - 1} cards`} on it`;
}

// A half that meets its other half in Broken Deck's Repair Slot.
function repairs(card, waiting) {
  if (!card || !waiting) return false;
  const half = parseCard(card).half;
  const other = parseCard(waiting).half;
  return half !== null && other !== null && half !== other && card.slice(0, 2) === waiting.slice(0, 2);
}

// Chequers refills a tableau pile the move empties from the reserve, in
// the same move: said, because the board changes in two places.
function refill(view, from, count) {
  if (view.game !== "chequers" || from.kind !== "tableau") return "";
  const pile = view.piles[from.pile];
  const reserve = view.piles.v;
  const emptied = pile.down === 0 && pile.up.length === count;
  return emptied && reserve && reserve.down + reserve.up.length > 0 ? "; the reserve refills it" : "";
}
