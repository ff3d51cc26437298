"""Abuse containment: the round trips of well-behaved
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
  and reconnects at once, in a loop, for the whole block, with the
  ``websockets`` client a naive bot would use.  Whatever refuses it (an
  HTTP 429, a connection reset at accept, a timeout) it retries at once,
  so it spends a whole core knocking, until its address's cool-down has
  the server's kernel drop its SYNs (``server.transport.listener``): then each
  attempt waits out the client's 5 s open timeout;
- a busy player from 127.0.0.3 draws in its own WordLink game 15 times a
  second (under the default rate);
- the slow reader from 127.0.0.4 (a 4 KiB receive buffer) watches the
  busy game and 19 of the good players' games, then stops reading.

The good players (each: hello, a new casual WordLink game, then "draw"
about ``--rate`` times a second, timing each reply: ``bench/server.py``'s
paced players) run in this process; the abusers run in a child process of
their own, so that their CPU does not distort the clients' clocks.
Four conditions alternate in blocks, their order rotating from round to
round (alone, control, spinner, abused; control, spinner, abused, alone;
…), so that load from elsewhere on the machine, and whatever a block
leaves behind, falls on all alike.  Two child processes start just as
the abusers' does: the control then does nothing (its ratio to alone is
the noise floor of the measurement), the spinner spins as hard as it can
without ever touching the server, as the flooder's loop takes all the
CPU it can get.  Abused beside spinner tells what the abusers cost the
players through the server from what any busy process on two shared
cores costs them.

The three children run at the lowest CPU priority (``--nice``, 19): a
remote attacker spends its own CPU, not the server's, and on two shared
cores an abuser at the server's priority mostly measures its loop taking
a core from the server and the players (as the spinner, which never
touches the server, does).  At nice 19 they still get every idle cycle,
so the ratio shows the server's own extra work; ``--nice 0`` measures
the old way, everyone at one priority.  After the last abused block the
slow reader is left stalled (unmeasured, up to ``--linger`` seconds)
until the server has closed it.

Printed: the medians over blocks of p50 and p99 per condition, the ratios
of the p99s to alone (target for abused: at most 1.10), the
server's CPU seconds per block in each condition (from ``/proc``) beside
the abusers' own, and what the abusers achieved per block: connections
accepted, handshakes refused (by HTTP 429 and error code, or reset at
accept), frames sent, close codes received, and whether the slow reader
was closed, with which code, from the server's log and from the client's
side.  On two cores the abusers' own CPU (the flooder's loop takes all
it can get) competes with the server and the players: the server's CPU
per block, counted from the child's "ready" to the last round trip,
tells the server's own extra work apart from that competition.

    python bench/abuse.py [--players 50] [--rate 2] [--seconds 160] [--rounds 4] [--linger 30] [--nice 19] [--no-flooder]

``--seconds`` is the measured time of all four conditions together (each
block adds 1 s of warm-up); the defaults take about four minutes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import resource
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
from websockets.exceptions import ConnectionClosed, InvalidMessage, InvalidStatus

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
CONDITIONS = ("alone", "control", "spinner", "abused")
RESET = "reset at accept"


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
        [sys.executable, "-m", "server.cli", "serve", "--memory", "--host", "127.0.0.1", "--port", "0"],
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
        except (ConnectionResetError, InvalidMessage):
            tally["refused"][RESET] += 1
            continue
        except (TimeoutError, OSError) as failure:
            tally["refused"][type(failure).__name__] += 1
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


def own_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


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


async def control(args: argparse.Namespace) -> dict[str, Any]:
    """The control's child (started as the abusers' is, then idle), or
    with ``--spin`` the spinner's (which burns CPU all along)."""
    print("ready", flush=True)
    used, began = own_cpu_seconds(), time.perf_counter()
    if args.spin:
        while time.perf_counter() < began + args.seconds:
            sum(range(1000))
    else:
        await asyncio.sleep(args.seconds)
    return {"own_cpu": own_cpu_seconds() - used, "own_seconds": time.perf_counter() - began}


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
    used, began = own_cpu_seconds(), time.perf_counter()
    until = began + args.seconds
    tally: dict[str, Any] = {"attempts": 0, "accepted": 0, "frames": 0, "refused": Counter(), "closes": Counter()}
    flooding = asyncio.create_task(flooder(url, until if args.flooder else began, tally))
    moves = await busy_player(busy, busy_game, until)
    await flooding
    own_cpu, own_seconds = own_cpu_seconds() - used, time.perf_counter() - began
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
        "own_cpu": own_cpu,
        "own_seconds": own_seconds,
    }


