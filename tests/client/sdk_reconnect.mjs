// A player and a watcher on the JavaScript SDK, across a server restart:
// run by tests/client/test_js_sdk.py, which stops the server after the
// line "ready", starts it again once the player found it unreachable,
// and reads the lines that follow.
//
//     node tests/client/sdk_reconnect.mjs SERVER_URL

import { connect } from "../../client/web/js/sdk.js";

const WAIT_MS = 60000;
const url = process.argv[2];
const player = connect(url, { name: "js-player" });
const watcher = connect(url, { name: "js-watcher" });
const welcome = await player.connection.welcomed(WAIT_MS);
await watcher.connection.welcomed(WAIT_MS);

const started = await player.connection.request({ type: "new_game", game: "klondike", deal: 5 });
const gameId = started.game_id;
const first = await player.games.until(gameId);
const move = first.legal.find((legal) => legal !== "draw") ?? "draw";
await player.connection.request({ type: "move", game_id: gameId, move, seq: first.seq });
const watched = await watcher.games.watch(gameId);
const beforeRestart = { player: player.games.get(gameId), watcher: watcher.games.get(gameId) };
const offline = new Promise((resolve) => { player.connection.on("offline", resolve); });
player.connection.on("offline", ({ code, waitingFor }) => console.log(`offline ${code} ${waitingFor?.kind ?? "-"}`));
console.log(`ready ${gameId} ${beforeRestart.player.seq} ${watched.seq}`);

await offline;
const back = await player.connection.welcomed(WAIT_MS);
console.log(`same player ${back.player_id === welcome.player_id}`);
const fresh = await player.games.until(gameId, (mirror) => mirror !== beforeRestart.player, WAIT_MS);
console.log(`player snapshot ${fresh.seq}`);
await watcher.connection.welcomed(WAIT_MS);
const rewatched = await watcher.games.until(gameId, (mirror) => mirror !== beforeRestart.watcher, WAIT_MS);
console.log(`watcher snapshot ${rewatched.seq}`);

// Mirrors are kept current in place: `fresh` is the player's view from now on.
const restartedAt = fresh.seq;
await player.connection.request({ type: "move", game_id: gameId, move: "draw", seq: restartedAt });
const seen = await watcher.games.until(gameId, (mirror) => mirror.seq === restartedAt + 1, WAIT_MS);
console.log(`watcher saw ${seen.seq} ${JSON.stringify(seen.view) === JSON.stringify(fresh.view)}`);
await Promise.all([player.connection.close(), watcher.connection.close()]);
console.log("closed");
