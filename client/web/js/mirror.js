// A watched game as the browser knows it: the last snapshot plus every
// diff applied in order (the same operations as engine/views.py).
//
// Why the seq check: a diff only makes sense on top of the view it was
// computed from.  A diff that skips ahead means one went missing, so the
// mirror refuses it and the caller asks the server for a resync; a diff at
// or below the current seq is an echo we already have and is dropped.

export class Mirror {
  constructor(snapshot) {
    this.gameId = snapshot.game_id;
    this.game = snapshot.game;
    this.title = snapshot.title;
    this.owner = snapshot.owner;
    this.practice = snapshot.practice;
    // The UTC date of the daily this game is its owner's ranked attempt at, else null.
    this.rankedDaily = snapshot.ranked_daily ?? null;
    this.seq = snapshot.seq;
    this.view = structuredClone(snapshot.view);
    this.finishOffer = null;
    this.update(snapshot);
  }

  // True while the server offers safe automatic finishing: an offer holds
  // only at the seq it names (the next diff withdraws it).
  canFinish() {
    const offer = this.finishOffer;
    return offer !== null && offer.seq === this.seq && this.status === "playing";
  }

  update(message) {
    this.status = message.status;
    this.counters = message.counters;
    this.score = message.score;
    this.legal = message.legal;
    this.clock = message.clock;
    this.clockReadAt = performance.now();
  }

  // "applied", "stale" (already seen) or "gap" (resync needed).
  apply(diff) {
    if (diff.seq <= this.seq) return "stale";
    if (diff.seq !== this.seq + 1) return "gap";
    try {
      this.view = applyOps(this.view, diff.ops);
    } catch {
      return "gap";
    }
    this.seq = diff.seq;
    this.update(diff);
    return "applied";
  }

  // Milliseconds on the game clock now, counting on from the last message.
  elapsedMs() {
    const clock = this.clock;
    if (clock.started_ms == null || clock.finished_ms != null || this.status !== "playing") return clock.elapsed_ms;
    return clock.elapsed_ms + (performance.now() - this.clockReadAt);
  }
}

export function applyOps(view, ops) {
  const result = structuredClone(view);
  result.piles ??= {};
  for (const op of ops) {
    if (op.op === "pile") {
      const pile = result.piles[op.pile] ?? { down: 0, up: [] };
      if (op.keep > pile.up.length) throw new Error(`diff keeps ${op.keep} cards of ${op.pile}`);
      result.piles[op.pile] = { down: op.down, up: pile.up.slice(0, op.keep).concat(op.add) };
    } else if (op.op === "set") {
      if (op.value === null) delete result[op.key];
      else result[op.key] = op.value;
    } else {
      throw new Error(`unknown diff operation ${op.op}`);
    }
  }
  return result;
}
