// Card codes (docs/notation.md) as the page shows and says them (client/web/js/cards.js).
import assert from "node:assert/strict";
import test from "node:test";

import { parseCard, rankText, rankWords, suitSymbol } from "../../../client/web/js/cards.js";

test("a whole card has its rank, suit, colour and words", () => {
  const ten = parseCard("TS");
  assert.equal(ten.rank, "10");
  assert.equal(ten.symbol, "♠");
  assert.equal(ten.red, false);
  assert.equal(ten.half, null);
  assert.equal(ten.words, "10 of spades");
  assert.equal(parseCard("QH").red, true);
  assert.equal(parseCard("AD").words, "Ace of diamonds");
});

test("the second deck's mark is not shown, and a half says which half", () => {
  assert.equal(parseCard("7Hb").words, "7 of hearts");
  const left = parseCard("QS<");
  assert.equal(left.half, "left");
  assert.equal(left.words, "Queen of spades (left half)");
  assert.equal(parseCard("2C>").half, "right");
});

test("ranks and suits by number and letter", () => {
  assert.equal(rankText(1), "A");
  assert.equal(rankText(10), "10");
  assert.equal(rankText(13), "K");
  assert.equal(rankWords(11), "Jack");
  assert.equal(rankWords(5), "5");
  assert.equal(suitSymbol("h"), "♥");
  assert.equal(suitSymbol("C"), "♣");
});
