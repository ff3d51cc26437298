"""What the solver does for a player: hints and safe automatic finishing.

A hint is a function of what the player sees (``determinize``): it
searches a few deals of the unseen cards that agree with the public view,
never the real hidden cards, so no hint can tell a player where a
face-down card is.  And a hint leads somewhere: it never suggests a move
back to a position the game has already been in, so following hints
alone never goes round in circles.

Automatic finishing is offered only where no card is hidden (Broken
Deck, and WordLink once every card is face up), so it searches the real
position.
"""

from __future__ import annotations

import json
from collections import Counter, OrderedDict
from typing import Any, Iterable, NamedTuple
from weakref import WeakKeyDictionary

from ..errors import ActionUnavailable
from ..game import PLAYING, Game, Move, Position
from .determinize import Visible, determinizations, faces, masked_key, model_game, stock_memory, visible
from .domains import domain_class
from .driver import DEFAULT_BUDGET, solve
from .progress import Progress, held, idle_moves, limit
from .search import WON


class Hint(NamedTuple):
    """A hinted move and how sure the hint is of it: the share of the
    deals of the unseen cards searched (``determinize``) in which the move
    starts a winning line.  A view that decides every card has one deal,
    so there 1.0 is a line that wins for certain; 0.0 is a move from which
    no searched deal was won, the best lead the hint has: a way to a card
    never seen or one more card on the foundations (``progress``)."""

    move: Move
    confidence: float


def hint_for_view(game: Game, budget: int | None = None) -> Move | None:
    """The move of ``hint_with_confidence``, or None."""
    found = hint_with_confidence(game, budget)
    return None if found is None else found.move


def hint_with_confidence(game: Game, budget: int | None = None) -> Hint | None:
    """A useful move for ``game`` computed from its view alone, with how
    sure the hint is of it (``Hint``), or None once the game is over or
    the view-only search has shown that nothing useful is left: no move
    starts a sequence of moves through boards not seen yet in this game
    that turns up a card never seen or puts more cards on the foundations
    than they held before (``progress``).

    Goes on with the plan the previous hint came from while that plan's
    determinization still agrees with the view.  Otherwise searches
    the game's ``HINT_WORLDS`` determinizations of the view (one when the view
    hides nothing), sharing ``budget`` nodes (default: the game's
    ``HINT_BUDGET``, 0.2-0.4 s, times ``FULL_VIEW_FACTOR`` for a view
    that hides nothing), and follows the win of one of them whose moves up
    to the next card turned up lead to a win in most of them (``_vote``);
    without one, the heuristic's first move that starts a way to
    progress (``_lead``), which the following hints walk.  The real game
    contributes only what its player knows besides the board: the
    previous move, which no search starts by taking back, and the boards
    already seen (``Game.reached``), which a hint never returns to
    (``Game.leads_back``) and whose waste cards WordLink remembers.  A
    game's domain may name a move it prefers (Broken Deck: a repair, as
    its rule text asks); that move is hinted when the deal is still won after it.
    """
    return _hint(game, budget, see_hidden=False)


def hint_seeing_hidden_cards(game: Game, budget: int | None = None) -> Move | None:
    """The hint a player who could see the face-down cards would get: the
    search, plans and no-circles rule of ``hint_for_view`` with the real
    position as its one world.  Never served, since it tells where hidden
    cards lie; ``bench/hints.py`` plays it as the upper reference that
    view-only hints are measured against (the same deals and search;
    with one world it gets a full view's budget, ``FULL_VIEW_FACTOR``
    times ``HINT_BUDGET``, where view-only hints share ``HINT_BUDGET``
    among their worlds)."""
    found = _hint(game, budget, see_hidden=True)
    return None if found is None else found.move


def _hint(game: Game, budget: int | None, see_hidden: bool) -> Hint | None:
    if game.status != PLAYING:
        return None
    last = game.last_move
    allowed = [move for move in game.legal_moves() if not game.leads_back(move)]
    view = game.view()
    model = model_game(view)
    reached = game.reached()
    earlier = [faces(pos) for pos in reached]
    worlds = [game.position] if see_hidden else determinizations(model, view, _worlds(model), earlier)
    planned = _follow_plan(game, model, allowed, certain=len(worlds) == 1)
    if planned is not None:
        return planned
    found, plan = _vote(model, worlds, allowed, last, budget)
    if plan is None:
        remembered = stock_memory(model, visible(model, view), earlier)
        found, plan = _lead(model, worlds[0], allowed, remembered, [masked_key(pos) for pos in reached])
    if plan is not None:
        _PLANS[game] = plan
    return found


