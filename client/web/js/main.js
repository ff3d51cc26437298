// The page: one connection and its game views (the JavaScript SDK,
// sdk.js), one state store (store.js) and a render function per screen
// (SCREENS below), chosen by the route (router.js).
//
// The store holds what the screens draw from: the route, the welcome,
// the lobby's lists; a change re-renders the screen showing.  The games
// and races mirrored stay in the page's maps: a snapshot or diff
// re-renders only the board it is about.  After every
// (re)connection the server sends a snapshot of each of your live games
// and of each unfinished race you race in; a watched game or race is
// asked for again.  A diff that skips a number triggers a resync.
//
// A race you only watch is followed while its screen or one of its
// racers' boards shows, and unwatched when you go elsewhere; a race you
// race in is never unwatched (the server would mark you disconnected).

import { CLOSE_SENTENCES, errorSentence, waitingSentence } from "./errors.js";
import { GAMES, setCatalogue, withoutAutomatic } from "./games.js";
import { Lobby } from "./lobby.js";
import { GameScreen } from "./play.js";
import { RaceScreen } from "./race.js";
import { ReplayScreen } from "./replay.js";
import { RaceModel } from "./races.js";
import { Social } from "./social.js";
import { bindSettingsDialog, loadSettings } from "./settings.js";
import { applyAppearance } from "./appearance.js";
import { bindShortcuts } from "./keys.js";
import { LeaveGuard } from "./guard.js";
import { DevicesPanel } from "./devices.js";
import { parseRoute, routeHash } from "./router.js";
import { Connection, GameViews, ServerClock, deviceName, serverUrl } from "./sdk.js";
import { Store } from "./store.js";
import { FriendsBoard } from "./friendsboard.js";
import { GhostBars } from "./ghostbars.js";
import { SOCIAL_SCREENS } from "./socialscreens.js";
import { GameStarter } from "./starter.js";

const FINAL_STATUSES = new Set(["won", "resigned", "abandoned"]);

const TOAST_MS = 5000;
// Screens read from the server as they open (and again after a reconnection).
const LOADED_SCREENS = new Set(["replay", ...Object.keys(SOCIAL_SCREENS)]);

// One render function per screen: each builds (or refreshes) its screen
// from the store's state.
const SCREENS = {
  lobby(app, state, entering) {
    if (entering) app.screen = app.lobby;
    if (entering && state.route.friendCode) app.social.offerInvite(state.route.friendCode);
    app.lobby.show({ welcome: state.welcome, liveGames: state.liveGames, ownGames: app.ownGames(),
      races: state.raceHistory });
  },
  race(app, state, entering) {
    if (entering) app.screen = new RaceScreen(app.main, app, state.route.raceId);
    const model = app.races.get(state.route.raceId);
    if (model) app.screen.update(model);
  },
  play(app, state, entering) {
    if (entering) app.screen = new GameScreen(app.main, app, { gameId: state.route.gameId });
    const mirror = app.mirrors.get(state.route.gameId);
    if (mirror) app.showIfCurrent(mirror);
  },
};
SCREENS.watch = SCREENS.play;
SCREENS.replay = (app, state, entering) => {
  if (entering) app.screen = new ReplayScreen(app.main, app, state.route.gameId);
};
Object.assign(SCREENS, SOCIAL_SCREENS);

class App {
  constructor() {
    // The token stays in this browser; a request waits for its reply as
    // long as the connection lives (a daily's deal may be proved first).
    this.connection = new Connection(serverUrl(window.location), {
      storage: window.localStorage, device: deviceName(navigator.userAgent), catalogue: true, timeoutMs: null,
    });
    this.views = new GameViews(this.connection);
    this.mirrors = this.views.mirrors;
    this.settings = loadSettings();
    this.races = new Map();
    this.delays = new Map();
    this.serverClock = new ServerClock();
    this.spectatedRace = null;
    this.store = new Store({ route: null, welcome: null, liveGames: null, raceHistory: null, catalogue: null });
    this.screen = null;
    this.starter = new GameStarter(this);
    this.main = document.getElementById("screen");
    this.banner = document.getElementById("connection");
    this.toastNode = document.getElementById("toast");
    this.lobby = new Lobby(this.main, {
      name: () => this.connection.name || this.store.state.welcome?.name || "",
      rename: (name) => this.connection.setName(name),
      start: (request) => this.startGame(request),
      watch: (gameId) => this.go({ kind: "watch", gameId }),
      resume: (gameId) => this.go({ kind: "play", gameId }),
      refresh: () => this.refreshLobby(),
      createRace: (request) => this.createRace(request),
      joinRace: (code) => this.joinRace(code),
      openRace: (raceId) => this.openRace(raceId),
      request: (message) => this.request(message),
      friendsPanel: () => this.social.drawnPanel(),
      devicesPanel: () => this.devices.node,
      friendsBoard: () => this.friendsBoard.node,
      useCode: () => this.devices.focusCode(),
    });
    this.social = new Social(this);
    this.devices = new DevicesPanel(this);
    this.friendsBoard = new FriendsBoard(this);
    this.ghostBars = null;
    this.listen();
    applyAppearance(document.documentElement, this.settings);
    bindSettingsDialog(document, this.settings, () => {
      applyAppearance(document.documentElement, this.settings);
      this.screen?.relayout?.();
    });
    bindShortcuts(document, this);
    document.getElementById("open-settings").addEventListener("click", () => {
      document.getElementById("settings").showModal();
    });
    this.store.subscribe((state, changed) => this.changed(state, changed));
    this.guard = new LeaveGuard(this);
    this.store.update({ route: parseRoute(window.location.hash) });
    this.connection.start();
  }

