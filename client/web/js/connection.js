// One WebSocket to the server, speaking the arena.v1.json subprotocol.
//
// Why a class of its own: a client must survive a dropped connection
// without its user noticing more than a banner.  Requests carry an id and
// get a promise that settles with the reply carrying that id
// (requests.js); everything else the server pushes (diffs, snapshots,
// game_over) goes to listeners.  When the socket closes, the connection
// opens a new one after a growing delay (reconnect.js) and says hello
// again with the stored token, so the server hands back the player's live
// games.
//
// It touches nothing of a page: the WebSocket class, the token's storage,
// `fetch` and this device's name are given to it, so the same module runs
// in a browser and in Node 18+.
//
// A browser becomes a player it is not yet by a link code shown on one of
// that player's devices: the next hello redeems the code instead of the
// stored token, and the token the welcome brings (this device's own)
// replaces the stored one.  A refused code leaves the browser the player
// it was.

import { Emitter } from "./emitter.js";
import { Outbox } from "./pacing.js";
import { admission, retryPlan } from "./reconnect.js";
import { Offline, PendingRequests, RequestTimeout, ServerError } from "./requests.js";

/** @typedef {import("./requests.js").ServerMessage} ServerMessage */
/** @typedef {import("./reconnect.js").FetchLike} FetchLike */
/** @typedef {import("./reconnect.js").WaitingFor} WaitingFor */

export const SUBPROTOCOL = "arena.v1.json";
export const DEFAULT_TIMEOUT_MS = 10000;
const OPEN = 1;
const TOKEN_KEY = "arena.token";
const NAME_KEY = "arena.name";

/**
 * The part of a WebSocket the connection uses: the browser's, Node 22's
 * global one, or the `ws` package's.
 * @typedef {object} SocketLike
 * @property {number} readyState
 * @property {(data: string) => void} send
 * @property {(code?: number, reason?: string) => void} close
 * @property {(type: string, listener: (event: any) => void) => void} addEventListener
 */

/** @typedef {new (url: string, protocols: string[]) => SocketLike} SocketConstructor */

/**
 * Where the token (and a chosen name) is kept: `localStorage` in a
 * browser, `memoryStorage()` by default, or anything with these methods.
 * @typedef {object} TokenStorage
 * @property {(key: string) => string | null} getItem
 * @property {(key: string, value: string) => void} setItem
 * @property {(key: string) => void} removeItem
 */

/**
 * @typedef {object} ConnectionOptions
 * @property {SocketConstructor} [WebSocket] the WebSocket class (default: `globalThis.WebSocket`)
 * @property {TokenStorage} [storage] where the token is kept (default: in memory, for this process only)
 * @property {FetchLike | null} [fetch] for the admission check after a failed handshake (default:
 *   `globalThis.fetch`; null: do not ask)
 * @property {string} [name] the display name said in hello, unless `setName` stored another
 * @property {boolean} [bot] declare a bot in hello (docs/protocol.md, "Bots")
 * @property {string} [device] what this device is called in its player's list of devices
 * @property {boolean} [catalogue] ask for the catalogue first on each connection, so its event
 *   comes before `welcome`
 * @property {number | null} [timeoutMs] how long a request waits for its reply (null: as long as
 *   the connection lives)
 * @property {() => number} [random] the source of the retry delays' jitter, 0..1
 */

/**
 * Why the connection is down and when it tries again.
 * @typedef {{code: number, reason: string, retryMs: number, waitingFor: WaitingFor | null, failures: number}} OfflineEvent
 */

/**
 * The host's WebSocket class, looked up when a socket opens: a page's
 * may be replaced after the connection was made (a test's WebSocket route).
 * @returns {SocketConstructor | undefined}
 */
function globalWebSocket() {
  return /** @type {{WebSocket?: SocketConstructor}} */ (globalThis).WebSocket;
}

/**
 * A store of strings that lasts as long as the process.
 * @returns {TokenStorage}
 */
export function memoryStorage() {
  /** @type {Map<string, string>} */
  const items = new Map();
  return {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => { items.set(key, String(value)); },
    removeItem: (key) => { items.delete(key); },
  };
}

export class Connection extends Emitter {
  /**
   * @param {string} url the server's WebSocket address, `ws://HOST:PORT/ws`
   * @param {ConnectionOptions} [options]
   */
  constructor(url, options = {}) {
    super();
    const host = /** @type {{fetch?: FetchLike}} */ (globalThis);
    if (!options.WebSocket && !globalWebSocket()) {
      throw new TypeError("no WebSocket class here: pass {WebSocket} (the ws package's), or run Node 22+ "
        + "(Node 20 and 21: node --experimental-websocket)");
    }
    this.url = url;
    /** @type {SocketConstructor | null} null: the global one at each connection */
    this.WebSocket = options.WebSocket ?? null;
    this.storage = options.storage ?? memoryStorage();
    this.fetch = options.fetch === undefined ? host.fetch ?? null : options.fetch;
    this.defaultName = options.name ?? "";
    this.bot = options.bot ?? false;
    this.device = options.device ?? null;
    this.askCatalogue = options.catalogue ?? false;
    this.timeoutMs = options.timeoutMs === undefined ? DEFAULT_TIMEOUT_MS : options.timeoutMs;
    this.random = options.random ?? Math.random;
    /** @type {SocketLike | null} */
    this.socket = null;
    /** @type {Outbox | null} the frames for `socket`, paced by the server's limits */
    this.outbox = null;
    this.pending = new PendingRequests();
    this.failures = 0;
    /** @type {ServerMessage | null} the last welcome, while the connection is open */
    this.welcome = null;
    /** @type {unknown} */
    this.retryTimer = null;
    this.opened = false;
    this.stopped = false;
    /** @type {string | null} */
    this.linkCode = null;
  }