def _worlds(model: Game) -> int:
    return domain_class(model).HINT_WORLDS


def hint_from_view(view: dict[str, Any], seen: Iterable[dict[str, Any]] = (), budget: int | None = None) -> str | None:
    """The hint for a public view, as move notation (None for none).

    ``view`` is a snapshot's view as the server sends it (``Game.view()``
    without ``deal``): a bot that knows nothing else can ask for hints.
    ``seen`` are the views the bot saw earlier in the same game; no hint
    leads back to one of them (a move that turns a hidden card up is
    checked against the first determinization's card).  Otherwise the same
    search as ``hint_for_view``, which gives the same move for the same
    view when the game has no history to avoid, and the same plans, kept
    by the board their next move is played from (``_VIEW_PLANS``).
    """
    model = model_game(view)
    earlier = [visible(model, old) for old in seen]
    worlds = determinizations(model, view, _worlds(model), [old.up for old in earlier])
    start = worlds[0]
    if model.is_won(start):
        return None
    reached = set(earlier)
    allowed = [move for move in model.moves_from(start) if masked_key(model.successor(start, move)) not in reached]
    here = visible(model, view)
    kind = (view["game"], json.dumps(view.get("options", {}), sort_keys=True))
    kept = _VIEW_PLANS.pop((kind, here), None)
    planned = None if kept is None else _continue(kept, model, here, allowed, certain=len(worlds) == 1)
    found: Hint | None
    plan: Plan | None
    if planned is not None:
        found, plan = planned
    else:
        found, plan = _vote(model, worlds, allowed, None, budget)
    if found is None:
        remembered = stock_memory(model, here, [old.up for old in earlier])
        found, plan = _lead(model, start, allowed, remembered, earlier)
    if found is None:
        return None
    if plan is not None and len(plan.moves) > 1:
        ahead = (model.successor if plan.wins else model.after)(plan.world, plan.moves[0])
        _VIEW_PLANS[kind, masked_key(ahead)] = plan._replace(world=ahead, moves=plan.moves[1:])
        while len(_VIEW_PLANS) > VIEW_PLANS:
            _VIEW_PLANS.popitem(last=False)
    return str(found.move)


VIEW_PLANS = 64
"""Plans ``hint_from_view`` keeps, by the board they go on from: a bot
asking for the hints of one game after another, or of a few at once,
finds its plan again after each move."""

_VIEW_PLANS: OrderedDict[tuple[tuple[str, str], Visible], Plan] = OrderedDict()
"""``hint_from_view``'s plans, oldest first, by the game's kind and the
board their next move is played from: it is told only views, so a plan
is found again by the board the move it hinted leads to.  Without them
its hints searched afresh every move, changed their mind, and a bot
following them on WordLink draw-1 deal 1 went 1,138 moves."""


FULL_VIEW_FACTOR = 3
"""A view that hides nothing (Broken Deck always, other games once every
card is face up) searches this many times the game's ``HINT_BUDGET``
(Broken Deck: 12,000 nodes, about 0.6 s on a quiet machine).  Its plan is
never dropped for a card that turned up otherwise than guessed, so a
win found is followed to the end and the search is paid about once a
game, the hints after it cost a millisecond.  On the first 100 verified
Broken Deck deals (Relaxed) the first win from the deal needs 4,500 to
18,000 nodes on 14 of them, which at 4,000 left hints guessing: 86% won
against 97% at 12,000 (``bench/hints.py``)."""

hint = hint_for_view
"""The name the solver package has always exported hints under."""


class Plan(NamedTuple):
    """The line a hint came from, in the determinization it was found in:
    ``moves`` win from ``world``, or, not ``wins``, reach progress
    (``_lead``), where the next search begins."""

    world: Position
    moves: tuple[Move, ...]
    confidence: float
    wins: bool = True


_PLANS: WeakKeyDictionary[Game, Plan] = WeakKeyDictionary()
"""The last hint's plan per game, so the next hint can go on with it
instead of searching again: a fresh search may well start a different
line, and hints that change their mind every move lead nowhere."""


def has_plan(game: Game) -> bool:
    """Whether the last hint of ``game`` came from a winning line its next
    hint can go on with: a hint without one searched the whole budget and
    found no win, and its next hint will search again (a way to progress
    followed meanwhile is no winning line)."""
    plan = _PLANS.get(game)
    return plan is not None and plan.wins


