"""``arena daily --verify`` against a real server that lies in its reveal.

Each forgery here passed the verifier before it checked everything: the
commitment was the hash of the revealed text, the seed dealt a layout and
the line won it.  The server is real (sockets, both codecs) and its clock
the test's: the client sees the day's commitments the day before (by its
own clock, which is the machine's), a player makes the day's first ranked
attempt during the day, and the reveal comes after it.  The lie is
written into the server's store, as a dishonest operator would.  Each
runs on one process with the memory store, and on two processes sharing a
real Redis: one fixes the records and deals the ranked attempt, the
other shows the client the commitments and the reveal.
"""

from __future__ import annotations

import re
from contextlib import AsyncExitStack
from dataclasses import asdict, replace
from datetime import date, datetime, timedelta, timezone
from typing import AsyncIterator

import pytest
from tests.client.arena_cli import run
from tests.races.arena_races import player
from tests.server.arena_clock import FakeClock
from tests.server.arena_servers import make_settings

import engine
from client.commitments import file_for
from client.reveal import UNCONFIRMED
from protocol import JSON_SUBPROTOCOL, MSGPACK_SUBPROTOCOL
from protocol import to_server as ts
from server.transport.app import ArenaServer
from server.deals.daily import RECORD_KIND, DailyRecord, day_start_ms, reveals_at
from server.storage.base import Store
from server.storage.memory import MemoryStore
from server.storage.redis import RedisStore

DRAW_1, DRAW_3 = "draw=1,scoring=standard", "draw=3,scoring=standard"
HOUR_MS = 3_600_000


class Day:
    """Servers whose clock the test moves (``before`` fixes the day's
    records and deals the ranked attempt, ``after`` is the one the client
    asks, before the day and at the reveal: one process, or two on one
    Redis), and a day still to come by the machine's clock (so the
    client's first sight of its commitments is before it began)."""

    def __init__(self, before: ArenaServer, after: ArenaServer, clock: FakeClock, day: date) -> None:
        self.before = before
        self.after = after
        self.clock = clock
        self.day = day
        self.records: dict[str, DailyRecord] = {}

    @property
    def store(self) -> Store:
        return self.after.store

    async def arena_daily(self, *flags: str) -> tuple[int, str]:
        code, out, err = await run(
            "-m", "server.cli", "daily", "--date", self.day.isoformat(), "--game", "klondike",
            "--server", self.after.url, *flags,
        )
        assert "Traceback" not in err, err
        return code, out

    async def reveal_as(self, variant: str, record: DailyRecord) -> None:
        """What the server shows of ``variant`` from now on: ``record``."""
        await self.store.put_document(RECORD_KIND, f"klondike/{variant}/{self.day.isoformat()}", asdict(record))


@pytest.fixture(params=["memory", "two processes on redis"])
async def revealed_day(request: pytest.FixtureRequest) -> AsyncIterator[Day]:
    clock = FakeClock()
    clock.ms = int(datetime.now(timezone.utc).timestamp() * 1000)
    day = datetime.now(timezone.utc).date() + timedelta(days=1)
    stores: list[Store] = [MemoryStore()]
    if request.param != "memory":
        url, namespace = request.getfixturevalue("redis_server").url, request.getfixturevalue("redis_namespace")
        stores = [RedisStore(url, namespace=namespace), RedisStore(url, namespace=namespace)]
    try:
        async with AsyncExitStack() as servers:
            arenas = [await servers.enter_async_context(ArenaServer(make_settings(), store=store, clock=clock)) for store in stores]
            found = Day(arenas[0], arenas[-1], clock, day)
            for options in ({"draw": 1}, {"draw": 3}):
                record = await found.before.hub.dailies.fixed(engine.game_class("klondike"), options, day, clock.ms)
                found.records[record.variant] = record
            yield found
    finally:
        for store in stores:
            await store.close()


def _verdicts(out: str) -> dict[str, str]:
    return {match.group(1): match.group(2) for match in re.finditer(r"^WordLink (\S+): (.*)$", out, re.MULTILINE)}


