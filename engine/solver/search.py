"""The search every game shares: depth-first, a transposition table, a node budget.

Why depth-first: a solitaire deal is won by one long line of play, and a
good move order finds that line after a few hundred expansions, while a
breadth-first frontier would hold millions of positions.  The
transposition table stores each position's key once (``hash`` of the
domain's key, so a million positions cost tens of megabytes, not
gigabytes); a key met again is never expanded again, which makes the
search complete over the positions the domain can reach: "unwinnable"
means every reachable position was expanded without finding a win.  The
price of storing hashes is that two different positions with equal 64-bit
hashes would be merged; with at most a few million positions the chance
is below one in a million per search, and the claim that matters (a win)
is checked by replaying its moves through the checked engine anyway.

The budget counts expanded positions, not seconds, so the same position
and budget always give the same answer (the engine has no clock, and a
hint must not depend on how busy the machine is).
"""

from __future__ import annotations

import heapq
from itertools import repeat
from typing import Callable, Generator, Hashable, Iterator, NamedTuple, TypeVar

from ..game import Game, Move, Position
from ..rng import SplitMix64
from .determinize import WORLDS

WON = "won"
UNWINNABLE = "unwinnable"
UNKNOWN = "unknown"

JITTER = 3.0
"""How far (in places) a jittered search may move a step in the domain's order."""
PROGRESS_NODES = 1_000
"""Expanded positions between two calls of a search's ``progress``."""

Progress = Callable[[int], None]
"""Called with the positions expanded so far, for a command's progress line
(the caller decides what to show; the search itself stays free of I/O)."""


class Step(NamedTuple):
    """One edge of the search graph: engine moves (often several, e.g. draws
    and then a play, followed by forced foundation moves) and the position
    they lead to."""

    moves: tuple[Move, ...]
    position: Position


class Solution(NamedTuple):
    """What a search found: ``result`` is ``WON`` (and ``moves`` wins the deal
    from the searched position), ``UNWINNABLE`` (every reachable position was
    tried) or ``UNKNOWN`` (the budget ran out first)."""

    result: str
    moves: tuple[Move, ...]
    nodes: int

    @property
    def notation(self) -> str:
        return " ".join(str(move) for move in self.moves)


class Domain:
    """How the search sees one game: the plain engine interface, one move per
    step, in the game's hint order.

    Game modules of the solver subclass it to bundle forced moves, order
    the useful moves first and leave out moves that provably cannot matter.
    A *sound* domain keeps every winnable position reachable, so that its
    exhausted search proves a deal unwinnable; a *bold* one (``bold=True``)
    may also drop moves that are rarely needed, to find most wins far
    faster, and its exhaustion proves nothing.  Sound means three things,
    each argued where a game's module does it (and checked against a
    plain exhaustive search in ``tests/solver/test_soundness.py``):

    - ``forced_move`` plays a move only when the position after it is
      winnable whenever the position before it is;
    - ``steps`` leaves out a move only when the position it leads to is,
      under ``key``, one that another step (or the position itself) has;
    - ``key`` is equal only for positions that are equally winnable, in
      as few steps (the same up to interchangeable piles or cards, or a
      few free draws apart; WordLink also merges twins' runs, and says why
      in ``engine.solver.klondike``).
    """

    HAS_BOLD = False
    """Whether ``bold=True`` changes anything (else the driver skips it)."""
    PROOF_SHARE = 0.5
    """Of a budget that must also try to prove, the share left for the sound
    search after the bold one (games with a bold domain only)."""
    BEST_FIRST = False
    """Search by ``score`` (``best_first``) instead of depth-first."""
    FIRST_SEARCH_NODES = 1 << 62
    """Cap on the first bold search before restarts begin (depth-first, a
    quarter of the bold share otherwise; best-first, all of it)."""
    RESTART_NODES = (200, 1_000)
    """Bounds of one bold restart's budget (otherwise a hundredth of the
    bold share): a jittered depth-first search, or a turn of one of the
    ``alternatives``."""
    HINT_BUDGET = 2_000
    """Nodes a hint may search: at most about 200 ms on the reference
    machine.  Calibrated per game with ``python bench/solver.py
    --calibrate``: nodes per second searching from the first positions of
    10 deals, times 0.2 s, rounded down (measured with the machine nearly
    idle: WordLink 21,000-25,000 nodes/s, Broken Deck 20,000, Lara's Game
    18,000, Chequers 1,400).  Most hints find a win long before the budget
    ends (median 16-150 ms).  WordLink and Lara's Game search about twice
    their calibration, which their own ``HINT_BUDGET`` measures and says
    why."""

    HINT_WORLDS = WORLDS
    """Determinizations a view-only hint searches when the view hides
    cards, sharing ``HINT_BUDGET`` (``determinize.determinizations``)."""

    def __init__(self, game: Game, bold: bool = False) -> None:
        self.game = game
        self.bold = bold

    def key(self, pos: Position) -> Hashable:
        return self.game.search_key(pos)

    def won(self, pos: Position) -> bool:
        return self.game.is_won(pos)

    def steps(self, pos: Position) -> list[Step]:
        """The moves worth trying from ``pos``, most promising first."""
        game = self.game
        ranked = []
        for index, move in enumerate(game.moves_from(pos)):
            order = game.hint_order(pos, move)
            ranked.append((99 if order is None else order, index, move))
        ranked.sort()
        return [self.step(pos, (move,)) for _, _, move in ranked]

    def lines(self, pos: Position) -> list[tuple[Move, ...]] | None:
        """The moves of ``steps``' steps in their order, where each step is
        ``step(pos, moves)``, so a depth-first search plays each step only
        when it comes to it: one that ends on its budget or a win never
        plays the steps left waiting along its path.  None (the default):
        the search asks ``steps``, as it must for a domain that ranks its
        steps by the positions they reach (Chequers) or lengthens them
        with the forced moves after them (WordLink)."""
        return None

    def forced_move(self, pos: Position) -> Move | None:
        """A move that can be played from ``pos`` without losing anything
        (so the search plays it without branching), or None."""
        return None

    def forced(self, pos: Position) -> tuple[tuple[Move, ...], Position]:
        """The forced moves from ``pos``, one after another, and where they lead."""
        moves: list[Move] = []
        while (move := self.forced_move(pos)) is not None:
            moves.append(move)
            pos = self.game.successor(pos, move)
        return tuple(moves), pos

    def step(self, pos: Position, moves: tuple[Move, ...]) -> Step:
        """The step that plays ``moves`` from ``pos``, then the forced moves."""
        for move in moves:
            pos = self.game.successor(pos, move)
        extra, settled = self.forced(pos)
        return Step(moves + extra, settled)

    def preferred(self, pos: Position, last: Move | None) -> Move | None:
        """A move a hint should name first if the deal stays won after it."""
        return None

    def compiled_win(
        self, start: Position, after: Move | None, budget: int, progress: Progress | None = None
    ) -> tuple[tuple[Move, ...], int] | None:
        """A win from ``start`` (not starting by taking back ``after``) found
        by a compiled search within about ``budget`` expansions, with the
        expansions spent, told to ``progress`` now and then; None where
        there is no such search or it found no win (a proving solve then
        runs the Python searches)."""
        return None

    def alternatives(self) -> list[Domain]:
        """Differently scored copies whose best-first searches take turns
        with this one's after ``FIRST_SEARCH_NODES`` (none: a best-first
        bold search is then continued alone)."""
        return []

    def score(self, pos: Position) -> int:
        """How far ``pos`` looks from a win, lower is better; only
        ``BEST_FIRST`` domains are searched by it."""
        return 0


