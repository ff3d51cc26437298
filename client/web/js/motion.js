// Card motion by FLIP: measure every card where it is (First), redraw
// the board (Last), then play each card from its old place to its new
// one (Invert, Play) as a transform, which the compositor animates
// without layout.  Cards are keyed by identity (their code; a face-down
// card by its pile and place), so whatever moved a card (a move, an
// undo or redo, an auto-move, a finishing cascade, a deal) it slides
// from where it was seen to where it is.
//
// `planMotion` is pure (and unit-tested); the rest touches the DOM.

export const SLIDE_MS = 200;
export const FLIP_MS = 160;
export const SHAKE_MS = 320;
const DEAL_STAGGER_MS = 12;
const DEAL_MS = 260;
// A selected card sits 2 px up: that is not a move.
const STILL_PX = 3;

// What to play for each card drawn now, given the rectangles ({left, top})
// by key of the cards before and after: "slide" from the old place, "flip"
// where a face-down card turned up in place, "arrive" for a card new to
// the board coming from `origin(key)` (the stock it was drawn from, the
// halves it was repaired from), else nothing.
export function planMotion(before, after, origin = () => null) {
  const plan = [];
  for (const [key, rect] of after) {
    const old = before.get(key);
    if (old) {
      const dx = old.left - rect.left;
      const dy = old.top - rect.top;
      if (Math.abs(dx) > STILL_PX || Math.abs(dy) > STILL_PX) plan.push({ key, kind: "slide", dx, dy });
      continue;
    }
    const face = !key.startsWith("back:");
    const turned = face && rect.spot !== undefined && before.get(`back:${rect.spot}`);
    if (turned) {
      plan.push({ key, kind: "flip", dx: turned.left - rect.left, dy: turned.top - rect.top });
      continue;
    }
    const from = face ? origin(key) : null;
    if (from) plan.push({ key, kind: "arrive", dx: from.left - rect.left, dy: from.top - rect.top });
  }
  return plan;
}

// Where a card new to the board comes from: a repaired card from one of
// its halves ("AH" from "AH<" or "AH>"), a drawn card from the stock.
export function originOf(key, before, stockKey) {
  return before.get(`${key}<`) ?? before.get(`${key}>`) ?? (stockKey ? before.get(stockKey) : null) ?? null;
}

export function reducedMotion() {
  return typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
}

const DEAL_ID = "deal";

// Whether `node` is still being dealt: a redraw meanwhile (a second
// snapshot, a resize) lets the deal land instead of restarting it.
export function dealing(node) {
  return node.getAnimations().some((running) => running.id === DEAL_ID && running.playState === "running");
}

// Stop the slide or flip this module started on `node` (not the page's
// CSS animations, such as a hint's pulse), so that it can be measured
// where the layout puts it.
export function settle(node) {
  for (const running of node.getAnimations()) {
    if (!(running instanceof CSSAnimation) && !(running instanceof CSSTransition)) running.cancel();
  }
}

// Play one planned step on `node`; the moving card flies above the others.
export function play(node, step) {
  const from = `translate(${step.dx}px, ${step.dy}px)`;
  const keyframes = step.kind === "flip"
    ? [{ transform: `${from} scaleX(0)` }, { transform: "none" }]
    : step.kind === "arrive"
      ? [{ transform: `${from} scaleX(0.2)` }, { transform: "none" }]
      : [{ transform: from }, { transform: "none" }];
  node.style.zIndex = "50";
  const animation = node.animate(keyframes, {
    duration: step.kind === "flip" ? FLIP_MS : SLIDE_MS, easing: "cubic-bezier(.2,.7,.3,1)",
  });
  animation.onfinish = animation.oncancel = () => {
    if (!node.getAnimations().some((running) => running.playState === "running")) node.style.zIndex = "";
  };
}

// The deal: every card flies in from `from` ({left, top}), one after another.
export function deal(nodes, from) {
  nodes.forEach((node, i) => {
    const rect = node.getBoundingClientRect();
    node.animate([{ transform: `translate(${from.left - rect.left}px, ${from.top - rect.top}px) scale(0.6)`, opacity: 0 },
      { transform: "none", opacity: 1 }], { id: DEAL_ID, duration: DEAL_MS, delay: i * DEAL_STAGGER_MS, easing: "ease-out", fill: "backwards" });
  });
}

// An illegal drop: the card shakes its head.
export function shake(nodes) {
  for (const node of nodes) {
    node.animate([{ transform: "translateX(0)" }, { transform: "translateX(-7px)" }, { transform: "translateX(6px)" },
      { transform: "translateX(-4px)" }, { transform: "translateX(2px)" }, { transform: "translateX(0)" }],
    { duration: SHAKE_MS, easing: "ease-in-out" });
  }
}
