"""The one policy for everything that ranks: daily attempts, races,
leaderboards and records.

A ranked result must be impossible to get without playing.  Read as an
attacker would, with the code and the docs, that asks for:

- a deal nobody can look up: ranked deals are secret seeds
  (``server.deals.proofs``), and nothing names one before its reveal
  (``server.model.visibility.deal_secret``);
- one ranked attempt per player, game, variant and day
  (``claim_ranked``): the first daily game a player starts that is not a
  practice one; and today's daily cannot be practised until that ranked
  attempt has ended (``check_practice``), so practice is never a free
  look at the deal before the attempt that counts;
- a clock that counts what the player sees: a daily attempt's clock starts
  when its first snapshot is sent (``clock_start``), a race game's at the
  countdown's end;
- no assist that plays for you: hints and automatic finishing are refused
  in ranked attempts and in every race (``competes``; the refusal, reason
  ``ranked``, is ``server.model.visibility.assist_refusal``'s), and so are
  options that move cards by themselves
  (``check_automatic``); undo stays, but every action counts
  (``counted_actions``, automatic moves included), so an undo never
  improves a rank;
- no peeking: while a deal is secret only its player sees its board;
  everyone else gets progress (``server.model.visibility.view_of``);
- bots declared in ``hello`` rank on their own boards (``board_name``);
- a rank needs a player who existed before the deal was shown, and one
  public place per client address: a ranked attempt by a player created
  after its day began (``NEW_PLAYER``), or from an address whose public
  place another attempt took first (``SAME_NETWORK``), is ranked off the
  public board (``public_bars``, decided when the attempt starts), so a
  second identity replaying a line the first one saw ranks only among
  friends and leagues;
- a win played at a cadence no person keeps (``inhuman``: a replayed
  line) ranks on the bots' board (``CADENCE``).

What this cannot stop, a cheater with many addresses and identities made
before the day, is written down in docs/protocol.md ("What a rank
guarantees").

The rules here read only a header, a session or the settings; the ones
that keep their facts in the store (the ranked claim, practice after it,
the public places) are ``server.deals.claims``.
"""

from __future__ import annotations

from statistics import median
from typing import Any, Mapping, Protocol

from engine import Game

import engine
from engine.games import descriptor_of
from protocol import ErrorCode
from server.model.refusal import Refusal
from server.model.session import ActionKind, Session
from server.model.records import SessionHeader

COUNTED_KINDS = frozenset({ActionKind.MOVE, ActionKind.UNDO, ActionKind.REDO, ActionKind.RESTART})
"""Actions that count towards a ranked result's tie-break: everything a
player does to the cards, taking moves back included."""
BOT_BOARD_SUFFIX = "bots"
NEW_PLAYER = "new_player"
"""Why a ranked attempt is off the public board: its player was created
after the attempt's day began."""
SAME_NETWORK = "same_network"
"""Why a ranked attempt is off the public board: another attempt at the
same deal from its client address took the address's public place first."""
CADENCE = "cadence"
"""Why a ranked win is on the bots' board: its actions came at a cadence
no person keeps (``inhuman``)."""
APART_BOARDS = {NEW_PLAYER: "new-players", SAME_NETWORK: "same-network"}
"""The suffix of the board a person's ranked win goes to for each reason it
is off the public board (``board_apart``)."""


def counted_actions(session: Session) -> int:
    """The actions that break ties between equal times: the player's, and
    every move the game made by itself after one (none where automatic
    options are refused, ``check_automatic``; a game stored before that
    refusal still pays for its automatic moves)."""
    return session.log.count(COUNTED_KINDS) + session.automatic_moves


def shown_counters(session: Session) -> dict[str, int]:
    """The counts its game's descriptor declares (Broken Deck's repairs,
    Chequers' reserve …), which rivals and viewers of a secret deal may
    see beside the cards home: counts, never cards."""
    counters = session.counters
    return {counter.name: counters.get(counter.name, 0) for counter in descriptor_of(session.header.game).counters}


