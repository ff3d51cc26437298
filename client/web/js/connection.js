// One WebSocket to the server, speaking the arena.v1.json subprotocol.
//
// Why a class of its own: the page must survive a dropped connection
// without the player noticing more than a banner.  Requests carry an id and
// get a promise that settles with the reply carrying that id (an `error`
// reply rejects it); everything else the server pushes (diffs, snapshots,
// game_over) goes to listeners.  When the socket closes, the connection
// opens a new one after a growing delay and says hello again with the
// stored token, so the server hands back the player's live games.

export const SUBPROTOCOL = "arena.v1.json";
const RETRY_STEPS_MS = [500, 1000, 2000, 4000, 8000];
const TOKEN_KEY = "arena.token";
const NAME_KEY = "arena.name";

export class ServerError extends Error {
  constructor(reply) {
    super(reply.message);
    this.code = reply.code;
    this.reason = reply.reason ?? null;
    this.gameId = reply.game_id ?? null;
  }
}

export class Offline extends Error {
  constructor() {
    super("not connected");
    this.code = "offline";
  }
}

export class Connection {
  constructor(url) {
    this.url = url;
    this.socket = null;
    this.pending = new Map();
    this.listeners = new Map();
    this.nextId = 1;
    this.failures = 0;
    this.welcome = null;
    this.retryTimer = null;
  }

  get token() { return localStorage.getItem(TOKEN_KEY); }
  get name() { return localStorage.getItem(NAME_KEY) || ""; }

  setName(name) {
    localStorage.setItem(NAME_KEY, name);
    this.reconnectNow();
  }

  on(type, listener) {
    if (!this.listeners.has(type)) this.listeners.set(type, []);
    this.listeners.get(type).push(listener);
  }

  emit(type, payload) {
    for (const listener of this.listeners.get(type) ?? []) listener(payload);
  }

  start() {
    clearTimeout(this.retryTimer);
    const socket = new WebSocket(this.url, [SUBPROTOCOL]);
    this.socket = socket;
    socket.addEventListener("open", () => {
      // The games on offer first: their reply (a "catalogue" event) comes
      // before the welcome and the snapshots that need it.
      this.request({ type: "catalogue" }, { beforeWelcome: true }).catch(() => {});
      this.hello();
    });
    socket.addEventListener("message", (event) => this.receive(event.data));
    socket.addEventListener("close", (event) => this.closed(socket, event));
  }

  reconnectNow() {
    if (this.socket) this.socket.close(1000, "reconnecting");
    else this.start();
  }

  get online() { return this.welcome !== null && this.socket?.readyState === WebSocket.OPEN; }

  async hello() {
    const message = { type: "hello" };
    if (this.token) message.token = this.token;
    if (this.name) message.name = this.name;
    try {
      return await this.request(message, { beforeWelcome: true });
    } catch (error) {
      if (error.code !== "bad_token") {
        if (!(error instanceof Offline)) this.emit("error", error);
        return null;
      }
      // The server forgot us (a fresh in-memory store): become a new player.
      localStorage.removeItem(TOKEN_KEY);
      return this.hello();
    }
  }

  closed(socket, event) {
    if (socket !== this.socket) return;
    this.socket = null;
    this.welcome = null;
    for (const { reject } of this.pending.values()) reject(new Offline());
    this.pending.clear();
    const delay = event.code === 1000 && event.reason === "reconnecting"
      ? 0
      : RETRY_STEPS_MS[Math.min(this.failures, RETRY_STEPS_MS.length - 1)];
    this.failures += 1;
    this.emit("offline", { code: event.code, retryMs: delay });
    this.retryTimer = setTimeout(() => this.start(), delay);
  }

  receive(data) {
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    if (message.type === "welcome") {
      this.welcome = message;
      this.failures = 0;
      localStorage.setItem(TOKEN_KEY, message.token);
    }
    const waiting = message.id != null ? this.pending.get(message.id) : undefined;
    if (waiting) this.pending.delete(message.id);
    if (message.type === "error") {
      // An error a request waits for belongs to that request alone (its
      // caller shows it); only an error nobody waits for reaches the
      // "error" listeners, once.
      if (waiting) waiting.reject(new ServerError(message));
      else this.emit("error", new ServerError(message));
      return;
    }
    if (waiting) waiting.resolve(message);
    this.emit(message.type, message);
  }

  // Send a request and wait for the reply that carries its id.
  request(message, { beforeWelcome = false } = {}) {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN || (!beforeWelcome && !this.welcome)) {
      return Promise.reject(new Offline());
    }
    const id = this.nextId++;
    const promise = new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
    socket.send(JSON.stringify({ ...message, id }));
    return promise;
  }
}

export function serverUrl(location) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/ws`;
}
