// The board: draws any game's view from its layout (games.js) and turns
// clicks, drags and keys into intents for the game screen.
//
// Three ways to move, one path: a click (or tap, or Enter on a focused
// card) selects a source, a second one on a destination sends the move; a
// drag does both in one gesture; a second click on the selected card asks
// the server for the best move of it (`auto_move`), which is what a
// double-click or double-tap does (dragging is drag.js's).  The server
// decides every move: the board only proposes, and redraws from the view
// the server sends back.
//
// Keyboard: Tab goes from pile to pile, the arrow keys move left/right
// between piles and up/down within a pile, Enter or Space acts like a
// click, Escape drops the selection.
//
// Motion (motion.js): a face-up card keeps its element for the whole
// game, keyed by its code, and every redraw measures the cards before and
// after and slides each one that moved; a face-down card turned up flips
// in place, a drawn card arrives from the stock, a new game is dealt.
// Under `prefers-reduced-motion` the board just redraws.

import { backElement, faceElement } from "./cards.js";
import { deal, dealing, originOf, planMotion, play, reducedMotion, settle, shake } from "./motion.js";
import { moveText, parseMove, pileName, pileWords, rowPlace } from "./notation.js";
import { Dragging } from "./drag.js";
import { cardMetrics, pileBox } from "./sizing.js";

export class Board {
  constructor(root, onIntent) {
    this.root = root;
    this.onIntent = onIntent;
    this.selection = null;
    this.hint = null;
    this.dragging = new Dragging(this);
    this.focusKey = null;
    this.faces = new Map();
    this.dropRects = null;
    root.classList.add("board");
    root.addEventListener("click", (event) => this.clicked(event));
    root.addEventListener("keydown", (event) => this.keyDown(event));
    root.addEventListener("focusin", (event) => {
      const spot = event.target.closest("[data-spot]");
      if (spot) this.focusKey = spot.dataset.spot;
    });
  }

  // Draw `view` laid out by `layout`; `legal` is null where the difficulty
  // offers no highlights.  `dealt` is a new game's first view: its cards
  // are dealt rather than slid from the last game's.
  // `height` is the room the board has down to the toolbar (null where the
  // page scrolls instead).
  show({ view, layout, legal, interactive, dealt = false, height = null }) {
    this.view = view;
    this.height = height;
    this.layout = layout;
    this.legal = legal;
    this.interactive = interactive;
    if (!interactive) this.selection = null;
    if (this.selection && !this.sourceStillThere(this.selection)) this.selection = null;
    if (dealt) this.faces.clear();
    this.render({ dealt });
  }

  // The server refused a move of `src`: its cards shake their heads.
  refused(src) {
    if (reducedMotion()) return;
    const place = rowPlace(src);
    const selector = place !== null ? `[data-spot="r:${place}"]` : `[data-pile="${src}"] .card.face:not(.under)`;
    const nodes = [...this.root.querySelectorAll(selector)];
    shake(place !== null ? nodes : nodes.slice(-1));
  }

  setHint(hint) {
    this.hint = hint;
    this.render();
  }

  clearSelection() {
    this.selection = null;
    this.render();
  }

  // The stock's action ("draw") for the D key, or null where the game has no stock.
  stockAction() {
    const slots = this.layout?.sections.flatMap((section) => section.slots) ?? [];
    return slots.find((slot) => slot.pick === "action")?.action ?? null;
  }

  // Focus the first place to play from.
  focusFirst() {
    (this.spots?.find((spot) => spot.node.tabIndex === 0) ?? this.spots?.[0])?.node.focus();
  }

  // ------------------------------------------------------------ drawing

