"""Presence at scale: ``--players`` players (10,000) with ``--friends``
friends each (50), all connected to one server process on Redis, some
going offline and online again, away and back, and into games, while
``--movers`` other players (200) each play a move about ``--rate`` times
a second.

Per round, two blocks of ``--seconds`` each, one after the other:

- ``quiet`` (the baseline, same run): only the movers play;
- ``storm``: the movers play while the other players change presence
  ``--storm-rate`` times a second in all (each change by the next player
  in turn, so no player changes twice within the coalescing window and
  every change reaches its friends): away, back, into a new game, and,
  every tenth, a reconnection (offline, then online again: two changes).

Printed, as medians over ``--rounds`` rounds: the movers' move round trip
p50 and p99 in each block and the storm/quiet ratio of the p99 (target at
most 1.2); the cost of one presence change: the presence messages its
friends received (the fan-out) and the server process's and Redis's CPU
time per change (the storm block's less the quiet block's, per change
made); and Redis memory per player (``used_memory`` grown while every
player came online, and the presence keys alone, ``MEMORY USAGE``).

The friend graph is a ring (each player's friends are the ``--friends``
nearest players by number), handed to presence as its two calls by this
script run as the server (``--serve``) in place of the friends part's, so
half a million friendships need no requests; everything else is ``arena serve``'s
server on a throw-away ``redis-server`` (or ``--redis URL``).  The movers
run in a process of their own, so the storm's frames do not queue in
their event loop.  Progress goes to stderr with an ETA; the figures to stdout.

    nice -n 10 python bench/social.py [--players 10000] [--friends 50] [--movers 200] [--rate 2]
        [--storm-rate 100] [--seconds 8] [--rounds 3] [--redis URL]
    python bench/social.py --players 300 --friends 10 --movers 20 --seconds 2 --rounds 1   # a smoke run
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import random
import statistics
import sys
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import msgpack  # noqa: E402
import redis.asyncio as aioredis  # noqa: E402
from storage import CLIENT_OPTIONS, LISTENING, ServerChild, redis_under_test  # noqa: E402
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402

from server.games.lobby import hash_token  # noqa: E402
from server.model.records import PlayerRecord  # noqa: E402
from server.runtime.progress import ProgressLine  # noqa: E402
from server.runtime.settings import Settings  # noqa: E402
from server.social.presence import PresenceTiming  # noqa: E402
from server.storage.redis import RedisStore  # noqa: E402
from server.transport.app import ArenaServer, run  # noqa: E402

P99_TARGET = 1.2
OPEN_SECONDS = 120.0
"""A hang bound: ten thousand players coming online, each told to fifty
friends, keep a shared machine's server busy for a while."""
OPENING = {"ARENA_CONNECTION_RATE_PER_SECOND": "100000", "ARENA_TCP_CONNECTION_RATE_PER_SECOND": "100000",
           "ARENA_TCP_CONNECTION_BURST": "100000"}
"""Ten thousand connections from one address within a minute: lift the rates per address too."""
BATCH = 100


def player_id(number: int) -> str:
    return f"b{number}"


def ring(number: int, players: int, friends: int) -> list[str]:
    """The ``friends`` players nearest to ``number`` on the ring (half each side)."""
    half = friends // 2
    return [player_id((number + step) % players) for step in range(-half, friends - half + 1) if step]


# ---------------------------------------------------------------- the server


def serve(redis_url: str, players: int, friends: int) -> None:
    """``arena serve``'s server, with the ring as its friend graph."""

    async def friends_of(who: str) -> list[str]:
        return ring(int(who[1:]), players, friends)

    async def hidden_from(who: str, viewer: str) -> bool:
        return False

    def ready(server: ArenaServer) -> None:
        server.hub.presence.use_friends(friends_of, hidden_from)
        print(f"{LISTENING}{server.url}", flush=True)

    settings = Settings.from_env(port=0, redis_url=redis_url, prepare_dailies=False)
    asyncio.run(run(settings, asyncio.Event(), ready))


def social_server(redis_url: str, players: int, friends: int) -> ServerChild:
    """This script as the server, in a child process."""
    command = [sys.executable, __file__, "--serve", redis_url, "--players", str(players), "--friends", str(friends)]
    return ServerChild(redis_url, command, OPENING)


