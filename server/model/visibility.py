"""What anyone may see of a game, and what they may be given for it: one
pure decision per question, in the spirit of boardgame.io's ``playerView``.

- ``view_of``: how a viewer watches a game (``Visibility``): live, behind
  by the spectator delay, as progress only (counts, never cards), or not
  at all.  Every watch path asks it: ``watch``, the boards handed back on
  ``hello`` and at a race's start, and the followers of a race game when
  the race ends.
- ``deal_named``: whether a ``game_over`` may name the deal.
- ``race_names``: what a ``race`` message may name: its invite code, its
  deal, the proof of a winnable deal.
- ``assist_refusal``: whether a hint, automatic finishing (asked for or
  offered) or an analysis (and with it a replay) may be given.

Nothing here reads the store or a clock: the caller gathers the facts
(``Facts``: the time, the game's result, a daily deal's reveal, the
race's ledger as ``RaceFacts``) and the decision is these functions'
alone, so each rule is one place and can be tested from a table.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple

from protocol import ErrorCode
from server.model.fair_play import competes
from server.model.race_phases import FINISHED, RUNNING
from server.model.records import SessionHeader
from server.model.refusal import Refusal

GONE = "gone"
"""The phase ``RaceFacts`` gives a race the store no longer has: nobody
races it, so its deal is no secret any more."""


class Visibility(str, Enum):
    LIVE = "live"
    DELAYED = "delayed"
    """The board as it was ``View.delay_ms`` ago: a spectator of a racer's
    board while the race runs (``server.games.delay``)."""
    PROGRESS_ONLY = "progress_only"
    """Counts only (``game_progress``): the deal is secret to this viewer."""
    REFUSED = "refused"


class Assist(str, Enum):
    """What a player may ask the solver for; the value names it in a refusal."""

    HINT = "Hint"
    FINISH = "Automatic finishing"
    ANALYSIS = "Analysis"
    """An analysis, and a replay, which shows as much."""


@dataclass(frozen=True)
class RaceFacts:
    """What a race game's race is at the time of asking, read from its ledger."""

    phase: str
    """The race's phase (``server.model.race_phases``), or ``GONE``."""
    racers: frozenset[str] = frozenset()
    wait: str = ""
    """When the race's boards arrive, for a refusal before it runs."""

    @property
    def over(self) -> bool:
        """Whether nobody races the deal any more, so it may be told."""
        return self.phase in (FINISHED, GONE)


RACE_GONE = RaceFacts(GONE)


class Facts(NamedTuple):
    """What a decision reads beside the header, gathered by its caller.  A
    named tuple: every action gathers one (the finishing offer's check)."""

    now_ms: int
    result: str | None = None
    """The game's result; None while it is played."""
    reveal_ms: int | None = None
    """When a daily game's deal is revealed (None for any other game)."""
    race: RaceFacts | None = None
    """A race game's race (``RACE_GONE`` when the store no longer has
    it); None for any other game, and for a race this process does not
    hold where the caller does not load it (``deal_named``)."""


@dataclass(frozen=True)
class View:
    visibility: Visibility
    delay_ms: int = 0
    """How far behind a ``DELAYED`` board is."""
    refusal: Refusal | None = None
    """Why, when ``REFUSED``."""


def deal_secret(header: SessionHeader, facts: Facts) -> bool:
    """Whether a game's deal is a secret seed nobody but its player may see
    yet: a daily's until its day's reveal, a race's until the race is over
    (or gone from the store)."""
    if header.seed is None:
        return False
    if header.daily is not None:
        return facts.reveal_ms is None or facts.now_ms < facts.reveal_ms
    assert facts.race is not None, "secret seeds deal dailies and races only"
    return not facts.race.over


