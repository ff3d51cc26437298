"""A relay skips the messages its own process published by their first
bytes (``comes_from``), and passes on every other process's, whatever
the length of the message or of the origins."""

from __future__ import annotations

import asyncio

import msgpack
import pytest
from tests.server.arena_wire import WAIT_SECONDS

from server.games.relay import ENTRY, Relay, comes_from, pack
from server.storage.memory import MemoryStore

ORIGIN = "0123456789abcdef"


@pytest.mark.parametrize("fields", [[], [1, "move", "draw", 5], list(range(20)), list(range(70_000))])
def test_a_payload_comes_from_the_origin_that_packed_it_and_no_other(fields: list[int]) -> None:
    payload = pack(ORIGIN, ENTRY, fields)
    assert comes_from(payload, msgpack.packb(ORIGIN))
    for other in ("fedcba9876543210", ORIGIN[:-1], ORIGIN + "0", ""):
        assert not comes_from(payload, msgpack.packb(other))


@pytest.mark.parametrize("payload", [b"", b"\xc1", msgpack.packb(ORIGIN), msgpack.packb({ORIGIN: ENTRY})])
def test_what_is_no_array_comes_from_nobody(payload: bytes) -> None:
    assert not comes_from(payload, msgpack.packb(ORIGIN))


async def test_a_relay_passes_on_the_other_processes_messages_only() -> None:
    store = MemoryStore()
    heard: list[tuple[str, str, list[object]]] = []
    last = asyncio.Event()

    async def on_message(key: str, kind: str, fields: list[object]) -> None:
        heard.append((key, kind, fields))
        if fields == ["last"]:
            last.set()

    async def on_resume(key: str) -> None:
        raise AssertionError(f"{key} resumed without an outage")

    relay = Relay(store, ORIGIN, "game", on_message, on_resume)
    relay.follow("g1", await relay.subscribe("g1"))
    for origin, fields in ((ORIGIN, ["own"]), ("another", ["first"]), (ORIGIN, ["own again"]), ("another", ["last"])):
        await store.publish("game:g1", pack(origin, "progress", fields))
    await asyncio.wait_for(last.wait(), WAIT_SECONDS)
    await relay.close()
    await store.close()
    assert heard == [("g1", "progress", ["first"]), ("g1", "progress", ["last"])]
