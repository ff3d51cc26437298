"""Sessions rebuilt from stored logs and brought up to date: what a
second read returns is what replaying the whole log returns, and a read
loads only the logs that grew."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from server.games.pacing import Pacing
from server.games.replayed import ReplayedSessions
from server.model.records import Action
from server.model.session import Session, SessionHeader
from server.storage import MemoryStore, Store

DEAL = 11


def header(game_id: str) -> SessionHeader:
    return SessionHeader(game_id=game_id, game="klondike", deal=DEAL, options={"draw": 1}, owner="p1", created_ms=0)


def state_of(session: Session) -> tuple[Any, ...]:
    return (session.game.view(), session.result, len(session.log), session.automatic_moves, session.finished_ms)


async def play(store: Store, game_id: str, actions: int, picks: list[int]) -> None:
    """Append up to ``actions`` moves, undos or a resignation to the stored
    game, as the play pipeline does (perform, store, commit), chosen by ``picks``."""
    stored = await store.load_session(game_id)
    assert stored is not None
    session = Session.replay(*stored)
    for _ in range(actions):
        if session.result is not None:
            return
        pick = picks[len(session.log) % len(picks)]
        legal = session.game.legal_moves()
        if pick % 5 == 0 and session.game.can_undo():
            kind, text = "undo", ""
        elif legal:
            kind, text = "move", str(legal[pick % len(legal)])
        else:
            kind, text = "resign", ""
        logged, _ = session.perform(kind, text)
        action = Action(kind, logged, len(session.log) + 1)
        await store.append(game_id, len(session.log), action, ends=session.ends(action))
        session.commit(action)


@settings(max_examples=25, deadline=None)
@given(
    first=st.integers(min_value=0, max_value=30), then=st.integers(min_value=0, max_value=30),
    picks=st.lists(st.integers(min_value=0, max_value=1_000), min_size=1, max_size=8),
)
async def test_a_session_brought_up_to_date_is_the_whole_log_replayed(first: int, then: int, picks: list[int]) -> None:
    store = MemoryStore()
    await store.create_session(header("g_1"))
    replayed = ReplayedSessions(store, Pacing())
    await play(store, "g_1", first, picks)
    await replayed.sessions(["g_1"])
    await play(store, "g_1", then, picks)
    kept = (await replayed.sessions(["g_1"]))["g_1"]
    stored = await store.load_session("g_1")
    assert stored is not None
    assert state_of(kept) == state_of(Session.replay(*stored))


class CountingStore(MemoryStore):
    """A memory store that counts the logs it loads."""

    def __init__(self) -> None:
        super().__init__()
        self.loaded: list[str] = []

    async def load_session(self, game_id: str) -> Any:
        self.loaded.append(game_id)
        return await super().load_session(game_id)


async def test_a_read_loads_only_the_logs_that_grew_and_leaves_out_games_the_store_lacks() -> None:
    store = CountingStore()
    for game_id in ("g_1", "g_2"):
        await store.create_session(header(game_id))
        await play(store, game_id, 3, [1])
    store.loaded.clear()
    replayed = ReplayedSessions(store, Pacing())
    assert set(await replayed.sessions(["g_1", "g_2", "g_missing"])) == {"g_1", "g_2"}
    assert sorted(store.loaded) == ["g_1", "g_2"]
    await play(store, "g_2", 2, [1])
    store.loaded.clear()
    found = await replayed.sessions(["g_1", "g_2"])
    assert store.loaded == ["g_2"]
    assert len(found["g_2"].log) == 5 and len(found["g_1"].log) == 3


async def test_only_the_newest_sessions_are_kept_past_the_capacity() -> None:
    store = CountingStore()
    for game_id in ("g_1", "g_2", "g_3"):
        await store.create_session(header(game_id))
    replayed = ReplayedSessions(store, Pacing(), capacity=2)
    await replayed.sessions(["g_1", "g_2", "g_3"])
    store.loaded.clear()
    await replayed.sessions(["g_2", "g_3"])
    assert store.loaded == []
    await replayed.sessions(["g_1"])
    assert store.loaded == ["g_1"]