def view_of(header: SessionHeader, viewer: str | None, facts: Facts, delay_ms: int) -> View:
    """How ``viewer`` (a player id, None for anonymous) may watch the game.

    Its owner sees it live, and so does anyone once its deal is no secret
    and its race, if any, is over.  While a race runs, spectators watch
    its boards ``delay_ms`` behind (a spectator could pass on what they
    see to a racer), its racers do not watch each other's at all, and
    before it runs nobody watches a board.  While a deal is secret,
    anyone but its owner follows the progress only (docs/protocol.md)."""
    owner = viewer == header.owner
    live = True
    race = facts.race
    if header.race_id is not None:
        assert race is not None, "a race game is judged with its race's facts"
        if race.phase == GONE:
            live = owner or facts.result is not None
        elif race.phase != FINISHED:
            if not owner and viewer in race.racers:
                return _refused(
                    ErrorCode.FORBIDDEN,
                    "you are in this race: rivals' boards stay hidden until it ends; race_progress tells how they do",
                    header,
                )
            if race.phase != RUNNING:
                return _refused(ErrorCode.RACE_STATE, race.wait, header)
            live = owner
    if not owner and deal_secret(header, facts):
        return View(Visibility.PROGRESS_ONLY)
    return View(Visibility.LIVE) if live else View(Visibility.DELAYED, delay_ms)


def _refused(code: ErrorCode, message: str, header: SessionHeader) -> View:
    return View(Visibility.REFUSED, refusal=Refusal(code, message, game_id=header.game_id))


def deal_named(header: SessionHeader, race: RaceFacts | None) -> bool:
    """Whether a ``game_over`` may name the deal: a numbered deal (a secret
    seed is named only by its reveal), and in a race only once this
    process knows the race is over (``race`` None: it does not hold it),
    since rivals may still be playing it."""
    if header.seed is not None:
        return False
    return header.race_id is None or race is not None and race.over


@dataclass(frozen=True)
class RaceNames:
    """What a ``race`` message names of its race."""

    code: bool
    """The invite code."""
    deal: bool
    """The deal's number."""
    proof: bool
    """A winnable deal's seed, with the nonce and line that open its commitment."""


def race_names(race: RaceFacts, member: bool, seeded: bool, daily: bool) -> RaceNames:
    """What a ``race`` message may name to a racer (``member``) or anyone
    else.  The invite code goes to racers only, so a spectator's link lets
    nobody join.  The deal is told once nobody races it: a number as
    itself, a secret seed (``seeded``) by its proof; a daily race's deal
    is the day's, told only by the day's reveal, never here."""
    over = race.over
    return RaceNames(code=member, deal=over and not seeded, proof=over and seeded and not daily)


def assist_refusal(header: SessionHeader, assist: Assist, facts: Facts) -> Refusal | None:
    """Why ``assist`` may not be given for this game (None: it may).

    Hints and finishing play for you, so a game that competes never has
    them (``fair_play.competes``, reason ``ranked``), nor a game that is
    over; they read only the header and ``facts.result``.  An analysis or
    a replay shows the whole deal: only once the game is over and nobody
    may still play that deal (its race over, a daily's day revealed)."""
    if assist is Assist.ANALYSIS:
        return _analysis_refusal(header, facts)
    if competes(header):
        where = "a race" if header.race_id is not None else "a ranked daily attempt"
        return Refusal(
            ErrorCode.UNAVAILABLE,
            f"{assist.value} is not offered in {where}: the result must be your own play",
            reason="ranked",
            game_id=header.game_id,
        )
    if facts.result is not None:
        return Refusal(ErrorCode.GAME_FINISHED, f"this game is over ({facts.result})", game_id=header.game_id)
    return None


def check_assist(header: SessionHeader, assist: Assist, facts: Facts) -> None:
    """Raise ``assist_refusal``'s refusal, if there is one."""
    refusal = assist_refusal(header, assist, facts)
    if refusal is not None:
        raise refusal


def _analysis_refusal(header: SessionHeader, facts: Facts) -> Refusal | None:
    if facts.result is None:
        return Refusal(
            ErrorCode.UNAVAILABLE, "a game is analysed or replayed once it is over", reason="game_live",
            game_id=header.game_id,
        )
    if header.race_id is not None and (facts.race is None or not facts.race.over):
        return Refusal(
            ErrorCode.UNAVAILABLE,
            "this race is still running and its racers play the same deal; ask again when it ends",
            reason="deal_secret",
            game_id=header.game_id,
        )
    if header.daily is not None and (facts.reveal_ms is None or facts.now_ms < facts.reveal_ms):
        return Refusal(
            ErrorCode.UNAVAILABLE,
            f"this is the daily deal of {header.daily}, secret until it is revealed; ask again then",
            reason="deal_secret",
            game_id=header.game_id,
        )
    return None
