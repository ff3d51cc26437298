"""Checking a revealed ranked deal with nothing but the public engine.

A daily deal (and a winnable race's) is a secret seed until its reveal;
the server publishes ``sha256("GAME/VARIANT/DATE/SEED/NONCE")`` before
anyone plays and, after the day, the seed, the nonce and its winning
line.  ``reveal_problems`` redoes all three checks a sceptic would: the
commitment, the layout dealt from the seed by the public generator, and
the line replayed through the checked engine to a win.  It trusts
nothing the server says beyond the revealed values themselves.
"""

from __future__ import annotations

import hashlib

import engine
from protocol import to_client as tc


def daily_proof(deal: tc.DailyDeal) -> str:
    """The text whose sha256 the commitment is."""
    return f"{deal.game}/{deal.variant}/{deal.date}/{deal.seed}/{deal.nonce}"


def reveal_problems(deal: tc.DailyDeal) -> list[str]:
    """What does not hold of a revealed deal (empty: it verifies)."""
    if deal.seed is None or deal.nonce is None or deal.line is None:
        return ["not revealed yet"]
    problems = []
    if hashlib.sha256(daily_proof(deal).encode()).hexdigest() != deal.commitment:
        problems.append("the commitment does not match the seed and nonce")
    game = engine.seeded_game(deal.game, int(deal.seed, 16), **deal.options)
    for number, move in enumerate(deal.line, start=1):
        try:
            game.play(move)
        except engine.EngineError as error:
            problems.append(f"move {number} ({move}) of the winning line is illegal: {error.message}")
            break
    else:
        if game.status != engine.WON:
            problems.append(f"the winning line ends {game.status}, not won")
    return problems
