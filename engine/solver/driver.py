"""``solve``: how one node budget is spent across bold and sound searches.

A game with a bold domain (rarely needed moves pruned) looks for a win
there; without a proof wanted it gets the whole budget.  Depth-first,
the bold search is one plain search on a quarter of its nodes (at most
``FIRST_SEARCH_NODES``), the rest going to restarts with a jittered move
order on small budgets: searches of this kind have heavy tails, a bad
early choice can hide a win behind hundreds of thousands of positions
while a restart that chose differently finds it in a few hundred (on
WordLink draw 3, restarts won 12 of the 37 deals a single 20,000-node
search gave up on).  Best-first, the first search has
``FIRST_SEARCH_NODES`` to itself, then takes turns with best-first
searches of the domain's ``alternatives`` (the same moves, scored
otherwise), for the same reason.

Only the sound domain's exhausted search proves "unwinnable".  A proving
solve therefore alternates the two on budgets that double from
``ROUND_NODES`` (iterative deepening on node budgets), the sound search
getting ``PROOF_SHARE`` of each round; both are ``Resumable``, so a
round continues where the last one stopped and no node is spent twice.
Most won deals are won in the first rounds by the bold search; a lost
deal costs about its sound search divided by ``PROOF_SHARE``, where the
bold search used to take half of the budget first (on WordLink draw 3
the deals left undecided were nearly all lost ones whose proof needed
more than the half left: 100,000-140,000 sound nodes).

A proving solve first asks the domain for a compiled win search
(``Domain.compiled_win``: Broken Deck without halves, ``engine.solver.
freecell``), granted ``COMPILED_SOUND_FACTOR`` expansions per node of the
budget, for the same reason as below; the Python searches run, on their
whole budget, only when it finds no win.

Where the sound search runs compiled (WordLink with numba,
``engine.solver.compiled.proof_search``), each round grants it
``COMPILED_SOUND_FACTOR`` nodes per node of its share: its nodes cost
that much less CPU, so it keeps about the share of the time it had and
proves far larger losses.  ``Solution.nodes`` still counts positions
expanded (so it can exceed the budget there); ``progress`` hears the
compiled nodes divided by the factor, so it never passes the budget.
"""

from __future__ import annotations

from ..game import Game, Move, Position
from ..rng import SplitMix64
from .compiled import COMPILED_SOUND_FACTOR, proof_search
from .domains import domain_class
from .search import (
    UNKNOWN,
    WON,
    Domain,
    Progress,
    Resumable,
    Solution,
    best_first_search,
    depth_first,
    search,
)

DEFAULT_BUDGET = 300_000
"""Nodes for a full solve: at most about 10 CPU seconds of WordLink on this
machine (``bench/solver.py``, whose target is a verdict within 10 s);
the proofs that decide most of the lost deals left open at the old
100,000 need 110,000-290,000 of them."""
ROUND_NODES = 2_000
"""Nodes of a proving solve's first round, bold and sound together; each
next round doubles the total, up to the budget."""


