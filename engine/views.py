"""Diffs between two views, and applying them.

Diffs are computed from views, never from positions: a view holds no
face-down card, so a diff cannot leak one, by construction.  Two kinds of
operation are enough for every game:

``{"op": "pile", "pile": NAME, "keep": K, "down": D, "add": [CODES]}``
    the pile now has ``D`` face-down cards and its face-up cards are the
    first ``K`` it had, followed by ``add``.  A move from t3 to t5 is two
    such operations; a flip is ``keep 0`` with one fewer face-down card.

``{"op": "set", "key": KEY, "value": VALUE}``
    any other top-level field of the view changed (or appeared); a field
    that disappears is set to ``None``.
"""

from __future__ import annotations

import copy
from typing import Any

ViewOp = dict[str, Any]


def _common_prefix(old: list[str], new: list[str]) -> int:
    limit = min(len(old), len(new))
    i = 0
    while i < limit and old[i] == new[i]:
        i += 1
    return i


def diff(old_view: dict[str, Any], new_view: dict[str, Any]) -> list[ViewOp]:
    """The operations that turn ``old_view`` into ``new_view``."""
    ops: list[ViewOp] = []
    old_piles = old_view.get("piles", {})
    for name, pile in new_view.get("piles", {}).items():
        before = old_piles.get(name)
        if before is pile or before == pile:
            continue
        same_down = before is not None and before["down"] == pile["down"]
        keep = _common_prefix(before["up"], pile["up"]) if same_down else 0
        ops.append({"op": "pile", "pile": name, "keep": keep, "down": pile["down"], "add": pile["up"][keep:]})
    for key in new_view.keys() | old_view.keys():
        if key == "piles":
            continue
        value = new_view.get(key)
        if old_view.get(key) != value:
            ops.append({"op": "set", "key": key, "value": value})
    return ops


def apply_diff(view: dict[str, Any], ops: list[ViewOp]) -> dict[str, Any]:
    """A new view with ``ops`` applied (the input is not changed).

    Clients mirror a game with this; a ``KeyError`` or ``ValueError`` here
    means the client missed a diff and should ask for a resync.
    """
    result = copy.deepcopy(view)
    piles = result.setdefault("piles", {})
    for op in ops:
        kind = op.get("op")
        if kind == "pile":
            pile = piles.setdefault(op["pile"], {"down": 0, "up": []})
            keep = op["keep"]
            if keep > len(pile["up"]):
                raise ValueError(f"diff keeps {keep} cards of {op['pile']}, which has {len(pile['up'])}")
            pile["up"] = pile["up"][:keep] + list(op["add"])
            pile["down"] = op["down"]
        elif kind == "set":
            if op["value"] is None:
                result.pop(op["key"], None)
            else:
                result[op["key"]] = op["value"]
        else:
            raise ValueError(f"unknown diff operation {kind!r}")
    return result