  get route() {
    return this.store.state.route;
  }

  go(route) {
    window.location.hash = routeHash(route);
  }

  playerId() {
    return this.connection.welcome?.player_id ?? null;
  }

  request(message) {
    return this.connection.request(message);
  }

  toast(text) {
    this.toastNode.textContent = text;
    this.toastNode.hidden = false;
    clearTimeout(this.toastTimer);
    this.toastTimer = setTimeout(() => { this.toastNode.hidden = true; }, TOAST_MS);
  }

  // The banner while offline: why (a close code, or what a socket that
  // never opened is waiting for) and a countdown to the next attempt.
  showOffline({ code, retryMs, waitingFor }) {
    clearInterval(this.countdown);
    const why = waitingFor ? waitingSentence(waitingFor) : CLOSE_SENTENCES[code] ?? "";
    const until = Date.now() + retryMs;
    const show = () => {
      const seconds = Math.ceil((until - Date.now()) / 1000);
      this.banner.textContent = `${why ? `${why} ` : ""}Reconnecting${seconds > 0 ? ` in ${seconds} s` : ""}…`;
      if (seconds <= 0) clearInterval(this.countdown);
    };
    show();
    if (retryMs > 0) this.countdown = setInterval(show, 1000);
    this.banner.dataset.state = "offline";
    if (waitingFor) this.banner.dataset.waiting = waitingFor.kind;
    else delete this.banner.dataset.waiting;
    if (waitingFor?.message) this.banner.title = waitingFor.message;
    else this.banner.removeAttribute("title");
  }

  // ------------------------------------------------------------ server events

  listen() {
    const connection = this.connection;
    connection.on("catalogue", (catalogue) => {
      setCatalogue(catalogue.games);
      this.store.update({ catalogue: catalogue.games });
    });
    connection.on("welcome", (welcome) => {
      clearInterval(this.countdown);
      this.banner.removeAttribute("title");
      delete this.banner.dataset.waiting;
      this.serverClock.reset();
      this.serverClock.sample(welcome.server_time);
      this.banner.textContent = `Playing as ${welcome.name}`;
      this.banner.dataset.state = "online";
      this.store.update({ welcome });
      this.refetchShown();
      if (this.route.kind === "lobby") this.refreshLobby();
    });
    connection.on("offline", (offline) => this.showOffline(offline));
    this.views.on("change", (mirror) => {
      this.measureDelay(mirror);
      this.showIfCurrent(mirror);
    });
    this.views.on("finish_offer", (mirror) => this.gameScreenFor(mirror.gameId)?.setButtons());
    this.views.on("error", (error) => this.toast(errorSentence(error)));
    connection.on("game_over", (message) => {
      this.gameScreenFor(message.game_id)?.gameOver(message);
      this.ghostBars?.placeShare();
    });
    connection.on("race", (message) => {
      this.serverClock.sample(message.server_time);
      const known = this.races.get(message.race.race_id);
      if (known) known.update(message.race, message.server_time);
      else this.races.set(message.race.race_id, new RaceModel(message.race, message.server_time));
      this.showRaceIfCurrent(message.race.race_id);
      if (this.screen instanceof GameScreen && this.raceOfGame(this.screen.gameId)?.raceId === message.race.race_id) {
        this.screen.raceChanged();
      }
      this.callToStart(message);
    });
    connection.on("race_progress", (message) => {
      this.serverClock.sample(message.server_time);
      const model = this.races.get(message.race_id);
      if (!model) return;
      model.progress(message.racer, message.server_time);
      this.showRaceIfCurrent(message.race_id);
    });
    connection.on("pong", (message) => this.serverClock.sample(message.server_time));
    connection.on("error", (error) => this.toast(errorSentence(error)));
  }

