// The page: one connection, the games it mirrors, and which screen shows.
//
// Screens follow the address: `#lobby`, `#play/<game id>` (your game) and
// `#watch/<game id>` (someone else's, read-only), so a reload or a shared
// link lands on the same game.  After every (re)connection the server
// sends a snapshot of each of your live games; a watched game is asked
// for again.  A diff that skips a number triggers a resync.

import { Connection, serverUrl } from "./connection.js";
import { CLOSE_SENTENCES, errorSentence } from "./errors.js";
import { GAMES } from "./games.js";
import { Lobby } from "./lobby.js";
import { Mirror } from "./mirror.js";
import { GameScreen } from "./play.js";
import { bindSettingsDialog, loadSettings } from "./settings.js";

const DEALS_KEY = "arena.deals";
const TOAST_MS = 5000;

class App {
  constructor() {
    this.connection = new Connection(serverUrl(window.location));
    this.settings = loadSettings();
    this.mirrors = new Map();
    this.liveGames = null;
    this.screen = null;
    this.route = null;
    this.main = document.getElementById("screen");
    this.banner = document.getElementById("connection");
    this.toastNode = document.getElementById("toast");
    this.lobby = new Lobby(this.main, {
      name: () => this.connection.name,
      rename: (name) => this.connection.setName(name),
      start: (request) => this.startGame(request),
      watch: (gameId) => { window.location.hash = `#watch/${gameId}`; },
      resume: (gameId) => { window.location.hash = `#play/${gameId}`; },
      refresh: () => this.refreshLiveGames(),
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
      this.banner.textContent = `Playing as ${welcome.name}`;
      this.banner.dataset.state = "online";
      this.refetchShownGame();
      if (this.route.kind === "lobby") this.refreshLiveGames();
    });
    connection.on("offline", ({ code, retryMs }) => {
      const why = CLOSE_SENTENCES[code] ? `${CLOSE_SENTENCES[code]} ` : "";
      this.banner.textContent = `${why}Reconnecting${retryMs ? ` in ${Math.ceil(retryMs / 1000)} s` : ""}…`;
      this.banner.dataset.state = "offline";
    });
    connection.on("snapshot", (snapshot) => {
      const mirror = new Mirror(snapshot);
      this.mirrors.set(snapshot.game_id, mirror);
      this.showIfCurrent(mirror);
    });
    connection.on("diff", (diff) => {
      const mirror = this.mirrors.get(diff.game_id);
      if (!mirror) return;
      const outcome = mirror.apply(diff);
      if (outcome === "gap") {
        this.request({ type: "resync", game_id: diff.game_id }).catch((error) => this.toast(errorSentence(error)));
      } else if (outcome === "applied") {
        this.showIfCurrent(mirror);
      }
    });
    connection.on("game_over", (message) => {
      if (this.isCurrent(message.game_id)) this.screen.gameOver(message);
    });
    connection.on("error", (error) => this.toast(errorSentence(error)));
  }

  isCurrent(gameId) {
    return this.route.kind !== "lobby" && this.route.gameId === gameId && this.screen instanceof GameScreen;
  }

  showIfCurrent(mirror) {
    if (this.isCurrent(mirror.gameId)) this.screen.update(mirror);
  }

  // After (re)connecting: your own live games come by themselves; any
  // other shown game is asked for.
  refetchShownGame() {
    const route = this.route;
    if (route.kind === "lobby") return;
    const own = this.connection.welcome.games.some((summary) => summary.game_id === route.gameId);
    if (!own) this.watch(route.gameId);
  }

  async watch(gameId) {
    try {
      await this.request({ type: "watch", game_id: gameId });
    } catch (error) {
      if (error.code === "offline") return;
      this.toast(errorSentence(error));
      this.toLobby();
    }
  }

  // ------------------------------------------------------------ screens

  follow() {
    const match = /^#(play|watch)\/(.+)$/.exec(window.location.hash);
    const previous = this.route;
    this.route = match ? { kind: match[1], gameId: decodeURIComponent(match[2]) } : { kind: "lobby" };
    if (previous?.kind === "watch" && previous.gameId !== this.route.gameId && this.connection.online) {
      this.request({ type: "unwatch", game_id: previous.gameId }).catch(() => {});
      this.mirrors.delete(previous.gameId);
    }
    this.screen?.destroy?.();
    if (this.route.kind === "lobby") {
      this.screen = this.lobby;
      this.lobby.show({ welcome: this.connection.welcome, liveGames: this.liveGames });
      if (this.connection.online) this.refreshLiveGames();
      return;
    }
    this.screen = new GameScreen(this.main, this);
    const mirror = this.mirrors.get(this.route.gameId);
    if (mirror) this.screen.update(mirror);
    else if (this.connection.online) this.watch(this.route.gameId);
  }

  toLobby() {
    window.location.hash = "#lobby";
  }

  async refreshLiveGames() {
    try {
      const reply = await this.request({ type: "list_games" });
      this.liveGames = reply.games;
    } catch (error) {
      if (error.code !== "offline") this.toast(errorSentence(error));
    }
    if (this.route.kind === "lobby") this.lobby.show({ welcome: this.connection.welcome, liveGames: this.liveGames });
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
      window.location.hash = `#play/${started.game_id}`;
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