  render({ dealt = false } = {}) {
    if (!this.view) return;
    const moving = this.root.isConnected && !reducedMotion();
    const before = moving && !dealt ? this.measureCards() : null;
    const hadFocus = this.root.contains(document.activeElement);
    const { cols, sections } = this.layout;
    this.metrics = cardMetrics({ width: this.root.clientWidth, height: this.height, cols, sections });
    const { cw, ch, gap, corner } = this.metrics;
    const style = this.root.style;
    style.setProperty("--cw", `${cw}px`);
    style.setProperty("--ch", `${ch}px`);
    style.setProperty("--gap", `${gap}px`);
    style.setProperty("--corner", `${corner}px`);
    this.root.classList.toggle("tiny", cw < 44);
    this.slots = new Map();
    this.spots = [];
    const fragment = document.createDocumentFragment();
    for (const section of sections) {
      const grid = document.createElement("div");
      grid.className = `section${section.compact ? " compact" : ""}${section.inset ? " inset" : ""}${section.aside ? " aside" : ""}`;
      const used = Math.min(cols, section.slots.reduce((sum, slot) => sum + (slot.span ?? 1), 0));
      grid.style.gridTemplateColumns = `repeat(${used}, ${cw}px)`;
      for (const slot of section.slots) grid.append(this.slotElement(slot, section));
      fragment.append(grid);
    }
    this.root.replaceChildren(fragment);
    this.markTargets();
    this.markHint();
    this.assignTabStops();
    if (hadFocus) this.restoreFocus();
    if (before) this.animateCards(before);
    else if (moving && dealt) this.dealCards();
  }

  // ------------------------------------------------------------ motion

  // Where each card is seen now (with any running animation's transform,
  // so a card caught mid-flight goes on from there), by key, plus each
  // pile's place (`pile:<code>`) for cards that arrive from it.  A card
  // just dropped starts from where the drag left it.
  measureCards() {
    const rects = new Map();
    for (const node of this.root.querySelectorAll(".card[data-key]")) rects.set(node.dataset.key, node.getBoundingClientRect());
    for (const node of this.root.querySelectorAll(".pile[data-pile]")) rects.set(`pile:${node.dataset.pile}`, node.getBoundingClientRect());
    for (const [key, rect] of this.dropRects ?? []) rects.set(key, rect);
    this.dropRects = null;
    return rects;
  }

  animateCards(before) {
    const nodes = new Map();
    const after = new Map();
    const cards = [...this.root.querySelectorAll(".card[data-key]")].filter((node) => !dealing(node));
    for (const node of cards) settle(node);
    for (const node of cards) {
      const rect = node.getBoundingClientRect();
      nodes.set(node.dataset.key, node);
      after.set(node.dataset.key, { left: rect.left, top: rect.top, spot: node.dataset.at });
    }
    const stock = this.layout.sections.flatMap((section) => section.slots).find((slot) => slot.kind === "stock");
    const stockKey = stock ? `pile:${stock.pile}` : null;
    for (const step of planMotion(before, after, (key) => originOf(key, before, stockKey))) play(nodes.get(step.key), step);
  }

  dealCards() {
    const stock = this.root.querySelector(".pile.stock") ?? this.root;
    deal([...this.root.querySelectorAll(".card[data-key]")], stock.getBoundingClientRect());
  }

