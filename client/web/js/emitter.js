// Listeners by event name, for the SDK's connection and game views.
//
// Why not EventTarget: Node 18 has it, but its events carry their payload
// in a `detail` only CustomEvent adds, and a listener's unsubscribe is a
// function to keep rather than the same function passed twice.

/** @typedef {(payload: any) => void} Listener */

/**
 * What a waiter makes of an event: nothing (keep waiting), a value to
 * resolve with, or an error to reject with.
 * @template T
 * @typedef {{value: T} | {error: unknown} | undefined} Outcome
 */

export class Emitter {
  constructor() {
    /** @type {Map<string, Set<Listener>>} */
    this.listeners = new Map();
  }

  /**
   * Call `listener(payload)` on every `type` event until the returned
   * function is called.
   * @param {string} type
   * @param {Listener} listener
   * @returns {() => void} the unsubscribe
   */
  on(type, listener) {
    let set = this.listeners.get(type);
    if (!set) {
      set = new Set();
      this.listeners.set(type, set);
    }
    set.add(listener);
    return () => { set.delete(listener); };
  }

  /**
   * Tell every listener of `type`, in the order they subscribed.
   * @param {string} type
   * @param {unknown} payload
   */
  emit(type, payload) {
    for (const listener of [...this.listeners.get(type) ?? []]) listener(payload);
  }

  /**
   * The first of the `types` events that `decide` settles, or the error
   * `timedOut()` makes after `timeoutMs` (null: no limit).
   * @template T
   * @param {string[]} types
   * @param {(payload: any, type: string) => Outcome<T>} decide
   * @param {number | null} timeoutMs
   * @param {() => Error} timedOut
   * @returns {Promise<T>}
   */
  next(types, decide, timeoutMs, timedOut) {
    return new Promise((resolve, reject) => {
      const stops = types.map((type) => this.on(type, (payload) => {
        const outcome = decide(payload, type);
        if (outcome === undefined) return;
        stop();
        if ("value" in outcome) resolve(outcome.value);
        else reject(outcome.error);
      }));
      const timer = timeoutMs == null ? null : setTimeout(() => { stop(); reject(timedOut()); }, timeoutMs);
      function stop() {
        clearTimeout(timer);
        for (const unsubscribe of stops) unsubscribe();
      }
    });
  }
}