  /** The token of the player this connection says hello as, if it has one yet. */
  get token() { return this.storage.getItem(TOKEN_KEY); }

  /**
   * Keep a token the server handed this device outside a welcome (rotate_token).
   * @param {string} token
   */
  keepToken(token) { this.storage.setItem(TOKEN_KEY, token); }

  get name() { return this.storage.getItem(NAME_KEY) || this.defaultName; }

  /**
   * Keep `name` and say hello again with it.
   * @param {string} name
   */
  setName(name) {
    this.storage.setItem(NAME_KEY, name);
    this.reconnectNow();
  }

  /**
   * Play as the player whose device showed `code`: say hello again with it.
   * @param {string} code
   */
  useLinkCode(code) {
    this.linkCode = code;
    this.reconnectNow();
  }

  /** Open the socket (again); after `close`, this starts over. */
  start() {
    clearTimeout(this.retryTimer);
    this.stopped = false;
    const WebSocket = /** @type {SocketConstructor} */ (this.WebSocket ?? globalWebSocket());
    const socket = new WebSocket(this.url, [SUBPROTOCOL]);
    this.socket = socket;
    this.outbox?.stop();
    this.outbox = new Outbox((frame) => socket.send(frame), () => performance.now());
    this.opened = false;
    socket.addEventListener("open", () => {
      this.opened = true;
      // The games on offer first: their reply (a "catalogue" event) comes
      // before the welcome and the snapshots that need it.
      if (this.askCatalogue) this.request({ type: "catalogue" }, { beforeWelcome: true }).catch(() => {});
      this.hello();
    });
    socket.addEventListener("message", (event) => this.receive(event.data));
    socket.addEventListener("close", (event) => this.closed(socket, event));
    // A browser fires "close" in the same task as the "error" of a failed
    // socket; Node 20's WebSocket fires the error alone when the server
    // cannot be reached, so the error counts as an abnormal close (1006)
    // unless the close came first.
    socket.addEventListener("error", () => setTimeout(() => this.closed(socket, { code: 1006, reason: "" }), 0));
  }

  /** Close the socket now and open a new one at once. */
  reconnectNow() {
    if (this.socket) this.socket.close(1000, "reconnecting");
    else this.start();
  }

