// The page's side of leaving.js: it asks before a route away from your
// ranked attempt (the Lobby button, the brand link, Back), before New
// deal and Game Options end a game, and lets the browser ask before the
// tab closes on a clock that runs on the server.

import { confirmAction } from "./confirm.js";
import { leaveQuestion } from "./leaving.js";
import { parseRoute, routeHash, sameRoute } from "./router.js";

export class LeaveGuard {
  /** @param {object} app the page (main.js): its route, mirrors, races and store */
  constructor(app) {
    this.app = app;
    this.agreedGame = null;
    window.addEventListener("hashchange", () => this.routeChanged());
    window.addEventListener("beforeunload", (event) => {
      if (this.clockAtStake()) event.preventDefault();
    });
  }

  /**
   * The route away from `gameId` that follows was agreed already (New deal): not asked again.
   * @param {string} gameId
   */
  agreed(gameId) {
    this.agreedGame = gameId;
  }

  // Leaving the ranked attempt under way forfeits it: asked first, and
  // the address put back if the player keeps playing.
  async routeChanged() {
    const app = this.app;
    const route = parseRoute(window.location.hash);
    const shown = app.route;
    // Back onto the entry a kept attempt was put back on: already shown.
    if (shown && sameRoute(route, shown)) return;
    const mirror = shown?.kind === "play" && route.gameId !== shown.gameId && this.agreedGame !== shown.gameId
      ? app.mirrors.get(shown.gameId) : null;
    this.agreedGame = null;
    if (mirror?.rankedDaily && !app.raceOfGame(mirror.gameId)) {
      if (!(await this.mayLeave(mirror, "leave"))) {
        history.replaceState(null, "", routeHash(shown));
        return;
      }
      app.starter.abandon(mirror);
    }
    app.store.update({ route });
  }

  /**
   * Whether `action` on `mirror` may go ahead: a question first where it would cost the game.
   * @param {object} mirror the game (mirror.js)
   * @param {"new-deal"|"game-options"|"leave"} action
   * @returns {Promise<boolean>}
   */
  async mayLeave(mirror, action) {
    const app = this.app;
    if (!mirror || mirror.owner.player_id !== app.playerId() || !mirror.underWay) return true;
    const race = app.raceOfGame(mirror.gameId) !== null;
    const question = leaveQuestion({ action, rankedDaily: race ? null : mirror.rankedDaily, race,
      underWay: (mirror.counters.moves ?? 0) > 0 });
    return question === null || confirmAction({ ...question, id: "confirm-leave" });
  }

  // Closing the tab resigns nothing, but the clock of a ranked attempt or
  // of a race game being played runs on: then the browser asks.
  clockAtStake() {
    const app = this.app;
    const route = app.route;
    const gameId = route?.kind === "play" ? route.gameId
      : route?.kind === "race" ? app.races.get(route.raceId)?.gameOf(app.playerId()) : null;
    const mirror = gameId ? app.mirrors.get(gameId) : null;
    if (!mirror || mirror.owner.player_id !== app.playerId() || !mirror.underWay) return false;
    return mirror.rankedDaily !== null || app.raceOfGame(gameId) !== null;
  }
}
