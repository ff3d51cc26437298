// Connection events fanned out to the panels showing.  A kind of panel
// (the friends' board of the lobby and of a shared daily's page, the
// ghost bars of each ranked attempt) is made again and again as the
// screens change; rather than each keeping its own subscriptions to take
// back, each kind subscribes once per connection, and a panel only joins
// (`show`) and leaves (`hide`) the set its kind's events go to.

/**
 * @template T
 * @typedef {{[event: string]: (shown: T, payload: any) => void}} Handlers
 */

/** @typedef {{on: (event: string, listener: (payload: any) => void) => unknown}} Source */

/**
 * The panels of one kind shown now, and the one listener per connection
 * and event that tells them.
 * @template T
 */
export class Fanout {
  /**
   * @param {Handlers<T>} handlers what each event does to one shown panel
   */
  constructor(handlers) {
    this.handlers = handlers;
    /** @type {Set<T>} */
    this.shown = new Set();
    /** @type {WeakSet<Source>} */
    this.listening = new WeakSet();
  }

  /**
   * `panel` hears this kind's events from now on (until `hide`); the
   * first panel shown on `connection` subscribes to it.
   * @param {Source} connection
   * @param {T} panel
   */
  show(connection, panel) {
    this.shown.add(panel);
    if (this.listening.has(connection)) return;
    this.listening.add(connection);
    for (const [event, handler] of Object.entries(this.handlers)) {
      // A copy: a handler may hide or show a panel as it runs.
      connection.on(event, (payload) => {
        for (const each of [...this.shown]) handler(each, payload);
      });
    }
  }

  /**
   * `panel` hears nothing more (the connection's listener stays for the
   * next one).
   * @param {T} panel
   */
  hide(panel) {
    this.shown.delete(panel);
  }
}