  /**
   * Close for good: no reconnection, every waiting request rejected with
   * Offline.  Resolves once the socket has closed.
   * @returns {Promise<void>}
   */
  close() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    const socket = this.socket;
    this.forgetSocket();
    if (!socket || socket.readyState > OPEN) return Promise.resolve();
    const closed = new Promise((resolve) => socket.addEventListener("close", () => resolve(undefined)));
    socket.close(1000, "closed");
    return closed;
  }

  /** Whether requests can go out: the socket is open and the server said welcome. */
  get online() { return this.welcome !== null && this.socket?.readyState === OPEN; }

  /**
   * The welcome of this connection: at once when online, else the next
   * one.  Rejects with the server's refusal of the hello (say
   * `too_many_identities`), or a RequestTimeout after `timeoutMs`.
   * @param {number | null} [timeoutMs]
   * @returns {Promise<ServerMessage>}
   */
  welcomed(timeoutMs = this.timeoutMs) {
    if (this.online && this.welcome) return Promise.resolve(this.welcome);
    return this.next(["welcome", "hello_refused"], (payload, type) => (type === "welcome" ? { value: payload } : { error: payload }),
      timeoutMs, () => new RequestTimeout("hello", timeoutMs ?? 0));
  }

  /**
   * Say hello with the stored token (or the link code to redeem).
   * @returns {Promise<ServerMessage | null>} the welcome, or null when refused
   */
  async hello() {
    if (this.linkCode) return this.redeem(this.linkCode);
    /** @type {{type: string, token?: string, name?: string, bot?: boolean, device?: string}} */
    const message = { type: "hello", ...this.identity() };
    const token = this.token;
    if (token) message.token = token;
    if (this.name) message.name = this.name;
    try {
      return await this.request(message, { beforeWelcome: true });
    } catch (error) {
      if (!(error instanceof ServerError) || error.code !== "bad_token") {
        if (!(error instanceof Offline)) {
          this.emit("error", error);
          this.emit("hello_refused", error);
        }
        return null;
      }
      // The server forgot us (a fresh in-memory store), or this device was
      // revoked: say so, and become a new player.
      this.emit("error", error);
      this.storage.removeItem(TOKEN_KEY);
      return this.hello();
    }
  }

  /** What every hello says besides the token and name. */
  identity() {
    return { ...(this.bot ? { bot: true } : {}), ...(this.device ? { device: this.device } : {}) };
  }

  /**
   * The hello that redeems a link code.  This device's own name is not
   * sent (nor kept): the player it joins has one.  A connection lost
   * before the answer tries the code again on the next connection.
   * @param {string} code
   * @returns {Promise<ServerMessage | null>}
   */
  async redeem(code) {
    try {
      const welcome = await this.request({ type: "hello", link_code: code, ...this.identity() }, { beforeWelcome: true });
      this.linkCode = null;
      this.storage.removeItem(NAME_KEY);
      this.emit("linked", welcome);
      return welcome;
    } catch (error) {
      if (error instanceof Offline) return null;
      this.linkCode = null;
      this.emit("link_refused", error);
      return this.hello();
    }
  }

  /**
   * @param {SocketLike} socket
   * @param {{code: number, reason: string}} event
   */
  async closed(socket, event) {
    if (socket !== this.socket) return;
    this.forgetSocket();
    const failures = this.failures;
    this.failures += 1;
    const closing = { code: event.code, reason: event.reason ?? "", failures: this.failures };
    if (event.code === 1000 && event.reason === "reconnecting") {
      this.retryIn({ ...closing, retryMs: 0, waitingFor: null });
      return;
    }
    const verdict = this.opened || !this.fetch ? null : await admission(this.fetch, this.url);
    if (this.socket !== null) return;
    this.retryIn({ ...closing, ...retryPlan(failures, verdict, this.random()) });
  }

  /** The socket is gone: so are its welcome, its held-back frames and every reply still awaited. */
  forgetSocket() {
    this.socket = null;
    this.welcome = null;
    this.outbox?.stop();
    this.outbox = null;
    this.pending.rejectAll(new Offline());
  }

  /** @param {OfflineEvent} offline */
  retryIn(offline) {
    if (this.stopped) return;
    this.emit("offline", offline);
    clearTimeout(this.retryTimer);
    // An "offline" listener may have closed the connection (given up).
    if (!this.stopped) this.retryTimer = setTimeout(() => this.start(), offline.retryMs);
  }

  /** @param {unknown} data a frame's text */
  receive(data) {
    let message;
    try {
      message = JSON.parse(String(data));
    } catch {
      return;
    }
    if (typeof message?.type !== "string") return;
    if (message.type === "welcome") {
      this.welcome = message;
      this.failures = 0;
      this.storage.setItem(TOKEN_KEY, message.token);
      if (message.limits) this.outbox?.limit(message.limits);
    }
    // An error a request waits for belongs to that request alone (its
    // caller shows it); only an error nobody waits for reaches the
    // "error" listeners, once.
    const answered = this.pending.settle(message);
    if (message.type !== "error") this.emit(message.type, message);
    else if (!answered) this.emit("error", new ServerError(message));
  }

  /**
   * Send a request and wait for the reply that carries its id (held back
   * while the server's message rate would drop it; the timeout counts
   * from now).  Rejects
   * with a ServerError (the server refused), Offline (not connected, or
   * the connection closed first) or RequestTimeout.
   * @param {{type: string, [field: string]: any}} message a request of docs/protocol.md, without `id`
   * @param {{beforeWelcome?: boolean, timeoutMs?: number | null}} [options] `beforeWelcome`: send
   *   before the hello is answered (hello itself, catalogue); `timeoutMs`: this request's own timeout
   * @returns {Promise<ServerMessage>}
   */
  request(message, { beforeWelcome = false, timeoutMs = this.timeoutMs } = {}) {
    const socket = this.socket;
    if (!socket || !this.outbox || socket.readyState !== OPEN || (!beforeWelcome && !this.welcome)) {
      return Promise.reject(new Offline());
    }
    const { id, reply } = this.pending.open(message.type, timeoutMs);
    this.outbox.push(JSON.stringify({ ...message, id }));
    return reply;
  }
}

/**
 * What this device is called in its player's list of devices: its
 * browser and system, "Firefox on Android", from the user agent.
 * @param {string | null | undefined} userAgent
 * @returns {string}
 */
export function deviceName(userAgent) {
  const agent = String(userAgent ?? "");
  const browser = [["Edg/", "Edge"], ["OPR/", "Opera"], ["Firefox/", "Firefox"], ["Chrom", "Chrome"], ["Safari/", "Safari"]]
    .find(([mark]) => agent.includes(mark))?.[1] ?? "Browser";
  const system = [["iPhone", "iPhone"], ["iPad", "iPad"], ["Android", "Android"], ["Windows", "Windows"],
    ["Mac OS X", "Mac"], ["CrOS", "ChromeOS"], ["Linux", "Linux"]].find(([mark]) => agent.includes(mark))?.[1];
  return system ? `${browser} on ${system}` : browser;
}

/**
 * The WebSocket address of the server that served a page at `location`.
 * @param {{protocol: string, host: string}} location
 * @returns {string}
 */
export function serverUrl(location) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/ws`;
}