  slotElement(slot, section) {
    const { cw, ch, gap } = this.metrics;
    const pile = this.view.piles[slot.pile] ?? { down: 0, up: [] };
    const span = slot.span ?? 1;
    const element = document.createElement("div");
    element.className = `pile ${slot.kind}${slot.marked ? " marked" : ""}`;
    element.dataset.pile = slot.pile;
    element.style.gridColumn = `span ${span}`;
    const spanWidth = span * cw + (span - 1) * gap;
    this.slots.set(slot.pile, { slot, pile, element });
    const placeholder = document.createElement("div");
    placeholder.className = "placeholder";
    // Drawn by CSS from data-text: the pile's name (spotsOf) says what it is.
    placeholder.dataset.text = slot.label ?? "";
    element.append(placeholder);

    const placed = this.placeCards(slot, pile, section, spanWidth);
    let height = slot.fan === "down" ? pileBox(this.metrics, section) : ch;
    for (const { node, x, y } of placed) {
      node.style.left = `${x}px`;
      node.style.top = `${y}px`;
      element.append(node);
      height = Math.max(height, y + ch);
    }
    element.style.height = `${height}px`;
    const total = pile.down + pile.up.length;
    const last = placed[placed.length - 1];
    if ((slot.fan === "stack" || slot.fan === "waste") && total > 1 && last) {
      const badge = document.createElement("span");
      badge.className = "count";
      badge.dataset.text = String(total);
      // Inside the card's corner, so it is never cut off at the board's edge.
      badge.style.left = `${last.x + cw - 2}px`;
      badge.style.top = `${last.y + ch - 2}px`;
      element.append(badge);
    }
    if (slot.caption) {
      const caption = document.createElement("span");
      caption.className = "caption";
      caption.dataset.text = slot.caption;
      element.append(caption);
    }
    const pileSpots = this.spotsOf(slot, pile, element);
    this.spots.push(...pileSpots);
    return element;
  }

  // Where each visible card goes inside its pile, as {node, x, y}.
  placeCards(slot, pile, section, spanWidth) {
    const { cw, ch } = this.metrics;
    const placed = [];
    const face = (index) => this.cardNode(slot, pile, index);
    const back = (index) => {
      const node = backElement();
      node.dataset.key = `back:${slot.pile}:${index}`;
      return node;
    };
    if (slot.fan === "stack") {
      // The card beneath the top is drawn too (covered), so that a card
      // flying in or out never uncovers an empty place for a moment.
      if (pile.up.length > 1) {
        const under = face(pile.up.length - 2);
        under.classList.add("under");
        placed.push({ node: under, x: 0, y: 0 });
      }
      if (pile.up.length) placed.push({ node: face(pile.up.length - 1), x: 0, y: 0 });
      else if (pile.down) placed.push({ node: back(pile.down - 1), x: 0, y: 0 });
    } else if (slot.fan === "waste") {
      const first = Math.max(0, pile.up.length - 3);
      for (let i = first; i < pile.up.length; i += 1) placed.push({ node: face(i), x: (i - first) * cw * 0.42, y: 0 });
    } else if (slot.fan === "right") {
      const n = pile.up.length;
      const step = n > 1 ? Math.min(cw * 0.6, (spanWidth - cw) / (n - 1)) : 0;
      for (let i = 0; i < n; i += 1) placed.push({ node: face(i), x: i * step, y: 0 });
    } else {
      const limit = ch * (section.compact ? this.metrics.fan.compact : this.metrics.fan.normal);
      let downStep = Math.max(5, ch * 0.1);
      let upStep = Math.max(15, ch * 0.28);
      const need = pile.down * downStep + Math.max(0, pile.up.length - 1) * upStep;
      if (need > limit) {
        const shrink = limit / need;
        downStep *= shrink;
        upStep *= shrink;
      }
      for (let i = 0; i < pile.down; i += 1) placed.push({ node: back(i), x: 0, y: i * downStep });
      const base = pile.down * downStep;
      for (let i = 0; i < pile.up.length; i += 1) placed.push({ node: face(i), x: 0, y: base + i * upStep });
    }
    return placed;
  }

  // The card's own element (kept from draw to draw, so it can move),
  // reset to what this draw says about it.
  faceNode(code) {
    let kept = this.faces.get(code);
    if (!kept) {
      const node = faceElement(code);
      node.dataset.key = code;
      kept = { node, className: node.className, words: node.getAttribute("aria-label") };
      this.faces.set(code, kept);
    }
    const { node } = kept;
    node.className = kept.className;
    node.setAttribute("aria-label", kept.words);
    node.setAttribute("role", "img");
    node.removeAttribute("tabindex");
    node.style.zIndex = "";
    return node;
  }

