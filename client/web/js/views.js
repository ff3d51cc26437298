// The games a connection mirrors: a Mirror per game from its snapshot,
// kept current by its diffs, and made whole again when a diff went
// missing or the connection came back.
//
// Why apart from the connection: the connection only speaks the protocol;
// what a client shows is the view of each game it follows.  A diff that
// skips a number asks for a `resync` (one at a time per game); after a
// reconnection the server sends a snapshot of each of the player's own
// live games by itself, and the games followed through `watch` are
// watched again here, so every mirror starts over from a fresh snapshot.

import { Emitter } from "./emitter.js";
import { Mirror } from "./mirror.js";
import { Offline, RequestTimeout } from "./requests.js";

/** @typedef {import("./connection.js").Connection} Connection */
/** @typedef {import("./requests.js").ServerMessage} ServerMessage */

export class GameViews extends Emitter {
  /**
   * Events: "change" (a Mirror, after its snapshot or an applied diff),
   * "finish_offer" (a Mirror the server offers to finish), "over" (a
   * Mirror whose `game_over` came: `mirror.over`) and "error" (a resync
   * or re-watch the server refused).
   * @param {Connection} connection
   */
  constructor(connection) {
    super();
    this.connection = connection;
    /** @type {Map<string, Mirror>} */
    this.mirrors = new Map();
    /** @type {Set<string>} games followed through `watch`, watched again after a reconnection */
    this.followed = new Set();
    /** @type {Set<string>} games whose resync is on its way */
    this.resyncing = new Set();
    connection.on("snapshot", (snapshot) => this.snapshot(snapshot));
    connection.on("diff", (diff) => this.diff(diff));
    connection.on("finish_offer", (offer) => this.finishOffer(offer));
    connection.on("game_over", (over) => this.gameOver(over));
    connection.on("welcome", (welcome) => this.rewatch(welcome));
  }

  /**
   * The mirror of `gameId`, if a snapshot of it came.
   * @param {string} gameId
   * @returns {Mirror | undefined}
   */
  get(gameId) {
    return this.mirrors.get(gameId);
  }

  /**
   * Watch a game of anyone's and follow it across reconnections.  The
   * reply is its `snapshot` (mirrored before the promise settles), or
   * `progress` for a game on a deal still secret, which has no board.
   * @param {string} gameId
   * @returns {Promise<ServerMessage>}
   */
  async watch(gameId) {
    const reply = await this.connection.request({ type: "watch", game_id: gameId });
    if (reply.type === "snapshot") this.followed.add(gameId);
    return reply;
  }

  /**
   * Stop following a game and forget its mirror; the server stops its diffs.
   * @param {string} gameId
   * @returns {Promise<void>}
   */
  async unwatch(gameId) {
    this.forget(gameId);
    await this.connection.request({ type: "unwatch", game_id: gameId });
  }

  /**
   * Forget a game's mirror without telling the server.
   * @param {string} gameId
   */
  forget(gameId) {
    this.followed.delete(gameId);
    this.mirrors.delete(gameId);
  }

  /**
   * The mirror of `gameId` once `test(mirror)` holds: at once, or after
   * the snapshot, diff, offer or game_over that makes it hold.  Rejects
   * with a RequestTimeout after `timeoutMs` (null: never).
   * @param {string} gameId
   * @param {(mirror: Mirror) => boolean} [test] default: a mirror exists
   * @param {number | null} [timeoutMs]
   * @returns {Promise<Mirror>}
   */
  until(gameId, test = () => true, timeoutMs = this.connection.timeoutMs) {
    const now = this.mirrors.get(gameId);
    if (now && test(now)) return Promise.resolve(now);
    return this.next(["change", "finish_offer", "over"],
      (/** @type {Mirror} */ mirror) => (mirror.gameId === gameId && test(mirror) ? { value: mirror } : undefined),
      timeoutMs, () => new RequestTimeout(`game ${gameId}`, timeoutMs ?? 0));
  }

  /** @param {ServerMessage} snapshot */
  snapshot(snapshot) {
    const mirror = new Mirror(snapshot);
    mirror.over = this.mirrors.get(mirror.gameId)?.over ?? null;
    this.mirrors.set(mirror.gameId, mirror);
    this.emit("change", mirror);
  }

  /** @param {ServerMessage} diff */
  diff(diff) {
    const mirror = this.mirrors.get(diff.game_id);
    if (!mirror) return;
    const outcome = mirror.apply(diff);
    if (outcome === "applied") this.emit("change", mirror);
    else if (outcome === "gap") this.resync(mirror.gameId);
  }

  /**
   * Ask for a fresh snapshot of a game whose diffs skipped a number.
   * @param {string} gameId
   */
  async resync(gameId) {
    if (this.resyncing.has(gameId)) return;
    this.resyncing.add(gameId);
    try {
      await this.connection.request({ type: "resync", game_id: gameId });
    } catch (error) {
      if (!(error instanceof Offline)) this.emit("error", error);
    } finally {
      this.resyncing.delete(gameId);
    }
  }

  /** @param {ServerMessage} offer */
  finishOffer(offer) {
    const mirror = this.mirrors.get(offer.game_id);
    if (!mirror) return;
    mirror.finishOffer = offer;
    this.emit("finish_offer", mirror);
  }

  /** @param {ServerMessage} over */
  gameOver(over) {
    const mirror = this.mirrors.get(over.game_id);
    if (!mirror) return;
    mirror.over = over;
    this.emit("over", mirror);
  }

  /**
   * After a (re)connection: the player's own live games come by
   * themselves; every other followed game is watched again.
   * @param {ServerMessage} welcome
   */
  rewatch(welcome) {
    this.resyncing.clear();
    const own = new Set((welcome.games ?? []).map((/** @type {{game_id: string}} */ summary) => summary.game_id));
    for (const gameId of this.followed) {
      if (own.has(gameId)) continue;
      this.connection.request({ type: "watch", game_id: gameId }).catch((error) => {
        if (!(error instanceof Offline)) this.emit("error", error);
      });
    }
  }
}
