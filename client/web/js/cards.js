// Card faces drawn with text and CSS: no image is fetched from anywhere.
//
// A code is RANK SUIT [b] [<|>] (docs/notation.md): "TS" is the ten of
// spades, "7Hb" the second deck's seven of hearts, "QS<" the left half of a
// torn queen.  The second-deck mark is not shown (both sevens look alike
// on a real table); a half keeps its corner on its own side so that both
// halves of a card stay readable.

const SUITS = { S: ["♠", "spades"], H: ["♥", "hearts"], D: ["♦", "diamonds"], C: ["♣", "clubs"] };
const RANK_TEXT = { A: "A", T: "10", J: "J", Q: "Q", K: "K" };
const RANK_WORDS = { A: "Ace", T: "10", J: "Jack", Q: "Queen", K: "King" };

export function parseCard(code) {
  const rank = code[0];
  const suit = code[1];
  const half = code.endsWith("<") ? "left" : code.endsWith(">") ? "right" : null;
  return {
    code,
    rank: RANK_TEXT[rank] ?? rank,
    suit,
    symbol: SUITS[suit][0],
    red: suit === "H" || suit === "D",
    half,
    words: `${RANK_WORDS[rank] ?? rank} of ${SUITS[suit][1]}${half ? ` (${half} half)` : ""}`,
  };
}

export function suitSymbol(letter) {
  return SUITS[letter.toUpperCase()][0];
}

export function rankText(number) {
  return { 1: "A", 11: "J", 12: "Q", 13: "K" }[number] ?? String(number);
}

// 1 → "Ace", 12 → "Queen", 7 → "7": a rank as a listener hears it.
export function rankWords(number) {
  return { 1: "Ace", 11: "Jack", 12: "Queen", 13: "King" }[number] ?? String(number);
}

export function faceElement(code) {
  const card = parseCard(code);
  const element = document.createElement("div");
  element.className = `card face ${card.red ? "red" : "black"} suit-${card.suit}${card.half ? ` half ${card.half}` : ""}`;
  element.dataset.code = code;
  // Read as its words ("Queen of hearts"), the corner and pip only drawn
  // (CSS shows their data-text): a card the player can pick is a button
  // named by those words, which must then be all the text it holds.
  element.setAttribute("role", "img");
  element.setAttribute("aria-label", card.words);
  const corner = document.createElement("span");
  corner.className = "corner";
  corner.dataset.text = `${card.rank}${card.symbol}`;
  const pip = document.createElement("span");
  pip.className = "pip";
  pip.dataset.text = card.symbol;
  element.append(corner, pip);
  if (card.half) {
    const tear = document.createElement("span");
    tear.className = "tear";
    tear.setAttribute("aria-hidden", "true");
    element.append(tear);
  }
  return element;
}

export function backElement() {
  const element = document.createElement("div");
  element.className = "card back";
  element.setAttribute("role", "img");
  element.setAttribute("aria-label", "face-down card");
  return element;
}