def board_name(game_id: str, variant: str, day: str, bot: bool = False, apart: str | None = None) -> str:
    """A day's leaderboard of a game and variant; bots have their own, and
    so does each reason (``apart``) a person's ranked win is off the
    public board (``board_apart``)."""
    name = f"{game_id}/{variant}/{day}"
    if bot:
        return f"{name}/{BOT_BOARD_SUFFIX}"
    return f"{name}/{APART_BOARDS[apart]}" if apart is not None else name


def board_apart(bot: bool, reasons: list[str]) -> tuple[bool, str | None]:
    """Where a ranked win with these ``unlisted`` reasons is entered, as
    ``board_name``'s ``bot`` and ``apart``: a bot's or a flagged win on
    the bots' board; a new player's on the new players' board (never
    shown with the public one); a win from an address whose public place
    was taken on the same-network board (shown apart beside the public
    one); any other on the public board.  The boards apart keep time and
    actions as the public one does, so friends' and leagues' boards can
    rank every person's win of the day from them."""
    if bot or CADENCE in reasons:
        return True, None
    for reason in (NEW_PLAYER, SAME_NETWORK):
        if reason in reasons:
            return False, reason
    return False, None


def competes(header: SessionHeader) -> bool:
    """Whether a game is measured against other players' (a ranked daily
    attempt or any race game), so that no assist may play in it
    (``server.model.visibility.assist_refusal``)."""
    return header.ranked or header.race_id is not None


def automatic_options(game_cls: type[Game], options: Mapping[str, Any]) -> list[str]:
    """The options switched on that make ``game_cls`` move cards by itself."""
    return [option.name for option in game_cls.OPTIONS if option.automatic and options.get(option.name)]


def check_automatic(game_cls: type[Game], options: Mapping[str, Any], where: str) -> None:
    """Refuse automatic moves (WordLink's ``auto_collect``, Lara's Game's
    ``autoplay``) in a game that competes (``where``: "a race", "a ranked
    daily attempt"), as hints and finishing are: a card the game moves by
    itself is a move the player did not make, and saves both time and
    actions."""
    chosen = automatic_options(game_cls, options)
    if chosen:
        raise Refusal(
            ErrorCode.UNAVAILABLE,
            f"{' and '.join(chosen)} is not offered in {where}: the result must be your own play; turn it off",
            reason="ranked",
        )


def clock_start(header: SessionHeader, created_ms: int) -> int | None:
    """When a new game's clock starts: a daily attempt's at once, since its
    first snapshot goes out with ``game_started``; others at the first
    action (a casual game left open is not timed)."""
    return created_ms if header.daily is not None else None


class CadenceLimits(Protocol):
    """The settings the cadence rule reads (``Settings`` has them): the
    rule is pure, so it names what it needs instead of importing the
    process's settings."""

    @property
    def cadence_median_ms(self) -> int: ...

    @property
    def cadence_min_actions(self) -> int: ...

    @property
    def cadence_pause_ms(self) -> int: ...


def inhuman(settings: CadenceLimits, session: Session) -> bool:
    """Whether a game was played at a cadence no person keeps, read from
    the server's clock in its log (never a time the client sent): at
    least ``cadence_min_actions`` actions with a median interval under
    ``cadence_median_ms``, or a win with no interval over
    ``cadence_pause_ms``.  A replayed line meets it; a script that waits
    between its moves does not (docs/protocol.md, "What a rank
    guarantees"; ``bench/cadence.py`` measures it on human-like play)."""
    times = [action.at_ms for action in session.log if action.kind in COUNTED_KINDS]
    intervals = [later - earlier for earlier, later in zip(times, times[1:])]
    if not intervals:
        return False
    if settings.cadence_median_ms and len(times) >= settings.cadence_min_actions:
        if median(intervals) < settings.cadence_median_ms:
            return True
    return bool(settings.cadence_pause_ms) and session.result == engine.WON and max(intervals) <= settings.cadence_pause_ms


def unlisted(settings: CadenceLimits, session: Session) -> list[str]:
    """Why a ranked daily attempt is not on its public board: the reasons
    fixed at its start, and ``CADENCE`` once a win is flagged.  Empty for
    any other game, a bot's included (a bot has its own board anyway)."""
    header = session.header
    if not header.ranked or header.daily is None or header.bot:
        return []
    flagged = [CADENCE] if session.result == engine.WON and inhuman(settings, session) else []
    return flagged + list(header.unlisted)