def _follow_plan(game: Game, model: Game, allowed: list[Move], certain: bool) -> Hint | None:
    """The next move of ``game``'s plan (``_continue``), which is kept for
    the next hint; else None, and the plan is dropped."""
    plan = _PLANS.pop(game, None)
    if plan is None:
        return None
    going = _continue(plan, model, masked_key(game.position), allowed, certain)
    if going is None:
        return None
    _PLANS[game] = going[1]
    return going[0]


def _continue(plan: Plan, model: Game, here: Visible, allowed: list[Move], certain: bool) -> tuple[Hint, Plan] | None:
    """The next move of ``plan`` from the board ``here`` and the plan from
    there, while the plan's determinization still agrees with the view
    (the cards turned up since were the ones it guessed) and that move is
    ``allowed``; else None.  Only views are compared, so a plan leaks
    nothing either.  Its confidence is the plan's, or for a win 1.0 once
    the view is ``certain`` (decides every card): the plan's world is then
    the position itself.  A way to progress was searched with the game's
    own moves after each (``Game.after``), so it is replayed with them."""
    world = plan.world
    step = model.successor if plan.wins else model.after
    for index, move in enumerate(plan.moves):
        if masked_key(world) == here:
            if move not in allowed:
                return None
            return Hint(move, 1.0 if certain and plan.wins else plan.confidence), plan._replace(
                world=world, moves=plan.moves[index:]
            )
        world = step(world, move)
    return None