  // The game screen showing `gameId` now (on its own or inside a race), or null.
  gameScreenFor(gameId) {
    return this.screen?.gameScreenFor?.(gameId) ?? null;
  }

  // The game's screen, if shown, redraws; your ranked daily attempt gets
  // its ghost bars once its snapshot says it is one.
  showIfCurrent(mirror) {
    const screen = this.gameScreenFor(mirror.gameId);
    if (!screen) return;
    screen.update(mirror);
    if (screen === this.screen) this.ghostBars ??= GhostBars.forScreen(this, screen, mirror);
  }

  showRaceIfCurrent(raceId) {
    if (this.screen instanceof RaceScreen && this.screen.raceId === raceId) this.screen.update(this.races.get(raceId));
  }

  // The host started a race of yours while you were elsewhere: the
  // countdown is short, so the race screen comes to you.
  callToStart(message) {
    const raceId = message.race.race_id;
    const here = this.route.kind === "race" && this.route.raceId === raceId;
    if (message.event === "started" && !here && this.races.get(raceId).isRacer(this.playerId())) {
      this.toast(`${message.race.host.name} started your ${message.race.title} race.`);
      this.openRace(raceId);
    }
  }

  raceOfGame(gameId) {
    for (const model of this.races.values()) {
      if (model.ownerOfGame(gameId)) return model;
    }
    return null;
  }

  // How far behind the server shows a rival's race board: the server's
  // now minus the moment the board's clock was read.  A board read
  // before the start says less than the delay, so the largest estimate
  // wins.  Null for boards shown live.
  measureDelay(mirror) {
    const race = this.raceOfGame(mirror.gameId);
    const clock = mirror.clock;
    if (!race || mirror.owner.player_id === this.playerId() || clock.started_ms == null || clock.finished_ms != null) return;
    if (race.phase(this.serverClock.now()) !== "running") return;
    const behind = Math.max(0, this.serverClock.now() - clock.started_ms - clock.elapsed_ms);
    this.delays.set(mirror.gameId, Math.max(this.delays.get(mirror.gameId) ?? 0, behind));
  }

  delayOf(gameId) {
    return this.delays.get(gameId) ?? null;
  }

  // After (re)connecting: your own live games and races come by
  // themselves; any other shown game or race is asked for.
  refetchShown() {
    const route = this.route;
    if (route.kind === "race") {
      this.followRace(route.raceId);
      return;
    }
    if (this.spectatedRace) this.followRace(this.spectatedRace);
    if (route.kind === "lobby") return;
    if (LOADED_SCREENS.has(route.kind)) {
      this.screen.load();
      return;
    }
    const own = this.connection.welcome.games.some((summary) => summary.game_id === route.gameId);
    if (!own) this.watch(route.gameId);
  }

  // A game on a deal still secret (someone's daily attempt before the
  // day's reveal, a race game before the race ends) answers with its
  // progress instead of its board: say how it goes and stay in the lobby.
  async watch(gameId) {
    try {
      const reply = await this.request({ type: "watch", game_id: gameId });
      if (reply?.type === "progress") {
        this.toast(`${reply.title}: the deal is secret until it is revealed, so only its progress is shown: `
          + `${reply.status}, ${reply.cards_home} cards home, ${reply.actions} actions.`);
        this.toLobby();
      }
    } catch (error) {
      if (error.code === "offline") return;
      this.toast(errorSentence(error));
      this.toLobby();
    }
  }

  // ------------------------------------------------------------ screens

  // The store changed: a new route enters its screen (leaving the last
  // one: an unwatched game, a race only watched), anything else
  // re-renders the screen showing.
  changed(state, changed) {
    if (!changed.has("route")) {
      if (state.route.kind === "lobby") SCREENS.lobby(this, state, false);
      return;
    }
    this.leaveWatchedGame(this.previousRoute, state.route);
    this.previousRoute = state.route;
    this.leaveSpectatedRace();
    this.screen?.destroy?.();
    this.ghostBars?.destroy();
    this.ghostBars = null;
    SCREENS[state.route.kind](this, state, true);
    if (!this.connection.online) return;
    if (state.route.kind === "lobby") this.refreshLobby();
    else if (state.route.kind === "race") this.followRace(state.route.raceId);
    else if (LOADED_SCREENS.has(state.route.kind)) this.screen.load();
    else if (!this.mirrors.has(state.route.gameId)) this.watch(state.route.gameId);
  }

