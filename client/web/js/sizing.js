// Card size from the room the board has: no wider than its columns allow
// and no taller than the height between the header and the toolbar allows
// once every row has room for its usual growth, so each game's deal and
// its usual growth fit the screen without the page scrolling, at 1280×720
// as on a 360 px phone.  Pure, for the unit tests.
//
// A fanned row (WordLink's and Broken Deck's columns, Chequers' piles)
// keeps a fixed box: at least `GROWTH` card heights below its first card,
// and on a screen with room to spare all of that room.  A pile longer
// than its box fans tighter rather than growing it, so nothing below it
// moves and the page never scrolls.

// The narrowest card: Chequers' nine columns on a 360 px phone are 35 px
// wide; the floor only matters on smaller screens.
export const MIN_CARD_PX = 28;
export const MAX_CARD_PX = 120;
// Where the page scrolls (a replay, a race's results above a board), cards
// stay the size they always had there.
const SCROLLING_MAX_PX = 96;
// Rank and suit stay at least this large, however small the card.
export const MIN_CORNER_PX = 12;
export const NARROW_PX = 600;
// `pad` is the board's own padding (style.css: room for the captions above
// the first row, and a margin below the last).
const WIDE = { gap: 8, aspect: 1.4, pad: 37 };
// A phone's cards are a little taller (the screen is), with tighter gaps.
const PHONE = { gap: 4, aspect: 1.45, pad: 24 };
// The usual growth of a fanned pile, in card heights below its first card:
// 3 holds a column of 13 face-up cards with every corner showing (WordLink
// builds King to Ace), 1.5 a Chequers pile of 7.
export const GROWTH = { normal: 3, compact: 1.5 };
// Where the page scrolls instead (no height given), a column fans this far
// before it fans tighter.
const SCROLLING_FAN = { normal: 4.2, compact: 2.4 };

function rowsOf(section, cols) {
  const spans = section.slots.reduce((sum, slot) => sum + (slot.span ?? 1), 0);
  return Math.ceil(spans / cols);
}

function fanned(section) {
  return section.slots.some((slot) => slot.fan === "down");
}

function kindOf(section) {
  return section.compact ? "compact" : "normal";
}

// The height a layout takes besides its cards: the board's padding, the
// gaps between sections (twice the gap) and between a section's rows.
function overhead(rows, { gap, pad }) {
  const between = 2 * gap * (rows.length - 1);
  return pad + between + rows.reduce((sum, row) => sum + (row.count - 1) * (row.kind === "compact" ? 1.5 * gap : gap), 0);
}

/**
 * The card size and fans for a layout of `sections` on `cols` columns.
 * @param {{width: number, height?: number|null, cols: number, sections: Array<object>}} room
 *   `width` is the board's width; `height` the room it has down to the
 *   toolbar, or null where the page scrolls and the width alone decides.
 * @returns {{cw: number, ch: number, gap: number, corner: number, fan: {normal: number, compact: number},
 *   box: {normal: number, compact: number}}}
 *   `fan` is how far, in card heights below its first card, the cards of a
 *   fanned pile of each kind may reach before they fan tighter; `box` how
 *   far its box reaches at least (the same, unless the page scrolls).
 */
export function cardMetrics({ width, height = null, cols, sections }) {
  const shape = width < NARROW_PX ? PHONE : WIDE;
  const { gap, aspect } = shape;
  const wide = Math.floor((width - (cols - 1) * gap) / cols);
  if (!height) return finish(clamp(Math.min(SCROLLING_MAX_PX, wide)), aspect, gap, SCROLLING_FAN, GROWTH);
  const rows = sections.map((section) => ({ count: rowsOf(section, cols), fan: fanned(section), kind: kindOf(section) }));
  const free = height - overhead(rows, shape);
  const cardHeights = rows.reduce((sum, row) => sum + row.count * (row.fan ? 1 + GROWTH[row.kind] : 1), 0);
  const cw = clamp(Math.min(wide, Math.floor(free / cardHeights / aspect)));
  const ch = Math.floor(cw * aspect);
  const fanRows = rows.filter((row) => row.fan).reduce((sum, row) => sum + row.count, 0);
  if (!fanRows) return finish(cw, aspect, gap, GROWTH, GROWTH);
  const plain = rows.filter((row) => !row.fan).reduce((sum, row) => sum + row.count, 0);
  const reach = Math.floor((free - plain * ch) / fanRows) / ch - 1;
  const fan = { normal: Math.max(GROWTH.normal, reach), compact: Math.max(GROWTH.compact, reach) };
  return finish(cw, aspect, gap, fan, fan);
}

/**
 * The least height of a fanned pile's box: it keeps its row's reach, so a
 * row never moves when a pile above it grows.
 * @param {{ch: number, box: {normal: number, compact: number}}} metrics
 * @param {object} section the pile's section of the layout
 * @returns {number} px
 */
export function pileBox(metrics, section) {
  return Math.floor(metrics.ch * (1 + metrics.box[kindOf(section)]));
}

function clamp(cw) {
  return Math.max(MIN_CARD_PX, Math.min(MAX_CARD_PX, cw));
}

function finish(cw, aspect, gap, fan, box) {
  return { cw, ch: Math.floor(cw * aspect), gap, fan, box, corner: Math.max(MIN_CORNER_PX, Math.round(cw * 0.28)) };
}