# ---------------------------------------------------------------- good players


async def good_players(url: str, count: int) -> tuple[list[ClientConnection], list[str]]:
    connections = list(await asyncio.gather(*(connect_from(url, player_address(n)) for n in range(count))))
    games = list(await asyncio.gather(*(new_game(connection, n) for n, connection in enumerate(connections))))
    return connections, games


async def measured_round_trips(
    server_pid: int, players: list[ClientConnection], move: Any, block: float, rate: float, label: str
) -> tuple[list[float], dict[str, float]]:
    """``paced_round_trips``, and the server's CPU seconds and the wall
    seconds they took."""
    used, began = cpu_seconds(server_pid), time.perf_counter()
    times = await paced_round_trips(players, move, block, rate, label)
    return times, {"server_cpu": cpu_seconds(server_pid) - used, "seconds": time.perf_counter() - began}


async def child_block(
    server_pid: int, url: str, log_path: Path, players: list[ClientConnection], move: Any, games: list[str],
    block: float, rate: float, number: int, linger: float, condition: str, flooder: list[str], nice: int, label: str,
) -> tuple[list[float], dict[str, Any]]:
    """One block beside a child process: the abusers, the control or the
    spinner.  The server's CPU counts from the child's "ready" to the
    players' last round trip (the linger excluded)."""
    role = {"control": ["--control"], "spinner": ["--control", "--spin"]}.get(condition, [*flooder, "--watch", *games])
    child = await asyncio.create_subprocess_exec(
        sys.executable, str(Path(__file__).resolve()), "--abuser", url, "--seconds", str(block + 1.0),
        "--linger", str(linger), "--log", str(log_path), "--block-number", str(number), "--nice", str(nice), *role,
        stdout=asyncio.subprocess.PIPE,
    )
    assert child.stdout is not None
    try:
        ready = await asyncio.wait_for(child.stdout.readline(), 30)
        if ready.strip() != b"ready":
            raise RuntimeError(f"the child did not start: {ready!r}")
        times, server = await measured_round_trips(server_pid, players, move, block, rate, label)
        if linger > 0:
            print(f"  leaving the slow reader stalled until the server closes it (at most {linger:g} s more)", flush=True)
        output = await asyncio.wait_for(child.stdout.read(), block + linger + 60)
        await child.wait()
    finally:
        if child.returncode is None:
            child.kill()
            await child.wait()
    return times, {**server, **json.loads(output.decode().strip().splitlines()[-1])}


Block = dict[str, Any]
"""One block's figures: p50, p99, moves, server_cpu, and the child's report."""