Tried = TypeVar("Tried")


def _jittered(steps: list[Tried], rng: SplitMix64) -> list[Tried]:
    """The same steps (or their ``lines``), each shifted by up to
    ``JITTER`` places at random: a restart explores a different corner of
    the tree first, which beats one long search on the deals where the
    first choice was a bad one."""
    keyed = sorted((index + JITTER * rng.next_u64() / 2**64, index) for index in range(len(steps)))
    return [steps[index] for _, index in keyed]


class Resumable:
    """A search that stops when its budget is spent and can go on later
    with a bigger one, keeping its transposition table and stack: the
    driver alternates a bold and a sound search on growing budgets
    (iterative deepening on node budgets) without either one starting
    over.  ``run(budget)`` returns the verdict, or ``UNKNOWN`` with the
    nodes spent once they reach ``budget`` (the total, not an increment);
    a finished search answers its verdict again."""

    def __init__(self, steps: Generator[Solution, int, Solution]) -> None:
        self._steps = steps
        self.verdict: Solution | None = None
        next(steps)

    def run(self, budget: int) -> Solution:
        if self.verdict is not None:
            return self.verdict
        try:
            return self._steps.send(budget)
        except StopIteration as finished:
            self.verdict = finished.value
            return finished.value


def search(
    domain: Domain,
    root: Position,
    budget: int,
    *,
    jitter: SplitMix64 | None = None,
    after: Move | None = None,
    progress: Progress | None = None,
) -> Solution:
    """Find a win from ``root`` expanding at most ``budget`` positions.

    ``jitter`` perturbs the move order (deterministically, from the
    generator's seed); ``after`` is the move that led to ``root``, which
    the solution must not start by taking back (hints never undo the
    player's last move).  ``progress``, if given, is called every
    ``PROGRESS_NODES`` expansions.  Depth-first with an explicit stack:
    solutions run to hundreds of steps.
    """
    return depth_first(domain, root, jitter=jitter, after=after, progress=progress).run(budget)


def depth_first(
    domain: Domain,
    root: Position,
    *,
    jitter: SplitMix64 | None = None,
    after: Move | None = None,
    progress: Progress | None = None,
) -> Resumable:
    """``search`` as a ``Resumable`` (arguments as there)."""
    return Resumable(_depth_first(domain, root, jitter, after, progress))


