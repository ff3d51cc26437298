"""The friends' board at its limit: a player with ``--friends`` friends
(200, the friends limit) who all played today's daily, and what one
finish costs the server when every friend watches their board.

On a throw-away ``redis-server`` (or ``--redis URL``) the friendships are
written straight into the store (both edges of each pair, as accepting a
request leaves them), then ``arena serve`` runs in a child process and
every friend connects, starts today's ranked WordLink draw-1 daily and
draws ``--moves`` cards; every other friend then resigns, so the board
holds finished and playing rows alike.

Printed, as medians over ``--reads`` reads each:

- the read: the hub's ``friends_board`` round trip, beside two baselines
  measured in the same run: the hub's ``friends`` list (the same 200
  friends, no game read) and the ``friends_board`` of a player with no
  friends (one row);
- one finish: ``--finishers`` hub players each befriended by every
  friend, who all watch their friends' board; a hub starts today's daily
  and resigns it, and the server process's CPU time from the resign
  until every watcher holds the update (one frame each), beside the
  same finish by a player with no friends (the event loop's thread,
  where the work is; Redis's is not counted).

Progress goes to stderr with an ETA; the figures to stdout.

    nice -n 10 python bench/friends_board.py [--friends 200] [--moves 40] [--reads 30] [--finishers 5] [--redis URL]
    python bench/friends_board.py --friends 20 --reads 5 --finishers 2     # a smoke run
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import msgpack  # noqa: E402
from storage import CLIENT_OPTIONS, ServerChild, close_all, redis_under_test, request  # noqa: E402
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402

from server.games.lobby import hash_token  # noqa: E402
from server.model.records import PlayerRecord  # noqa: E402
from server.runtime.progress import ProgressLine  # noqa: E402
from server.storage.redis import RedisStore  # noqa: E402
from server.storage.social import SocialRecords  # noqa: E402

DAILY = {"game": "klondike", "options": {"draw": 1}}
LONER = "loner"
"""A player with no friends: the baselines' reader and finisher."""
ENVIRONMENT = {"ARENA_FRIENDS_LIMIT": "100000"}


def friend(number: int) -> str:
    return f"f{number}"


def hub(number: int) -> str:
    return f"h{number}"


def loner(number: int) -> str:
    """The baseline's finishers, with no friends."""
    return f"l{number}"


async def write_players(url: str, friends: int, hubs: int) -> None:
    """Every player, and each hub befriended by every friend, in the store."""
    store = RedisStore(url)
    records = SocialRecords(store)
    try:
        everyone = [friend(n) for n in range(friends)] + [hub(n) for n in range(hubs)]
        everyone += [LONER, *(loner(n) for n in range(hubs))]
        for name in everyone:
            await store.create_player(PlayerRecord(name, name, hash_token(f"t-{name}"), 0))
        for hub_number in range(hubs):
            pairs = [(hub(hub_number), friend(n)) for n in range(friends)]
            await asyncio.gather(*(records.put_edge(one, other, "friend", 1, None) for one, other in pairs))
            await asyncio.gather(*(records.put_edge(other, one, "friend", 1, None) for one, other in pairs))
    finally:
        await store.close()


class Player:
    """One connection that said hello with its stored token, and its requests' ids."""

    def __init__(self, connection: ClientConnection) -> None:
        self.connection = connection
        self.next_id = 1

    @classmethod
    async def open(cls, url: str, name: str) -> Player:
        player = cls(await connect(url, **CLIENT_OPTIONS))
        welcome = await player.ask({"type": "hello", "token": f"t-{name}"})
        assert welcome["type"] == "welcome", welcome
        return player

    async def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        return await request(self.connection, {**message, "id": self.next_id})

    async def play_daily(self, moves: int, resign: bool) -> None:
        started = await self.ask({"type": "new_game", "deal": "daily", **DAILY})
        assert started["type"] == "game_started", started
        game_id = started["game_id"]
        for _ in range(moves):
            reply = await self.ask({"type": "move", "game_id": game_id, "move": "draw"})
            assert reply["type"] in ("diff", "error"), reply
        if resign:
            reply = await self.ask({"type": "resign", "game_id": game_id})
            assert reply["type"] in ("diff", "game_over"), reply

    async def read_seconds(self, message: dict[str, Any], expect: str) -> float:
        sent = time.perf_counter()
        reply = await self.ask(message)
        assert reply["type"] == expect, reply
        return time.perf_counter() - sent


async def row_told(connection: ClientConnection, player_id: str, state: str) -> None:
    """Until this watcher hears that ``player_id``'s row is in ``state``."""
    while True:
        frame = msgpack.unpackb(await connection.recv())
        if frame["type"] != "friends_board_update":
            continue
        row = frame["row"]
        if row["player"]["player_id"] == player_id and row["state"] == state:
            return


