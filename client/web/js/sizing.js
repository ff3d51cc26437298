// Card size from the viewport: as wide as the board's columns allow and,
// on a phone, no taller than the height between the header and the
// toolbar allows, so 7 columns (WordLink), 9 (Broken Deck), 8 or 13 (Lara's
// Game) and 25 piles (Chequers) stay readable and the board fills the
// screen instead of a quarter of it.  Pure, for the unit tests.

export const MIN_CARD_PX = 28;
export const MAX_CARD_PX = 96;
export const NARROW_PX = 600;
const WIDE = { gap: 8, aspect: 1.4, pad: 37 };
// A phone's cards are a little taller (the screen is), with tighter gaps.
const PHONE = { gap: 4, aspect: 1.45, pad: 30 };
// Below these, a fanned column shows too little of each card: the cards
// shrink instead (in card heights, for a normal and a compact fan).
const MIN_FAN = { normal: 2.2, compact: 1.5 };
const DEFAULT_FAN = { normal: 4.2, compact: 2.4 };
const MAX_FAN = { normal: 7, compact: 3.2 };

// How many rows a section takes on `cols` columns.
function rowsOf(section, cols) {
  const spans = section.slots.reduce((sum, slot) => sum + (slot.span ?? 1), 0);
  return Math.ceil(spans / cols);
}

function fanned(section) {
  return section.slots.some((slot) => slot.fan === "down");
}

// {cw, ch, gap, fan: {normal, compact}} for a layout of `sections` on
// `cols` columns in a board `width` wide; `height` (px, or null where the
// page scrolls) is the room the board has, so a fanned column may grow to
// use it.
export function cardMetrics({ width, height = null, cols, sections }) {
  const narrow = width < NARROW_PX;
  const { gap, aspect, pad } = narrow ? PHONE : WIDE;
  let cw = Math.max(MIN_CARD_PX, Math.min(MAX_CARD_PX, Math.floor((width - (cols - 1) * gap) / cols)));
  if (!height) return finish(cw, aspect, gap, DEFAULT_FAN);
  const rows = sections.map((section) => ({ rows: rowsOf(section, cols), fan: fanned(section), compact: Boolean(section.compact) }));
  const gaps = pad + gap * 2 * (sections.length - 1) + rows.reduce((sum, row) => sum + (row.rows - 1) * gap * 1.5, 0);
  const cardHeights = rows.reduce((sum, row) => sum + row.rows * (row.fan ? 1 + MIN_FAN[row.compact ? "compact" : "normal"] : 1), 0);
  const tallest = Math.floor((height - gaps) / cardHeights / aspect);
  cw = Math.max(MIN_CARD_PX, Math.min(cw, tallest));
  const ch = Math.round(cw * aspect);
  const fanRows = rows.filter((row) => row.fan);
  if (!fanRows.length) return finish(cw, aspect, gap, DEFAULT_FAN);
  const plain = rows.filter((row) => !row.fan).reduce((sum, row) => sum + row.rows * ch, 0);
  const fanCardRows = fanRows.reduce((sum, row) => sum + row.rows, 0);
  const room = (height - gaps - plain) / fanCardRows / ch - 1;
  const fan = {
    normal: Math.min(MAX_FAN.normal, Math.max(MIN_FAN.normal, room)),
    compact: Math.min(MAX_FAN.compact, Math.max(MIN_FAN.compact, room)),
  };
  return finish(cw, aspect, gap, fan);
}

function finish(cw, aspect, gap, fan) {
  return { cw, ch: Math.round(cw * aspect), gap, fan, corner: Math.max(11, Math.round(cw * 0.28)) };
}