# ---------------------------------------------------------------- players


class Player:
    """One connection: replies by id, and a count of the presence frames it was sent."""

    def __init__(self, connection: ClientConnection) -> None:
        self.connection = connection
        self.presences = 0
        self._waiting: dict[Any, asyncio.Future[dict[str, Any]]] = {}
        self._snapshots: dict[Any, dict[str, Any]] = {}
        self._ids = 0
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, url: str, number: int) -> Player:
        player = cls(await connect(url, **CLIENT_OPTIONS, open_timeout=OPEN_SECONDS))
        welcome = await player.ask({"type": "hello", "token": f"t{number}"})
        assert welcome["type"] == "welcome", welcome
        return player

    async def _read(self) -> None:
        try:
            await self._dispatch()
        finally:
            for waiter in self._waiting.values():
                if not waiter.done():
                    waiter.set_exception(ConnectionError("the server closed the connection"))

    async def _dispatch(self) -> None:
        async for frame in self.connection:
            message = msgpack.unpackb(frame)
            kind = message.get("type")
            if kind == "presence":
                self.presences += 1
            key = message.get("id")
            if kind == "snapshot":
                key = ("snapshot", message.get("game_id"))
                self._snapshots[key] = message
            waiter = self._waiting.pop(key, None)
            if waiter is not None and not waiter.done():
                waiter.set_result(message)

    def expect(self, key: Any) -> asyncio.Future[dict[str, Any]]:
        waiter = self._waiting[key] = asyncio.get_running_loop().create_future()
        return waiter

    async def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        self._ids += 1
        reply = self.expect(self._ids)
        await self.connection.send(msgpack.packb({**message, "id": self._ids}))
        return await reply

    async def new_game(self, deal: int) -> str:
        """A WordLink draw-3 game where drawing stays legal."""
        while True:
            started = await self.ask({"type": "new_game", "game": "klondike", "deal": deal, "options": {"draw": 3}})
            key = ("snapshot", started["game_id"])
            snapshot = self._snapshots.pop(key, None) or await self.expect(key)
            if snapshot["status"] == "playing":
                return str(started["game_id"])
            deal += 1_000_000

    async def close(self) -> None:
        await self.connection.close()
        await asyncio.gather(self._reader, return_exceptions=True)


async def open_players(url: str, numbers: list[int], label: str) -> dict[int, Player]:
    opened: dict[int, Player] = {}
    line = ProgressLine(every=5.0)
    for start in range(0, len(numbers), BATCH):
        batch = numbers[start:start + BATCH]
        for number, player in zip(batch, await asyncio.gather(*(Player.open(url, n) for n in batch))):
            opened[number] = player
        line(len(opened), len(numbers), label)
    return opened


# ---------------------------------------------------------------- movers (a process of their own)


async def movers_main(url: str, count: int, rate: float, settle: float, orders: Connection) -> None:
    players = await open_players(url, list(range(count)), "movers connected")
    games = {number: await player.new_game(number * 10 + 1) for number, player in players.items()}
    orders.send("ready")
    loop = asyncio.get_running_loop()
    while (seconds := await loop.run_in_executor(None, orders.recv)) is not None:
        times: list[float] = []
        refused: list[str] = []
        received = sum(player.presences for player in players.values())
        end = time.perf_counter() + seconds

        async def mover(number: int, player: Player) -> None:
            pace = random.Random(number)
            await asyncio.sleep(pace.random() / rate)
            while (begun := time.perf_counter()) < end:
                try:
                    reply = await player.ask({"type": "move", "game_id": games[number], "move": "draw"})
                except ConnectionError:
                    refused.append("closed")
                    return
                taken = time.perf_counter() - begun
                if reply["type"] == "diff":
                    times.append(taken)
                else:
                    refused.append(str(reply.get("code")))
                await asyncio.sleep(max(0.0, (0.5 + pace.random()) / rate - taken))

        await asyncio.gather(*(mover(number, player) for number, player in players.items()))
        await asyncio.sleep(settle)
        orders.send((times, sum(player.presences for player in players.values()) - received, refused))
    await asyncio.gather(*(player.close() for player in players.values()))


