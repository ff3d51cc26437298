"""What the server tells of a player's presence: online, away or offline
(with when it was last seen), and what it is doing.  Only a player's
friends are told (``docs/social.md``, "Presence").

An activity says no more than anyone may know of the game: a casual
game's id (to watch it), a race's id, and for an attempt at a daily deal
only that it is one, never its id, cards or progress, since its deal is
secret until the day is revealed (``docs/protocol.md``, "Fair play").
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .parts import Event, Part, empty
from .to_server import GameId, RaceId

PresenceState = Literal["online", "away", "offline"]
ActivityKind = Literal["lobby", "game", "daily", "race"]


class Activity(Part):
    """What an online (or away) player is doing: ``lobby`` (nothing in
    particular), ``game`` (a casual game: ``game_id`` is the one to
    ``watch``), ``daily`` (an attempt at today's daily deal: ``game`` only)
    or ``race`` (``race_id`` is the race to ``watch_race``)."""

    kind: ActivityKind
    game: str | None = Field(default=None, exclude_if=empty, description="the game's name, e.g. klondike")
    game_id: GameId | None = Field(default=None, exclude_if=empty)
    race_id: RaceId | None = Field(default=None, exclude_if=empty)


class PlayerPresence(Part):
    """One player's presence.  ``last_seen`` (ms since the epoch) only for
    ``offline``, and null for a player never seen; ``activity`` only for
    ``online`` and ``away``."""

    player_id: str
    state: PresenceState
    last_seen: int | None = Field(default=None, exclude_if=empty)
    activity: Activity | None = Field(default=None, exclude_if=empty)


class Presence(PlayerPresence, Event):
    """A friend's presence changed (sent unasked, to each of its friends'
    connections; several changes within a moment arrive as one)."""

    type: Literal["presence"] = "presence"


class Presences(Event):
    """Reply to ``friends_presence``: each friend's presence, and whether
    you appear offline yourself."""

    type: Literal["presences"] = "presences"
    players: list[PlayerPresence]
    appear_offline: bool