def solve(
    game: Game,
    position: Position | None = None,
    budget: int = DEFAULT_BUDGET,
    *,
    prove: bool = True,
    after: Move | None = None,
    progress: Progress | None = None,
) -> Solution:
    """A win from ``position`` (default: the game's current one), a proof
    that there is none, or ``unknown`` once ``budget`` nodes are spent.

    ``prove=False`` spends everything on finding a win (pool building and
    hints, where "unwinnable" is worth no more than "unknown").  ``after``
    is the move that led to the position: the solution never starts by
    taking it back.  ``progress`` is called now and then with the nodes
    spent so far by all the searches together (at most ``budget``).
    """
    start = game.position if position is None else position
    domains = domain_class(game)
    tally = _Tally(progress)
    sound_domain = domains(game)
    if not domains.HAS_BOLD:
        return _resumable(sound_domain, start, after, tally.counting("sound")).run(max(budget, 1))
    if prove:
        quick = sound_domain.compiled_win(
            start, after, COMPILED_SOUND_FACTOR * budget, tally.counting("first", COMPILED_SOUND_FACTOR)
        )
        if quick is not None:
            moves, nodes = quick
            tally.set("first", min(nodes // COMPILED_SOUND_FACTOR, budget))
            return Solution(WON, moves, nodes)
    bold = _Finder(domains(game, bold=True), start, budget if not prove else _bold_share(budget, domains), after, tally)
    if not prove:
        found = bold.run(budget)
        return found if found.result == WON else Solution(UNKNOWN, (), found.nodes)
    compiled = proof_search(sound_domain, start, after, tally.counting("sound", COMPILED_SOUND_FACTOR))
    sound = compiled or _resumable(sound_domain, start, after, tally.counting("sound"))
    scale = COMPILED_SOUND_FACTOR if compiled else 1
    total = min(ROUND_NODES, budget)
    sound_nodes = 0
    while True:
        if not bold.exhausted:
            found = bold.run(_bold_share(total, domains))
            if found.result == WON:
                return Solution(WON, found.moves, found.nodes + sound_nodes)
        proof = sound.run(scale * max(total - bold.nodes, 1))
        sound_nodes = proof.nodes
        if proof.result != UNKNOWN or total >= budget:
            return Solution(proof.result, proof.moves, bold.nodes + sound_nodes)
        total = min(2 * total, budget)


def _bold_share(total: int, domains: type[Domain]) -> int:
    return total - int(total * domains.PROOF_SHARE)


def _resumable(domain: Domain, start: Position, after: Move | None, progress: Progress | None) -> Resumable:
    strategy = best_first_search if domain.BEST_FIRST else depth_first
    return strategy(domain, start, after=after, progress=progress)


class _Tally:
    """The nodes each search has spent, so that ``progress`` hears the
    total of all of them while any one runs."""

    def __init__(self, progress: Progress | None) -> None:
        self.progress = progress
        self.spent = {"first": 0, "restarts": 0, "sound": 0}

    def counting(self, name: str, per_node: int = 1) -> Progress | None:
        """A ``progress`` for the search ``name``, which reports its own
        nodes, ``per_node`` of them for one of the budget (the compiled
        proof search's ``COMPILED_SOUND_FACTOR``)."""
        if self.progress is None:
            return None
        report = self.progress

        def heard(nodes: int) -> None:
            self.spent[name] = nodes // per_node
            report(sum(self.spent.values()))

        return heard

    def set(self, name: str, nodes: int) -> None:
        self.spent[name] = nodes
        if self.progress is not None:
            self.progress(sum(self.spent.values()))


class _Finder:
    """The bold searches (module docstring), continued by each ``run`` up
    to a total of nodes: the plain search first, then, once it has had its
    part of ``share`` (the most all runs together will get), restarts:
    jittered depth-first searches, or turns of best-first searches of the
    domain's ``alternatives`` alongside the first one."""

    def __init__(self, bold: Domain, start: Position, share: int, after: Move | None, tally: _Tally) -> None:
        self.bold, self.start, self.after, self.tally = bold, start, after, tally
        self.first = _resumable(bold, start, after, tally.counting("first"))
        self.first_cap = min(share if bold.BEST_FIRST else share // 4, bold.FIRST_SEARCH_NODES)
        low, high = bold.RESTART_NODES
        self.per_restart = min(max(share // 100, low), high)
        self.first_nodes = 0
        self.restart_nodes = 0
        self.attempt = 0
        self.turns: list[tuple[Resumable, int]] | None = None

    @property
    def nodes(self) -> int:
        return self.first_nodes + self.restart_nodes

    @property
    def exhausted(self) -> bool:
        """Whether the plain bold search has run out of positions (restarts
        of it would only reorder the same ones)."""
        return self.first.verdict is not None

    def run(self, total: int) -> Solution:
        """A win, or ``UNKNOWN`` once about ``total`` nodes are spent in all."""
        first = self.first.run(min(total, self.first_cap))
        self.first_nodes = first.nodes
        if first.result == WON:
            return Solution(WON, first.moves, self.nodes)
        if self.exhausted:
            return Solution(UNKNOWN, (), self.nodes)
        if self.bold.BEST_FIRST:
            return self._take_turns(total)
        while self.nodes + self.per_restart <= total:
            self.attempt += 1
            found = search(self.bold, self.start, self.per_restart, jitter=SplitMix64(self.attempt), after=self.after)
            self.restart_nodes += found.nodes
            self.tally.set("restarts", self.restart_nodes)
            if found.result == WON:
                return Solution(WON, found.moves, self.nodes)
        return Solution(UNKNOWN, (), self.nodes)

    def _take_turns(self, total: int) -> Solution:
        """The first best-first search and those of the ``alternatives``,
        ``per_restart`` nodes each in turn (each resumed where it stopped)."""
        if self.turns is None:
            self.turns = [(_resumable(other, self.start, self.after, None), 0) for other in self.bold.alternatives()]
        if not self.turns:
            return Solution(UNKNOWN, (), self.nodes)
        while self.nodes + self.per_restart <= total and not self.exhausted:
            index = self.attempt % (len(self.turns) + 1)
            self.attempt += 1
            if index == 0:
                found = self.first.run(self.first_nodes + self.per_restart)
                self.first_nodes = found.nodes
            else:
                other, spent = self.turns[index - 1]
                if other.verdict is not None:
                    continue
                found = other.run(spent + self.per_restart)
                self.turns[index - 1] = (other, found.nodes)
                self.restart_nodes += found.nodes - spent
                self.tally.set("restarts", self.restart_nodes)
            if found.result == WON:
                return Solution(WON, found.moves, self.nodes)
        return Solution(UNKNOWN, (), self.nodes)
