"""Abuse containment (issue 13, item 4): the round trips of well-behaved
players alone and beside abusive clients, in one run.

An arena server runs in a child process at its **default settings** (the
per-address limits, the message rate limit, the 1008 cool-down, the write
timeout, the kernel send buffer: all as shipped), on loopback.  Since
every limit counts per client address, each kind of client binds its own
loopback source address:

- the good players (``--players``, 50) come from 127.0.1.1, 127.0.1.2 …,
  at most 25 per address, so that neither the 50-connection cap nor the
  30 new identities an hour get in their way at the defaults (no limit is
  lifted for anyone, the abusers included);
- the reconnecting flooder comes from 127.0.0.2: it connects, sends
  ``ping`` frames as fast as it can without reading, is closed with 1008,
  and reconnects at once, in a loop, for the whole block (handshakes
  refused with HTTP 429 count as attempts; it retries at once);
- a busy player from 127.0.0.3 draws in its own WordLink game 15 times a
  second (under the default rate);
- the slow reader from 127.0.0.4 (a 4 KiB receive buffer) watches the
  busy game and 19 of the good players' games, then stops reading.

The good players (each: hello, a new casual WordLink game, then "draw"
about ``--rate`` times a second, timing each reply: ``bench/server.py``'s
paced players) run in this process; the abusers run in a child process of
their own, so that their CPU does not distort the clients' clocks.
Conditions alternate in blocks (alone, abused, alone, abused …), so that
load from elsewhere on the machine falls on both alike.  After the last
abused block the slow reader is left stalled (unmeasured, up to
``--linger`` seconds) until the server has closed it.

Printed: the medians over blocks of p50 and p99 per condition, the ratio
of the p99s (target, issue 13: at most 1.10), and what the abusers
achieved per block: connections accepted, handshakes refused with 429 (by
error code), frames sent, close codes received, and whether the slow
reader was closed, with which code, from the server's log and from the
client's side.

    python bench/abuse.py [--players 50] [--rate 2] [--seconds 80] [--rounds 4] [--linger 30]

``--seconds`` is the measured time of both conditions together (each block
adds 1 s of warm-up); the defaults take about two minutes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

if not __package__:
    # Run as a file, Python puts bench/ first on sys.path, where
    # bench/server.py would shadow the ``server`` package.
    sys.path.pop(0)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import msgpack
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from bench.server import (
    CLIENT_OPTIONS,
    close_all,
    new_game,
    paced_round_trips,
    percentile,
    request,
    stop,
)

P99_RATIO_TARGET = 1.10
PLAYERS_PER_ADDRESS = 25
FLOODER_ADDRESS = "127.0.0.2"
BUSY_ADDRESS = "127.0.0.3"
SLOW_ADDRESS = "127.0.0.4"
BUSY_RATE = 15.0
WATCHED_GOOD_GAMES = 19
FRAMES_PER_CONNECTION = 100_000
"""A bound on one flooder connection (the server closes it long before)."""
SERVER_ENVIRONMENT = {"ARENA_LOG_LEVEL": "info"}
"""Default settings; only the log level is raised, for the close lines."""


def player_address(number: int) -> str:
    return f"127.0.1.{number // PLAYERS_PER_ADDRESS + 1}"


async def connect_from(url: str, address: str, receive_buffer: int | None = None, **options: Any) -> ClientConnection:
    """A WebSocket connection whose TCP source address is ``address``."""
    host, port = re.match(r"ws://([^:/]+):(\d+)", url).groups()  # type: ignore[union-attr]
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        if receive_buffer is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        sock.bind((address, 0))
        sock.setblocking(False)
        await asyncio.wait_for(asyncio.get_running_loop().sock_connect(sock, (host, int(port))), 5)
        return await connect(url, sock=sock, open_timeout=5, **{**CLIENT_OPTIONS, **options})
    except BaseException:
        sock.close()
        raise


# ---------------------------------------------------------------- the server


def start_server(log_path: Path) -> tuple[subprocess.Popen[str], str, Any]:
    log = open(log_path, "w", encoding="utf-8")  # noqa: SIM115 (closed by run, after the server stops)
    process = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "serve", "--host", "127.0.0.1", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
        env={**os.environ, **SERVER_ENVIRONMENT},
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if "ws://" not in line:
        process.kill()
        raise RuntimeError(f"server did not start: {line!r}")
    return process, line.split()[-1], log


def cpu_seconds(pid: int) -> float:
    """User plus system CPU seconds of process ``pid`` so far (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def server_closes(log_path: Path, address: str) -> list[str]:
    """The close codes the server logged for connections from ``address``
    (in order of opening; "open" while no close line is logged yet)."""
    text = log_path.read_text(encoding="utf-8", errors="replace")
    opened = re.findall(rf"connection (\w+) opened from {re.escape(address)} ", text)
    closed = dict(re.findall(r"connection (\w+) closed with code (\w+)", text))
    return [closed.get(ident, "open") for ident in opened]


# ---------------------------------------------------------------- abusers (child process)


async def flooder(url: str, until: float, tally: dict[str, Any]) -> None:
    frame = msgpack.packb({"type": "ping"})
    while time.perf_counter() < until:
        tally["attempts"] += 1
        try:
            connection = await connect_from(url, FLOODER_ADDRESS, max_queue=None)
        except InvalidStatus as refusal:
            status = refusal.response.status_code
            try:
                code = json.loads(refusal.response.body or b"{}").get("code", "?")
            except ValueError:
                code = "?"
            tally["refused"][f"{status} {code}"] += 1
            continue
        except (TimeoutError, OSError) as failure:
            tally["refused"][type(failure).__name__] += 1
            await asyncio.sleep(0.01)
            continue
        tally["accepted"] += 1
        try:
            for count in range(FRAMES_PER_CONNECTION):
                if time.perf_counter() >= until:
                    break
                await connection.send(frame)
                tally["frames"] += 1
                if count % 32 == 31:
                    await asyncio.sleep(0)
            await connection.close()
            tally["closes"]["closed by the flooder at the block's end"] += 1
        except ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd is not None else 1006
            tally["closes"][str(code)] += 1
        finally:
            await connection.close()


async def busy_player(connection: ClientConnection, game_id: str, until: float) -> int:
    moves = 0
    while time.perf_counter() < until:
        moves += 1
        reply = await request(connection, {"type": "move", "id": 100 + moves, "game_id": game_id, "move": "draw"})
        assert reply["type"] == "diff", reply
        await asyncio.sleep(1 / BUSY_RATE)
    return moves


async def drain(connection: ClientConnection, seconds: float) -> str:
    """Read again; the close code the client then receives, if any."""
    connection.transport.resume_reading()
    try:
        async with asyncio.timeout(seconds):
            while True:
                await connection.recv()
    except ConnectionClosed as closed:
        return str(closed.rcvd.code) if closed.rcvd is not None else "1006 (no close frame)"
    except TimeoutError:
        return "none: still open"


async def abusers(args: argparse.Namespace) -> dict[str, Any]:
    url = args.abuser
    busy = await connect_from(url, BUSY_ADDRESS)
    busy_game = await new_game(busy, 900_000 + args.block_number)
    slow = await connect_from(url, SLOW_ADDRESS, receive_buffer=4096, max_queue=4)
    await request(slow, {"type": "hello", "id": 1, "name": "slow-reader"})
    for number, game_id in enumerate([busy_game, *args.watch[:WATCHED_GOOD_GAMES]]):
        reply = await request(slow, {"type": "watch", "id": 10 + number, "game_id": game_id})
        assert reply["type"] != "error", reply
    slow.transport.pause_reading()
    stalled = time.perf_counter()
    print("ready", flush=True)
    until = time.perf_counter() + args.seconds
    tally: dict[str, Any] = {"attempts": 0, "accepted": 0, "frames": 0, "refused": Counter(), "closes": Counter()}
    flooding = asyncio.create_task(flooder(url, until, tally))
    moves = await busy_player(busy, busy_game, until)
    await flooding
    log_path = Path(args.log)
    if args.linger > 0:
        lingering = time.perf_counter() + args.linger
        while time.perf_counter() < lingering and server_closes(log_path, SLOW_ADDRESS)[-1] == "open":
            moves += await busy_player(busy, busy_game, min(lingering, time.perf_counter() + 0.5))
    stalled_for = time.perf_counter() - stalled
    server_code = server_closes(log_path, SLOW_ADDRESS)[-1]
    client_code = await drain(slow, 5.0)
    await close_all([busy, slow])
    return {
        **tally,
        "refused": dict(tally["refused"]),
        "closes": dict(tally["closes"]),
        "busy_moves": moves,
        "slow_server_code": server_code,
        "slow_client_code": client_code,
        "slow_stalled_seconds": stalled_for,
    }


# ---------------------------------------------------------------- good players


async def good_players(url: str, count: int) -> tuple[list[ClientConnection], list[str]]:
    connections = list(await asyncio.gather(*(connect_from(url, player_address(n)) for n in range(count))))
    games = list(await asyncio.gather(*(new_game(connection, n) for n, connection in enumerate(connections))))
    return connections, games


async def abused_block(
    url: str, log_path: Path, players: list[ClientConnection], move: Any, games: list[str],
    block: float, rate: float, number: int, linger: float,
) -> tuple[list[float], dict[str, Any]]:
    child = await asyncio.create_subprocess_exec(
        sys.executable, str(Path(__file__).resolve()), "--abuser", url, "--seconds", str(block + 1.0),
        "--linger", str(linger), "--log", str(log_path), "--block-number", str(number), "--watch", *games,
        stdout=asyncio.subprocess.PIPE,
    )
    assert child.stdout is not None
    try:
        ready = await asyncio.wait_for(child.stdout.readline(), 30)
        if ready.strip() != b"ready":
            raise RuntimeError(f"abusers did not start: {ready!r}")
        times = await paced_round_trips(players, move, block, rate)
        if linger > 0:
            print(f"  leaving the slow reader stalled until the server closes it (at most {linger:g} s more)", flush=True)
        output = await asyncio.wait_for(child.stdout.read(), block + linger + 60)
        await child.wait()
    finally:
        if child.returncode is None:
            child.kill()
            await child.wait()
    return times, json.loads(output.decode().strip().splitlines()[-1])


async def run(args: argparse.Namespace, log_path: Path) -> tuple[list[tuple[float, float]], list[tuple[float, float]], list[dict[str, Any]], int, int, list[float]]:
    server, url, log = start_server(log_path)
    try:
        players, games = await good_players(url, args.players)
        game_of = dict(zip(map(id, players), games))

        async def move(connection: ClientConnection, sequence: int) -> None:
            reply = await request(connection, {"type": "move", "id": sequence, "game_id": game_of[id(connection)], "move": "draw"})
            assert reply["type"] == "diff", reply

        block = args.seconds / (2 * args.rounds)
        alone: list[tuple[float, float]] = []
        abused: list[tuple[float, float]] = []
        reports: list[dict[str, Any]] = []
        counts = [0, 0]
        cpu: list[float] = []
        for number in range(args.rounds):
            print(f"  round {number + 1}/{args.rounds} alone:", end="", flush=True)
            used = cpu_seconds(server.pid)
            times = await paced_round_trips(players, move, block, args.rate)
            cpu.append(cpu_seconds(server.pid) - used)
            alone.append((percentile(times, 0.5), percentile(times, 0.99)))
            counts[0] += len(times)
            print(f"  round {number + 1}/{args.rounds} abused:", end="", flush=True)
            linger = args.linger if number == args.rounds - 1 else 0.0
            used = cpu_seconds(server.pid)
            times, report = await abused_block(url, log_path, players, move, games, block, args.rate, number, linger)
            report["server_cpu"] = cpu_seconds(server.pid) - used
            abused.append((percentile(times, 0.5), percentile(times, 0.99)))
            counts[1] += len(times)
            reports.append(report)
        await close_all(players)
    finally:
        stop(server)
        log.close()
    return alone, abused, reports, counts[0], counts[1], cpu


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.2f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--rate", type=float, default=2.0, help="moves per second per player")
    parser.add_argument("--seconds", type=float, default=80.0, help="measured seconds, both conditions together")
    parser.add_argument("--rounds", type=int, default=4, help="blocks per condition, alternating")
    parser.add_argument("--linger", type=float, default=30.0,
                        help="after the last abused block, seconds the slow reader may stay stalled before giving up")
    parser.add_argument("--abuser", metavar="URL", help=argparse.SUPPRESS)
    parser.add_argument("--log", help=argparse.SUPPRESS)
    parser.add_argument("--block-number", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--watch", nargs="*", default=[], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.abuser:
        print(json.dumps(asyncio.run(abusers(args))), flush=True)
        return 0

    addresses = sorted({player_address(n) for n in range(args.players)})
    block = args.seconds / (2 * args.rounds)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the start")
    print("server at its default settings (no limit lifted for any address); log level info")
    print(f"{args.players} good players from {', '.join(addresses)} (at most {PLAYERS_PER_ADDRESS} per address), "
          f"~{args.rate:g} draws/s each; {args.rounds} rounds of {block:.1f} s per condition (each after 1 s warm-up)")
    print(f"abusers (own process): flooder from {FLOODER_ADDRESS}, busy player from {BUSY_ADDRESS} at {BUSY_RATE:g} draws/s, "
          f"slow reader from {SLOW_ADDRESS} watching the busy game and {min(WATCHED_GOOD_GAMES, args.players)} good games")
    with tempfile.TemporaryDirectory(prefix="arena-abuse-") as directory:
        log_path = Path(directory) / "server.log"
        alone, abused, reports, alone_count, abused_count, alone_cpu = asyncio.run(run(args, log_path))

    a50 = statistics.median(p50 for p50, _ in alone)
    a99 = statistics.median(p99 for _, p99 in alone)
    b50 = statistics.median(p50 for p50, _ in abused)
    b99 = statistics.median(p99 for _, p99 in abused)
    print()
    print("per block (p50 / p99):")
    for number, ((x50, x99), (y50, y99)) in enumerate(zip(alone, abused), start=1):
        print(f"  round {number}  alone {ms(x50)} / {ms(x99)}   abused {ms(y50)} / {ms(y99)}")
    print(f"round trip   alone     median p50 {ms(a50)}  p99 {ms(a99)}   ({alone_count} moves)")
    print(f"             abused    median p50 {ms(b50)}  p99 {ms(b99)}   ({abused_count} moves)")
    verdict = "met" if b99 / a99 <= P99_RATIO_TARGET else "NOT met"
    print(f"             ratio            p50 {b50 / a50:5.2f}x     p99 {b99 / a99:5.2f}x     "
          f"target p99 <= {P99_RATIO_TARGET}x: {verdict}")
    print("abusers per abused block:")
    for number, report in enumerate(reports, start=1):
        refused = ", ".join(f"{count} {why}" for why, count in sorted(report["refused"].items())) or "none"
        closes = ", ".join(f"{count}x {code}" for code, count in sorted(report["closes"].items())) or "none"
        print(f"  round {number}  flooder: {report['attempts']} handshakes, {report['accepted']} accepted, refused: {refused}; "
              f"{report['frames']} frames sent; closes: {closes}")
        if report["slow_server_code"] != "open":
            slow = (f"closed by the server within {report['slow_stalled_seconds']:.1f} s of its stall (server's log: code "
                    f"{report['slow_server_code']}, what websockets logs when the closing handshake never completes)")
        else:
            slow = f"still open after {report['slow_stalled_seconds']:.1f} s stalled (then read, and closed by the bench)"
        print(f"           busy player: {report['busy_moves']} draws; slow reader {slow}; "
              f"close code the client then read: {report['slow_client_code']}")
        print(f"           server CPU {report['server_cpu']:.2f} s in this block (alone block before it: "
              f"{alone_cpu[number - 1]:.2f} s){'; includes the linger' if number == len(reports) else ''}")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
