"""Deals of the unseen cards that agree with what a player sees.

A hint must not tell a player anything their board does not: searched
with perfect information, two games with the same board and different
face-down cards get different hints, and the difference leaks those
cards.  So a hint searches *determinizations* instead: positions built
from the public view alone (``Game.view()`` less its ``deal``), with the
cards the view does not show dealt at random into the places it shows as
face down (WordLink's stock and face-down columns, Lara's Game's stock,
Chequers' reserve).  Broken Deck shows every card, so its one
determinization is the position itself.

What the player saw earlier counts too, where it is still true: in
WordLink the stock is the waste turned over, so every waste seen before
tells the order of the stock's next cards (``stock_memory``).  Nothing
else hidden has ever been seen: face-down columns, Lara's Game's stock
and Chequers' reserve are turned up once and never hidden again.

The randomness comes from the view too: a SplitMix64 seeded with a hash
of the view's canonical JSON.  The same view therefore always gives the
same determinizations and the same hint, whatever the real hidden cards
are, which is what makes a hint leak-free and its tests deterministic.
"""

from __future__ import annotations

import json
from collections import Counter
from math import factorial, prod
from typing import Any, Iterable, NamedTuple

from ..cards import parse_card
from ..game import Game, Position
from ..games import GAMES
from ..games.klondike import STOCK, WASTE
from ..rng import SplitMix64, fnv1a64, shuffled

WORLDS = 8
"""Determinizations of one view by default; a hint asks for its game's
``Domain.HINT_WORLDS``, and the hint's node budget is shared between
them.  Each world's win is a candidate line, and each line is scored in
every world (``assist._vote``), so more worlds give both more lines to
choose from and a finer score: on WordLink draw 3 verified deals 101-150,
8 worlds won 23 where 4 won 20 and 12 won 22."""


class Visible(NamedTuple):
    """What a view shows, pile by pile in ``Game.PILES`` order: the face-up
    cards, how many cards lie face down beneath them, and the game's extra
    state fields (``Game.AUX_FIELDS``, which views show by name)."""

    up: tuple[tuple[int, ...], ...]
    down: tuple[int, ...]
    aux: tuple[int, ...]

    @property
    def hidden(self) -> int:
        return sum(self.down)


def public(view: dict[str, Any]) -> dict[str, Any]:
    """The view as a player's client holds it: without the ``deal`` number
    (the server never sends it while a game is live)."""
    return {key: value for key, value in view.items() if key != "deal"}


def view_seed(view: dict[str, Any]) -> int:
    """The 64-bit seed of a view's determinizations: FNV-1a of its canonical
    JSON, so equal views give equal seeds and nothing else enters."""
    return fnv1a64(json.dumps(public(view), sort_keys=True, separators=(",", ":")))


def model_game(view: dict[str, Any]) -> Game:
    """A fresh game of the view's kind and options, which knows no deal:
    the solver needs a ``Game`` for the rules, and this one's only link to
    the real game is the view."""
    cls = GAMES[view["game"]]
    return cls(cls.FIRST_DEAL, **view.get("options", {}))


def visible(game: Game, view: dict[str, Any]) -> Visible:
    """Parse ``view`` for ``game``'s piles."""
    piles = view["piles"]
    up = tuple(tuple(parse_card(code) for code in piles[name]["up"]) for name in game.PILES)
    down = tuple(int(piles[name]["down"]) for name in game.PILES)
    aux = tuple(int(view[field]) for field in game.AUX_FIELDS)
    return Visible(up, down, aux)


def faces(pos: Position) -> tuple[tuple[int, ...], ...]:
    """The face-up cards of each pile of ``pos``: what a view of it shows
    besides the face-down counts."""
    return tuple([cards[down:] for cards, down in zip(pos.piles, pos.down)])


def masked_key(pos: Position) -> Visible:
    """What a view of ``pos`` shows (two positions of one game with equal
    keys are the same position, since no hidden card moves without being
    turned up)."""
    return Visible(faces(pos), pos.down, pos.aux)


def unseen(game: Game, seen: Visible) -> list[int]:
    """The cards the view does not show, sorted: the game's full set of
    cards less every face-up card."""
    full = Counter(game.census(game.position))
    shown = Counter(card for cards in seen.up for card in cards)
    missing = full - shown
    return sorted(missing.elements())


def arrangements(cards: list[int]) -> int:
    """How many different orders ``cards`` can be dealt in (twins of a
    two-deck game are different cards, so this is usually ``len!``)."""
    return factorial(len(cards)) // prod(factorial(n) for n in Counter(cards).values())


def stock_memory(game: Game, seen: Visible, earlier: Iterable[tuple[tuple[int, ...], ...]]) -> tuple[int, ...]:
    """WordLink: the stock's next cards, top first, as far as the player
    saw them in ``earlier`` boards' face-up cards (other games: none).

    The talon (waste, then the stock from its top) keeps its order for the
    whole game: draws and turning the waste over only move the boundary,
    and cards only ever leave it.  So each waste seen before, less the
    cards that have left the talon since (they are face up elsewhere now),
    is a beginning of today's talon; the longest one tells the most."""
    if game.id != "klondike":
        return ()
    shown = {card for cards in seen.up for card in cards}
    waste = seen.up[WASTE]
    known = waste
    for piles in earlier:
        talon = tuple(card for card in piles[WASTE] if card not in shown or card in waste)
        if len(talon) > len(known) and talon[: len(waste)] == waste:
            known = talon
    return known[len(waste) : len(waste) + seen.down[STOCK]]


def determinizations(
    game: Game, view: dict[str, Any], count: int = WORLDS, earlier: Iterable[tuple[tuple[int, ...], ...]] = ()
) -> list[Position]:
    """Up to ``count`` different positions consistent with ``view`` and
    with the ``earlier`` boards' face-up cards (``faces``) (fewer when fewer
    orders of the unseen cards exist: one when the view decides everything).

    ``game`` gives the rules (pile names, the full set of cards); only the
    views decide the cards.  The unseen cards the player never saw are
    shuffled with the view's generator and dealt into the face-down places,
    piles in ``PILES`` order, each pile's face-down cards bottom first,
    below the stock cards remembered (``stock_memory``); a repeated deal is
    drawn again.
    """
    seen = visible(game, view)
    if not seen.hidden:
        return [Position(seen.up, seen.down, seen.aux)]
    hidden = unseen(game, seen)
    if len(hidden) != seen.hidden:
        raise ValueError(f"the view hides {seen.hidden} cards but {len(hidden)} are unseen")
    remembered = stock_memory(game, seen, earlier)
    on_top: list[tuple[int, ...]] = [()] * len(seen.up)
    if remembered:
        on_top[STOCK] = remembered[::-1]
        left = Counter(hidden) - Counter(remembered)
        hidden = sorted(left.elements())
    rng = SplitMix64(view_seed(view))
    wanted = min(count, arrangements(hidden))
    worlds: dict[Position, None] = {}
    while len(worlds) < wanted:
        order = iter(shuffled(hidden, rng))
        piles = tuple(
            tuple(next(order) for _ in range(down - len(top))) + top + up for up, down, top in zip(seen.up, seen.down, on_top)
        )
        worlds[Position(piles, seen.down, seen.aux)] = None
    return list(worlds)