async def run(args: argparse.Namespace, log_path: Path) -> dict[str, list[Block]]:
    server, url, log = start_server(log_path)
    try:
        players, games = await good_players(url, args.players)
        game_of = dict(zip(map(id, players), games))

        async def move(connection: ClientConnection, sequence: int) -> None:
            reply = await request(connection, {"type": "move", "id": sequence, "game_id": game_of[id(connection)], "move": "draw"})
            assert reply["type"] == "diff", reply

        block = args.seconds / (len(CONDITIONS) * args.rounds)
        blocks: dict[str, list[Block]] = {condition: [] for condition in CONDITIONS}
        for number in range(args.rounds):
            turn = number % len(CONDITIONS)
            for condition in CONDITIONS[turn:] + CONDITIONS[:turn]:
                label = f"round {number + 1}/{args.rounds} {condition}"
                if condition == "alone":
                    times, report = await measured_round_trips(server.pid, players, move, block, args.rate, label)
                else:
                    linger = args.linger if condition == "abused" and len(blocks["abused"]) == args.rounds - 1 else 0.0
                    times, report = await child_block(
                        server.pid, url, log_path, players, move, games, block, args.rate, number, linger, condition,
                        [] if args.flooder else ["--no-flooder"], args.nice, label,
                    )
                blocks[condition].append({
                    "p50": percentile(times, 0.5), "p99": percentile(times, 0.99), "moves": len(times), **report,
                })
        await close_all(players)
    finally:
        stop(server)
        log.close()
    return blocks


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.2f} ms"


def median_of(blocks: list[Block], key: str) -> float:
    return statistics.median(block[key] for block in blocks)


def report_round_trips(blocks: dict[str, list[Block]]) -> None:
    print("per block (p50 / p99, server CPU seconds):")
    for number, row in enumerate(zip(*blocks.values()), start=1):
        cells = "   ".join(f"{condition} {ms(b['p50'])} / {ms(b['p99'])} {b['server_cpu']:5.2f} s" for condition, b in zip(CONDITIONS, row))
        print(f"  round {number}  {cells}")
    alone99 = median_of(blocks["alone"], "p99")
    alone50 = median_of(blocks["alone"], "p50")
    for condition in CONDITIONS:
        b50, b99 = median_of(blocks[condition], "p50"), median_of(blocks[condition], "p99")
        moves = sum(block["moves"] for block in blocks[condition])
        line = f"round trip  {condition:8} median p50 {ms(b50)}  p99 {ms(b99)}   ({moves} moves)"
        if condition != "alone":
            line += f"   ratio to alone: p50 {b50 / alone50:5.2f}x  p99 {b99 / alone99:5.2f}x"
        print(line)
    ratio = median_of(blocks["abused"], "p99") / alone99
    verdict = "met" if ratio <= P99_RATIO_TARGET else "NOT met"
    print(f"target: abused p99 <= {P99_RATIO_TARGET}x alone: {verdict} ({ratio:.2f}x; the control, "
          f"idle, is {median_of(blocks['control'], 'p99') / alone99:.2f}x; the spinner, never touching the server, "
          f"{median_of(blocks['spinner'], 'p99') / alone99:.2f}x)")
    print(f"abused beside the spinner (what the abusers cost through the server, not as a busy process): "
          f"p99 {ratio / (median_of(blocks['spinner'], 'p99') / alone99):.2f}x")


def report_cpu(blocks: dict[str, list[Block]]) -> None:
    alone, control, spinner, abused = (median_of(blocks[condition], "server_cpu") for condition in CONDITIONS)
    extra = abused - alone
    attempts = statistics.median(block["attempts"] for block in blocks["abused"])
    per_attempt = (f"; over the flooder's {attempts:.0f} attempts a block, at most {extra / attempts * 1e6:.0f} us each, "
                   f"were all of it refusals" if attempts else "")
    print(f"server CPU per block (median): alone {alone:.2f} s, control {control:.2f} s, spinner {spinner:.2f} s, abused {abused:.2f} s "
          f"(+{extra:.2f} s{per_attempt})")
    print(f"the children's own CPU per block (median): abusers {median_of(blocks['abused'], 'own_cpu'):.2f} s, "
          f"spinner {median_of(blocks['spinner'], 'own_cpu'):.2f} s, control {median_of(blocks['control'], 'own_cpu'):.2f} s")
    server_alone, server_abused, own, spin = (
        statistics.median(block[cpu] / block[seconds] for block in blocks[condition])
        for condition, cpu, seconds in (("alone", "server_cpu", "seconds"), ("abused", "server_cpu", "seconds"),
                                        ("abused", "own_cpu", "own_seconds"), ("spinner", "own_cpu", "own_seconds"))
    )
    print(f"in cores (of {os.cpu_count()}), medians: the server {server_alone:.2f} alone, {server_abused:.2f} abused "
          f"(+{server_abused - server_alone:.2f}: refusals, the busy player, the slow reader); the abusers' own process "
          f"{own:.2f} beside it, the spinner {spin:.2f}")


