// Keeping a connection under the server's message rate.
//
// The server admits `messages_per_second` sustained and `burst` at once
// (welcome's `limits`); a message over the rate is dropped unread, with
// an error that carries no id, so the request it was would wait for a
// reply that never comes.  A bot plays as fast as its replies come back,
// so the connection spends the same tokens on its side, a little under
// the server's figures (another process of the server may count a little
// differently, and the hello came before the limits were known), and
// holds back a frame until its token is there, in the order sent.

const MARGIN = 0.9;

/** A token bucket of the server's limits, in milliseconds of a monotonic clock. */
export class Pacer {
  /**
   * @param {number} perSecond the server's `messages_per_second`
   * @param {number} burst the server's `burst`
   * @param {number} now
   */
  constructor(perSecond, burst, now) {
    this.perMs = (perSecond * MARGIN) / 1000;
    this.capacity = Math.max(1, Math.floor(burst * MARGIN));
    this.tokens = this.capacity;
    this.updated = now;
  }

  /**
   * How long to hold back one more message sent at `now`; its token is
   * spent at once, so the next message waits behind it.
   * @param {number} now
   * @returns {number} milliseconds, 0 to send now
   */
  delayMs(now) {
    this.tokens = Math.min(this.capacity, this.tokens + (now - this.updated) * this.perMs) - 1;
    this.updated = now;
    return this.tokens >= 0 ? 0 : Math.ceil(-this.tokens / this.perMs);
  }
}

/** The frames of one socket, sent in order, each once its token is there. */
export class Outbox {
  /**
   * @param {(frame: string) => void} send
   * @param {() => number} clock milliseconds of a monotonic clock
   */
  constructor(send, clock) {
    this.send = send;
    this.clock = clock;
    /** @type {Pacer | null} no pace until the server's limits are known */
    this.pacer = null;
    /** @type {{frame: string, at: number}[]} */
    this.queue = [];
    /** @type {unknown} */
    this.timer = null;
  }

  /**
   * Pace the frames from now on by the server's `limits`.
   * @param {{messages_per_second: number, burst: number}} limits
   */
  limit(limits) {
    this.pacer = new Pacer(limits.messages_per_second, limits.burst, this.clock());
  }

  /** @param {string} frame */
  push(frame) {
    const now = this.clock();
    const at = now + (this.pacer?.delayMs(now) ?? 0);
    if (at <= now && !this.queue.length) {
      this.send(frame);
      return;
    }
    this.queue.push({ frame, at });
    if (this.timer === null) this.schedule(now);
  }

  /** Drop what is still held back (its socket closed). */
  stop() {
    clearTimeout(this.timer);
    this.timer = null;
    this.queue = [];
  }

  /** @param {number} now */
  schedule(now) {
    this.timer = setTimeout(() => this.flush(), Math.max(0, this.queue[0].at - now));
  }

  flush() {
    this.timer = null;
    const now = this.clock();
    while (this.queue.length && this.queue[0].at <= now) this.send(/** @type {{frame: string}} */ (this.queue.shift()).frame);
    if (this.queue.length) this.schedule(now);
  }
}