  cardNode(slot, pile, index) {
    const node = this.faceNode(pile.up[index]);
    node.dataset.spot = `${slot.pile}:${index}`;
    node.dataset.at = `${slot.pile}:${pile.down + index}`;
    if (this.interactive && this.sourceAt(slot, pile, index)) node.classList.add("pickable");
    const sel = this.selection;
    if (sel && sel.pile === slot.pile && (slot.pick === "run" ? index >= sel.index : index === sel.index)) {
      node.classList.add("selected");
    }
    return node;
  }

  // The focusable places of a pile: its pickable cards, or the pile itself.
  spotsOf(slot, pile, element) {
    const cards = [...element.querySelectorAll(".card.face")].filter((node) => node.dataset.spot);
    const pickable = cards.filter((node) => node.classList.contains("pickable"));
    const spots = pickable.length ? pickable : [element];
    if (!pickable.length) element.dataset.spot = `${slot.pile}:-1`;
    for (const node of spots) {
      node.setAttribute("role", "button");
      const [, index] = node.dataset.spot.split(":");
      const words = index === "-1" ? pileWords(slot.pile, slot.kind, pile) : `${node.getAttribute("aria-label")}, ${pileName(slot.pile, slot.kind)}`;
      node.setAttribute("aria-label", words);
    }
    return spots.map((node) => ({ node, pile: slot.pile }));
  }

  assignTabStops() {
    const seen = new Set();
    for (const { node, pile } of this.spots) {
      node.tabIndex = -1;
      if (!this.interactive) continue;
      seen.add(pile);
    }
    if (!this.interactive) return;
    for (const pile of seen) {
      const mine = this.spots.filter((spot) => spot.pile === pile);
      mine[mine.length - 1].node.tabIndex = 0;
    }
  }

  restoreFocus() {
    const key = this.focusKey;
    const exact = key && this.root.querySelector(`[data-spot="${key}"]`);
    if (exact && exact.tabIndex >= -1) {
      exact.focus();
      return;
    }
    const pile = key?.split(":")[0];
    const mine = this.spots.filter((spot) => spot.pile === pile);
    (mine[mine.length - 1] ?? this.spots[0])?.node.focus();
  }

  markTargets() {
    const sel = this.selection;
    if (!sel || !this.legal) return;
    for (const text of this.legal) {
      const move = parseMove(text);
      if (move.src !== sel.src || move.count !== sel.count || !move.dst) continue;
      this.slots.get(move.dst)?.element.classList.add("target");
    }
  }

  markHint() {
    const hint = this.hint;
    if (!hint) return;
    if (hint.src === "draw") {
      this.root.querySelector('.pile.stock')?.classList.add("hint-target");
      return;
    }
    const place = rowPlace(hint.src);
    if (place !== null) {
      this.root.querySelector(`[data-spot="r:${place}"]`)?.classList.add("hint");
    } else {
      const entry = this.slots.get(hint.src);
      if (entry) {
        const from = entry.pile.up.length - hint.count;
        for (let i = from; i < entry.pile.up.length; i += 1) {
          this.root.querySelector(`[data-spot="${hint.src}:${i}"]`)?.classList.add("hint");
        }
      }
    }
    if (hint.dst && !hint.sourceOnly) this.slots.get(hint.dst)?.element.classList.add("hint-target");
  }

  // ------------------------------------------------------------ choosing moves

  // The move source a card stands for, or null when it cannot be picked up.
  sourceAt(slot, pile, index) {
    if (index < 0 || index >= pile.up.length) return null;
    const top = index === pile.up.length - 1;
    if (slot.pick === "row") return { pile: slot.pile, index, src: `r${index + 1}`, count: 1 };
    if (slot.pick === "run") return { pile: slot.pile, index, src: slot.pile, count: pile.up.length - index };
    if (slot.pick === "top" && top) return { pile: slot.pile, index, src: slot.pile, count: 1 };
    return null;
  }

