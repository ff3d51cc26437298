// Move notation (docs/notation.md) and the words a screen reader says for
// piles: pure helpers shared by the board, the hints and the tests.
//
// Pile codes ("fs", "t3", "c1") are the protocol's names; a listener
// hears words instead ("spades foundation", "column 3", "free cell 1"),
// because "Ace of spades, fs" means nothing to someone who cannot see
// the table.

import { rankWords } from "./cards.js";

const SUIT_WORDS = { s: "spades", h: "hearts", d: "diamonds", c: "clubs" };

// "t1-t4x3" → {src: "t1", dst: "t4", count: 3}; "draw" → {src: "draw", dst: null, count: 1}.
export function parseMove(text) {
  const [src, rest] = text.split("-");
  if (rest === undefined) return { src, dst: null, count: 1 };
  const [dst, count] = rest.split("x");
  return { src, dst, count: count ? Number(count) : 1 };
}

export function moveText(src, dst, count) {
  return `${src}-${dst}${count > 1 ? `x${count}` : ""}`;
}

// Lara's Game's spread row names its cards r1, r2 … from the left: the
// 0-based place of "r3" is 2; any other source has none (null).
export function rowPlace(src) {
  const match = /^r(\d+)$/.exec(src ?? "");
  return match ? Number(match[1]) - 1 : null;
}

// The spoken name of a pile, from its code and its slot's kind (the kind
// tells Broken Deck's Repair Slot "r" from Lara's spread row "r").
export function pileName(code, kind) {
  const suit = SUIT_WORDS[code[1]];
  if (kind === "foundation" && suit) {
    if (code[0] === "u") return `${suit} foundation up`;
    if (code[0] === "d") return `${suit} foundation down`;
    return `${suit} foundation`;
  }
  const number = code.slice(1);
  switch (kind) {
    case "stock": return "stock";
    case "waste": return "waste";
    case "tableau": return `column ${number}`;
    case "cell": return `free cell ${number}`;
    case "repair": return "Repair Slot";
    case "row": return "spread row";
    case "reserve": return "reserve";
    case "pack": return `${rankWords(Number(number))} pack`;
    default: return code;
  }
}

// What a pile says when it has no card to pick up: "stock, 23 cards",
// "column 3, 4 face-down cards", "free cell 1, empty".
export function pileWords(code, kind, pile) {
  const name = pileName(code, kind);
  const total = pile.down + pile.up.length;
  if (kind === "stock") return `${name}, ${total ? `${total} card${total === 1 ? "" : "s"}` : "empty"}`;
  if (pile.down) return `${name}, ${pile.down} face-down card${pile.down === 1 ? "" : "s"}`;
  return `${name}, empty`;
}