def _vote(
    model: Game, worlds: list[Position], allowed: list[Move], last: Move | None, budget: int | None
) -> tuple[Hint | None, Plan | None]:
    """Of the wins the ``worlds`` (determinizations searched with
    ``model``'s rules) find starting with an ``allowed`` move, the one whose
    part played before the view tells the worlds apart (``_committed``)
    leads to a win in most worlds (``_wins_after``); ties: the one whose
    first move most worlds start a win with, then the earliest world's.
    Returns its first move and the plan it came from, or nothing.

    Scored by that part, not by the first move: the line is then followed
    as a plan until a card turns up, and in WordLink draw 3 that can be
    dozens of moves through a talon every world knows (which waste card
    goes where, which cards pass home), each fit for the hidden column
    cards of the one world the line was found in.  Counting first moves
    instead (hindsight optimisation) told nothing apart: nearly every
    move that loses nothing at once wins in nearly every world."""
    if not allowed:
        return None, None
    if budget is None:
        budget = domain_class(model).HINT_BUDGET * (FULL_VIEW_FACTOR if len(worlds) == 1 else 1)
    share = max(budget // len(worlds), 1)
    votes: Counter[Move] = Counter()
    lines: list[tuple[Position, tuple[Move, ...]]] = []
    for world in worlds:
        line = _win(model, world, share, last, allowed)
        if line and line[0] in allowed:
            votes[line[0]] += 1
            lines.append((world, line))
    if not lines:
        return None, None
    scored: dict[tuple[Move, ...], int] = {}
    best: tuple[tuple[int, int, int], Position, tuple[Move, ...], int] | None = None
    for order, (world, line) in enumerate(lines):
        committed = _committed(model, worlds, line)
        if committed not in scored:
            scored[committed] = _wins_after(model, worlds, world, committed, share) if len(lines) > 1 else 1
        rank = (scored[committed], votes[line[0]], -order)
        if best is None or rank > best[0]:
            best = (rank, world, line, scored[committed])
    assert best is not None
    _, world, line, won = best
    confidence = won / len(worlds)
    return Hint(line[0], confidence), Plan(world, line, confidence)


def _committed(model: Game, worlds: list[Position], line: tuple[Move, ...]) -> tuple[Move, ...]:
    """The start of ``line`` that every one of ``worlds`` (which show one
    board) plays alike: up to and including the first move after which
    they show different boards (a card turned up), or all of it."""
    boards = list(worlds)
    for index, move in enumerate(line):
        boards = [model.successor(board, move) for board in boards]
        shown = masked_key(boards[0])
        if any(masked_key(board) != shown for board in boards[1:]):
            return line[: index + 1]
    return line


def _wins_after(model: Game, worlds: list[Position], own: Position, moves: tuple[Move, ...], budget: int) -> int:
    """In how many of ``worlds`` a win is found within ``budget`` nodes
    after ``moves`` (``own``, whose line they start, counts as won)."""
    won = 0
    for world in worlds:
        if world is own:
            won += 1
            continue
        for move in moves:
            world = model.successor(world, move)
        won += model.is_won(world) or solve(model, world, budget, prove=False, after=moves[-1]).result == WON
    return won


def _lead(
    model: Game, world: Position, allowed: list[Move], remembered: tuple[int, ...], earlier: list[Visible]
) -> tuple[Hint | None, Plan | None]:
    """Without a win in sight, the heuristic's first choice (``_ranked``)
    among the ``allowed`` moves of ``world`` that start a way to progress
    (``Progress``) through boards the game has not shown (``earlier``,
    oldest first, the boards before ``world``), with the shortest such
    way as the plan the next hints walk (``Plan.wins`` false) when the
    search proved it; failing those, the move the heuristic does not rate
    that gets there in fewest moves; None when the search has shown that
    no ``allowed`` move leads to progress.  Confidence 0: no searched deal
    was won.  The search may explore more boards the longer the game has
    gone without progress (``progress.limit``)."""
    most = max((held(model, board) for board in earlier), default=0)
    idle = idle_moves(model, [*earlier, masked_key(world)])
    progress = Progress(model, world, remembered, most, earlier, limit(idle))
    ranked = _ranked(model, world, allowed)
    lead = progress.lead(ranked, [move for move in allowed if move not in ranked])
    if lead is None:
        return None, None
    plan = Plan(world, lead.moves, 0.0, wins=False) if lead.proven else None
    return Hint(lead.moves[0], 0.0), plan


def _ranked(model: Game, world: Position, allowed: list[Move]) -> list[Move]:
    """The ``allowed`` moves the heuristic rates (``Game.hint_order``), best
    first; where the game's domain searches best-first by its ``score``
    (Broken Deck), first the move that leaves the most legal moves (forced
    moves played), then the one the score puts nearest a win.  Mobility
    first because a wrong guess should leave room to recover: on Broken
    Deck deals 1, 5, 6, 9, 11, 13 and 16-20, following hints won 9 that
    way, 7 with the score first (which fills the free cells) and 7 with the
    heuristic's order alone; elsewhere mobility first won fewer deals than
    the heuristic's order (15 first Chequers deals: 14 against 15;
    WordLink draw 3: 4 against 7; Lara's Game: 5 against 7)."""
    domains = domain_class(model)
    ranked = []
    domain = domains(model) if domains.BEST_FIRST else None
    for index, move in enumerate(allowed):
        order = model.hint_order(world, move)
        if order is None:
            continue
        if domain is None:
            ranked.append((0, 0, order, index, move))
        else:
            settled = domain.step(world, (move,)).position
            ranked.append((-len(model.moves_from(settled)), domain.score(settled), order, index, move))
    return [entry[-1] for entry in sorted(ranked)]


def _win(model: Game, world: Position, budget: int, last: Move | None, allowed: list[Move]) -> tuple[Move, ...]:
    """A win from ``world`` found within ``budget`` nodes, or ``()``: one
    starting with the domain's preferred move (if ``allowed``) when the
    deal stays won after it."""
    domains = domain_class(model)
    preferred = domains(model).preferred(world, last)
    if preferred is not None and preferred in allowed:
        check = solve(model, model.successor(world, preferred), budget // 2, prove=False, after=preferred)
        if check.result == WON:
            return (preferred, *check.moves)
        budget -= check.nodes
    found = solve(model, world, max(budget, 1), prove=False, after=last)
    return found.moves if found.result == WON else ()


def auto_finish(game: Game, budget: int = DEFAULT_BUDGET, position: Position | None = None) -> list[Move] | None:
    """The moves that finish the game from ``position`` (default: now), or
    None when finishing is not on offer.

    Offered only where ``game.check_finish`` allows it (Broken Deck in
    Relaxed and Standard, once every half is repaired; WordLink once the
    stock and waste are empty and every card is face up) and only when the
    solver has found a complete path to the foundations within ``budget``
    nodes: "safe automatic finishing".  Play the moves with ``game.play``
    one by one to finish.  The search reads ``position`` alone, so a
    server may run it in a worker thread while the game goes on.
    """
    start = game.position if position is None else position
    if game.is_won(start):
        return None
    try:
        game.check_finish(start)
    except ActionUnavailable:
        return None
    found = solve(game, start, budget, prove=False)
    return list(found.moves) if found.result == WON else None
