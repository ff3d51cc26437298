// Card size from the viewport (client/web/js/sizing.js).
import assert from "node:assert/strict";
import test from "node:test";

import { LAYOUTS } from "../../../client/web/js/games.js";
import { MIN_CARD_PX, cardMetrics } from "../../../client/web/js/sizing.js";

const VIEW = { options: { draw: 1 }, piles: {}, spread: 1 };

function metrics(game, width, height) {
  const layout = LAYOUTS[game].layout(VIEW, { narrow: width < 600, leftHanded: false });
  return { layout, ...cardMetrics({ width, height, cols: layout.cols, sections: layout.sections }) };
}

test("the columns fit the width, with their gaps", () => {
  for (const game of Object.keys(LAYOUTS)) {
    for (const width of [352, 382, 422, 1000]) {
      const { layout, cw, gap } = metrics(game, width, null);
      assert.ok(layout.cols * cw + (layout.cols - 1) * gap <= width, `${game} at ${width}`);
    }
  }
});

test("a phone's WordLink cards are as wide as its seven columns allow", () => {
  const { cw } = metrics("klondike", 382, 700);
  assert.ok(cw >= 50, `cw ${cw}`);
});

test("every game stays readable at 360 px", () => {
  for (const game of Object.keys(LAYOUTS)) {
    const { cw, corner } = metrics(game, 352, 560);
    assert.ok(cw >= 34, `${game}: ${cw}`);
    assert.ok(corner >= 11);
  }
});

test("a short screen shrinks the cards so the board fits its height", () => {
  const tall = metrics("chequers", 382, 700);
  const short = metrics("chequers", 382, 300);
  assert.ok(short.cw < tall.cw);
  assert.ok(short.cw >= MIN_CARD_PX);
});

test("a tall screen lets the columns fan out further, within a limit", () => {
  const roomy = metrics("klondike", 382, 760);
  const width = metrics("klondike", 382, null);
  assert.ok(roomy.fan.normal > width.fan.normal);
  assert.ok(roomy.fan.normal <= 7);
});
