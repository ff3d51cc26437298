"""One ``kill -9`` trial of convergence across processes, shared by
``test_server_crash.py`` (which asserts) and ``bench/convergence.py``
(which measures, against another checkout too).

Players on process A, a spectator of each game on process B, moves in
flight on every game, then A is killed.  For each game: does the
spectator on B reach the stored log without a later action, and how long
after the kill; does the player's ``hello`` on B get the stored state;
is its next move accepted.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable

from tests.integration.arena_processes import ServerProcess, WireClient, stored_log

from protocol import to_server as ts

MANY_CLIENTS = {"ARENA_CONNECTION_RATE_PER_SECOND": "1000", "ARENA_CONNECTION_BURST": "1000",
                "ARENA_IDENTITIES_PER_HOUR": "1000", "ARENA_CONNECTIONS_PER_ADDRESS": "1000"}
"""Every client of a trial comes from one loopback address."""

Opener = Callable[[str], Awaitable[WireClient]]


@dataclass
class Convergence:
    """What the trials saw, game by game."""

    games: int = 0
    behind: list[tuple[str, int]] = field(default_factory=list)
    """Games whose spectator on B did not reach the stored log (id, stored length)."""
    waited: list[float] = field(default_factory=list)
    """Seconds from the kill to each spectator reaching the stored log."""
    stale_hellos: int = 0
    refused_moves: int = 0


async def kill_trial(
    a: ServerProcess, b: ServerProcess, redis_url: str, open_client: Opener, games: int, in_flight: int,
    wait_seconds: float, seen: Convergence,
) -> None:
    """One trial (A must be running; it is killed); adds to ``seen``."""
    loop = asyncio.get_running_loop()
    held: list[tuple[WireClient, WireClient, str]] = []
    for _ in range(games):
        player = await open_client(a.url)
        await player.hello()
        started, _ = await player.new_game(deal=7, options={"draw": 3})
        spectator = await open_client(b.url)
        watched = await spectator.request(ts.Watch, game_id=started.game_id)
        assert watched.type == "snapshot" and watched.seq == 0, watched
        held.append((player, spectator, started.game_id))
    for player, _, game_id in held:
        for _ in range(in_flight):
            await player.send(ts.Move(id=player.next_id(), game_id=game_id, move="draw"))
    await held[-1][0].wait_for(lambda m: m.type == "diff" and m.seq == 10)
    a.kill()
    killed = loop.time()
    for player, spectator, game_id in held:
        seen.games += 1
        stored = len(await stored_log(redis_url, game_id))
        try:
            await spectator.wait_for(reached(game_id, stored), wait_seconds)
        except TimeoutError:
            seen.behind.append((game_id, stored))
        else:
            seen.waited.append(loop.time() - killed)
        returning = await open_client(b.url)
        await returning.hello(token=player.token)
        resumed: Any = await returning.wait_for(lambda m: m.type == "snapshot" and m.game_id == game_id)
        if resumed.seq != stored:
            seen.stale_hellos += 1
        onward = await returning.request(ts.Move, game_id=game_id, move=resumed.legal[0])
        if onward.type != "diff" or onward.seq != resumed.seq + 1:
            seen.refused_moves += 1


def reached(game_id: str, length: int) -> Callable[[Any], bool]:
    """A diff or snapshot of ``game_id`` at ``length``: the stored log reached."""
    return lambda m: m.type in ("diff", "snapshot") and m.game_id == game_id and m.seq == length