def report_abusers(blocks: list[Block]) -> None:
    print("abusers per abused block:")
    for number, report in enumerate(blocks, start=1):
        refused = ", ".join(f"{count} {why}" for why, count in sorted(report["refused"].items())) or "none"
        closes = ", ".join(f"{count}x {code}" for code, count in sorted(report["closes"].items())) or "none"
        print(f"  round {number}  flooder: {report['attempts']} attempts, {report['accepted']} accepted, refused: {refused}; "
              f"{report['frames']} frames sent; closes: {closes}")
        if report["slow_server_code"] != "open":
            slow = (f"closed by the server within {report['slow_stalled_seconds']:.1f} s of its stall (server's log: code "
                    f"{report['slow_server_code']}, what websockets logs when the closing handshake never completes)")
        else:
            slow = f"still open after {report['slow_stalled_seconds']:.1f} s stalled (then read, and closed by the bench)"
        print(f"           busy player: {report['busy_moves']} draws; slow reader {slow}; "
              f"close code the client then read: {report['slow_client_code']}")
        print(f"           server CPU {report['server_cpu']:.2f} s, abusers' own {report['own_cpu']:.2f} s in this block")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--rate", type=float, default=2.0, help="moves per second per player")
    parser.add_argument("--seconds", type=float, default=160.0, help="measured seconds, all four conditions together")
    parser.add_argument("--rounds", type=int, default=4, help="blocks per condition, alternating")
    parser.add_argument("--linger", type=float, default=30.0,
                        help="after the last abused block, seconds the slow reader may stay stalled before giving up")
    parser.add_argument("--nice", type=int, default=19,
                        help="CPU niceness of the abusers', the spinner's and the control's process (0: the server's own priority)")
    parser.add_argument("--no-flooder", dest="flooder", action="store_false",
                        help="abusers without the flooder (the busy player and the slow reader only), to tell their costs apart")
    parser.add_argument("--abuser", metavar="URL", help=argparse.SUPPRESS)
    parser.add_argument("--control", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--spin", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--log", help=argparse.SUPPRESS)
    parser.add_argument("--block-number", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--watch", nargs="*", default=[], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.abuser:
        os.nice(args.nice)
        print(json.dumps(asyncio.run(control(args) if args.control else abusers(args))), flush=True)
        return 0

    addresses = sorted({player_address(n) for n in range(args.players)})
    block = args.seconds / (len(CONDITIONS) * args.rounds)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the start")
    print("server at its default settings (no limit lifted for any address); log level info")
    print(f"{args.players} good players from {', '.join(addresses)} (at most {PLAYERS_PER_ADDRESS} per address), "
          f"~{args.rate:g} draws/s each; {args.rounds} rounds of {block:.1f} s per condition (each after 1 s warm-up)")
    print(f"abusers (own process): {'flooder from ' + FLOODER_ADDRESS if args.flooder else 'no flooder (--no-flooder)'}, busy player from {BUSY_ADDRESS} at {BUSY_RATE:g} draws/s, "
          f"slow reader from {SLOW_ADDRESS} watching the busy game and {min(WATCHED_GOOD_GAMES, args.players)} good games; "
          f"control: a child process started alike that does nothing; spinner: one that spins without touching the server; "
          f"all three children at nice {args.nice}")
    with tempfile.TemporaryDirectory(prefix="arena-abuse-") as directory:
        blocks = asyncio.run(run(args, Path(directory) / "server.log"))
    print()
    report_round_trips(blocks)
    report_cpu(blocks)
    report_abusers(blocks["abused"])
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
