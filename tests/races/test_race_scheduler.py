"""A race's countdown and its spectators' delay run on the Hub's injected
clock and ``Scheduler``: in memory, with no socket and no waiting, a test
moves time on and the race follows.

This is what injecting time buys: the timing rules (boards at the
countdown's end, a spectator ``race_spectator_delay_seconds`` behind) are
checked by stepping a fake clock, so they cannot fail under load.
"""

from __future__ import annotations

import asyncio
from typing import Callable, TypeVar

from tests.server.arena_clock import FakeClock, ManualScheduler
from tests.server.arena_servers import make_settings

from protocol import MSGPACK
from protocol import to_client as tc
from protocol import to_server as ts
from server.core import Hub
from server.net.peer import Peer
from server.storage.memory import MemoryStore

M = TypeVar("M")
DELAY_MS = 30_000
COUNTDOWN_MS = 5_000


class Outlet:
    def __init__(self) -> None:
        self.written: list[bytes] = []

    def write_now(self, frame: bytes) -> bool:
        self.written.append(frame)
        return True

    def wake(self) -> None:
        pass

    def close(self, code: int, reason: str) -> None:
        pass

    def messages(self, kind: type[M]) -> list[M]:
        return [m for m in map(MSGPACK.decode_reply, self.written) if isinstance(m, kind)]


async def turns(count: int) -> None:
    """Let the tasks the hub spawned run for ``count`` loop turns."""
    for _ in range(count):
        await asyncio.sleep(0)


async def until(condition: Callable[[], bool]) -> None:
    """Let the tasks the hub spawned run until ``condition`` holds (a
    bounded number of loop turns, none of them timed)."""
    for _ in range(1000):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError("the hub never got there")


async def test_boards_arrive_at_the_countdowns_end_and_spectators_see_moves_a_delay_later() -> None:
    clock = FakeClock()
    scheduler = ManualScheduler(clock)
    settings = make_settings(
        race_countdown_seconds=COUNTDOWN_MS / 1000, race_spectator_delay_seconds=DELAY_MS / 1000
    )
    hub = Hub(settings, MemoryStore(), clock=clock, monotonic=clock.seconds, scheduler=scheduler)
    peers: dict[str, tuple[Peer, Outlet]] = {}
    for name in ("host", "rival", "spectator"):
        outlet = Outlet()
        peers[name] = hub.connect(MSGPACK, outlet, "192.0.2.1"), outlet

    async def say(name: str, message: ts.Request) -> None:
        peer = peers[name][0]
        await hub.handle(peer, peer.codec.encode(message))

    try:
        await say("host", ts.Hello())
        await say("rival", ts.Hello())
        await say("host", ts.CreateRace(game="klondike", deal=5))
        created = peers["host"][1].messages(tc.Race)[-1]
        assert created.race.code is not None
        await say("rival", ts.JoinRace(code=created.race.code))
        await say("host", ts.StartRace(race_id=created.race.race_id))
        host_out = peers["host"][1]
        assert not host_out.messages(tc.Snapshot), "no board during the countdown"

        scheduler.advance(COUNTDOWN_MS - 1)
        await turns(100)
        assert not host_out.messages(tc.Snapshot), "still counting down"
        scheduler.advance(1)
        await until(lambda: bool(host_out.messages(tc.Snapshot)))
        board = host_out.messages(tc.Snapshot)[-1]

        spectator_out = peers["spectator"][1]
        await say("spectator", ts.Watch(game_id=board.game_id))
        assert [m.seq for m in spectator_out.messages(tc.Snapshot)] == [0], "a delayed board, from its start"
        await say("host", ts.Move(game_id=board.game_id, move="draw"))
        assert host_out.messages(tc.Diff) and not spectator_out.messages(tc.Diff)

        scheduler.advance(DELAY_MS - 1)
        assert not spectator_out.messages(tc.Diff), "the move is not old enough yet"
        scheduler.advance(1)
        diffs = spectator_out.messages(tc.Diff)
        assert len(diffs) == 1 and diffs[0].action.text == "draw"
    finally:
        await hub.drain(1)
        await hub.close()
