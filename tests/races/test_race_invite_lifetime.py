"""How long a race's invite code lives: it admits friends only
in the lobby, and it lives as long as the race it names, which stays
``finished_retention_seconds`` after its latest possible end (a start at
the invite's last moment, the countdown, the time limit), then goes from
the store with the race."""

from __future__ import annotations

from tests.races.arena_races import MemoryArena, player, race_event, race_settings
from tests.server.arena_clock import FakeClock, ManualScheduler

from protocol import ErrorCode
from protocol import to_server as ts
from server.races.ledgers import CODE_DOCUMENT
from server.storage.memory import MemoryStore

INVITE_MS, COUNTDOWN_MS, LIMIT_MS, RETENTION_MS = 2_000, 1_000, 1_000, 1_000


async def test_a_race_started_at_its_invites_last_moment_is_kept_its_retention_after_its_end_then_goes() -> None:
    clock = FakeClock()
    scheduler = ManualScheduler(clock)
    store = MemoryStore(clock=clock.seconds)
    settings = race_settings(
        race_invite_seconds=INVITE_MS // 1000, race_countdown_seconds=COUNTDOWN_MS / 1000,
        race_time_limit_seconds=LIMIT_MS // 1000, finished_retention_seconds=RETENTION_MS // 1000,
    )
    async with MemoryArena(settings, store=store, clock=clock, scheduler=scheduler) as server:
        host = await player(server, "ann")
        created = await host.request(ts.CreateRace, game="klondike", options={"draw": 1}, deal=1)
        assert created.type == "race", created
        race_id, code = created.race.race_id, created.race.code
        assert code is not None, "the host is shown the invite code"
        scheduler.advance(INVITE_MS - 1)
        started = await host.request(ts.StartRace, race_id=race_id)
        assert started.type == "race" and started.race.ends_at == clock.ms + COUNTDOWN_MS + LIMIT_MS
        scheduler.advance(COUNTDOWN_MS + LIMIT_MS)
        finished = await race_event(host, "finished", race_id)
        assert finished.race.phase == "finished"

        stranger = await player(server, "bob")
        refused = await stranger.request(ts.JoinRace, code=code)
        assert refused.type == "error" and refused.code == ErrorCode.RACE_STATE, "a finished race's invite admits nobody"

        scheduler.advance(RETENTION_MS - 1)
        assert await store.load_session(race_id) is not None, "kept finished_retention_seconds after its end"
        assert await store.get_document(CODE_DOCUMENT, code) is not None

        scheduler.advance(created.race.created_ms + INVITE_MS + COUNTDOWN_MS + LIMIT_MS + RETENTION_MS - clock.ms)
        gone = await stranger.request(ts.JoinRace, code=code)
        assert gone.type == "error" and gone.code == ErrorCode.RACE_NOT_FOUND
        assert await store.load_session(race_id) is None and await store.get_document(CODE_DOCUMENT, code) is None
