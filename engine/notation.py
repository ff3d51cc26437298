"""Position notation: a plain-text form of a whole game, both ways.

Used for tests, practice positions and bug reports (it includes face-down
cards, so it is a server-side format: never send it to a player).  The
format, specified in ``docs/notation.md``::

    klondike deal=17 draw=3 scoring=standard
    moves=12 score=35
    s: [4H 5D 6C]
    w: 7S 8H
    fs: AS 2S
    t1: [3D 4C] 5H 4S

Line one: the game id, the deal and every option.  Line two: the counters
that undo restores and the game's extra state fields.  Then one line per
pile, bottom card first; cards in square brackets are face down and always
come first.  Blank lines and lines starting with ``#`` are ignored.
"""

from __future__ import annotations

from typing import Any

from .errors import BadNotation
from .game import Game, Position


def _parse_value(text: str) -> Any:
    lowered = text.lower()
    if lowered == "none":
        return None
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered.lstrip("-").isdigit():
        return int(lowered)
    return text


def _pairs(line: str) -> dict[str, str]:
    result = {}
    for token in line.split():
        key, sep, value = token.partition("=")
        if not sep or not key:
            raise BadNotation(f"expected key=value, got {token!r}")
        result[key] = value
    return result


def from_text(registry: dict[str, type[Game]], text: str) -> Game:
    """A game whose position (and position counters) are read from ``text``.

    The writer is ``Game.to_text``. Restart from such a game returns to this position: practice positions
    are built this way.
    """
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]
    if len(lines) < 2:
        raise BadNotation("a position needs a header line, a state line and its piles")
    game_id, _, rest = lines[0].partition(" ")
    if game_id not in registry:
        raise BadNotation(f"unknown game {game_id!r}; games are: {', '.join(registry)}")
    header = {k: _parse_value(v) for k, v in _pairs(rest).items()}
    deal = header.pop("deal", 1)
    game = registry[game_id](deal, **header)
    state = _pairs(lines[1])
    piles: dict[str, list[str]] = {}
    down: dict[str, int] = {}
    for line in lines[2:]:
        name, sep, body = line.partition(":")
        name = name.strip()
        if not sep:
            raise BadNotation(f"expected 'pile: cards', got {line!r}")
        if name in piles:
            raise BadNotation(f"pile {name!r} is given twice")
        body = body.strip()
        hidden: list[str] = []
        if body.startswith("["):
            closing = body.find("]")
            if closing < 0:
                raise BadNotation(f"pile {name!r}: '[' without ']'")
            hidden = body[1:closing].split()
            body = body[closing + 1 :]
        elif "[" in body or "]" in body:
            raise BadNotation(f"pile {name!r}: face-down cards must come first")
        piles[name] = hidden + body.split()
        down[name] = len(hidden)
    try:
        position = game.position_from_piles(piles, down)
        aux = tuple(int(state.pop(field)) for field in game.AUX_FIELDS)
        moves = int(state.pop("moves", "0"))
        score = int(state.pop("score", "0"))
    except KeyError as missing:
        raise BadNotation(f"the state line lacks {missing.args[0]}=") from None
    except ValueError as error:
        raise BadNotation(str(error)) from None
    if state:
        raise BadNotation(f"unknown state field {sorted(state)[0]!r}")
    game.load_position(Position(position.piles, position.down, aux), moves=moves, score=score)
    return game
