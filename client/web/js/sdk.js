// The Solitaire Arena JavaScript SDK: the one module a browser page or a
// Node 18+ program imports to play on an arena server (docs/sdk.md).
//
// It speaks the arena.v1.json subprotocol (docs/protocol.md): connect,
// hello with a stored token, requests whose promises settle with their
// replies, every game followed as a local view kept current by its
// diffs, and reconnection with backoff that brings every view back from
// a fresh snapshot.  The web client of this repository is built on it.

import { Connection } from "./connection.js";
import { GameViews } from "./views.js";

export { Connection, DEFAULT_TIMEOUT_MS, SUBPROTOCOL, deviceName, memoryStorage, serverUrl } from "./connection.js";
export { Emitter } from "./emitter.js";
export { Mirror, applyOps } from "./mirror.js";
export { RETRY_STEPS_MS, admissionUrl, retryPlan } from "./reconnect.js";
export { Offline, PendingRequests, RequestTimeout, ServerError } from "./requests.js";
export { ServerClock } from "./servertime.js";
export { GameViews } from "./views.js";

/** @typedef {import("./connection.js").ConnectionOptions} ConnectionOptions */
/** @typedef {import("./connection.js").OfflineEvent} OfflineEvent */
/** @typedef {import("./connection.js").SocketConstructor} SocketConstructor */
/** @typedef {import("./connection.js").TokenStorage} TokenStorage */
/** @typedef {import("./requests.js").ServerMessage} ServerMessage */
/** @typedef {import("./mirror.js").View} View */

/**
 * Open a connection to `url` and follow its games: the connection is
 * started (it says hello as soon as the socket opens, and again after
 * every reconnection), and `games` mirrors every game it receives.
 * `await arena.connection.welcomed()` before the first request.
 * @param {string} url the server's WebSocket address, `ws://HOST:PORT/ws`
 * @param {ConnectionOptions} [options]
 * @returns {{connection: Connection, games: GameViews}}
 */
export function connect(url, options = {}) {
  const connection = new Connection(url, options);
  const games = new GameViews(connection);
  connection.start();
  return { connection, games };
}
