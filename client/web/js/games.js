// How the browser draws each game: how its piles are laid out and which
// cards can be picked up, and which player settings it takes as options.
// Everything else about a game (title, blurb, deal kinds, lobby options
// and their labels, the counters worth showing) comes from the server's
// `catalogue` message (docs/protocol.md), which `setCatalogue` merges in
// before anything is drawn; a game the server offers with no layout here
// gets `genericLayout`, so a new game plays in the browser before it has a
// layout of its own.
//
// The board itself is generic (board.js): it draws sections of slots, each
// slot one pile of the view.  A slot's `pick` says which of its cards start
// a move: "run" (any face-up card, taking the cards above it along), "top"
// (only the top card), "row" (every card, named r1, r2 … from the left:
// Lara's Game's spread row) or "action" (clicking sends the game's action,
// e.g. draw).

import { rankText, suitSymbol } from "./cards.js";

const SUIT_LETTERS = ["s", "h", "d", "c"];

function foundation(pile, label) {
  return { pile, pick: "top", fan: "stack", kind: "foundation", label };
}

function suitFoundations(prefix = "f") {
  return SUIT_LETTERS.map((s) => foundation(`${prefix}${s}`, suitSymbol(s)));
}

function upFoundations() {
  return SUIT_LETTERS.map((s) => foundation(`u${s}`, `A${suitSymbol(s)}`));
}

function downFoundations() {
  return SUIT_LETTERS.map((s) => foundation(`d${s}`, `K${suitSymbol(s)}`));
}

function upAndDownFoundations() {
  return [...upFoundations(), ...downFoundations()];
}

function columns(count, pick, label = "") {
  return Array.from({ length: count }, (_, i) => ({ pile: `t${i + 1}`, pick, fan: "down", kind: "tableau", label }));
}

export const LAYOUTS = {
  klondike: {
    layout(view, { leftHanded }) {
      const foundations = suitFoundations();
      const stock = { pile: "s", pick: "action", action: "draw", fan: "stack", kind: "stock" };
      const waste = { pile: "w", pick: "top", fan: view.options.draw === 3 ? "waste" : "stack", kind: "waste", span: 2 };
      const top = leftHanded
        ? [stock, waste, ...foundations]
        : [...foundations, waste, stock];
      return { cols: 7, sections: [{ slots: top }, { slots: columns(7, "run", "K") }] };
    },
    // Draw mode and auto-collect are player settings in WordLink's rule text.
    settingsOptions: (settings) => ({ draw: settings.draw, auto_collect: settings.autoCollect }),
  },

  "broken-deck": {
    layout(view, { narrow }) {
      const cells = ["c1", "c2", "c3", "c4"].map((pile) => ({ pile, pick: "top", fan: "stack", kind: "cell" }));
      const slot = { pile: "r", pick: "top", fan: "stack", kind: "repair", label: "Repair", caption: "Repair Slot" };
      if (narrow) {
        // A phone: eight columns (wider cards than nine), the Repair Slot
        // on a row of its own between the cells and foundations and the
        // columns, its caption beside it.
        return { cols: 8, sections: [
          { slots: [...cells, ...suitFoundations()] },
          { slots: [slot], aside: true },
          { slots: columns(8, "run") },
        ] };
      }
      return { cols: 9, sections: [
        { slots: [...cells, slot, ...suitFoundations()] },
        { slots: columns(8, "run"), inset: true },
      ] };
    },
  },

  "laras-game": {
    layout(view, { narrow }) {
      const packs = Array.from({ length: 13 }, (_, i) => ({
        pile: `p${i + 1}`, pick: "top", fan: "stack", kind: "pack", label: rankText(i + 1),
        marked: view.spread === i + 1,
      }));
      const stock = { pile: "s", pick: "action", action: "draw", fan: "stack", kind: "stock" };
      const label = view.spread ? `Pack ${rankText(view.spread)} spread` : "Spread row";
      if (narrow) {
        // A phone: five columns (cards half as wide again as in eight):
        // the up foundations, the down ones, the packs with the stock last,
        // and the spread row across the screen.
        return { cols: 5, sections: [
          { slots: upFoundations() },
          { slots: downFoundations() },
          { slots: [...packs, stock] },
          { slots: [{ pile: "r", pick: "row", fan: "right", kind: "row", span: 5, label }] },
        ] };
      }
      const row = { pile: "r", pick: "row", fan: "right", kind: "row", span: 12, label };
      return { cols: 13, sections: [
        { slots: upAndDownFoundations() },
        { slots: packs },
        { slots: [stock, row] },
      ] };
    },
  },

  chequers: {
    layout(view, { narrow }) {
      const reserve = { pile: "v", pick: "top", fan: "stack", kind: "reserve", label: "Reserve", caption: "Reserve" };
      return { cols: narrow ? 9 : 13, sections: [
        { slots: [...upAndDownFoundations(), reserve] },
        { slots: columns(25, "top"), compact: true },
      ] };
    },
  },
};

const GENERIC_COLS = 8;

// A game without a layout of its own: every pile of the view in the order
// the server sends them, top cards picked up, foundations (a name starting
// with "f") shown stacked, the other piles fanned down.
export function genericLayout(view, { narrow } = {}) {
  const slots = Object.keys(view.piles).map((pile) => pile.startsWith("f")
    ? foundation(pile, pile)
    : { pile, pick: "top", fan: "down", kind: "tableau", label: pile });
  return { cols: narrow ? Math.min(GENERIC_COLS, slots.length) : Math.max(1, slots.length), sections: [{ slots }] };
}

// The games the server offers, by id: its catalogue entries with their
// layouts; empty until the catalogue arrives.
export const GAMES = {};

export function setCatalogue(entries) {
  for (const id of Object.keys(GAMES)) delete GAMES[id];
  for (const entry of entries) GAMES[entry.game] = gameOf(entry);
}

// Options for a game whose result competes (a daily attempt, a race):
// the server refuses the ones that move cards by themselves there, so
// they go off whatever the player's settings say.
export function withoutAutomatic(meta, options) {
  return { ...options, ...Object.fromEntries(meta.automatic.map((name) => [name, false])) };
}

function gameOf(entry) {
  const drawing = LAYOUTS[entry.game] ?? { layout: genericLayout };
  return {
    title: entry.title,
    blurb: entry.blurb,
    deals: entry.deal_kinds,
    firstDeal: entry.first_deal,
    lastDeal: entry.last_deal ?? Number.MAX_SAFE_INTEGER,
    chooseRandomDeal: entry.choose_random_deal,
    lobbyOptions: entry.options.map((option) => ({
      name: option.name, label: option.label, toggle: option.toggle,
      choices: option.choices.map((choice) => [choice.value, choice.label]),
    })),
    gameOptions: entry.changeable,
    automatic: entry.automatic ?? [],
    cards: entry.cards,
    counters: entry.counters,
    layout: drawing.layout,
    settingsOptions: drawing.settingsOptions,
    stats(m) {
      return [
        ["Foundation", `${m.counters.foundation ?? 0}/${this.cards}`],
        ...this.counters.map(({ name, label, out_of: outOf }) => {
          const value = m.counters[name] ?? m.view[name] ?? 0;
          return [label, outOf === null ? value : `${value}/${outOf}`];
        }),
        ...this.gameOptions.map((name) => [this.lobbyOptions.find((option) => option.name === name)?.label ?? name,
          capitalize(String(m.view[name] ?? m.view.options[name] ?? ""))]),
      ];
    },
  };
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
