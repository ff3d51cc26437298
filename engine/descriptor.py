"""A game's descriptor: everything the rest of the house knows of a game.

The rules are a ``Game`` subclass; the descriptor holds them beside the
facts other layers used to keep in tables of their own: the pools of
verified deals and the daily variants (``engine.solver.pools``,
``server.deals.daily``), the solver's domain, the counters a race table or a
progress line shows, and what a lobby says about the game.  One object per
game, declared in the game's module and held by the registry
(``engine.games``), so a new game is that module and one registry line:
every table is derived from the descriptors, and the server sends the
lobby's part to clients (the ``catalogue`` message).

The solver's domain is named, not imported (``"module:Class"``): the
solver is built on the rules, so a game's module cannot import it back;
``engine.solver.domains`` imports the name when a search first needs it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from .game import Game

DEAL_KINDS = ("random", "winnable", "daily", "number")
"""How a lobby may deal a game: any deal, a verified one, the day's, a typed number."""

RECORD_SUMS = ("games", "wins", "moves", "time_ms", "hints", "undos")
"""What every record sums of every game (``server/games/records.py``): a game's
own recorded counters take other names."""


@dataclass(frozen=True)
class PoolVariant:
    """A pool of verified deals: its name (``engine/data/<name>.txt``), the
    options its certificates are played with, and how many deals it is
    meant to hold.  Only options that change which moves are legal make a
    pool (WordLink's draw); scoring and switches share one."""

    name: str
    options: Mapping[str, Any]
    target: int


@dataclass(frozen=True)
class ProgressCounter:
    """A count everyone may see of a game in progress (a racer's row in a
    race), besides moves and the cards on the foundations, which every game
    has: ``name`` is the key in ``Game.counters``, ``out_of`` its total
    when it has one (Broken Deck's six repairs)."""

    name: str
    label: str
    out_of: int | None = None


@dataclass(frozen=True)
class LobbyOption:
    """An option a lobby offers: a toggle, or ``choices`` as (value, label)."""

    name: str
    label: str
    choices: tuple[tuple[Any, str], ...] = ()
    toggle: bool = False


@dataclass(frozen=True)
class Lobby:
    """What a lobby shows of a game before it is dealt.

    ``cards`` is how many cards go home (the board's and the race table's
    "cards home" total); ``changeable`` are the options a player may change
    during a game (a restart of the same deal with them); with
    ``choose_random_deal`` the client picks a random deal's number itself
    (every card is face up, so a number hides nothing)."""

    blurb: str
    cards: int
    deal_kinds: tuple[str, ...] = DEAL_KINDS
    options: tuple[LobbyOption, ...] = ()
    changeable: tuple[str, ...] = ()
    choose_random_deal: bool = False


@dataclass(frozen=True)
class GameDescriptor:
    """One game, whole; see the module docstring.

    ``daily`` lists the options of each daily variant (one secret deal per
    variant per day); ``domain`` is the solver's domain as
    ``"module:Class"``, or None for the generic search."""

    rules: type[Game]
    lobby: Lobby
    counters: tuple[ProgressCounter, ...] = ()
    pools: tuple[PoolVariant, ...] = ()
    daily: tuple[Mapping[str, Any], ...] = ()
    domain: str | None = None
    recorded: tuple[str, ...] = ()
    """Counters (keys of ``Game.counters``) summed in a player's records
    besides the sums every record has (``RECORD_SUMS``); the store keeps
    any name (``docs/storage.md``)."""

    def __post_init__(self) -> None:
        """Refuse a recorded name a record already sums, or one named twice:
        a record entry would show one count under two names, or count it twice."""
        names = self.recorded
        if len(set(names)) < len(names) or any(not name or name in RECORD_SUMS for name in names):
            raise ValueError(
                f"{self.id}: recorded counters must be distinct, non-empty and none of {', '.join(RECORD_SUMS)}; "
                f"got {', '.join(map(repr, self.recorded))}"
            )

    @property
    def id(self) -> str:
        return self.rules.id

    @property
    def title(self) -> str:
        return self.rules.title

    def pool_for(self, options: Mapping[str, Any]) -> PoolVariant | None:
        """The pool whose certificates are valid for a game with ``options``
        (unnamed options at their defaults), or None."""
        chosen = {option.name: options.get(option.name, option.default) for option in self.rules.OPTIONS}
        for pool in self.pools:
            if all(chosen.get(name) == value for name, value in pool.options.items()):
                return pool
        return None
