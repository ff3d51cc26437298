"""Cards as small integers, with table look-ups for their properties.

A card is an ``int`` so that positions are tuples of ints: cheap to copy,
hash and compare, which is what undo-by-snapshot and the solver's
transposition table need.  The encoding is::

    card = part * 128 + deck * 64 + suit * 16 + rank

``rank`` is 1 (Ace) to 13 (King), ``suit`` indexes ``SUITS`` ("SHDC"),
``deck`` is 0 or 1 (two-deck games), ``part`` is 0 for a whole card and
1 or 2 for the left or right half of a torn card (Broken Deck).

The text code of a card is ``rank suit [b] [<|>]``: ``7H`` is the seven of
hearts, ``7Hb`` its twin from the second deck, ``QS<`` and ``QS>`` the two
halves of a torn queen of spades.  Codes are stable ids: two cards with
the same rank and suit always have different codes.
"""

from __future__ import annotations

from typing import Final

RANKS: Final = "A23456789TJQK"
SUITS: Final = "SHDC"
SUIT_SYMBOLS: Final = "♠♥♦♣"
RED_SUITS: Final = frozenset({1, 2})
HALF_MARKS: Final = ("", "<", ">")

WHOLE: Final = 0
LEFT_HALF: Final = 1
RIGHT_HALF: Final = 2

_TABLE_SIZE: Final = 3 * 128


def make_card(rank: int, suit: int, deck: int = 0, part: int = WHOLE) -> int:
    """Encode a card; ranks run 1..13 and suits index ``SUITS``."""
    if not (1 <= rank <= 13 and 0 <= suit <= 3 and deck in (0, 1) and part in (0, 1, 2)):
        raise ValueError(f"no such card: rank={rank} suit={suit} deck={deck} part={part}")
    return part * 128 + deck * 64 + suit * 16 + rank


RANK = [0] * _TABLE_SIZE
SUIT = [0] * _TABLE_SIZE
DECK = [0] * _TABLE_SIZE
PART = [0] * _TABLE_SIZE
RED = [False] * _TABLE_SIZE
CODE = [""] * _TABLE_SIZE
_BY_CODE: dict[str, int] = {}

for _part in (WHOLE, LEFT_HALF, RIGHT_HALF):
    for _deck in (0, 1):
        for _suit in range(4):
            for _rank in range(1, 14):
                _card = make_card(_rank, _suit, _deck, _part)
                RANK[_card] = _rank
                SUIT[_card] = _suit
                DECK[_card] = _deck
                PART[_card] = _part
                RED[_card] = _suit in RED_SUITS
                _code = RANKS[_rank - 1] + SUITS[_suit] + ("b" if _deck else "") + HALF_MARKS[_part]
                CODE[_card] = _code
                _BY_CODE[_code] = _card


def whole(card: int) -> int:
    """The whole card a half belongs to (a whole card maps to itself)."""
    return card & 127


def other_half(card: int) -> int:
    """The matching half of a torn card."""
    return (card & 127) + (256 if PART[card] == LEFT_HALF else 128)


def parse_card(code: str) -> int:
    """The card with this text code; raises ``ValueError`` for anything else.

    Lower-case rank and suit letters are accepted (``"th"``), and so is
    ``10`` for ten, because that is what people type.
    """
    text = code.strip()
    if text[:2] == "10":
        text = "T" + text[2:]
    if len(text) >= 2:
        text = text[0].upper() + text[1].upper() + text[2:]
    card = _BY_CODE.get(text)
    if card is None:
        raise ValueError(f"{code!r} is not a card (expected e.g. 7H, TS, QDb, KC<)")
    return card


def describe(card: int) -> str:
    """A human description for error sentences: ``"the 7♥"``, ``"the left half of the Q♠"``."""
    name = RANKS[RANK[card] - 1].replace("T", "10") + SUIT_SYMBOLS[SUIT[card]]
    if PART[card] == LEFT_HALF:
        return f"the left half of the {name}"
    if PART[card] == RIGHT_HALF:
        return f"the right half of the {name}"
    return f"the {name}"


def full_deck(decks: int = 1) -> list[int]:
    """Every whole card of ``decks`` standard 52-card decks, in a fixed order."""
    return [make_card(rank, suit, deck) for deck in range(decks) for suit in range(4) for rank in range(1, 14)]
