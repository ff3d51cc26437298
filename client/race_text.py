"""Races, leaderboards and daily deals as plain text, for the terminal.

One line per racer (``racer_line``), the race's description, the results
table, a leaderboard page and the daily deals; ``client/board.py`` draws
the boards themselves.

Example (a race in progress)::

    ann              playing        12 moves   4 on foundations  0:42
    bob              disconnected    9 moves   2 on foundations  0:42
"""

from __future__ import annotations

import textwrap
from datetime import datetime, timezone
from collections.abc import Mapping

from engine.options import option_text
from protocol import friends_board as pb
from protocol import to_client as tc
from protocol.to_server import OptionValue

from .board import WIDTH, clock_text, counted
from .reveal import daily_proof
from .race_mirror import RaceMirror

CODE_HALF = 4
NAME_WIDTH = 16
STATE_WIDTH = 12


def invite_text(code: str) -> str:
    """An invite code the way people read it aloud: ``FWRD-BTKR``."""
    return f"{code[:CODE_HALF]}-{code[CODE_HALF:]}" if len(code) > CODE_HALF else code


def options_text(options: Mapping[str, OptionValue]) -> str:
    return " ".join(f"{name}={option_text(value)}" for name, value in options.items())


def utc_text(milliseconds: int) -> str:
    return datetime.fromtimestamp(milliseconds / 1000, timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


APART_WORDS = {
    "deal_seen": "apart: knew the deal",
    "ranked_first": "apart: playing their ranked attempt",
}
"""Why a racer takes no place, as the terminal says it."""


def apart_text(apart: str | None) -> str:
    return f"  ({APART_WORDS.get(apart, apart)})" if apart is not None else ""


def racer_line(racer: tc.Racer) -> str:
    ranked = "  ranked" if racer.ranked else ""
    return (
        f"{racer.name:<{NAME_WIDTH}} {racer.state:<{STATE_WIDTH}} {counted(racer.moves, 'move', 4):<10} "
        f"{racer.foundation:>3} on foundations{counters_text(racer.counters)}  {clock_text(racer.elapsed_ms)}{ranked}"
        f"{apart_text(racer.apart)}"
    )


def counters_text(counters: Mapping[str, int]) -> str:
    """A game's own counters as ``  3 repairs``: named as the game names
    them, so a new game's counters show without a change here."""
    return "".join(f"  {value} {name}" for name, value in counters.items())


def deal_text(info: tc.RaceInfo) -> str:
    if info.deal_kind == "daily":
        return f"the daily deal{' of ' + info.daily if info.daily else ''}"
    if info.deal is not None:
        return f"deal {info.deal}, unranked"
    return "a secret winnable deal" if info.deal_kind == "winnable" else "a numbered deal, unranked"


def race_lines(race: RaceMirror, server: str = "") -> list[str]:
    """What a race is, who hosts it, how to join it (``server``: the
    ``--server`` flag the join command needs, if any), who is in."""
    info = race.info
    if info is None:
        return [f"race {race.race_id}"]
    lines = [
        *_fitted(f"race {info.race_id}: {info.title}, {deal_text(info)}, hosted by {info.host.name}, {info.phase}"),
        *_fitted(f"  {options_text(info.options)}"),
    ]
    if info.code is not None and info.phase == "lobby":
        code = invite_text(info.code)
        lines.append(f"invite code {code} (until {utc_text(info.invite_expires_ms)})")
        lines += _fitted(f"  join with: arena race join {code}{server}")
    lines.append(f"racers ({len(info.racers)}/{info.limit}):")
    lines += ["  " + racer_line(racer) for racer in info.racers]
    return lines


def _fitted(line: str) -> list[str]:
    """``line`` in lines of at most 80 columns, continued under a deeper
    indent; a word longer than that (a server's URL) stays whole, so it
    can still be copied."""
    indent = " " * (len(line) - len(line.lstrip()) + 2)
    return textwrap.wrap(line, WIDTH, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)


def results_lines(results: list[tc.RaceResult]) -> list[str]:
    """The results table: winners by place, then the others, then the
    racers apart (who knew the deal)."""
    lines = ["results:"]
    for row in results:
        place = f"{row.place}." if row.place is not None else "-"
        lines.append(
            f"  {place:>3} {row.name:<{NAME_WIDTH}} {row.result:<9} {counted(row.moves, 'move', 4):<10} "
            f"{row.foundation:>3} on foundations  {clock_text(row.time_ms)}{apart_text(row.apart)}"
        )
    return lines


def entry_line(entry: tc.LeaderboardEntry, label: str = "") -> str:
    rank = f"{label}#{entry.rank}"
    return f"{rank:>7}  {entry.name:<{NAME_WIDTH}} {clock_text(entry.time_ms):>8}  {counted(entry.actions, 'action', 4)}"


UNLISTED_WORDS = {
    "same_network": "same network, unranked",
    "new_player": "new player: ranked among friends and leagues only",
    "cadence": "inhuman cadence: on the bots' board",
}
"""A reason a win is off the public board (docs/protocol.md, fair play), in words."""


def unranked_line(entry: tc.UnrankedEntry, label: str = "") -> str:
    """A win kept off the public board: no rank, and why."""
    why = UNLISTED_WORDS.get(entry.reason, entry.reason)
    return f"{label + '-':>7}  {entry.name:<{NAME_WIDTH}} {clock_text(entry.time_ms):>8}  {counted(entry.actions, 'action', 4):<12}  ({why})"


def leaderboard_lines(page: tc.LeaderboardPage) -> list[str]:
    """A page of a board, the wins shown apart beside it, and your own."""
    lines = [f"{page.title} {page.variant}, {page.date}"]
    lines += [entry_line(entry) for entry in page.entries] or ["  no entries"]
    lines += [unranked_line(entry) for entry in page.unranked]
    lines += [
        f"{'...':>7}  {entry.name:<{NAME_WIDTH}} {clock_text(entry.time_ms):>8}  {counted(entry.actions, 'action', 4):<12}  "
        f"{entry.cards_home:>3} home (playing)"
        for entry in page.playing
    ]
    if page.me is not None:
        standing = f"  (percentile {page.me_percentile} of {page.total} wins)" if page.me_percentile else ""
        lines.append(entry_line(page.me, "you ") + standing)
    elif page.me_unranked is not None:
        lines.append(unranked_line(page.me_unranked, "you "))
    return lines


def friends_board_lines(reply: pb.FriendsBoardReply) -> list[str]:
    """You and your friends on the day: the winners placed, then the
    others as they stand (counts only, as the server sends them)."""
    return [f"{reply.title} {reply.variant}, {reply.date}: you and your friends", *board_row_lines(reply.rows)]


def board_row_lines(rows: list[pb.FriendsBoardRow]) -> list[str]:
    """A board's rows (a friends' or a league's board), one a line."""
    lines = []
    for row in rows:
        label = f"{row.place}." if row.place is not None else "-"
        name = f"{row.player.name}{' (you)' if row.me else ''}"
        if row.state == "not_started":
            said = "not started"
        else:
            done = "playing" if row.state == "playing" else str(row.result)
            said = f"{done:<9} {clock_text(row.time_ms or 0):>8}  {counted(row.actions or 0, 'action', 4):<12}  {row.cards_home or 0:>3} home"
        lines.append(f"  {label:>3} {name:<{NAME_WIDTH + 6}} {said}")
    return lines


def records_lines(reply: tc.RecordsReply) -> list[str]:
    """A player's records, one game and variant a line, then Vegas earnings."""
    lines = [f"records of {reply.name} ({reply.player_id})"]
    for record in reply.records:
        best = ""
        if record.best_time_ms is not None and record.best_moves is not None:
            best = f", best {clock_text(record.best_time_ms)} and {counted(record.best_moves, 'move')}"
        if record.best_score is not None:
            best += f", best score {record.best_score}"
        lines.append(
            f"  {record.title} {record.variant}: {record.wins}/{record.games} won, {counted(record.moves, 'move')}, "
            f"{clock_text(record.time_ms)} played, {counted(record.hints, 'hint')}, {counted(record.undos, 'undo')}"
            + "".join(f", {value} {name}" for name, value in record.counters.items())
            + best
        )
    if not reply.records:
        lines.append("  no finished games yet (practice games record nothing)")
    if reply.vegas_earnings:
        lines.append(f"  Vegas earnings {reply.vegas_earnings:+d}")
    return lines


def daily_lines(info: tc.DailyInfo) -> list[str]:
    lines = [f"daily deals of {info.date} (today is {info.today})"]
    for deal in info.deals:
        lines.append(f"{deal.title} {deal.variant}")
        lines.append(f"  commitment {deal.commitment} (since {utc_text(deal.committed_ms)})")
        if deal.seed is None:
            lines.append(f"  revealed at {utc_text(deal.reveals_at)}")
        else:
            lines.append(f"  seed {deal.seed}, nonce {deal.nonce}: check with  printf '{daily_proof(deal)}' | sha256sum")
            lines.append(f"  winning line ({counted(len(deal.line or []), 'move')}): {' '.join(deal.line or [])}")
    if not info.deals:
        lines.append("  nobody played that day")
    return lines
