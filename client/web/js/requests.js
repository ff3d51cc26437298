// Requests waiting for their replies, and the errors a request ends with.
//
// The protocol lets a client put an `id` on any request; the server's one
// reply to it carries the same `id` (an `error` included), while what
// nobody asked for (a watcher's diffs, game_over) carries none.  So each
// request gets the next number, and the reply with that number settles its
// promise.  A reply that never comes must not leave its caller waiting
// forever: a timeout rejects it, and a lost connection rejects every
// request still waiting, since whether it was applied is then unknown.

/**
 * An `error` message from the server.
 * @typedef {{type: "error", code: string, message: string, reason?: string | null, game_id?: string | null,
 *   id?: number | string}} ErrorMessage
 */

/**
 * Any message from the server: a `type`, the `id` of the request it
 * answers (if it answers one), and the fields docs/protocol.md lists.
 * @typedef {{type: string, id?: number | string, [field: string]: any}} ServerMessage
 */

/** A request the server refused: `code` is stable (switch on it), `message` is for people. */
export class ServerError extends Error {
  /** @param {ErrorMessage} reply */
  constructor(reply) {
    super(reply.message);
    this.name = "ServerError";
    /** @type {string} one of the codes of docs/protocol.md, "Errors" */
    this.code = reply.code;
    /** @type {string | null} the engine's specific rule, for engine refusals */
    this.reason = reply.reason ?? null;
    /** @type {string | null} */
    this.gameId = reply.game_id ?? null;
  }
}

/** The request could not be sent, or its connection closed before the reply came. */
export class Offline extends Error {
  constructor() {
    super("not connected");
    this.name = "Offline";
    /** @type {"offline"} */
    this.code = "offline";
  }
}

/** No reply came within the request's timeout; the connection stays open. */
export class RequestTimeout extends Error {
  /**
   * @param {string} type the request's type (or what else was waited for)
   * @param {number} timeoutMs
   */
  constructor(type, timeoutMs) {
    super(`${type}: no answer from the server within ${timeoutMs / 1000} s`);
    this.name = "RequestTimeout";
    /** @type {"timeout"} */
    this.code = "timeout";
    this.type = type;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * @typedef {object} Waiting
 * @property {(reply: ServerMessage) => void} resolve
 * @property {(error: Error) => void} reject
 * @property {unknown} timer
 */

export class PendingRequests {
  constructor() {
    this.nextId = 1;
    /** @type {Map<number, Waiting>} */
    this.waiting = new Map();
  }

  /**
   * A new request id and the promise of its reply, rejected with a
   * RequestTimeout after `timeoutMs` (null: never).
   * @param {string} type the request's type, for the timeout's message
   * @param {number | null} timeoutMs
   * @returns {{id: number, reply: Promise<ServerMessage>}}
   */
  open(type, timeoutMs) {
    const id = this.nextId++;
    const reply = new Promise((resolve, reject) => {
      const timer = timeoutMs == null ? null : setTimeout(() => {
        this.waiting.delete(id);
        reject(new RequestTimeout(type, timeoutMs));
      }, timeoutMs);
      this.waiting.set(id, { resolve, reject, timer });
    });
    return { id, reply };
  }

  /**
   * Settle the request `message` answers, if one waits for it: an `error`
   * rejects it with a ServerError, anything else resolves it.
   * @param {ServerMessage} message
   * @returns {boolean} whether a request was waiting for it
   */
  settle(message) {
    const waiting = typeof message.id === "number" ? this.take(message.id) : undefined;
    if (!waiting) return false;
    if (message.type === "error") waiting.reject(new ServerError(/** @type {ErrorMessage} */ (message)));
    else waiting.resolve(message);
    return true;
  }

  /**
   * Reject every waiting request with `error` (the connection is gone).
   * @param {Error} error
   */
  rejectAll(error) {
    for (const id of [...this.waiting.keys()]) this.take(id)?.reject(error);
  }

  /** How many requests wait for a reply. */
  get size() {
    return this.waiting.size;
  }

  /**
   * @param {number} id
   * @returns {Waiting | undefined}
   */
  take(id) {
    const waiting = this.waiting.get(id);
    if (!waiting) return undefined;
    this.waiting.delete(id);
    clearTimeout(waiting.timer);
    return waiting;
  }
}