@pytest.mark.parametrize("codec", [JSON_SUBPROTOCOL, MSGPACK_SUBPROTOCOL])
async def test_the_three_forged_reveals_are_refused_and_the_honest_one_verifies(revealed_day: Day, codec: str) -> None:
    flags = ("--json",) if codec == JSON_SUBPROTOCOL else ()
    code, out = await revealed_day.arena_daily(*flags)
    assert code == 0 and revealed_day.records[DRAW_1].commitment in out, out

    revealed_day.clock.ms = day_start_ms(revealed_day.day) + HOUR_MS
    ann = await player(revealed_day.before.url, "ann", codec)
    started, _ = await ann.new_game(deal="daily", options={"draw": 1})
    assert started.ranked
    assert (await ann.request(ts.Resign, game_id=started.game_id)).type == "diff"
    await ann.close()
    revealed_day.clock.ms = reveals_at(revealed_day.day, revealed_day.after.settings)

    code, out = await revealed_day.arena_daily("--verify", *flags)
    verdicts = _verdicts(out)
    assert code == 0, out
    assert verdicts[DRAW_1].startswith("verified: variant and options, committed before the day"), out
    assert verdicts[DRAW_3].startswith("verified: "), out
    assert "note: nobody played it ranked" in out, "draw 3 had no ranked attempt whose first board to check"
    assert out.count("note:") == 1, "draw 1's first board was replayed and compared"

    honest_1, honest_3 = revealed_day.records[DRAW_1], revealed_day.records[DRAW_3]
    # 1. The committed text says draw 1; the deal revealed is draw 3's, with its winning line.
    await revealed_day.reveal_as(DRAW_3, replace(honest_3, variant=DRAW_1))
    code, out = await revealed_day.arena_daily("--verify", *flags)
    assert code == 1 and f"are the variant {DRAW_3}, not the committed {DRAW_1}" in out, out
    await revealed_day.reveal_as(DRAW_3, honest_3)

    # 2. The record says it was fixed after the day began.
    await revealed_day.reveal_as(DRAW_1, replace(honest_1, committed_ms=day_start_ms(revealed_day.day) + 1000))
    code, out = await revealed_day.arena_daily("--verify", *flags)
    assert code == 1 and "after the day began" in _verdicts(out)[DRAW_1], out

    # 3. A commitment made at the reveal: the same seed, a new nonce, backdated.
    at_reveal = replace(honest_1, nonce="c" * 32)
    await revealed_day.reveal_as(DRAW_1, at_reveal)
    code, out = await revealed_day.arena_daily("--verify", *flags)
    assert code == 1, out
    assert _verdicts(out)[DRAW_1] == (
        f"forged: on {_seen_text(out)} this server committed to {honest_1.commitment} for this deal; "
        f"the reveal's commitment is {at_reveal.commitment}"
    ), out


async def test_a_client_that_never_saw_the_commitment_says_so_rather_than_forged(
    revealed_day: Day, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The same commitment made at the reveal, verified by a client with no
    kept commitments: every other check passes, and it says it cannot tell."""
    revealed_day.clock.ms = reveals_at(revealed_day.day, revealed_day.after.settings)
    await revealed_day.reveal_as(DRAW_1, replace(revealed_day.records[DRAW_1], nonce="c" * 32))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("fresh-client")))
    code, out = await revealed_day.arena_daily("--verify")
    assert code == 1, out
    verdict = _verdicts(out)[DRAW_1]
    assert verdict.startswith(f"{UNCONFIRMED}: it cannot tell") and "forged" not in verdict, out


async def test_plain_arena_daily_warns_when_a_kept_commitment_changes(revealed_day: Day) -> None:
    await revealed_day.arena_daily()
    honest = revealed_day.records[DRAW_1]
    await revealed_day.store.put_document(RECORD_KIND, honest.key, asdict(replace(honest, nonce="d" * 32)))
    code, out = await revealed_day.arena_daily()
    assert code == 0 and f"warning: WordLink {DRAW_1}: forged: " in out, out


def _seen_text(out: str) -> str:
    found = re.search(r"forged: on (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC) ", out)
    assert found is not None, out
    return found.group(1)


async def test_arena_daily_refuses_to_overwrite_an_unreadable_file_of_commitments(revealed_day: Day) -> None:
    path = file_for(revealed_day.after.url)
    path.parent.mkdir(parents=True)
    path.write_text("{}")
    code, out = await revealed_day.arena_daily()
    assert code == 1 and out.startswith("error: the kept commitments cannot be read: ") and "move it aside" in out, out
    assert path.read_text() == "{}"