  leaveWatchedGame(previous, route) {
    if (previous?.kind !== "watch" || previous.gameId === route.gameId || !this.connection.online) return;
    this.request({ type: "unwatch", game_id: previous.gameId }).catch(() => {});
    this.views.forget(previous.gameId);
    this.delays.delete(previous.gameId);
  }

  // Stop following a race you only watched once neither it nor one of
  // its boards shows.
  leaveSpectatedRace() {
    const raceId = this.spectatedRace;
    if (!raceId) return;
    const route = this.route;
    const stays = (route.kind === "race" && route.raceId === raceId)
      || (route.kind === "watch" && this.raceOfGame(route.gameId)?.raceId === raceId);
    if (stays) return;
    this.spectatedRace = null;
    if (this.races.get(raceId)?.isRacer(this.playerId())) return;
    this.races.delete(raceId);
    if (this.connection.online) this.request({ type: "unwatch_race", race_id: raceId }).catch(() => {});
  }

  toLobby() {
    this.go({ kind: "lobby" });
  }

  // Your live games: those welcome listed plus any you own in the public
  // list (which holds only the newest games of everyone, so it alone
  // would lose yours on a busy server), less those this page saw end.
  ownGames() {
    const myId = this.playerId();
    const byId = new Map();
    const listed = (this.store.state.liveGames ?? []).filter((summary) => summary.owner.player_id === myId);
    for (const summary of [...(this.connection.welcome?.games ?? []), ...listed]) byId.set(summary.game_id, summary);
    return [...byId.values()].filter((summary) => !FINAL_STATUSES.has(this.mirrors.get(summary.game_id)?.status));
  }

  async refreshLobby() {
    const [games, races] = await Promise.allSettled([
      this.request({ type: "list_games" }),
      this.request({ type: "list_races", limit: 5 }),
      this.lobby.leaderboard.refresh(),
      this.lobby.records.refresh(),
      this.devices.refresh(),
      this.social.refreshFriends(),
      this.friendsBoard.refresh(),
    ]);
    const failed = [games, races].find((outcome) => outcome.status === "rejected" && outcome.reason.code !== "offline");
    if (failed) this.toast(errorSentence(failed.reason));
    this.store.update({
      liveGames: games.status === "fulfilled" ? games.value.games : this.store.state.liveGames,
      raceHistory: races.status === "fulfilled" ? races.value.races : this.store.state.raceHistory,
    });
  }

  // ------------------------------------------------------------ races

  openRace(raceId) {
    this.go({ kind: "race", raceId });
  }

  // A racer's board from the race screen: shown live to the racer, late
  // to spectators while the race runs.
  watchRaceBoard(gameId) {
    this.go({ kind: "watch", gameId });
  }

  async followRace(raceId) {
    try {
      const reply = await this.request({ type: "watch_race", race_id: raceId });
      if (!reply.race.racers.some((racer) => racer.player_id === this.playerId())) this.spectatedRace = raceId;
    } catch (error) {
      if (error.code === "offline") return;
      this.toast(errorSentence(error));
      this.toLobby();
    }
  }

  // A race of yours; with `friend`, a challenge: the same race, to which
  // that friend is invited.
  async createRace({ game, options, deal }, friend = null) {
    const meta = GAMES[game];
    const settingsOptions = meta.settingsOptions ? meta.settingsOptions(this.settings) : {};
    const race = { game, deal, options: withoutAutomatic(meta, { ...options, ...settingsOptions }) };
    try {
      const reply = await this.request(friend ? { type: "challenge", player_id: friend, ...race } : { type: "create_race", ...race });
      this.openRace(reply.race.race_id);
    } catch (error) {
      this.toast(errorSentence(error));
    }
  }

  // Challenge a friend to a race on the lobby's game and options.
  challenge(friend, deal) {
    this.createRace({ game: this.lobby.choices.game, options: this.lobby.chosenOptions(), deal }, friend);
  }

  async joinRace(code) {
    try {
      const reply = await this.request({ type: "join_race", code });
      this.openRace(reply.race.race_id);
    } catch (error) {
      this.toast(errorSentence(error));
    }
  }

  // ------------------------------------------------------------ starting games

  // The page's way to start a game (the lobby, a shared daily's page, the
  // browser tests): starter.js, which New deal and Game Options use too.
  startGame(spec) {
    return this.starter.start(spec);
  }
}

window.arena = new App();