def movers_process(url: str, count: int, rate: float, settle: float, orders: Connection) -> None:
    asyncio.run(movers_main(url, count, rate, settle, orders))


# ---------------------------------------------------------------- the storm


class Storm:
    """The players who change presence, each in turn."""

    def __init__(self, url: str, players: dict[int, Player], away_only: bool) -> None:
        self.url = url
        self.away_only = away_only
        self.players = players
        self.order = sorted(players)
        self.turn = 0
        self.away: set[int] = set()
        self.changes = 0
        self.failed = 0
        self._started = 0
        self._closed_received = 0

    def received(self) -> int:
        """Presence frames these players were sent so far, closed connections' included."""
        return self._closed_received + sum(player.presences for player in self.players.values())

    async def change(self, number: int) -> None:
        """One change by player ``number``; one the server refused or dropped counts in ``failed``."""
        try:
            await self._change(number)
        except (ConnectionError, KeyError, AssertionError, OSError):
            self.failed += 1

    async def _change(self, number: int) -> None:
        player = self.players[number]
        kind = 1 if self.away_only else self.turn % 10
        if kind == 0:
            await player.close()
            self._closed_received += player.presences
            self.players[number] = await Player.open(self.url, number)
            self.changes += 2
            return
        if kind in (3, 7):
            await player.new_game(number * 10 + self.turn)
        else:
            away = number not in self.away
            await player.ask({"type": "set_presence", "away": away})
            (self.away.add if away else self.away.discard)(number)
        self.changes += 1

    async def blow(self, seconds: float, rate: float) -> None:
        begun = time.perf_counter()
        pending: set[asyncio.Task[None]] = set()
        while (elapsed := time.perf_counter() - begun) < seconds:
            due = int(elapsed * rate) + 1
            while self.turn < self._started + due:
                number = self.order[self.turn % len(self.order)]
                self.turn += 1
                task = asyncio.create_task(self.change(number))
                pending.add(task)
                task.add_done_callback(pending.discard)
            await asyncio.sleep(0.005)
        await asyncio.gather(*pending)

    def start_block(self) -> None:
        self._started = self.turn


# ---------------------------------------------------------------- figures


