"""The ``catalogue``: every registered game as its descriptor declares it,
over both codecs, to anyone (no ``hello`` needed)."""

from __future__ import annotations

from tests.server.arena_memory import MemoryArena

from engine.games import DESCRIPTORS
from protocol import to_server as ts


async def test_the_catalogue_lists_every_game_as_its_descriptor_declares(arena: MemoryArena, subprotocol: str) -> None:
    anonymous = await arena.client(subprotocol)
    reply = await anonymous.request(ts.Catalogue)
    assert reply.type == "catalogue"
    assert [entry.game for entry in reply.games] == list(DESCRIPTORS)
    by_game = {entry.game: entry for entry in reply.games}
    broken = by_game["broken-deck"]
    assert (broken.title, broken.cards, broken.first_deal, broken.last_deal) == ("Broken Deck", 52, 1, 1000)
    assert broken.deal_kinds == ["random", "daily", "number"] and broken.choose_random_deal
    assert [(c.name, c.label, c.out_of) for c in broken.counters] == [("repairs", "Repairs", 6)]
    assert broken.changeable == ["difficulty"] and broken.daily_variants == 3
    difficulty, practice = broken.options
    assert [choice.value for choice in difficulty.choices] == ["relaxed", "standard", "challenge"]
    assert practice.toggle and practice.choices == []
    wordlink = by_game["klondike"]
    assert wordlink.last_deal is None, "deals past 2^53 - 1 are not a bound a browser can read exactly"
    assert wordlink.counters == [] and wordlink.deal_kinds == ["random", "winnable", "daily", "number"]
    assert by_game["chequers"].cards == by_game["laras-game"].cards == 104
    automatic = {entry.game: entry.automatic for entry in reply.games}
    assert automatic == {"klondike": ["auto_collect"], "broken-deck": [], "laras-game": ["autoplay"], "chequers": []}
