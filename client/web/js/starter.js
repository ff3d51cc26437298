// Starting games: from the lobby or a shared daily's page (the page's
// `startGame`), and from a game screen, New deal and Game Options, which
// start another game in place of the one showing.  The player's settings
// add their options here, a daily whose ranked attempt is over is asked
// about first (dailyagain.js), and the game replaced is resigned only once
// the new one has started, so a refusal leaves the player where they were.

import { errorSentence } from "./errors.js";
import { GAMES, withoutAutomatic } from "./games.js";
import { askPractice } from "./dailyagain.js";
import { dealOf, randomDeal, rememberDeal } from "./deals.js";
import { lobbyOptions, openGameOptions } from "./gameoptions.js";

/** Starts the page's games (`app.starter`). */
export class GameStarter {
  /**
   * @param {object} app the page: its settings, requests, leave guard and route
   */
  constructor(app) {
    this.app = app;
  }

  /**
   * A deal with options, or a practice position (engine notation, for
   * tutorials; only where the server allows positions).  `replaces` is
   * the game this one takes over from (New deal, Game Options): it is
   * resigned once the new one has started, so an abandoned game does not
   * stay live (nor in everyone's Live games) until the server's limit of
   * live games abandons it.  `exact` plays `options` as given, without the
   * player's settings (a shared daily's link names its variant).
   * @param {{game: string, deal?: string|number, options?: object, position?: string|null,
   *   replaces?: object|null, exact?: boolean}} spec
   * @returns {Promise<void>} once the game shows, or the refusal was said
   */
  async start({ game, deal = "random", options = {}, position = null, replaces = null, exact = false }) {
    const app = this.app;
    const meta = GAMES[game];
    const chosen = deal === "random" && meta.chooseRandomDeal ? randomDeal(meta) : deal;
    const settingsOptions = meta.settingsOptions && !exact ? meta.settingsOptions(app.settings) : {};
    const chosenOptions = { ...options, ...settingsOptions };
    const request = position
      ? { type: "new_game", game, position, practice: true }
      : { type: "new_game", game, deal: chosen, options: deal === "daily" ? withoutAutomatic(meta, chosenOptions) : chosenOptions };
    if (deal === "daily" && replaces === null) {
      const practice = await askPractice((message) => app.request(message), game, request.options);
      if (practice === null) return;
      request.practice = practice;
    }
    try {
      const started = await app.request(request);
      if (!position) rememberDeal(started.game_id, { game, deal: chosen, options });
      if (replaces !== null) {
        app.guard.agreed(replaces.gameId);
        this.abandon(replaces);
      }
      app.go({ kind: "play", gameId: started.game_id });
    } catch (error) {
      app.toast(errorSentence(error));
    }
  }

  /**
   * Resign `mirror`'s game if it is yours and still being played.
   * @param {object} mirror
   */
  abandon(mirror) {
    const app = this.app;
    if (mirror.status !== "playing" || mirror.owner.player_id !== app.playerId()) return;
    app.request({ type: "resign", game_id: mirror.gameId }).catch((error) => {
      if (error.code !== "offline") app.toast(errorSentence(error));
    });
  }

  /**
   * New deal: the same game and options on another deal (a winnable one
   * if this one was), once the leave guard agrees.
   * @param {object} mirror the game showing
   * @returns {Promise<void>}
   */
  async newDeal(mirror) {
    if (!(await this.app.guard.mayLeave(mirror, "new-deal"))) return;
    const spec = dealOf(mirror.gameId);
    const deal = spec?.deal === "winnable" ? "winnable" : "random";
    await this.start({ game: mirror.game, deal, options: lobbyOptions(mirror), replaces: mirror });
  }

  /**
   * Game Options (Broken Deck's difficulty): a change restarts the same
   * deal number with the new options.
   * @param {object} mirror the game showing
   */
  openGameOptions(mirror) {
    openGameOptions(mirror, dealOf(mirror.gameId), async ({ deal, options }) => {
      if (await this.app.guard.mayLeave(mirror, "game-options")) this.start({ game: mirror.game, deal, options, replaces: mirror });
    });
  }
}
