// A bot that plays a numbered deal in Node with the JavaScript SDK.
//
//     node examples/bot.mjs [SERVER_URL] [GAME] [--deal N] [--moves N]
//
// (defaults: ws://127.0.0.1:8765/ws, klondike, a random deal, 300 moves).
// Node 22+ has a WebSocket of its own; Node 20 and 21 need
// `node --experimental-websocket examples/bot.mjs`, and Node 18 the `ws`
// package, passed as `connect(url, {WebSocket})`.
//
// It shows how little a client needs: connect and declare itself a bot,
// start a game, then pick each move from the legal moves the server
// lists, play it, and read the new position from the game's view, which
// the SDK keeps current.  It tries each move at most once from a given
// position, so it never circles; when every move from here was tried, or
// after the move limit, it resigns, so every run ends with a result.
// With the default in-memory token storage it is a new player each run.

import { Offline, ServerError, connect } from "../client/web/js/sdk.js";

const DEFAULT_URL = "ws://127.0.0.1:8765/ws";

/**
 * The command line: two optional words, then `--deal N` and `--moves N`.
 * @param {string[]} argv
 */
function parseArguments(argv) {
  const words = [];
  const flags = { deal: 1 + Math.floor(Math.random() * 1_000_000), moves: 300 };
  for (let index = 0; index < argv.length; index += 1) {
    const flag = argv[index].match(/^--(deal|moves)$/)?.[1];
    if (!flag) {
      words.push(argv[index]);
      continue;
    }
    const value = Number(argv[++index]);
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`--${flag} takes a whole number`);
    flags[flag] = value;
  }
  return { url: words[0] ?? DEFAULT_URL, game: words[1] ?? "klondike", ...flags };
}

/**
 * The order moves are tried in: cards home first, then cards from the
 * waste, then the rest, and a lone action word (`draw`) last.
 * @param {string} move
 */
function preference(move) {
  const [, destination] = move.split("-");
  if (destination === undefined) return 3;
  if (destination.startsWith("f")) return 0;
  return move.startsWith("w-") ? 1 : 2;
}

/**
 * The first legal move not yet tried from this position, or null.
 * @param {import("../client/web/js/sdk.js").Mirror} mirror
 * @param {Map<string, Set<string>>} tried moves tried from each position seen
 */
function chooseMove(mirror, tried) {
  const position = JSON.stringify(mirror.view.piles);
  if (!tried.has(position)) tried.set(position, new Set());
  const done = tried.get(position);
  const move = [...(mirror.legal ?? [])].sort((a, b) => preference(a) - preference(b)).find((legal) => !done.has(legal));
  if (move !== undefined) done.add(move);
  return move ?? null;
}

/**
 * Resign a game still playing, or lost while an undo could still rescue
 * it; one that has just ended by itself (`game_finished`) is left be.
 * @param {import("../client/web/js/sdk.js").Connection} connection
 * @param {import("../client/web/js/sdk.js").Mirror} mirror
 */
async function resign(connection, mirror) {
  console.log(`resigning a game that is ${mirror.status}`);
  try {
    await connection.request({ type: "resign", game_id: mirror.gameId, seq: mirror.seq });
  } catch (error) {
    if (!(error instanceof ServerError && error.code === "game_finished")) throw error;
  }
}

async function main() {
  const { url, game, deal, moves: limit } = parseArguments(process.argv.slice(2));
  const { connection, games } = connect(url, { name: "js-bot", bot: true, device: "Node bot" });
  connection.on("offline", ({ code, retryMs }) => console.log(`connection closed (${code}); trying again in ${retryMs} ms`));
  try {
    await connection.welcomed(30000);
    const started = await connection.request({ type: "new_game", game, deal });
    const gameId = started.game_id;
    let mirror = await games.until(gameId);
    console.log(`playing ${started.title} ${gameId}, deal ${deal}`);
    const tried = new Map();
    let played = 0;
    while (mirror.status === "playing" && played < limit) {
      const move = chooseMove(mirror, tried);
      if (move === null) {
        console.log("stuck: every legal move from here was tried");
        break;
      }
      try {
        await connection.request({ type: "move", game_id: gameId, move, seq: mirror.seq });
        played += 1;
        console.log(`move ${played}: ${move}`);
      } catch (error) {
        if (!(error instanceof Offline)) throw error;
        // Back on a new connection: the server sends a fresh snapshot.
        await connection.welcomed(60000);
      }
      mirror = await games.until(gameId);
    }
    if (played >= limit) console.log(`stopping after ${limit} moves`);
    if (mirror.status === "playing" || mirror.status === "lost") await resign(connection, mirror);
    const over = (await games.until(gameId, (ended) => ended.over !== null)).over;
    console.log(`${over.result}: ${over.moves} moves in ${(over.time_ms / 1000).toFixed(1)} s`);
    return 0;
  } catch (error) {
    const code = error instanceof ServerError ? ` [${error.code}]` : "";
    console.error(`error: ${error.message}${code}`);
    return 1;
  } finally {
    await connection.close();
  }
}

process.exitCode = await main().catch((error) => {
  console.error(`error: ${error.message}`);
  return 2;
});
