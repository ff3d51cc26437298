// What the browser knows about each game: how its piles are laid out, which
// cards can be picked up, its lobby options and the counters worth showing.
//
// The board itself is generic (board.js): it draws sections of slots, each
// slot one pile of the view.  A slot's `pick` says which of its cards start
// a move: "run" (any face-up card, taking the cards above it along), "top"
// (only the top card), "row" (every card, named r1, r2 … from the left:
// Lara's Game's spread row) or "action" (clicking sends the game's action,
// e.g. draw).  `cards` is how many cards go home and `repairs` (Broken
// Deck) how many cards are torn, for the counters and the race table.
// A fifth game needs one entry here and nothing else.

import { rankText, suitSymbol } from "./cards.js";

const SUIT_LETTERS = ["s", "h", "d", "c"];

function foundation(pile, label) {
  return { pile, pick: "top", fan: "stack", kind: "foundation", label };
}

function suitFoundations(prefix = "f") {
  return SUIT_LETTERS.map((s) => foundation(`${prefix}${s}`, suitSymbol(s)));
}

function upAndDownFoundations() {
  return [
    ...SUIT_LETTERS.map((s) => foundation(`u${s}`, `A${suitSymbol(s)}`)),
    ...SUIT_LETTERS.map((s) => foundation(`d${s}`, `K${suitSymbol(s)}`)),
  ];
}

function columns(count, pick, label = "") {
  return Array.from({ length: count }, (_, i) => ({ pile: `t${i + 1}`, pick, fan: "down", kind: "tableau", label }));
}

const DEAL_KINDS = ["random", "winnable", "daily", "number"];

export const GAMES = {
  klondike: {
    title: "WordLink",
    blurb: "Classic solitaire: build four suits from Ace to King; tap the stock to draw.",
    deals: DEAL_KINDS,
    firstDeal: 1,
    lobbyOptions: [
      { name: "scoring", label: "Scoring", choices: [["standard", "Standard"], ["vegas", "Vegas"]] },
    ],
    // Draw mode and auto-collect are player settings in WordLink's seed.
    settingsOptions: (settings) => ({ draw: settings.draw, auto_collect: settings.autoCollect }),
    gameOptions: [],
    layout(view, { leftHanded }) {
      const foundations = suitFoundations();
      const stock = { pile: "s", pick: "action", action: "draw", fan: "stack", kind: "stock" };
      const waste = { pile: "w", pick: "top", fan: view.options.draw === 3 ? "waste" : "stack", kind: "waste", span: 2 };
      const top = leftHanded
        ? [stock, waste, ...foundations]
        : [...foundations, waste, stock];
      return { cols: 7, sections: [{ slots: top }, { slots: columns(7, "run", "K") }] };
    },
    cards: 52,
    stats(m) {
      return [["Foundation", `${foundationCards(m.view, ["fs", "fh", "fd", "fc"])}/${this.cards}`]];
    },
  },

  "broken-deck": {
    title: "Broken Deck",
    blurb: "FreeCell with six torn cards: repair them in the Repair Slot, then build the foundations.",
    deals: ["random", "daily", "number"],
    firstDeal: 1,
    lastDeal: 1000,
    // The deal number must be known to restart it at another difficulty,
    // and every piece is face up, so the browser may pick the number itself.
    chooseRandomDeal: true,
    lobbyOptions: [
      { name: "difficulty", label: "Difficulty",
        choices: [["relaxed", "Relaxed"], ["standard", "Standard"], ["challenge", "Challenge"]] },
      { name: "practice", label: "Practice deal (all six repairs done)", toggle: true },
    ],
    gameOptions: ["difficulty"],
    layout() {
      const cells = ["c1", "c2", "c3", "c4"].map((pile) => ({ pile, pick: "top", fan: "stack", kind: "cell" }));
      const slot = { pile: "r", pick: "top", fan: "stack", kind: "repair", label: "Repair", caption: "Repair Slot" };
      return { cols: 9, sections: [
        { slots: [...cells, slot, ...suitFoundations()] },
        { slots: columns(8, "run"), inset: true },
      ] };
    },
    cards: 52,
    repairs: 6,
    stats(m) {
      return [
        ["Repairs", `${m.counters.repairs ?? m.view.repairs ?? 0}/${this.repairs}`],
        ["Foundation", `${m.counters.foundation ?? 0}/${this.cards}`],
        ["Difficulty", capitalize(m.view.difficulty ?? m.view.options.difficulty)],
      ];
    },
  },

  "laras-game": {
    title: "Lara's Game",
    blurb: "Two decks, thirteen packs: turn the stock to spread a pack, rearrange the row, build up and down.",
    deals: DEAL_KINDS,
    firstDeal: 1,
    lobbyOptions: [{ name: "autoplay", label: "AutoPlay", toggle: true }],
    gameOptions: [],
    layout(view, { narrow }) {
      const packs = Array.from({ length: 13 }, (_, i) => ({
        pile: `p${i + 1}`, pick: "top", fan: "stack", kind: "pack", label: rankText(i + 1),
        marked: view.spread === i + 1,
      }));
      const stock = { pile: "s", pick: "action", action: "draw", fan: "stack", kind: "stock" };
      const cols = narrow ? 8 : 13;
      const row = { pile: "r", pick: "row", fan: "right", kind: "row", span: cols - 1,
        label: view.spread ? `Pack ${rankText(view.spread)} spread` : "Spread row" };
      return { cols, sections: [
        { slots: upAndDownFoundations() },
        { slots: packs },
        { slots: [stock, row] },
      ] };
    },
    cards: 104,
    stats(m) {
      return [["Foundations", `${m.counters.foundation ?? 0}/${this.cards}`], ["Stock", m.counters.stock ?? 0]];
    },
  },

  chequers: {
    title: "Chequers",
    blurb: "Two decks, 25 piles: build up or down by suit (wrapping), send cards to eight foundations.",
    deals: DEAL_KINDS,
    firstDeal: 1,
    lobbyOptions: [],
    gameOptions: [],
    layout(view, { narrow }) {
      const reserve = { pile: "v", pick: "top", fan: "stack", kind: "reserve", label: "Reserve", caption: "Reserve" };
      return { cols: narrow ? 9 : 13, sections: [
        { slots: [...upAndDownFoundations(), reserve] },
        { slots: columns(25, "top"), compact: true },
      ] };
    },
    cards: 104,
    stats(m) {
      return [["Foundations", `${m.counters.foundation ?? 0}/${this.cards}`], ["Reserve", m.counters.reserve ?? 0]];
    },
  },
};

function foundationCards(view, names) {
  return names.reduce((sum, name) => sum + (view.piles[name]?.up.length ?? 0), 0);
}

function capitalize(word) {
  return word ? word[0].toUpperCase() + word.slice(1) : "";
}

export function gameTitle(gameId) {
  return GAMES[gameId]?.title ?? gameId;
}

export function describeOptions(options) {
  const parts = [];
  for (const [name, value] of Object.entries(options ?? {})) {
    if (value === false || value === null) continue;
    parts.push(value === true ? name.replace("_", " ") : `${name.replace("_", " ")} ${value}`);
  }
  return parts.join(", ");
}
