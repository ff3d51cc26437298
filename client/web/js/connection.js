// One WebSocket to the server, speaking the arena.v1.json subprotocol.
//
// Why a class of its own: the page must survive a dropped connection
// without the player noticing more than a banner.  Requests carry an id and
// get a promise that settles with the reply carrying that id (an `error`
// reply rejects it); everything else the server pushes (diffs, snapshots,
// game_over) goes to listeners.  When the socket closes, the connection
// opens a new one after a growing delay and says hello again with the
// stored token, so the server hands back the player's live games.
//
// A browser becomes a player it is not yet by a link code shown on one of
// that player's devices: the next hello redeems the code instead of the
// stored token, and the token the welcome brings (this device's own)
// replaces the stored one.  A refused code leaves the browser the player
// it was.
//
// A socket that never opened (the server refused the handshake, or did
// not answer) says nothing about why: a browser hides the HTTP status of
// a failed WebSocket handshake.  So the page then asks the server over
// plain HTTP (`/admission`, which spends nothing) what a handshake from
// its address would hear, waits at least the `Retry-After` it is told,
// and says what it is waiting for.  The delays grow and are jittered, so
// the tabs of one household do not knock in step.

export const SUBPROTOCOL = "arena.v1.json";
export const RETRY_STEPS_MS = [500, 1000, 2000, 4000, 8000, 15000];
const JITTER = 0.25;
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
    this.opened = false;
    this.linkCode = null;
  }

  get token() { return localStorage.getItem(TOKEN_KEY); }

  // A token the server handed this device outside a welcome (rotate_token).
  keepToken(token) { localStorage.setItem(TOKEN_KEY, token); }
  get name() { return localStorage.getItem(NAME_KEY) || ""; }

  setName(name) {
    localStorage.setItem(NAME_KEY, name);
    this.reconnectNow();
  }

  // Play as the player whose device showed `code`: say hello again with it.
  useLinkCode(code) {
    this.linkCode = code;
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
    this.opened = false;
    socket.addEventListener("open", () => {
      this.opened = true;
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
    if (this.linkCode) return this.redeem(this.linkCode);
    const message = { type: "hello", device: deviceName(navigator.userAgent) };
    if (this.token) message.token = this.token;
    if (this.name) message.name = this.name;
    try {
      return await this.request(message, { beforeWelcome: true });
    } catch (error) {
      if (error.code !== "bad_token") {
        if (!(error instanceof Offline)) this.emit("error", error);
        return null;
      }
      // The server forgot us (a fresh in-memory store), or this device was
      // revoked: say so, and become a new player.
      this.emit("error", error);
      localStorage.removeItem(TOKEN_KEY);
      return this.hello();
    }
  }

  // The hello that redeems a link code.  This browser's own name is not
  // sent (nor kept): the player it joins has one.  A connection lost
  // before the answer tries the code again on the next connection.
  async redeem(code) {
    try {
      const message = { type: "hello", link_code: code, device: deviceName(navigator.userAgent) };
      const welcome = await this.request(message, { beforeWelcome: true });
      this.linkCode = null;
      localStorage.removeItem(NAME_KEY);
      this.emit("linked", welcome);
      return welcome;
    } catch (error) {
      if (error instanceof Offline) return null;
      this.linkCode = null;
      this.emit("link_refused", error);
      return this.hello();
    }
  }

  async closed(socket, event) {
    if (socket !== this.socket) return;
    this.socket = null;
    this.welcome = null;
    for (const { reject } of this.pending.values()) reject(new Offline());
    this.pending.clear();
    const failures = this.failures;
    this.failures += 1;
    if (event.code === 1000 && event.reason === "reconnecting") {
      this.retryIn({ code: event.code, retryMs: 0, waitingFor: null });
      return;
    }
    const verdict = this.opened ? null : await this.admission();
    if (this.socket !== null) return;
    this.retryIn({ code: event.code, ...retryPlan(failures, verdict, Math.random()) });
  }

  retryIn(offline) {
    this.emit("offline", offline);
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.start(), offline.retryMs);
  }

  // What a handshake from this address would hear now: {admitted: true},
  // the server's refusal ({code, message, retryAfter}), or
  // {unreachable: true} when nothing answers.
  async admission() {
    try {
      const response = await fetch(admissionUrl(this.url), { cache: "no-store" });
      if (response.ok) return { admitted: true };
      const body = await response.json().catch(() => ({}));
      return { code: body.code ?? `http_${response.status}`, message: body.message ?? "",
        retryAfter: Number(response.headers.get("Retry-After")) || 0 };
    } catch {
      return { unreachable: true };
    }
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

// How long to wait before the next attempt, and what for: the growing
// step for this many failures, jittered by `random` (0..1), and at least
// the server's Retry-After when it refused us.
export function retryPlan(failures, verdict, random) {
  const step = RETRY_STEPS_MS[Math.min(failures, RETRY_STEPS_MS.length - 1)];
  let retryMs = Math.round(step * (1 - JITTER + 2 * JITTER * random));
  let waitingFor = null;
  if (verdict?.unreachable) {
    waitingFor = { kind: "unreachable" };
  } else if (verdict?.code) {
    retryMs = Math.max(retryMs, verdict.retryAfter * 1000 + Math.round(1000 * random));
    waitingFor = { kind: "refused", code: verdict.code, message: verdict.message };
  } else if (verdict?.admitted) {
    waitingFor = { kind: "failed" };
  }
  return { retryMs, waitingFor };
}

// What this device is called in its player's list of devices: its
// browser and system, "Firefox on Android", from the user agent.
export function deviceName(userAgent) {
  const agent = String(userAgent ?? "");
  const browser = [["Edg/", "Edge"], ["OPR/", "Opera"], ["Firefox/", "Firefox"], ["Chrom", "Chrome"], ["Safari/", "Safari"]]
    .find(([mark]) => agent.includes(mark))?.[1] ?? "Browser";
  const system = [["iPhone", "iPhone"], ["iPad", "iPad"], ["Android", "Android"], ["Windows", "Windows"],
    ["Mac OS X", "Mac"], ["CrOS", "ChromeOS"], ["Linux", "Linux"]].find(([mark]) => agent.includes(mark))?.[1];
  return system ? `${browser} on ${system}` : browser;
}

export function admissionUrl(socketUrl) {
  const url = new URL(socketUrl);
  url.protocol = url.protocol === "wss:" ? "https:" : "http:";
  url.pathname = "/admission";
  return url.href;
}

export function serverUrl(location) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/ws`;
}
