"""``kill -9`` during play: moves in flight on several games, the server
killed at a random moment, started again on the same store, and every
action a player saw acknowledged looked for in the stored logs.

The server commits an action before it replies, so none may be missing,
whichever store it runs on.  Used by ``test_server_crash.py`` (Redis and
SQLite, a few trials) and ``bench/play_crash.py`` (100 trials).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from tests.integration.arena_processes import ServerProcess, WireClient
from tests.integration.stored_state import reading

from protocol import to_server as ts

GAMES = 4
IN_FLIGHT = 200


@dataclass
class PlayCount:
    """Actions sent and acknowledged over trials (the rest were in flight
    at the kill), and the acknowledged ones the stored logs lack
    (``game_id#seq``)."""

    trials: int = 0
    sent: int = 0
    acknowledged: int = 0
    lost: list[str] = field(default_factory=list)

    def add(self, other: PlayCount) -> None:
        self.trials += other.trials
        self.sent += other.sent
        self.acknowledged += other.acknowledged
        self.lost += other.lost


async def play_kill_trial(
    server: ServerProcess, store_url: str, chance: random.Random, games: int = GAMES, in_flight: int = IN_FLIGHT
) -> PlayCount:
    """One trial (``server`` running; killed, then started again): each of
    ``games`` players sends ``in_flight`` draws without waiting, and the
    server is killed once one player, chosen by ``chance``, has a random
    number of them acknowledged."""
    held: list[tuple[WireClient, str]] = []
    try:
        for _ in range(games):
            player = await WireClient.open(server.url)
            held.append((player, ""))
            await player.hello()
            started, _ = await player.new_game(deal=7, options={"draw": 3})
            held[-1] = (player, started.game_id)
        for player, game_id in held:
            for _ in range(in_flight):
                await player.send(ts.Move(id=player.next_id(), game_id=game_id, move="draw"))
        watched, _ = chance.choice(held)
        moment = chance.randint(1, in_flight - 1)
        await watched.wait_for(lambda m: m.type == "diff" and m.seq == moment)
        server.kill()
        for player, _ in held:
            await player.closed()
    finally:
        for player, _ in held:
            await player.close()
    await server.start()
    count = PlayCount(trials=1, sent=games * in_flight)
    async with reading(store_url) as store:
        for player, game_id in held:
            loaded = await store.load_session(game_id)
            log = loaded[1] if loaded is not None else []
            for reply in (m for m in player.received if m.type == "diff" and m.id is not None):
                count.acknowledged += 1
                stored = log[reply.seq - 1] if reply.seq <= len(log) else None
                if stored is None or (stored.kind, stored.text) != (reply.action.kind, reply.action.text):
                    count.lost.append(f"{game_id}#{reply.seq}")
    return count
