"""What a lobby shows before a game is dealt: the ``catalogue`` reply,
one entry a game with its options, deal kinds and counters.  Kept apart
from the messages of a game in play, which never refer to it."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .parts import Event, Part


class CatalogueChoice(Part):
    """One choice of a lobby option: the value to send, the words to show."""

    value: bool | int | str
    label: str


class CatalogueOption(Part):
    """An option a lobby offers: a ``toggle`` (``true``/``false``) or one of
    ``choices``.  Options a lobby does not offer keep their defaults."""

    name: str
    label: str
    toggle: bool
    choices: list[CatalogueChoice]


class CatalogueCounter(Part):
    """Something a game counts besides moves and cards home, shown in a
    racer's row and on the board: ``name`` is its key in ``counters``
    (a racer's, a snapshot's), ``out_of`` its total if it has one."""

    name: str
    label: str
    out_of: int | None


class CatalogueGame(Part):
    """What a lobby shows of one game before it is dealt."""

    game: str
    title: str
    blurb: str
    cards: int = Field(description="how many cards go home: the total of `foundation`")
    first_deal: int
    last_deal: int | None = Field(
        description="the last numbered deal; null where deals run past what every client reads exactly (2^53 - 1)"
    )
    deal_kinds: list[str] = Field(description="the `deal` kinds a lobby offers for it, of random, winnable, daily, number")
    choose_random_deal: bool = Field(description="a client may pick a random deal's number itself (every card is face up)")
    options: list[CatalogueOption]
    changeable: list[str] = Field(description="options a player may change during a game (a restart with them)")
    counters: list[CatalogueCounter]
    daily_variants: int = Field(description="how many daily deals it has each day")
    automatic: list[str] = Field(
        default_factory=list,
        description="options that make the game move cards by itself: refused on (`unavailable`, reason `ranked`) "
        "in a ranked daily attempt and in races, so a client sends them off there",
    )


class CatalogueReply(Event):
    """Reply to ``catalogue``: every game this server offers, in the
    lobby's order."""

    type: Literal["catalogue"] = "catalogue"
    games: list[CatalogueGame]
