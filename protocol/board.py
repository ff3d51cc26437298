"""What a player sees of a board: the view of a game's piles, the
operations that turn one view into the next, and the game's clock.
``snapshot``, ``diff`` and ``replay`` carry them; kept apart from the
messages so a client that only draws a board reads one short module."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import ConfigDict, Field

from .parts import Part


class PileView(Part):
    """A pile as a player sees it: how many cards lie face down (their
    identity is never sent) and the face-up cards bottom to top."""

    down: int
    up: list[str]


class GameView(Part):
    """Everything a player may see of a game.  Games add a few fields of
    their own (e.g. a repair count), hence ``extra`` fields are allowed.
    The deal number is absent while the game is live (it would reveal the
    face-down cards); ``game_over`` tells it."""

    model_config = ConfigDict(extra="allow")

    game: str
    options: dict[str, Any]
    piles: dict[str, PileView]


class PileOp(Part):
    """The pile now has ``down`` face-down cards; its face-up cards are the
    first ``keep`` it had followed by ``add``."""

    op: Literal["pile"] = "pile"
    pile: str
    keep: int
    down: int
    add: list[str]


class SetOp(Part):
    """A top-level view field other than ``piles`` changed (``null``: removed)."""

    op: Literal["set"] = "set"
    key: str
    value: Any


ViewOp = Annotated[Union[PileOp, SetOp], Field(discriminator="op")]


class Clock(Part):
    """The server's clock for a game, in milliseconds since the Unix epoch.
    It starts at the first action and stops when the game ends; restart
    does not reset it.  ``elapsed_ms`` is as of the message."""

    started_ms: int | None
    finished_ms: int | None
    elapsed_ms: int


class ActionDone(Part):
    """What changed the game: ``kind`` (move, undo, redo, hint, restart,
    resign) and, for a move, its notation."""

    kind: str
    text: str
