// An arrow over the board from a move's source to its target: the move
// that lost the game in a replay, the next move of a winning line.
//
// The arrow is an SVG layer over the board's wrapper (not inside the
// board, which redraws its children on every view), measured from the
// piles' own boxes and the cards' places in them rather than the cards'
// on-screen boxes, since a card sliding into place is drawn where its
// animation has it, not where it lands.  Its label says the move in
// words, so a screen reader hears what a sighted player sees.

import { parseMove, rowPlace } from "./notation.js";

const SVG = "http://www.w3.org/2000/svg";
const HEAD_ID = "move-arrow-head";

/**
 * The piles a move's arrow joins, and the index of the card at each end
 * (null: the pile itself).  "draw" joins the stock to where drawn cards
 * go: the waste, or Lara's Game's row.
 * @param {object} view the position the move is played in
 * @param {string} text the move's notation
 * @returns {{src: string, srcIndex: ?number, dst: string, dstIndex: ?number} | null} null when the view lacks a pile
 */
export function arrowEnds(view, text) {
  const move = parseMove(String(text));
  if (move.dst === null) {
    if (move.src !== "draw" || !view.piles?.s) return null;
    const dst = ["w", "r"].find((pile) => view.piles[pile]);
    return dst ? { src: "s", srcIndex: null, dst, dstIndex: null } : null;
  }
  const from = rowPlace(move.src);
  const to = rowPlace(move.dst);
  const src = from === null ? move.src : "r";
  const dst = to === null ? move.dst : "r";
  if (!view.piles?.[src] || !view.piles?.[dst]) return null;
  const srcUp = view.piles[src].up.length;
  const dstUp = view.piles[dst].up.length;
  return {
    src, dst,
    srcIndex: from ?? (srcUp >= move.count ? srcUp - move.count : null),
    dstIndex: to ?? (dstUp ? dstUp - 1 : null),
  };
}

/** The arrow layer over one board. */
export class MoveArrow {
  /**
   * @param {HTMLElement} wrap holds the board's root element; the layer goes over both
   * @param {HTMLElement} boardRoot the board's root element
   */
  constructor(wrap, boardRoot) {
    this.wrap = wrap;
    this.boardRoot = boardRoot;
    this.layer = null;
  }

  /**
   * Draw a move's arrow (replacing any other).  A move the board does not
   * show (a pile not drawn) gets no arrow.
   * @param {object} view the position the move is played in
   * @param {string} text the move's notation
   * @param {string} label what a screen reader says for the arrow
   * @param {"losing" | "next"} kind styles it
   */
  show(view, text, label, kind) {
    this.clear();
    const ends = arrowEnds(view, text);
    const from = ends && this.point(ends.src, ends.srcIndex);
    const to = ends && this.point(ends.dst, ends.dstIndex);
    if (!from || !to) return;
    const layer = document.createElementNS(SVG, "svg");
    layer.setAttribute("class", `move-arrow ${kind}`);
    layer.setAttribute("role", "img");
    layer.setAttribute("aria-label", label);
    layer.dataset.src = ends.src;
    layer.dataset.dst = ends.dst;
    layer.dataset.kind = kind;
    layer.setAttribute("width", String(this.wrap.clientWidth));
    layer.setAttribute("height", String(this.wrap.clientHeight));
    const title = document.createElementNS(SVG, "title");
    title.textContent = label;
    layer.append(title, arrowHead(), shaft(from, to));
    this.wrap.append(layer);
    this.layer = layer;
  }

  clear() {
    this.layer?.remove();
    this.layer = null;
  }

  // The middle of a card's place (or of the pile, with no card), in the
  // wrapper's coordinates.
  point(pile, index) {
    const pileNode = this.boardRoot.querySelector(`.pile[data-pile="${pile}"]`);
    if (!pileNode) return null;
    const base = this.wrap.getBoundingClientRect();
    const box = pileNode.getBoundingClientRect();
    const card = index === null ? null : pileNode.querySelector(`.card[data-spot="${pile}:${index}"]`);
    if (!card) return { x: box.left - base.left + box.width / 2, y: box.top - base.top + Math.min(box.height, box.width * 1.4) / 2 };
    const left = box.left - base.left + (parseFloat(card.style.left) || 0);
    const top = box.top - base.top + (parseFloat(card.style.top) || 0);
    const visible = Math.min(card.offsetHeight, card.offsetWidth * 0.6);
    return { x: left + card.offsetWidth / 2, y: top + visible / 2 };
  }
}

function arrowHead() {
  const defs = document.createElementNS(SVG, "defs");
  const marker = document.createElementNS(SVG, "marker");
  for (const [name, value] of Object.entries({ id: HEAD_ID, viewBox: "0 0 10 10", refX: "8", refY: "5",
    markerWidth: "5", markerHeight: "5", orient: "auto-start-reverse" })) marker.setAttribute(name, value);
  const tip = document.createElementNS(SVG, "path");
  tip.setAttribute("d", "M 0 0 L 10 5 L 0 10 z");
  marker.append(tip);
  defs.append(marker);
  return defs;
}

function shaft(from, to) {
  const line = document.createElementNS(SVG, "line");
  for (const [name, value] of Object.entries({ x1: from.x, y1: from.y, x2: to.x, y2: to.y })) {
    line.setAttribute(name, String(Math.round(value)));
  }
  line.setAttribute("marker-end", `url(#${HEAD_ID})`);
  return line;
}
