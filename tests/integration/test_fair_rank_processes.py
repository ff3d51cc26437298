"""The second-identity replay over real sockets: on one server, and on two
``arena serve`` processes sharing a real Redis.

Identity A starts the ranked daily on the first server, looks and
resigns; the winning line is then known (read here from the day's record
in the store, standing in for the offline solve).  On the second server,
from the same address (every client here is on loopback), a fresh
identity B and an identity C created two days earlier replay it as fast
as the server answers.  Both end off the public board, with their
reasons in ``game_started`` and ``game_over``; the public board stays
empty; the bots' board holds both wins.  Broken Deck and WordLink, each
way round between the two codecs.  The server's real clock: the rules
read the times in the log, never a time the client sends.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from tests.integration.arena_processes import ClientOpener, ServerStarter, WireClient
from tests.server.arena_servers import aged_token, make_settings

import engine
from protocol import JSON_SUBPROTOCOL, MSGPACK_SUBPROTOCOL
from protocol import to_server as ts
from server.transport.app import ArenaServer
from server.deals.daily import RECORD_KIND, DailyRecord, utc_day
from server.storage.base import Store
from server.storage.memory import MemoryStore
from server.storage.redis import RedisStore
from server.deals.variants import variant_label

GAMES = [("broken-deck", {"difficulty": "relaxed"}), ("klondike", {"draw": 1})]
CODECS = [(JSON_SUBPROTOCOL, MSGPACK_SUBPROTOCOL), (MSGPACK_SUBPROTOCOL, JSON_SUBPROTOCOL)]
PROOF_SECONDS = 300.0
"""Bounds a hang only: the first daily request proves the day's deal."""


async def _known_line(store: Store, game: str, options: dict[str, Any]) -> list[str]:
    """Today's winning line, from the day's record in the store."""
    game_cls = engine.game_class(game)
    variant = variant_label(game_cls, engine.new_game(game, game_cls.FIRST_DEAL, **options).options)
    today = utc_day(time.time_ns() // 1_000_000).isoformat()
    stored = await store.get_setting(f"{RECORD_KIND}/{game}/{variant}/{today}")
    assert stored is not None, "the day's record is fixed once the daily is dealt"
    return list(DailyRecord.from_dict(json.loads(stored)).line)


async def _start(client: WireClient, game: str, options: dict[str, Any]) -> Any:
    started = await client.request(ts.NewGame, PROOF_SECONDS, game=game, deal="daily", options=options)
    assert started.type == "game_started" and started.ranked, started
    return started


async def _replay(client: WireClient, game: str, options: dict[str, Any], line: list[str]) -> tuple[Any, Any]:
    """Start the ranked daily and play ``line`` at once; then, on the same
    connection (so after the win is settled: a connection's requests are
    answered in order), check that the public page holds nothing of it
    and tells this player where the win went."""
    started = await _start(client, game, options)
    for move in line:
        reply = await client.request(ts.Move, game_id=started.game_id, move=move)
        assert reply.type == "diff", reply
    over = await client.wait_for(lambda m: m.type == "game_over" and m.game_id == started.game_id)
    assert over.result == "won"
    public = await client.request(ts.Leaderboard, game=game, options=options)
    assert public.type == "leaderboard" and public.entries == [] and public.unranked == [], public
    assert public.me_unranked is not None and public.me_unranked.reason == "cadence", public
    return started, over


async def second_identity_replay(
    first_url: str, second_url: str, store: Store, game: str, options: dict[str, Any], codecs: tuple[str, str],
    open_client: ClientOpener,
) -> None:
    """The attack, and what each identity is told; see the module docstring."""
    looker = await open_client(first_url, codecs[0])
    await looker.hello(name="looker")
    looked = await _start(looker, game, options)
    assert looked.unlisted == ["new_player"], "the look takes the address's public place"
    await looker.request(ts.Resign, game_id=looked.game_id)
    line = await _known_line(store, game, options)

    fresh = await open_client(second_url, codecs[1])
    await fresh.hello(name="fresh")
    started, over = await _replay(fresh, game, options, line)
    assert started.unlisted == ["same_network", "new_player"]
    assert over.unlisted == ["cadence", "same_network", "new_player"]

    aged = await open_client(second_url, codecs[1])
    await aged.hello(token=await aged_token(store, "aged"))
    started, over = await _replay(aged, game, options, line)
    assert started.unlisted == ["same_network"]
    assert over.unlisted == ["cadence", "same_network"]

    bots = await aged.request(ts.Leaderboard, game=game, options=options, bots=True)
    assert bots.type == "leaderboard" and sorted(entry.name for entry in bots.entries) == ["aged", "fresh"]


@pytest.mark.parametrize("codecs", CODECS)
@pytest.mark.parametrize("game, options", GAMES)
async def test_the_second_identity_replay_on_one_server_ends_off_the_public_board(
    clients: ClientOpener, game: str, options: dict[str, Any], codecs: tuple[str, str]
) -> None:
    store = MemoryStore()
    async with ArenaServer(make_settings(), store=store) as running:
        await second_identity_replay(running.url, running.url, store, game, options, codecs, clients)


@pytest.mark.redis
@pytest.mark.parametrize("codecs", CODECS)
@pytest.mark.parametrize("game, options", GAMES)
async def test_the_second_identity_replay_across_two_processes_ends_off_the_public_board(
    own_redis_server: Any, arena_processes: ServerStarter, clients: ClientOpener,
    game: str, options: dict[str, Any], codecs: tuple[str, str],
) -> None:
    first, second = await arena_processes(own_redis_server.url), await arena_processes(own_redis_server.url)
    store = RedisStore(own_redis_server.url)
    try:
        await second_identity_replay(first.url, second.url, store, game, options, codecs, clients)
    finally:
        await store.close()
