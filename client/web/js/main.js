// The page: one connection, the games and races it mirrors, and which
// screen shows.
//
// Screens follow the address: `#lobby`, `#play/<game id>` (your game),
// `#watch/<game id>` (someone else's, read-only) and `#race/<race id>`, so
// a reload or a shared link lands on the same game or race.  After every
// (re)connection the server sends a snapshot of each of your live games
// and of each unfinished race you race in; a watched game or race is
// asked for again.  A diff that skips a number triggers a resync.
//
// A race you only watch is followed while its screen or one of its
// racers' boards shows, and unwatched when you go elsewhere; a race you
// race in is never unwatched (the server would mark you disconnected).

import { Connection, serverUrl } from "./connection.js";
import { CLOSE_SENTENCES, errorSentence } from "./errors.js";
import { GAMES } from "./games.js";
import { Lobby } from "./lobby.js";
import { Mirror } from "./mirror.js";
import { GameScreen } from "./play.js";
import { RaceScreen } from "./race.js";
import { RaceModel } from "./races.js";
import { ServerClock } from "./servertime.js";
import { bindSettingsDialog, loadSettings } from "./settings.js";

const FINAL_STATUSES = new Set(["won", "resigned", "abandoned"]);

const DEALS_KEY = "arena.deals";
const TOAST_MS = 5000;