async def finish_cpu(server: ServerChild, finisher: Player, player_id: str, watchers: list[Player]) -> float:
    """The server's CPU seconds from a resign until every watcher heard of
    it; the attempt's start, told at once, is heard first, so nothing else
    is under way then."""
    connections = [watcher.connection for watcher in watchers]
    started_told = asyncio.gather(*(row_told(connection, player_id, "playing") for connection in connections))
    started = await finisher.ask({"type": "new_game", "deal": "daily", **DAILY})
    assert started["type"] == "game_started", started
    await asyncio.wait_for(started_told, 60)
    finished_told = asyncio.gather(*(row_told(connection, player_id, "finished") for connection in connections))
    before = main_thread_cpu_seconds(server)
    await finisher.ask({"type": "resign", "game_id": started["game_id"]})
    await asyncio.wait_for(finished_told, 60)
    return main_thread_cpu_seconds(server) - before


def main_thread_cpu_seconds(server: ServerChild) -> float:
    """The server's event-loop thread's CPU time, in nanoseconds from
    ``/proc/PID/schedstat`` (Linux): the process's ``/proc/PID/stat``
    counts in 10 ms ticks, as long as a whole finish."""
    return int(Path(f"/proc/{server.process.pid}/schedstat").read_text().split()[0]) / 1e9


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


async def measure(url: str, args: argparse.Namespace) -> str:
    await write_players(url, args.friends, args.finishers)
    server = ServerChild(url, environment=ENVIRONMENT)
    progress = ProgressLine(every=5.0)
    try:
        friends = [await Player.open(server.url, friend(n)) for n in range(args.friends)]
        for number, player in enumerate(friends):
            await player.play_daily(args.moves, resign=number % 2 == 1)
            progress(number + 1, args.friends, "friends played the daily")
        reader = await Player.open(server.url, hub(0))
        friendless = await Player.open(server.url, LONER)
        board = {"type": "friends_board", "watch": False, **DAILY}
        board_reads, list_reads, loner_reads = [], [], []
        for number in range(args.reads):
            board_reads.append(await reader.read_seconds(board, "friends_board"))
            list_reads.append(await reader.read_seconds({"type": "friends"}, "friends"))
            loner_reads.append(await friendless.read_seconds(board, "friends_board"))
            progress(number + 1, args.reads, "reads")
        for player in friends:
            await player.ask({**board, "watch": True})
        hub_cpu = []
        for number in range(args.finishers):
            finisher = reader if number == 0 else await Player.open(server.url, hub(number))
            hub_cpu.append(await finish_cpu(server, finisher, hub(number), friends))
            progress(number + 1, args.finishers, "finishes watched")
        lone_cpu = []
        for number in range(args.finishers):
            lone_finisher = await Player.open(server.url, loner(number))
            lone_cpu.append(await finish_cpu(server, lone_finisher, loner(number), []))
            await lone_finisher.connection.close()
        await close_all([player.connection for player in [*friends, reader, friendless]])
    finally:
        server.stop()
    board_ms, list_ms, loner_ms = median_ms(board_reads), median_ms(list_reads), median_ms(loner_reads)
    hub_ms, lone_ms = median_ms(hub_cpu), median_ms(lone_cpu)
    return "\n".join([
        f"friends' board of a player with {args.friends} friends who played ({args.moves} draws each, half resigned),",
        f"median of {args.reads} reads:",
        f"  friends_board {board_ms:8.2f} ms   friends list {list_ms:6.2f} ms ({board_ms / list_ms:5.1f}x)"
        f"   board with no friends {loner_ms:6.2f} ms ({board_ms / loner_ms:5.1f}x)",
        f"one finish watched by {args.friends} friends ({args.friends} frames), server CPU, median of {args.finishers}:",
        f"  {hub_ms:8.2f} ms   the same finish with no friends {lone_ms:6.2f} ms"
        f"   ({(hub_ms - lone_ms) / args.friends * 1000:6.1f} us per watcher)",
    ])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--friends", type=int, default=200, help="the hub's friends (default 200)")
    parser.add_argument("--moves", type=int, default=40, help="draws in each friend's attempt (default 40)")
    parser.add_argument("--reads", type=int, default=30, help="reads of each kind (default 30)")
    parser.add_argument("--finishers", type=int, default=5, help="finishes watched by every friend (default 5)")
    parser.add_argument("--redis", help="Redis URL (default: start a throw-away redis-server)")
    args = parser.parse_args()
    with redis_under_test(args.redis, False) as (url, _):
        print(asyncio.run(measure(url, args)))


if __name__ == "__main__":
    main()
