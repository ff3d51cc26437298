// The server's clock as this page estimates it.
//
// Why not the local clock: a race's countdown, its time limit and every
// racer's elapsed time are the server's (starts_at, ends_at, elapsed_ms),
// and a phone's clock can be seconds off.  Each message stamped with
// `server_time` (welcome, race, race_progress, pong) was stamped before it
// was sent, so `server_time - arrival` is a lower bound of the offset
// between the two clocks; the largest of the recent samples is the
// tightest bound.  Only recent samples count, so a local clock that is
// set back or forward is followed within a few messages.

const SAMPLES_KEPT = 8;

export class ServerClock {
  constructor() {
    /** @type {number[]} */
    this.samples = [];
  }

  /**
   * A server timestamp that has just arrived (`server_time` of welcome, race, race_progress, pong).
   * @param {unknown} serverTime
   */
  sample(serverTime) {
    if (typeof serverTime !== "number") return;
    this.samples.push(serverTime - Date.now());
    if (this.samples.length > SAMPLES_KEPT) this.samples.shift();
  }

  // After a reconnection the old samples may come from another server process.
  reset() {
    this.samples = [];
  }

  /** @returns {number} how far the server's clock is ahead of this one */
  get offsetMs() {
    return this.samples.length ? Math.max(...this.samples) : 0;
  }

  /**
   * Milliseconds since the Unix epoch on the server's clock, now.
   * @returns {number}
   */
  now() {
    return Date.now() + this.offsetMs;
  }
}
