"""Checking a revealed ranked deal with nothing but the public engine.

A daily deal (and a winnable race's) is a secret seed until its reveal;
the server publishes ``sha256("GAME/VARIANT/DATE/SEED/NONCE")`` (a
race: ``sha256("race/RACE_ID/SEED/NONCE")``) before anyone plays and,
after the day (the race), the seed, the nonce and its winning line.
It trusts nothing the server says beyond the revealed values themselves,
and checks everything a sceptic would:

- ``reveal_problems``: the variant is the one the options make (a
  commitment to "draw 1" over a deal dealt and won with draw 3 is not the
  contest that was played), the board is that game, variant and date, the
  commitment was made before the day began (by the server's own word,
  ``committed_ms``), the commitment is the hash of the seed and nonce, and
  the line replays from the seed's layout, through the checked engine, to
  a win;
- ``history_problems``: the commitment is the one this client saw
  *before the day* (``client.commitments``).  A server that computes a
  commitment at the reveal passes every check above; only a commitment
  kept before the day catches it.  A different one kept is a forgery; none
  kept, or one first seen after the day began, is said as such: this
  client cannot tell, which is not the same as a forgery;
- ``first_board_problems``: the board the day's first ranked attempt
  was dealt (the server's own ``replay`` of it) is the revealed layout.
"""

from __future__ import annotations

import hashlib
from datetime import date, datetime, timezone

import engine
from engine.options import variant_name
from protocol import to_client as tc

from .commitments import Seen

UNCONFIRMED = "not seen before the day by this client"
"""How a reveal this client cannot vouch for begins: no forgery shown, no publication before the day shown either."""


def daily_proof(deal: tc.DailyDeal) -> str:
    """The text whose sha256 the commitment is."""
    return f"{deal.game}/{deal.variant}/{deal.date}/{deal.seed}/{deal.nonce}"


def race_proof(info: tc.RaceInfo) -> str:
    """The text whose sha256 a winnable race's commitment is."""
    return f"race/{info.race_id}/{info.seed}/{info.nonce}"


def day_start_ms(day: str) -> int:
    start = datetime.combine(date.fromisoformat(day), datetime.min.time(), timezone.utc)
    return int(start.timestamp() * 1000)


def _when(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def reveal_problems(deal: tc.DailyDeal) -> list[str]:
    """What does not hold of a revealed daily deal by itself (empty: it verifies)."""
    if deal.seed is None or deal.nonce is None or deal.line is None:
        return ["not revealed yet"]
    problems = _naming_problems(deal)
    if problems:
        return problems
    if deal.committed_ms >= day_start_ms(deal.date):
        problems.append(
            f"the commitment was made at {_when(deal.committed_ms)}, after the day began: "
            "players may have been dealt something else"
        )
    return problems + _problems(deal.game, deal.options, deal.seed, deal.nonce, deal.line, deal.commitment, daily_proof(deal))


def _naming_problems(deal: tc.DailyDeal) -> list[str]:
    """Whether the options make the committed variant, and the board is
    that game, variant and day's."""
    try:
        options = engine.new_game(deal.game, None, **deal.options).options
    except engine.EngineError as error:
        return [f"the revealed options {deal.options} do not deal a {deal.game} game: {error.message}"]
    problems = []
    made = variant_name(engine.game_class(deal.game).OPTIONS, options)
    if made != deal.variant:
        problems.append(
            f"the options {deal.options} are the variant {made}, not the committed {deal.variant}: "
            "the deal revealed is not the contest committed to"
        )
    if deal.board != f"{deal.game}/{deal.variant}/{deal.date}":
        problems.append(f"the board {deal.board} is not {deal.game} {deal.variant} of {deal.date}")
    return problems


def history_problems(deal: tc.DailyDeal, seen: Seen | None) -> list[str]:
    """Whether the commitment is the one this client kept before the day."""
    if seen is not None and seen.commitment != deal.commitment:
        return [
            f"forged: on {_when(seen.first_seen_ms)} this server committed to {seen.commitment} for this deal; "
            f"the reveal's commitment is {deal.commitment}"
        ]
    if seen is None:
        return [f"{UNCONFIRMED}: it cannot tell a commitment published before the day from one made at the reveal "
                "(run arena daily before the day to keep the commitments)"]
    if seen.first_seen_ms >= day_start_ms(deal.date):
        return [f"{UNCONFIRMED}: it first saw this commitment on {_when(seen.first_seen_ms)}, after the day began"]
    return []


def first_board_problems(deal: tc.DailyDeal, start: tc.Snapshot) -> list[str]:
    """Whether ``start``, the first board of a ranked attempt as the
    server replays it, is the layout the revealed seed deals."""
    if deal.seed is None or _naming_problems(deal):
        return []
    if start.game != deal.game or variant_name(engine.game_class(deal.game).OPTIONS, start.view.options) != deal.variant:
        return [f"game {start.game_id} is not a {deal.game} {deal.variant} game"]
    dealt = engine.seeded_game(deal.game, int(deal.seed, 16), **deal.options).view()
    if tc.GameView.model_validate(dealt).piles != start.view.piles or start.seq != 0:
        return [f"the first board of the ranked attempt {start.game_id} is not the layout the revealed seed deals"]
    return []


def race_reveal_problems(info: tc.RaceInfo) -> list[str]:
    """What does not hold of a finished winnable race's reveal."""
    return _problems(info.game, info.options, info.seed, info.nonce, info.line, info.commitment, race_proof(info))


def verdict(problems: list[str]) -> str:
    """A reveal's problems as one line, or what was checked when there are none."""
    if problems:
        return "; ".join(problems)
    return "verified: variant and options, committed before the day, commitment, layout from the seed, winning line replayed"


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
