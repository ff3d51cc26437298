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
    """How many cards ``old`` and ``new`` start with alike.  A move adds
    cards to a pile or takes some off its top, so one list usually starts
    with the whole other, which a comparison in C finds."""
    limit = min(len(old), len(new))
    if old[:limit] == new[:limit]:
        return limit
    i = 0
    while i < limit and old[i] == new[i]:
        i += 1
    return i


def diff(old_view: dict[str, Any], new_view: dict[str, Any]) -> list[ViewOp]:
    """The operations that turn ``old_view`` into ``new_view``.

    Views of one game share the entries of the piles a move left alone
    (``Game.view``), so those are told apart by identity, and only the
    piles that may have changed are compared."""
    ops: list[ViewOp] = []
    old_piles = old_view.get("piles", {})
    new_piles = new_view.get("piles", {})
    for name, pile in new_piles.items():
        before = old_piles.get(name)
        if before is pile or before == pile:
            continue
        same_down = before is not None and before["down"] == pile["down"]
        keep = _common_prefix(before["up"], pile["up"]) if same_down else 0
        ops.append({"op": "pile", "pile": name, "keep": keep, "down": pile["down"], "add": pile["up"][keep:]})
    for key, value in new_view.items():
        if key != "piles" and old_view.get(key) != value:
            ops.append({"op": "set", "key": key, "value": value})
    for key, value in old_view.items():
        if key != "piles" and value is not None and key not in new_view:
            ops.append({"op": "set", "key": key, "value": None})
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