class App {
  constructor() {
    this.connection = new Connection(serverUrl(window.location));
    this.settings = loadSettings();
    this.mirrors = new Map();
    this.races = new Map();
    this.delays = new Map();
    this.serverClock = new ServerClock();
    this.spectatedRace = null;
    this.liveGames = null;
    this.raceHistory = null;
    this.screen = null;
    this.route = null;
    this.main = document.getElementById("screen");
    this.banner = document.getElementById("connection");
    this.toastNode = document.getElementById("toast");
    this.lobby = new Lobby(this.main, {
      name: () => this.connection.name,
      rename: (name) => this.connection.setName(name),
      start: (request) => this.startGame(request),
      watch: (gameId) => { window.location.hash = `#watch/${encodeURIComponent(gameId)}`; },
      resume: (gameId) => { window.location.hash = `#play/${encodeURIComponent(gameId)}`; },
      refresh: () => this.refreshLobby(),
      createRace: (request) => this.createRace(request),
      joinRace: (code) => this.joinRace(code),
      openRace: (raceId) => this.openRace(raceId),
      request: (message) => this.request(message),
    });
    this.listen();
    bindSettingsDialog(document, this.settings, () => this.screen?.relayout?.());
    document.getElementById("open-settings").addEventListener("click", () => {
      document.getElementById("settings").showModal();
    });
    window.addEventListener("hashchange", () => this.follow());
    this.follow();
    this.connection.start();
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

  // ------------------------------------------------------------ server events

  listen() {
    const connection = this.connection;
    connection.on("welcome", (welcome) => {
      this.serverClock.reset();
      this.serverClock.sample(welcome.server_time);
      this.banner.textContent = `Playing as ${welcome.name}`;
      this.banner.dataset.state = "online";
      this.refetchShown();
      if (this.route.kind === "lobby") this.refreshLobby();
    });
    connection.on("offline", ({ code, retryMs }) => {
      const why = CLOSE_SENTENCES[code] ? `${CLOSE_SENTENCES[code]} ` : "";
      this.banner.textContent = `${why}Reconnecting${retryMs ? ` in ${Math.ceil(retryMs / 1000)} s` : ""}…`;
      this.banner.dataset.state = "offline";
    });
    connection.on("snapshot", (snapshot) => {
      const mirror = new Mirror(snapshot);
      this.mirrors.set(snapshot.game_id, mirror);
      this.measureDelay(mirror);
      this.showIfCurrent(mirror);
    });
    connection.on("diff", (diff) => {
      const mirror = this.mirrors.get(diff.game_id);
      if (!mirror) return;
      const outcome = mirror.apply(diff);
      if (outcome === "gap") {
        this.request({ type: "resync", game_id: diff.game_id }).catch((error) => this.toast(errorSentence(error)));
      } else if (outcome === "applied") {
        this.measureDelay(mirror);
        this.showIfCurrent(mirror);
      }
    });
    connection.on("finish_offer", (offer) => {
      const mirror = this.mirrors.get(offer.game_id);
      if (!mirror) return;
      mirror.finishOffer = offer;
      this.gameScreenFor(offer.game_id)?.setButtons();
    });
    connection.on("game_over", (message) => {
      this.gameScreenFor(message.game_id)?.gameOver(message);
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

  showIfCurrent(mirror) {
    this.gameScreenFor(mirror.gameId)?.update(mirror);
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

  follow() {
    const match = /^#(play|watch|race)\/(.+)$/.exec(window.location.hash);
    const previous = this.route;
    this.route = parseRoute(match);
    if (previous?.kind === "watch" && previous.gameId !== this.route.gameId && this.connection.online) {
      this.request({ type: "unwatch", game_id: previous.gameId }).catch(() => {});
      this.mirrors.delete(previous.gameId);
      this.delays.delete(previous.gameId);
    }
    this.leaveSpectatedRace();
    this.screen?.destroy?.();
    if (this.route.kind === "lobby") {
      this.screen = this.lobby;
      this.showLobby();
      if (this.connection.online) this.refreshLobby();
      return;
    }
    if (this.route.kind === "race") {
      this.screen = new RaceScreen(this.main, this, this.route.raceId);
      const model = this.races.get(this.route.raceId);
      if (model) this.screen.update(model);
      if (this.connection.online) this.followRace(this.route.raceId);
      return;
    }
    this.screen = new GameScreen(this.main, this, { gameId: this.route.gameId });
    const mirror = this.mirrors.get(this.route.gameId);
    if (mirror) this.screen.update(mirror);
    else if (this.connection.online) this.watch(this.route.gameId);
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
    window.location.hash = "#lobby";
  }

  showLobby() {
    this.lobby.show({ welcome: this.connection.welcome, liveGames: this.liveGames, ownGames: this.ownGames(),
      races: this.raceHistory });
  }

  // Your live games: those welcome listed plus any you own in the public
  // list (which holds only the newest games of everyone, so it alone
  // would lose yours on a busy server), less those this page saw end.
  ownGames() {
    const myId = this.playerId();
    const byId = new Map();
    const listed = (this.liveGames ?? []).filter((summary) => summary.owner.player_id === myId);
    for (const summary of [...(this.connection.welcome?.games ?? []), ...listed]) byId.set(summary.game_id, summary);
    return [...byId.values()].filter((summary) => !FINAL_STATUSES.has(this.mirrors.get(summary.game_id)?.status));
  }

  async refreshLobby() {
    const [games, races] = await Promise.allSettled([
      this.request({ type: "list_games" }),
      this.request({ type: "list_races", limit: 5 }),
      this.lobby.leaderboard.refresh(),
      this.lobby.records.refresh(),
    ]);
    if (games.status === "fulfilled") this.liveGames = games.value.games;
    if (races.status === "fulfilled") this.raceHistory = races.value.races;
    const failed = [games, races].find((outcome) => outcome.status === "rejected" && outcome.reason.code !== "offline");
    if (failed) this.toast(errorSentence(failed.reason));
    if (this.route.kind === "lobby") this.showLobby();
  }

  // ------------------------------------------------------------ races

  openRace(raceId) {
    window.location.hash = `#race/${encodeURIComponent(raceId)}`;
  }

  // A racer's board from the race screen: shown live to the racer, late
  // to spectators while the race runs.
  watchRaceBoard(gameId) {
    window.location.hash = `#watch/${encodeURIComponent(gameId)}`;
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

  async createRace({ game, options, deal }) {
    const meta = GAMES[game];
    const settingsOptions = meta.settingsOptions ? meta.settingsOptions(this.settings) : {};
    try {
      const reply = await this.request({ type: "create_race", game, deal, options: { ...options, ...settingsOptions } });
      this.openRace(reply.race.race_id);
    } catch (error) {
      this.toast(errorSentence(error));
    }
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

  // A deal with options, or a practice position (engine notation, for
  // tutorials; only where the server allows positions).
  async startGame({ game, deal = "random", options = {}, position = null }) {
    const meta = GAMES[game];
    const chosen = deal === "random" && meta.chooseRandomDeal ? randomDeal(meta) : deal;
    const settingsOptions = meta.settingsOptions ? meta.settingsOptions(this.settings) : {};
    const request = position
      ? { type: "new_game", game, position, practice: true }
      : { type: "new_game", game, deal: chosen, options: { ...options, ...settingsOptions } };
    try {
      const started = await this.request(request);
      if (!position) rememberDeal(started.game_id, { game, deal: chosen, options });
      window.location.hash = `#play/${encodeURIComponent(started.game_id)}`;
    } catch (error) {
      this.toast(errorSentence(error));
    }
  }

  newDeal(mirror) {
    const spec = dealOf(mirror.gameId);
    const deal = spec?.deal === "winnable" ? "winnable" : "random";
    this.startGame({ game: mirror.game, deal, options: lobbyOptions(mirror) });
  }

  // Game Options (Broken Deck's difficulty): a change restarts the same
  // deal number with the new options.
  openGameOptions(mirror) {
    const dialog = document.getElementById("game-options");
    const fields = document.getElementById("game-options-fields");
    const meta = GAMES[mirror.game];
    const spec = dealOf(mirror.gameId);
    const controls = meta.gameOptions.map((name) => {
      const option = meta.lobbyOptions.find((candidate) => candidate.name === name);
      const current = mirror.view.options[name];
      const control = option.toggle
        ? Object.assign(document.createElement("input"), { type: "checkbox", checked: Boolean(current) })
        : document.createElement("select");
      control.id = `game-option-${name}`;
      if (!option.toggle) {
        for (const [value, label] of option.choices) control.append(new Option(label, value));
        control.value = current;
      }
      const label = document.createElement("label");
      label.className = option.toggle ? "switch" : "choice";
      label.append(option.toggle ? control : option.label, option.toggle ? ` ${option.label}` : control);
      return { name, control, option, label };
    });
    fields.replaceChildren(...controls.map((entry) => entry.label));
    const known = spec && typeof spec.deal === "number";
    document.getElementById("game-options-note").textContent = known
      ? `Changing an option restarts deal ${spec.deal}.`
      : spec?.deal === "daily"
        ? "The daily deal's number stays secret until the game ends, so a change starts the daily deal of the new options."
        : "This browser did not start this game, so it does not know the deal number: a change starts a new deal.";
    dialog.onclose = () => {
      if (dialog.returnValue !== "apply") return;
      const options = lobbyOptions(mirror);
      for (const { name, control, option } of controls) options[name] = option.toggle ? control.checked : control.value;
      this.startGame({ game: mirror.game, deal: known ? spec.deal : spec?.deal ?? "random", options });
    };
    dialog.returnValue = "";
    dialog.showModal();
  }
}

// The options a player chose for this game (without the ones that come
// from settings, which startGame adds afresh).
function parseRoute(match) {
  if (!match) return { kind: "lobby" };
  let id;
  try {
    id = decodeURIComponent(match[2]);
  } catch {
    return { kind: "lobby" }; // a malformed link (`#race/%zz`) opens the lobby
  }
  return match[1] === "race" ? { kind: "race", raceId: id } : { kind: match[1], gameId: id };
}

function lobbyOptions(mirror) {
  const meta = GAMES[mirror.game];
  const options = {};
  for (const option of meta.lobbyOptions) options[option.name] = mirror.view.options[option.name];
  return options;
}

function randomDeal(meta) {
  const values = new Uint32Array(1);
  crypto.getRandomValues(values);
  return meta.firstDeal + (values[0] % (meta.lastDeal - meta.firstDeal + 1));
}

function loadDeals() {
  try {
    return JSON.parse(localStorage.getItem(DEALS_KEY) ?? "{}") ?? {};
  } catch {
    return {};
  }
}

// How each game of yours was dealt, so Game Options can restart it.
function rememberDeal(gameId, spec) {
  const deals = loadDeals();
  deals[gameId] = spec;
  const ids = Object.keys(deals);
  for (const old of ids.slice(0, Math.max(0, ids.length - 20))) delete deals[old];
  localStorage.setItem(DEALS_KEY, JSON.stringify(deals));
}

function dealOf(gameId) {
  return loadDeals()[gameId] ?? null;
}

window.arena = new App();
