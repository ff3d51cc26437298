"""A game's view as plain text, for terminals and pipes.

All four games share the view's shape (named piles, each with a number of
face-down cards and a list of face-up card codes, plus a few extra
fields), so one renderer draws them all: one line per pile, face-down
cards as ``[N]``, face-up cards by their codes, the foundations on one
line as their top cards (the piles the game's notation calls ``f``).  A
game this client's engine does not know (a newer server's) is drawn one
pile per line, which is complete if less compact.

The header's parts wrap at ``WIDTH`` columns (a terminal's usual 80),
so a game with many counters takes two lines rather than one too long.

Example (WordLink)::

    WordLink  g_H_Yc7xKoITCE  seq 3  playing  score 5  0:12
    moves 2  undos 0  redos 0  hints 1  foundation 0
    foundations  fs AS  fh --  fd --  fc --
    s    [21]
    w    7S 8H 9C
    t1   KD
    t2   [1] 5H
    ...
"""

from __future__ import annotations

from typing import Any

import engine
from engine.options import option_text
from protocol import to_client as tc

from .mirror import GameMirror, Update

SHOWN_ELSEWHERE = frozenset({"game", "options", "piles"})
LEGAL_SHOWN = 16
WIDTH = 80


def counted(count: int, noun: str, width: int = 0) -> str:
    """``1 move``, ``2 moves``: a count with its noun, singular for one;
    the count right-aligned in ``width`` columns, for tables."""
    return f"{count:>{width}} {noun}{'' if count == 1 else 's'}"


def fitted(parts: list[str], width: int = WIDTH, gap: str = "  ") -> list[str]:
    """``parts`` joined by ``gap`` into as few lines of at most ``width``
    columns as their order allows (a part longer than ``width`` alone)."""
    lines: list[str] = []
    for part in parts:
        if lines and len(lines[-1]) + len(gap) + len(part) <= width:
            lines[-1] += gap + part
        else:
            lines.append(part)
    return lines


def clock_text(milliseconds: int) -> str:
    seconds = milliseconds // 1000
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02}:{rest % 60:02}" if hours else f"{rest // 60}:{rest % 60:02}"


def pile_text(pile: dict[str, Any]) -> str:
    parts = [f"[{pile['down']}]"] if pile["down"] else []
    parts += pile["up"]
    return " ".join(parts) or "--"


def top_text(pile: dict[str, Any]) -> str:
    return pile["up"][-1] if pile["up"] else f"[{pile['down']}]" if pile["down"] else "--"


def header(game: GameMirror) -> list[str]:
    """The game, its state, score and clock, then its counters: one line
    when all fit, else the counters on a line of their own."""
    parts = [game.title or game.game, game.game_id, f"seq {game.seq}", game.status]
    if game.score is not None:
        parts.append(f"score {game.score}")
    if game.clock is not None:
        parts.append(clock_text(game.clock.elapsed_ms))
    counters = [f"{name} {value}" for name, value in game.counters.items() if name != "score"]
    named = [part for part in parts if part]
    one_line = "  ".join(named + counters)
    return [one_line] if len(one_line) <= WIDTH else fitted(named) + fitted(counters)


def foundation_piles(game_id: str) -> tuple[str, ...]:
    """The game's foundations, as its notation's ``f`` alias names them."""
    game_cls = engine.GAMES.get(game_id)
    return game_cls.ALIASES.get("f", ()) if game_cls is not None else ()


def render(game: GameMirror, typing: bool = True) -> str:
    """The whole board of ``game`` as lines of text (no trailing newline);
    ``typing``: the reader can type commands (``arena play``, not ``arena
    watch``), so the board may tell them what to type."""
    view = game.view
    lines = header(game)
    options = view.get("options") or {}
    extras = {key: value for key, value in view.items() if key not in SHOWN_ELSEWHERE}
    settings = [f"{name}={option_text(value)}" for name, value in options.items()]
    settings += [f"{name}: {option_text(value)}" for name, value in extras.items() if name not in options]
    lines += fitted(settings)
    piles: dict[str, dict[str, Any]] = view.get("piles", {})
    foundations = [name for name in foundation_piles(game.game) if name in piles]
    if foundations:
        lines.append("foundations  " + "  ".join(f"{name} {top_text(piles[name])}" for name in foundations))
    width = max((len(name) for name in piles), default=1) + 1
    lines += [f"{name:<{width}} {pile_text(pile)}" for name, pile in piles.items() if name not in foundations]
    if game.legal is not None:
        shown = " ".join(game.legal[:LEGAL_SHOWN])
        hidden = len(game.legal) - LEGAL_SHOWN
        more = f" (+{hidden} more{': type legal' if typing else ''})" if hidden > 0 else ""
        lines.append(f"legal: {shown or 'none'}{more}")
    if game.can_finish and game.finish_offer is not None:
        lines.append(f"finish: the server has a proven path to the foundations ({counted(game.finish_offer.moves, 'move')})")
    return "\n".join(lines)


def analysis_text(analysis: tc.AnalysisReply) -> str:
    """Where a game was lost, in a sentence or two."""
    solution = " ".join(analysis.solution)
    if analysis.verdict == "won":
        return "this game was won"
    if analysis.verdict == "still_winnable":
        return f"the final position could still be won: {solution}"
    if analysis.verdict == "never_shown_winnable":
        proof = "proven unwinnable" if analysis.certain else "not shown winnable within the search budget"
        return f"the first position was {proof}"
    when = "" if analysis.certain else " (at the latest)"
    return (
        f"lost{when} by move {(analysis.last_winnable or 0) + 1}, {analysis.losing_move}; "
        f"before it the deal could still be won: {solution}"
    )


def hint_text(reply: tc.HintReply) -> str:
    """A hint and how sure it is, in a line: the share of the deals of
    the hidden cards the server tried in which the move wins, or, with
    none won, that it leads to a card not seen yet (or home)."""
    if not reply.move:
        return "hint: no useful move"
    sure = reply.confidence
    if sure is None:
        return f"hint: {reply.move}"
    if sure >= 1:
        return f"hint: {reply.move} (wins in every deal tried)"
    if sure > 0:
        return f"hint: {reply.move} (wins in {sure:.0%} of the deals tried)"
    return f"hint: {reply.move} (no win found; it leads to a new card)"


def describe(update: Update) -> str:
    """One line saying what an update was."""
    if isinstance(update, tc.Diff):
        action = update.action
        return f"seq {update.seq}: {action.kind}{' ' + action.text if action.text else ''}"
    if isinstance(update, tc.Snapshot):
        return f"seq {update.seq}: snapshot"
    if isinstance(update, tc.FinishOffer):
        return f"seq {update.seq}: automatic finishing offered ({counted(update.moves, 'move')})"
    return game_over_text(update)


def game_over_text(over: tc.GameOver) -> str:
    """The result line; a race game's deal stays untold while rivals play it."""
    score = f", score {over.score}" if over.score is not None else ""
    deal = f"deal {over.deal}" if over.deal is not None else "the deal is told when the race ends"
    return f"game over: {over.result} after {counted(over.moves, 'move')} in {clock_text(over.time_ms)}{score} ({deal})"
