// A watched game as the client knows it: the last snapshot plus every
// diff applied in order (the same operations as engine/views.py).
//
// Why the seq check: a diff only makes sense on top of the view it was
// computed from.  A diff that skips ahead means one went missing, so the
// mirror refuses it and the caller asks the server for a resync; a diff at
// or below the current seq is an echo we already have and is dropped.

/** @typedef {import("./requests.js").ServerMessage} ServerMessage */

/**
 * What a player sees of a game: `game`, `options`, the piles (face-down
 * count and face-up cards) and a few fields some games add.
 * @typedef {{piles: Record<string, {down: number, up: string[]}>, [field: string]: any}} View
 */

/**
 * One operation of a diff (docs/protocol.md, "The state of a game").
 * @typedef {{op: "pile", pile: string, keep: number, down: number, add: string[]}
 *   | {op: "set", key: string, value: unknown}} DiffOp
 */

/** @typedef {{started_ms: number | null, finished_ms: number | null, elapsed_ms: number}} Clock */

export class Mirror {
  /** @param {ServerMessage} snapshot a `snapshot` message */
  constructor(snapshot) {
    /** @type {string} */
    this.gameId = snapshot.game_id;
    /** @type {string} */
    this.game = snapshot.game;
    /** @type {string} */
    this.title = snapshot.title;
    /** @type {{player_id: string, name: string}} */
    this.owner = snapshot.owner;
    /** @type {boolean} */
    this.practice = snapshot.practice;
    /** @type {string | null} the UTC date of the daily this game is its owner's ranked attempt at */
    this.rankedDaily = snapshot.ranked_daily ?? null;
    /** @type {number} */
    this.seq = snapshot.seq;
    /** @type {View} */
    this.view = structuredClone(snapshot.view);
    /** @type {ServerMessage | null} the server's `finish_offer`, which holds at its `seq` only */
    this.finishOffer = null;
    /** @type {ServerMessage | null} the game's `game_over`, once it came */
    this.over = null;
    /** @type {string} `playing`, `won`, `lost`, `resigned` or `abandoned` */
    this.status = "playing";
    /** @type {Record<string, number>} */
    this.counters = {};
    /** @type {number | null} */
    this.score = null;
    /** @type {string[] | null} the legal moves in the game's notation; null where the difficulty hides them */
    this.legal = null;
    /** @type {Clock} */
    this.clock = { started_ms: null, finished_ms: null, elapsed_ms: 0 };
    this.clockReadAt = 0;
    this.update(snapshot);
  }

  /**
   * Whether the game is still being played: its status says so and no
   * `game_over` came (which can come before the diff that ends the game
   * while that diff waits for a resync).
   * @returns {boolean}
   */
  get underWay() {
    return this.status === "playing" && this.over === null;
  }

  /**
   * True while the server offers safe automatic finishing: an offer holds
   * only at the seq it names (the next diff withdraws it).
   * @returns {boolean}
   */
  canFinish() {
    const offer = this.finishOffer;
    return offer !== null && offer.seq === this.seq && this.status === "playing";
  }

  /**
   * Take the fields every snapshot and diff carries whole.
   * @param {ServerMessage} message
   */
  update(message) {
    this.status = message.status;
    this.counters = message.counters;
    this.score = message.score;
    this.legal = message.legal;
    this.clock = message.clock;
    this.clockReadAt = performance.now();
  }

  /**
   * Apply a `diff`: "applied", "stale" (already seen) or "gap" (resync needed).
   * @param {ServerMessage} diff
   * @returns {"applied" | "stale" | "gap"}
   */
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

  /**
   * Milliseconds on the game clock now, counting on from the last message.
   * @returns {number}
   */
  elapsedMs() {
    const clock = this.clock;
    if (clock.started_ms == null || clock.finished_ms != null || this.status !== "playing") return clock.elapsed_ms;
    return clock.elapsed_ms + (performance.now() - this.clockReadAt);
  }
}

/**
 * The view `ops` turn `view` into; `view` itself is left as it was.
 * Throws on an operation that does not fit the view.
 * @param {View} view
 * @param {DiffOp[]} ops
 * @returns {View}
 */
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
      throw new Error(`unknown diff operation ${/** @type {{op: unknown}} */ (op).op}`);
    }
  }
  return result;
}
