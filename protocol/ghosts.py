"""Ghost races: another player's finished ranked daily attempt, raced
beside your own as counts.

A ghost is a player's ranked attempt at the same day's deal of the same
variant, already finished, reduced to what ``progress`` shows of a
secret deal: cards home, counted actions and its state, at each offset
from that player's first snapshot.  It never names a card, a pile or a
move.

``race_ghost`` asks for one during your own ranked daily attempt (named
by its ``game_id``): a friend by ``player_id``, or the day's leader with
``leader``.  The reply (``ghost``) is the ghost as it stood at your
attempt's clock; the server then pushes ``ghost_update`` each time the
ghost's counts change at the same offset from your first snapshot, at
most once a second per ghost, until its attempt's end (its last
update), your attempt's end, ``stop_ghost`` or the connection's close.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from .parts import Event, Owner, Part, Status
from .request import PlayerId, Request

AttemptId = Annotated[
    str, Field(min_length=1, max_length=64, description="the game id of your ranked daily attempt, from game_started")
]


class RaceGhost(Request):
    """Race a ghost beside your ranked daily attempt ``game_id``, which you
    are playing: a friend's finished attempt at the same daily
    (``player_id``), or the day's leader's (``leader``).  Asking again for
    a ghost you race starts it again from your clock."""

    type: Literal["race_ghost"] = "race_ghost"
    game_id: AttemptId
    player_id: PlayerId | None = None
    leader: bool = False

    @model_validator(mode="after")
    def _one_ghost(self) -> RaceGhost:
        if (self.player_id is None) == (not self.leader):
            raise ValueError("give player_id or leader, one of them")
        return self


class StopGhost(Request):
    """Stop racing the ghost of ``player_id`` beside ``game_id``, or every
    ghost of that attempt without ``player_id``.  Replied with ``ack``."""

    type: Literal["stop_ghost"] = "stop_ghost"
    game_id: AttemptId
    player_id: PlayerId | None = None


class Ghost(Part):
    """A ghost at one offset: counts only."""

    player: Owner
    leader: bool = Field(description="raced as the day's leader (the first of the public board)")
    offset_ms: int = Field(description="the ghost's clock: ms since its first snapshot, and yours")
    cards_home: int = Field(description="cards on the foundations")
    actions: int = Field(description="moves, undos, redos and restarts")
    state: Status = Field(description="playing, or how its attempt ended")


class GhostReply(Event):
    """Reply to ``race_ghost``: the ghost as it stands at your attempt's
    clock (``offset_ms``), never further."""

    type: Literal["ghost"] = "ghost"
    game_id: str
    ghost: Ghost
    server_time: int


class GhostUpdate(Event):
    """A raced ghost's counts changed at your attempt's clock; an update
    whose ``state`` is not ``playing`` is that ghost's last."""

    type: Literal["ghost_update"] = "ghost_update"
    game_id: str
    ghost: Ghost
    server_time: int
