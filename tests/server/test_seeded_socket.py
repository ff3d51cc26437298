"""A server behind real sockets can be seeded too: ``ArenaServer`` hands
its ``entropy`` to the hub, so the ids and tokens a client is given are
the seed's (``server.runtime.entropy``)."""

from __future__ import annotations

from tests.server.arena_servers import make_settings
from tests.server.arena_wire import WireClient

from server.runtime.entropy import SeededEntropy
from server.storage.memory import MemoryStore
from server.transport.app import ArenaServer


async def _first_player(seed: int) -> tuple[str, str]:
    """The player id and token of a new server's first player."""
    async with ArenaServer(make_settings(), store=MemoryStore(), entropy=SeededEntropy(seed)) as server:
        client = await WireClient.open(server.url)
        try:
            welcome = await client.hello(name="ann")
        finally:
            await client.close()
    return welcome.player_id, welcome.token


async def test_a_seeded_server_gives_the_seeds_player_id_and_token() -> None:
    first = await _first_player(7)
    assert await _first_player(7) == first
    other = await _first_player(8)
    assert other[0] != first[0] and other[1] != first[1], "another seed, other values: the comparison can fail"
