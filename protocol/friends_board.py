"""The friends' board of a daily variant: you and your friends on one day.

Each row is a player and their ranked attempt at the day's deal:
``finished`` (its result, time and actions, and a place among the
friends who won), ``playing`` (counts only: cards home, the game's own
counters, actions, the clock) or ``not_started``.  A row never names a
card, a pile or a move, whether or not the deal has been revealed: it is
what the fair-play rules let anyone see of a daily attempt before the
reveal (the ``progress`` message).

``friends_board`` answers with the rows and, with ``watch``, keeps the
connection watching that board: each change of a row then arrives as
``friends_board_update`` (a start and a finish at once, progress at most
once a second per player).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from .parts import Event, Owner, Part, Result
from .request import GameName, Options, Request

IsoDay = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="a UTC date, YYYY-MM-DD")]
AttemptState = Literal["finished", "playing", "not_started"]


class FriendsBoard(Request):
    """The friends' board of a day's daily variant (``options`` pick the
    variant, as for ``leaderboard``; ``date`` defaults to today).
    ``watch`` keeps this connection told of each change of a row until it
    asks for another board, or with ``watch`` false."""

    type: Literal["friends_board"] = "friends_board"
    game: GameName
    options: Options = Field(default_factory=dict)
    date: IsoDay | None = None
    watch: bool = True


class FriendsBoardRow(Part):
    player: Owner
    me: bool = Field(False, description="this row is yours")
    state: AttemptState
    result: Result | None = Field(None, description="finished: won, lost, resigned or abandoned")
    place: int | None = Field(None, description="finished and won: the place among the friends who won (1 is best)")
    time_ms: int | None = Field(None, description="the attempt's clock: at its end, or so far")
    actions: int | None = Field(None, description="moves, undos, redos and restarts")
    cards_home: int | None = Field(None, description="cards on the foundations")
    counters: dict[str, int] = Field(default_factory=dict, description="the game's own counts, as the catalogue lists them")


class FriendsBoardReply(Event):
    """Reply to ``friends_board``: your row first, then your friends, the
    winners by place, then those playing, the other finishers and those
    not started."""

    type: Literal["friends_board"] = "friends_board"
    game: str
    title: str
    variant: str
    date: str
    rows: list[FriendsBoardRow]
    server_time: int


class FriendsBoardUpdate(Event):
    """A row of a watched friends' board changed.  ``place`` is left out
    (null) here: a finish can move other rows' places, so a client that
    shows places asks ``friends_board`` again when a row finishes."""

    type: Literal["friends_board_update"] = "friends_board_update"
    game: str
    variant: str
    date: str
    row: FriendsBoardRow
    server_time: int