def _depth_first(
    domain: Domain, root: Position, jitter: SplitMix64 | None, after: Move | None, progress: Progress | None
) -> Generator[Solution, int, Solution]:
    """The depth-first search; it yields ``UNKNOWN`` whenever the budget
    it was sent is spent, and takes the next budget where it stopped."""
    budget = yield Solution(UNKNOWN, (), 0)
    prefix, start = domain.forced(root)
    if prefix and prefix[0].undoes(after):
        prefix, start = (), root
    if domain.won(start):
        return Solution(WON, prefix, 0)

    def order(tried: list[Tried]) -> list[Tried]:
        return _jittered(tried, jitter) if jitter is not None else tried

    def expand(pos: Position) -> Iterator[Step]:
        lines = domain.lines(pos)
        if lines is None:
            return iter(order(domain.steps(pos)))
        return map(domain.step, repeat(pos), order(lines))

    root_steps = domain.steps(start)
    allowed = root_steps if prefix else [step for step in root_steps if not step.moves[0].undoes(after)]
    complete = len(allowed) == len(root_steps)
    seen = {hash(domain.key(start))}
    path: list[Step] = []
    frontier = [iter(order(allowed))]
    nodes = 1
    while frontier:
        step = next(frontier[-1], None)
        if step is None:
            frontier.pop()
            if path:
                path.pop()
            continue
        if domain.won(step.position):
            moves = prefix + tuple(move for taken in path for move in taken.moves) + step.moves
            return Solution(WON, moves, nodes)
        signature = hash(domain.key(step.position))
        if signature in seen:
            continue
        while nodes >= budget:
            budget = yield Solution(UNKNOWN, (), nodes)
        seen.add(signature)
        nodes += 1
        if progress is not None and not nodes % PROGRESS_NODES:
            progress(nodes)
        path.append(step)
        frontier.append(expand(step.position))
    return Solution(UNWINNABLE if complete else UNKNOWN, (), nodes)


class Trail(NamedTuple):
    """How a best-first position was reached: its step's moves and the
    trail of the position it came from (shared, so a frontier of many
    positions stores each path prefix once)."""

    moves: tuple[Move, ...]
    parent: Trail | None

    def moves_from_root(self) -> tuple[Move, ...]:
        steps = []
        trail: Trail | None = self
        while trail is not None:
            steps.append(trail.moves)
            trail = trail.parent
        return tuple(move for moves in reversed(steps) for move in moves)


FRONTIER_LIMIT = 200_000
"""Positions a best-first search keeps waiting at most; beyond it the worst
half is dropped (and exhaustion then proves nothing)."""


def best_first(
    domain: Domain, root: Position, budget: int, *, after: Move | None = None, progress: Progress | None = None
) -> Solution:
    """Find a win expanding the position with the lowest ``domain.score``
    first; for games where a depth-first line wanders (free-cell games
    reach the same few cards by countless paths), the score pulls the
    search straight towards the foundations.  ``after`` and ``progress`` as in ``search``."""
    return best_first_search(domain, root, after=after, progress=progress).run(budget)


def best_first_search(
    domain: Domain, root: Position, *, after: Move | None = None, progress: Progress | None = None
) -> Resumable:
    """``best_first`` as a ``Resumable`` (arguments as there)."""
    return Resumable(_best_first(domain, root, after, progress))


def _best_first(
    domain: Domain, root: Position, after: Move | None, progress: Progress | None
) -> Generator[Solution, int, Solution]:
    """The best-first search, yielding as ``_depth_first`` does."""
    budget = yield Solution(UNKNOWN, (), 0)
    prefix, start = domain.forced(root)
    if prefix and prefix[0].undoes(after):
        prefix, start = (), root
    if domain.won(start):
        return Solution(WON, prefix, 0)
    seen = {hash(domain.key(start))}
    frontier: list[tuple[int, int, Position, Trail | None]] = [(domain.score(start), 0, start, None)]
    complete, counter, nodes = True, 1, 0
    while frontier:
        while nodes >= budget:
            budget = yield Solution(UNKNOWN, (), nodes)
        _, _, pos, link = heapq.heappop(frontier)
        nodes += 1
        if progress is not None and not nodes % PROGRESS_NODES:
            progress(nodes)
        for step in domain.steps(pos):
            if link is None and not prefix and step.moves[0].undoes(after):
                complete = False
                continue
            if domain.won(step.position):
                return Solution(WON, prefix + Trail(step.moves, link).moves_from_root(), nodes)
            signature = hash(domain.key(step.position))
            if signature in seen:
                continue
            seen.add(signature)
            heapq.heappush(frontier, (domain.score(step.position), -counter, step.position, Trail(step.moves, link)))
            counter += 1
        if len(frontier) > FRONTIER_LIMIT:
            frontier = heapq.nsmallest(FRONTIER_LIMIT // 2, frontier)
            complete = False
    return Solution(UNWINNABLE if complete else UNKNOWN, (), nodes)