  sourceStillThere(sel) {
    const pile = this.view.piles[sel.pile];
    const slot = this.layout.sections.flatMap((s) => s.slots).find((s) => s.pile === sel.pile);
    const now = slot && pile ? this.sourceAt(slot, pile, sel.index) : null;
    return now !== null && now.src === sel.src && now.count === sel.count && pile.up[sel.index] === sel.code;
  }

  spotAt(element) {
    const node = element?.closest?.("[data-spot]");
    const pileNode = element?.closest?.("[data-pile]");
    if (!pileNode || !this.root.contains(pileNode)) return null;
    const entry = this.slots.get(pileNode.dataset.pile);
    if (!entry) return null;
    const index = node && pileNode.contains(node) ? Number(node.dataset.spot.split(":")[1]) : -1;
    return { ...entry, index };
  }

  activate(spot) {
    if (!this.interactive || !spot) return;
    const { slot, pile, index } = spot;
    if (slot.pick === "action") {
      this.selection = null;
      this.hint = null;
      this.onIntent({ type: "move", move: slot.action });
      this.render();
      return;
    }
    const source = this.sourceAt(slot, pile, index);
    const sel = this.selection;
    if (!sel) {
      if (source) this.select(source, pile);
      return;
    }
    if (source && source.src === sel.src && source.count === sel.count) {
      this.selection = null;
      this.onIntent({ type: "auto", src: sel.src, count: sel.count });
      this.render();
      return;
    }
    // Onto another pile it is a move even where the legal list says no:
    // the server's refusal names the rule, and the card shakes.
    const dst = this.destinationAt(slot, pile, index, sel);
    if (dst) {
      this.send(sel, dst);
      return;
    }
    if (source) this.select(source, pile);
    else this.clearSelection();
  }

  // The destination name for a move of `sel` onto this spot, or null.
  destinationAt(slot, pile, index, sel) {
    if (slot.pick === "row") {
      if (rowPlace(sel.src) === null) return null;
      const place = index < 0 ? pile.up.length - 1 : index;
      const dst = `r${place + 1}`;
      return dst === sel.src ? null : dst;
    }
    if (slot.pick === "action" || slot.pile === sel.pile) return null;
    return slot.pile;
  }

  select(source, pile) {
    this.selection = { ...source, code: pile.up[source.index] };
    this.hint = null;
    this.render();
  }

  send(sel, dst) {
    this.selection = null;
    this.hint = null;
    this.onIntent({ type: "move", move: moveText(sel.src, dst, sel.count) });
    this.render();
  }

  clicked(event) {
    if (this.dragging.justDropped) return;
    const spot = this.spotAt(event.target);
    if (spot) this.activate(spot);
    else if (this.selection) this.clearSelection();
  }

  // ------------------------------------------------------------ keyboard

  keyDown(event) {
    if (!this.interactive) return;
    const current = event.target.closest("[data-spot]");
    if (!current) return;
    const at = this.spots.findIndex((spot) => spot.node === current);
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      this.activate(this.spotAt(current));
    } else if (event.key === "Escape") {
      this.clearSelection();
    } else if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
      event.preventDefault();
      this.focusPile(at, event.key === "ArrowRight" ? 1 : -1);
    } else if (event.key === "ArrowUp" || event.key === "ArrowDown") {
      event.preventDefault();
      const next = this.spots[at + (event.key === "ArrowDown" ? 1 : -1)];
      if (next && next.pile === this.spots[at].pile) next.node.focus();
    }
  }

  focusPile(at, step) {
    const piles = [...new Set(this.spots.map((spot) => spot.pile))];
    const index = piles.indexOf(this.spots[at].pile);
    const pile = piles[(index + step + piles.length) % piles.length];
    const mine = this.spots.filter((spot) => spot.pile === pile);
    mine[mine.length - 1].node.focus();
  }
}
