// Dragging cards on the board: a pointer pressed on a pickable card and
// moved past a few pixels lifts the card (and those on it) into a floating
// copy that follows the pointer; released over a pile, it proposes the
// move there, as a click on the card and then on the pile would.  Pointer
// events carry mouse, pen and touch alike.  The board keeps the rest (what
// may be picked up, where it may go, sending the move).

const DRAG_THRESHOLD_PX = 6;

export class Dragging {
  /** @param {import("./board.js").Board} board the board whose cards are dragged */
  constructor(board) {
    this.board = board;
    this.gesture = null;
    // The click that follows a drop is the drop's own, not a new selection.
    this.justDropped = false;
    const root = board.root;
    root.addEventListener("pointerdown", (event) => this.down(event));
    root.addEventListener("pointermove", (event) => this.move(event));
    root.addEventListener("pointerup", (event) => this.up(event));
    root.addEventListener("pointercancel", () => this.cancel());
  }

  down(event) {
    if (!this.board.interactive || event.button !== 0) return;
    const spot = this.board.spotAt(event.target);
    if (!spot || !event.target.closest(".card.pickable")) return;
    const source = this.board.sourceAt(spot.slot, spot.pile, spot.index);
    if (!source) return;
    this.gesture = { source, pile: spot.pile, startX: event.clientX, startY: event.clientY, pointerId: event.pointerId, ghost: null };
  }

  move(event) {
    const drag = this.gesture;
    if (!drag || event.pointerId !== drag.pointerId) return;
    if (!drag.ghost) {
      if (Math.hypot(event.clientX - drag.startX, event.clientY - drag.startY) < DRAG_THRESHOLD_PX) return;
      this.lift(drag);
      this.board.root.setPointerCapture(event.pointerId);
    }
    drag.ghost.style.transform = `translate(${event.clientX - drag.offsetX}px, ${event.clientY - drag.offsetY}px)`;
    const over = this.board.spotAt(document.elementFromPoint(event.clientX, event.clientY));
    for (const node of this.board.root.querySelectorAll(".pile.over")) node.classList.remove("over");
    over?.element.classList.add("over");
  }

  lift(drag) {
    const { source } = drag;
    const nodes = [...this.board.root.querySelectorAll(`[data-pile="${source.pile}"] .card.face`)].filter((node) => {
      const index = Number(node.dataset.spot?.split(":")[1]);
      return source.src === source.pile ? index >= source.index : index === source.index;
    });
    const first = nodes[0].getBoundingClientRect();
    const ghost = document.createElement("div");
    ghost.className = "ghost";
    ghost.style.setProperty("--cw", this.board.root.style.getPropertyValue("--cw"));
    ghost.style.setProperty("--ch", this.board.root.style.getPropertyValue("--ch"));
    ghost.style.setProperty("--corner", this.board.root.style.getPropertyValue("--corner"));
    for (const node of nodes) {
      const rect = node.getBoundingClientRect();
      const copy = node.cloneNode(true);
      copy.style.left = `${rect.left - first.left}px`;
      copy.style.top = `${rect.top - first.top}px`;
      copy.classList.remove("selected", "hint");
      ghost.append(copy);
      node.classList.add("lifted");
    }
    drag.offsetX = drag.startX - first.left;
    drag.offsetY = drag.startY - first.top;
    drag.ghost = ghost;
    document.body.append(ghost);
  }

  up(event) {
    const drag = this.gesture;
    if (!drag || event.pointerId !== drag.pointerId) return;
    this.gesture = null;
    if (!drag.ghost) return;
    this.board.dropRects = new Map([...drag.ghost.children].map((copy) => [copy.dataset.key, copy.getBoundingClientRect()]));
    drag.ghost.remove();
    this.justDropped = true;
    setTimeout(() => { this.justDropped = false; }, 0);
    const spot = this.board.spotAt(document.elementFromPoint(event.clientX, event.clientY));
    const sel = { ...drag.source, code: drag.pile.up[drag.source.index] };
    const dst = spot ? this.board.destinationAt(spot.slot, spot.pile, spot.index, sel) : null;
    if (dst) this.board.send(sel, dst);
    else this.board.render();
  }

  cancel() {
    if (this.gesture?.ghost) this.gesture.ghost.remove();
    this.gesture = null;
    this.board.render();
  }
}