def percentile(values: list[float], share: float) -> float:
    """NaN for no values (every move of a block refused)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def redis_cpu(url: str) -> float:
    client = aioredis.Redis.from_url(url)
    try:
        info = await client.info("cpu")
        return float(info["used_cpu_sys"]) + float(info["used_cpu_user"])
    finally:
        await client.aclose()


async def redis_memory(url: str) -> tuple[int, int]:
    """``used_memory``, and the bytes of every presence key (``MEMORY USAGE``)."""
    client = aioredis.Redis.from_url(url)
    try:
        used = int((await client.info("memory"))["used_memory"])
        presence = 0
        async for key in client.scan_iter(match="arena:presence:*", count=1000):
            presence += int(await client.memory_usage(key) or 0)
        return used, presence
    finally:
        await client.aclose()


async def create_players(url: str, count: int) -> None:
    store = RedisStore(url)
    try:
        for start in range(0, count, BATCH):
            await asyncio.gather(*(
                store.create_player(PlayerRecord(player_id(n), player_id(n), hash_token(f"t{n}"), 0))
                for n in range(start, min(count, start + BATCH))
            ))
    finally:
        await store.close()


async def measure(url: str, args: argparse.Namespace) -> str:
    await create_players(url, args.players)
    server = social_server(url, args.players, args.friends)
    orders, theirs = multiprocessing.Pipe()
    movers = multiprocessing.get_context("spawn").Process(
        target=movers_process, args=(server.url, args.movers, args.rate, args.settle, theirs), daemon=True
    )
    try:
        movers.start()
        loop = asyncio.get_running_loop()
        assert await loop.run_in_executor(None, orders.recv) == "ready"
        used_before, _ = await redis_memory(url)
        others = await open_players(server.url, list(range(args.movers, args.players)), "players online")
        await asyncio.sleep(PresenceTiming().coalesce_seconds + args.settle)
        used_after, presence_bytes = await redis_memory(url)
        storm = Storm(server.url, others, args.away_only)
        figures: dict[str, list[float]] = {name: [] for name in (
            "quiet p50", "quiet p99", "storm p50", "storm p99", "ratio", "fan-out", "server us", "redis us",
            "quiet refused", "storm refused")}
        line = ProgressLine(every=5.0)
        for round_number in range(args.rounds):
            block: dict[str, tuple[list[float], float, float, int, int]] = {}
            for name in ("quiet", "storm"):
                received = storm.received()
                cpu, redis_seconds, changes = server.cpu_seconds(), await redis_cpu(url), storm.changes
                orders.send(args.seconds)
                storm.start_block()
                if name == "storm":
                    await storm.blow(args.seconds, args.storm_rate)
                times, movers_received, refused = await loop.run_in_executor(None, orders.recv)
                figures[f"{name} refused"].append(len(refused))
                block[name] = (
                    times, server.cpu_seconds() - cpu, await redis_cpu(url) - redis_seconds,
                    storm.changes - changes, storm.received() - received + movers_received,
                )
                line(round_number * 2 + (name == "storm") + 1, args.rounds * 2, "blocks measured")
            quiet, stormy = block["quiet"], block["storm"]
            changes = max(1, stormy[3])
            for name, (times, *_) in block.items():
                figures[f"{name} p50"].append(percentile(times, 0.5) * 1000)
                figures[f"{name} p99"].append(percentile(times, 0.99) * 1000)
            figures["ratio"].append(percentile(stormy[0], 0.99) / percentile(quiet[0], 0.99))
            figures["fan-out"].append(stormy[4] / changes)
            figures["server us"].append((stormy[1] - quiet[1]) / changes * 1e6)
            figures["redis us"].append((stormy[2] - quiet[2]) / changes * 1e6)
        orders.send(None)
        await asyncio.gather(*(player.close() for player in storm.players.values()))
    finally:
        movers.join(30)
        server.stop()
    median = {name: statistics.median(values) for name, values in figures.items()}
    verdict = "met" if median["ratio"] <= P99_TARGET else "NOT met"
    return "\n".join([
        f"{args.players} players, {args.friends} friends each, {args.movers} movers at {args.rate}/s, "
        f"storm {args.storm_rate} changes/s, {args.rounds} rounds of {args.seconds} s (medians)",
        f"move round trip, quiet: p50 {median['quiet p50']:.1f} ms, p99 {median['quiet p99']:.1f} ms, "
        f"{median['quiet refused']:.0f} moves refused",
        f"move round trip, storm: p50 {median['storm p50']:.1f} ms, p99 {median['storm p99']:.1f} ms, "
        f"{median['storm refused']:.0f} moves refused",
        f"p99 storm/quiet: {median['ratio']:.2f}x (target at most {P99_TARGET}x: {verdict})",
        f"presence changes the server refused or dropped: {storm.failed}",
        f"one presence change: {median['fan-out']:.1f} presence messages to friends, "
        f"{median['server us']:.0f} us of server CPU, {median['redis us']:.0f} us of Redis CPU",
        f"Redis memory per player online: {presence_bytes / args.players:.0f} bytes of presence keys "
        f"(MEMORY USAGE); used_memory grew {(used_after - used_before) / len(others):.0f} bytes per player "
        "while they came online (hello's own writes and buffers too)",
    ])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--friends", type=int, default=50)
    parser.add_argument("--movers", type=int, default=200)
    parser.add_argument("--rate", type=float, default=2.0, help="moves per second per mover")
    parser.add_argument("--storm-rate", type=float, default=100.0, help="presence changes per second in all")
    parser.add_argument("--away-only", action="store_true",
                        help="every change is away or back: the presence path alone, no game started or connection made")
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--settle", type=float, default=1.0, help="seconds for the last frames of a block to arrive")
    parser.add_argument("--redis", help="Redis URL (default: a throw-away redis-server)")
    parser.add_argument("--serve", metavar="REDIS_URL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.players, args.friends)
        return
    print(f"load average at the start: {os.getloadavg()[0]:.1f}", file=sys.stderr)
    with redis_under_test(args.redis, False) as (url, _):
        report = asyncio.run(measure(url, args))
    print(report)
    print(f"load average at the end: {os.getloadavg()[0]:.1f}", file=sys.stderr)


if __name__ == "__main__":
    main()
