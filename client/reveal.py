"""Checking a revealed ranked deal with nothing but the public engine.

A daily deal (and a winnable race's) is a secret seed until its reveal;
the server publishes ``sha256("GAME/VARIANT/DATE/SEED/NONCE")`` (a
race: ``sha256("race/RACE_ID/SEED/NONCE")``) before anyone plays and,
after the day (the race), the seed, the nonce and its winning line.
``reveal_problems`` (``race_reveal_problems``) redoes all three checks a
sceptic would: the commitment, the layout dealt from the seed by the
public generator, and the line replayed through the checked engine to a
win.  It trusts nothing the server says beyond the revealed values
themselves.
"""

from __future__ import annotations

import hashlib

import engine
from protocol import to_client as tc


def daily_proof(deal: tc.DailyDeal) -> str:
    """The text whose sha256 the commitment is."""
    return f"{deal.game}/{deal.variant}/{deal.date}/{deal.seed}/{deal.nonce}"


def race_proof(info: tc.RaceInfo) -> str:
    """The text whose sha256 a winnable race's commitment is."""
    return f"race/{info.race_id}/{info.seed}/{info.nonce}"


def reveal_problems(deal: tc.DailyDeal) -> list[str]:
    """What does not hold of a revealed daily deal (empty: it verifies)."""
    return _problems(deal.game, deal.options, deal.seed, deal.nonce, deal.line, deal.commitment, daily_proof(deal))


def race_reveal_problems(info: tc.RaceInfo) -> list[str]:
    """What does not hold of a finished winnable race's reveal."""
    return _problems(info.game, info.options, info.seed, info.nonce, info.line, info.commitment, race_proof(info))


def verdict(problems: list[str]) -> str:
    """A reveal's problems as one line, or what was checked when there are none."""
    return "; ".join(problems) if problems else "verified: commitment, layout from the seed, winning line replayed"


def _problems(
    game_id: str, options: dict[str, object], seed: str | None, nonce: str | None, line: list[str] | None,
    promised: str | None, proof: str,
) -> list[str]:
    if seed is None or nonce is None or line is None:
        return ["not revealed yet"]
    problems = []
    if hashlib.sha256(proof.encode()).hexdigest() != promised:
        problems.append("the commitment does not match the seed and nonce")
    game = engine.seeded_game(game_id, int(seed, 16), **options)
    for number, move in enumerate(line, start=1):
        try:
            game.play(move)
        except engine.EngineError as error:
            problems.append(f"move {number} ({move}) of the winning line is illegal: {error.message}")
            break
    else:
        if game.status != engine.WON:
            problems.append(f"the winning line ends {game.status}, not won")
    return problems
