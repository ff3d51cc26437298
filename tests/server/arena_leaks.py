"""The leak scan: what a frame shown to anyone but a secret deal's player
may hold (counts, names, ids, times) and may not (a card code, a pile's
name, a move played), read from the frames as they travelled."""

from __future__ import annotations

import json
import re
from typing import Any

import msgpack

from engine.cards import CODE

CARD_CODE = re.compile(r"^[A2-9TJQK][SHDC]b?[<>]?$")
STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def decoded(raw: list[bytes | str]) -> list[dict[str, Any]]:
    """Frames as sent, in either codec, as plain values."""
    return [json.loads(frame) if isinstance(frame, str) else msgpack.unpackb(frame, raw=False) for frame in raw]


def assert_counts_only(frames: list[dict[str, Any]], piles: set[str], played: set[str]) -> None:
    """No string in any frame is a card code, a pile of the board or a move played."""
    cards = {code for code in CODE if code}
    for frame in frames:
        strings = set(STRING.findall(json.dumps(frame)))
        assert not {text for text in strings if CARD_CODE.match(text)} and not strings & cards, frame
        assert not strings & piles, f"a frame names a pile: {strings & piles}"
        assert not strings & played, f"a frame names a move: {strings & played}"
