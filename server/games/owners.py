"""Players as other players see them: an id and a display name, or the id
again once the identity is gone (``Retention``).  Every list that names
people (live games, boards, leagues, friends' news) reads their names
here, all of a list's in one store call however long it is."""

from __future__ import annotations

from protocol import to_client as tc
from server.storage.base import Store


async def owners_of(store: Store, player_ids: list[str]) -> list[tc.Owner]:
    """Each player of ``player_ids`` as others see them, in order."""
    players = await store.get_players(player_ids)
    return [tc.Owner(player_id=player_id, name=players[player_id].display_name if player_id in players else player_id)
            for player_id in player_ids]


async def owner_of(store: Store, player_id: str) -> tc.Owner:
    """One player as others see them (``owners_of``)."""
    return (await owners_of(store, [player_id]))[0]
