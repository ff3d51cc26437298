// Card size from the room the board has (client/web/js/sizing.js).
import assert from "node:assert/strict";
import test from "node:test";

import { LAYOUTS } from "../../../client/web/js/games.js";
import { GROWTH, MIN_CARD_PX, MIN_CORNER_PX, cardMetrics, pileBox } from "../../../client/web/js/sizing.js";

const VIEW = { options: { draw: 1 }, piles: {}, spread: 1 };
// The board's width and room (px) on each screen the client is made for:
// the page's width less its padding, and the height between the lines
// above the board and the bottom of the screen or the phone's toolbar.
const SCREENS = {
  "1280x720": [1184, 527], "1366x768": [1184, 575], "1920x1080": [1184, 887],
  "360x740": [352, 576], "390x844": [382, 678], "412x915": [404, 747], "430x932": [422, 764],
};

function metrics(game, width, height) {
  const layout = LAYOUTS[game].layout(VIEW, { narrow: width < 600, leftHanded: false });
  return { layout, ...cardMetrics({ width, height, cols: layout.cols, sections: layout.sections }) };
}

// How tall the board is with these metrics, its fanned piles at their
// boxes: the sum of its rows, the gaps between them and its padding.
function boardHeight({ layout, ch, gap, ...rest }, pad) {
  const sections = layout.sections.map((section) => {
    const rows = Math.ceil(section.slots.reduce((sum, slot) => sum + (slot.span ?? 1), 0) / layout.cols);
    const fans = section.slots.some((slot) => slot.fan === "down");
    const row = fans ? pileBox({ ch, gap, ...rest }, section) : ch;
    return rows * row + (rows - 1) * gap * (section.compact ? 1.5 : 1);
  });
  return pad + sections.reduce((sum, height) => sum + height, 0) + 2 * gap * (sections.length - 1);
}

test("the columns fit the width, with their gaps", () => {
  for (const game of Object.keys(LAYOUTS)) {
    for (const width of [352, 382, 422, 1000]) {
      for (const height of [null, 600]) {
        const { layout, cw, gap } = metrics(game, width, height);
        assert.ok(layout.cols * cw + (layout.cols - 1) * gap <= width, `${game} at ${width}`);
      }
    }
  }
});

test("every game's board fits each screen's height, its piles grown as usual", () => {
  for (const [screen, [width, height]] of Object.entries(SCREENS)) {
    for (const game of Object.keys(LAYOUTS)) {
      const shown = metrics(game, width, height);
      const tall = boardHeight(shown, width < 600 ? 24 : 37);
      assert.ok(tall <= height, `${game} at ${screen}: ${tall} > ${height}`);
      for (const section of shown.layout.sections.filter((s) => s.slots.some((slot) => slot.fan === "down"))) {
        const kind = section.compact ? "compact" : "normal";
        assert.ok(pileBox(shown, section) >= shown.ch * (1 + GROWTH[kind]) - 1, `${game} at ${screen}: ${kind} box`);
        assert.equal(shown.fan[kind], shown.box[kind], "the cards fan tighter only where the box ends");
      }
    }
  }
});

test("the height sizes a desktop's cards: shorter screens, smaller cards", () => {
  const at720 = metrics("klondike", ...SCREENS["1280x720"]);
  const at768 = metrics("klondike", ...SCREENS["1366x768"]);
  const at1080 = metrics("klondike", ...SCREENS["1920x1080"]);
  assert.ok(at720.cw < at768.cw && at768.cw < at1080.cw, `${at720.cw} ${at768.cw} ${at1080.cw}`);
  assert.ok(at720.cw >= 60, `${at720.cw}`);
});

test("a phone's fanned rows take the height the cards leave, so the board fills it", () => {
  for (const [screen, [width, height]] of Object.entries(SCREENS).filter(([, [w]]) => w < 600)) {
    for (const game of ["klondike", "broken-deck", "chequers", "laras-game"]) {
      const tall = boardHeight(metrics(game, width, height), 24);
      assert.ok(tall >= 0.85 * height, `${game} at ${screen}: ${tall} of ${height}`);
    }
  }
});

test("a phone's WordLink cards are as wide as its seven columns allow", () => {
  const { cw } = metrics("klondike", 382, 678);
  assert.equal(cw, Math.floor((382 - 6 * 4) / 7));
});

test("Lara's Game on a phone: five columns of large cards", () => {
  const { layout, cw } = metrics("laras-game", 352, 576);
  assert.equal(layout.cols, 5);
  assert.ok(cw >= 55, `cw ${cw}`);
});

test("Broken Deck on a phone: eight columns, the Repair Slot on a row of its own", () => {
  const { layout, cw } = metrics("broken-deck", 352, 576);
  assert.equal(layout.cols, 8);
  assert.deepEqual(layout.sections[1].slots.map((slot) => slot.pile), ["r"]);
  assert.equal(cw, Math.floor((352 - 7 * 4) / 8));
});

test("every game stays readable at 360 px", () => {
  for (const game of Object.keys(LAYOUTS)) {
    const { cw, corner } = metrics(game, 352, 576);
    assert.ok(cw >= 35, `${game}: ${cw}`);
    assert.ok(corner >= MIN_CORNER_PX);
  }
});

test("a short screen shrinks the cards, down to the narrowest readable card", () => {
  const tall = metrics("chequers", 382, 700);
  const short = metrics("chequers", 382, 300);
  assert.ok(short.cw < tall.cw);
  assert.equal(metrics("chequers", 382, 100).cw, MIN_CARD_PX);
  assert.equal(metrics("chequers", 382, 100).corner, MIN_CORNER_PX);
});

test("where the page scrolls, the width alone sizes the cards and a column fans further than its box", () => {
  const scrolling = metrics("klondike", 382, null);
  assert.equal(scrolling.cw, Math.floor((382 - 6 * 4) / 7));
  assert.deepEqual(scrolling.box, GROWTH);
  assert.ok(scrolling.fan.normal > scrolling.box.normal);
});
