"""The attempts still being played that a ``leaderboard`` page lists:
read for every asker at most once a second, their logs loaded only when
they grew, and their times as of each request."""

from __future__ import annotations

from tests.server.arena_clock import FakeClock
from tests.server.arena_memory import MemoryArena, MemoryClient
from tests.server.arena_servers import make_settings
from tests.server.test_friends_board import KLONDIKE
from tests.server.test_friends import player

from protocol import to_client as tc
from protocol import to_server as ts
from server.games.leaderboards import PLAYING_FRESH_MS
from server.model.records import Action, SessionHeader
from server.storage.memory import MemoryStore


class CountingStore(MemoryStore):
    """A memory store that counts the logs it loads."""

    def __init__(self, clock: FakeClock) -> None:
        super().__init__(clock)
        self.loads = 0

    async def load_session(self, game_id: str) -> tuple[SessionHeader, list[Action]] | None:
        self.loads += 1
        return await super().load_session(game_id)


async def playing(client: MemoryClient) -> tc.LeaderboardPage:
    page = await client.request(ts.Leaderboard, playing=True, **KLONDIKE)
    assert isinstance(page, tc.LeaderboardPage), page
    return page


async def test_attempts_still_played_are_read_once_a_window_and_timed_at_each_request() -> None:
    clock = FakeClock()
    store = CountingStore(clock)
    async with MemoryArena(make_settings(), store, clock=clock) as arena:
        ann, bob, asker = await player(arena, "ann"), await player(arena, "bob"), await player(arena, "cat")
        anns, _ = await ann.new_game(deal="daily", **KLONDIKE)
        await ann.request(ts.Move, game_id=anns.game_id, move="draw")
        await bob.new_game(deal="daily", **KLONDIKE)
        loads = store.loads
        first = await playing(asker)
        assert [(row.name, row.actions) for row in first.playing] == [("bob", 0), ("ann", 1)]
        read = store.loads - loads
        assert read == 2, "each attempt's log is loaded once"

        clock.ms += PLAYING_FRESH_MS // 2
        await ann.request(ts.Move, game_id=anns.game_id, move="draw")
        for _ in range(5):
            again = await playing(asker)
        assert store.loads - loads == read, "within the window no log is read again"
        assert [row.actions for row in again.playing] == [0, 1], "the page is the window's"
        ann_row = next(row for row in again.playing if row.name == "ann")
        first_ann = next(row for row in first.playing if row.name == "ann")
        assert ann_row.time_ms == first_ann.time_ms + PLAYING_FRESH_MS // 2, "times run on between reads"

        clock.ms += PLAYING_FRESH_MS // 2
        later = await playing(asker)
        assert [(row.name, row.actions) for row in later.playing] == [("bob", 0), ("ann", 2)]
        assert store.loads - loads == read + 1, "a window later only the log that grew is loaded"


async def test_an_attempt_started_or_ended_here_shows_at_once_within_the_window() -> None:
    clock = FakeClock()
    async with MemoryArena(make_settings(), CountingStore(clock), clock=clock) as arena:
        ann, bob, asker = await player(arena, "ann"), await player(arena, "bob"), await player(arena, "cat")
        anns, _ = await ann.new_game(deal="daily", **KLONDIKE)
        first_read = clock.ms
        assert [row.name for row in (await playing(asker)).playing] == ["ann"]

        await bob.new_game(deal="daily", **KLONDIKE)
        assert [row.name for row in (await playing(asker)).playing] == ["bob", "ann"], "a start here is seen at once"

        await ann.request(ts.Resign, game_id=anns.game_id)
        assert [row.name for row in (await playing(asker)).playing] == ["bob"], "an end here is seen at once"
        assert clock.ms - first_read < PLAYING_FRESH_MS, "all within one window"
