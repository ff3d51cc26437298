"""The sound domains against a plain exhaustive search.

Hypothesis builds small positions of each game (most cards already on
the foundations, a handful left in the piles), where trying every legal
move is cheap.  ``plain_winnable`` is a tiny depth-first search over
``moves_from`` / ``successor`` with a transposition set and nothing else:
no forced moves, no pruning, no move merging.  Its verdict must equal the
sound domain's, which forces moves and prunes: a sound domain that says
"unwinnable" where the plain search wins is exactly the bug that
docs/solver.md (*Soundness: forced moves and pruning*) tells of (WordLink
draw 3 forcing waste cards home).  Every win either search reports is
replayed through the checked engine.

Budgets are node counts (the plain search gives up past ``PLAIN_CAP``
positions and such an example is skipped), so the verdicts never depend
on the machine's speed.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable

from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st
from tests.solver.positions import play_all

import engine
from engine.cards import make_card
from engine.game import Game, Move, Position
from engine.games import broken_deck as bd
from engine.games import chequers as cq
from engine.games import klondike as kl
from engine.games import laras_game as lg
from engine.solver import UNKNOWN, UNWINNABLE, WON, solve
from engine.solver.domains import domain_class
from engine.solver.klondike import TWIN, KlondikeDomain
from engine.solver.search import Solution, best_first, search

PLAIN_CAP = 4_000
"""Positions the plain search may store before the example is skipped."""
PLAYOUT_CAP = 30_000
"""The same for positions left by a playout, which hold far more cards."""
SOUND_BUDGET = 20_000
PROFILE = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

Canon = Callable[[Position], Hashable]
HOME = {
    *kl.FOUNDATION_NAMES,
    *bd.BrokenDeck.PILES[bd.FOUNDATIONS[0] :],
    *cq.UP_NAMES,
    *cq.DOWN_NAMES,
    *lg.UP_NAMES,
    *lg.DOWN_NAMES,
}
"""The foundations' names in the four games."""


def exact(pos: Position) -> Hashable:
    return pos


def plain_winnable(game: Game, start: Position, canon: Canon = exact, cap: int = PLAIN_CAP) -> bool | None:
    """Whether a win is reachable from ``start`` by legal moves; None once
    ``cap`` positions are stored.  ``canon`` may only sort piles the
    rules treat alike (Broken Deck's columns and cells, Chequers' piles),
    never merge anything else.  Moves to a foundation are tried first,
    which finds most wins at once; the order does not change the verdict."""
    if game.is_won(start):
        return True
    seen = {canon(start)}
    stack = [start]
    while stack:
        pos = stack.pop()
        moves = game.moves_from(pos)
        moves.sort(key=lambda move: move.dst in HOME)
        for move in moves:
            after = game.successor(pos, move)
            if game.is_won(after):
                return True
            key = canon(after)
            if key not in seen:
                if len(seen) >= cap:
                    return None
                seen.add(key)
                stack.append(after)
    return False


def sound_search(game: Game, start: Position) -> Solution:
    """The sound domain alone, as the driver searches it for a proof."""
    domain = domain_class(game)(game)
    strategy = best_first if domain.BEST_FIRST else search
    return strategy(domain, start, SOUND_BUDGET)


def replays_to_won(game: Game, start: Position, found: Solution) -> bool:
    game.load_position(start)
    return play_all(game, found.moves) == "won"


def check(game: Game, start: Position, canon: Canon = exact, cap: int = PLAIN_CAP) -> None:
    """The sound domain's verdict equals the plain one, and so does the
    driver's whenever it decides; every win replays."""
    game.load_position(start)
    plain = plain_winnable(game, start, canon, cap)
    assume(plain is not None)
    sound = sound_search(game, start)
    assume(sound.result != UNKNOWN)
    event(f"plain search: {'winnable' if plain else 'unwinnable'}")
    assert sound.result == (WON if plain else UNWINNABLE), game.to_text()
    if plain:
        assert replays_to_won(game, start, sound)
    driven = solve(game, start, SOUND_BUDGET)
    if driven.result != UNKNOWN:
        assert driven.result == sound.result, game.to_text()
    if driven.result == WON:
        assert replays_to_won(game, start, driven)


left_per_suit = st.lists(st.integers(0, 4), min_size=4, max_size=4).filter(lambda left: 1 <= sum(left) <= 7)


@st.composite
def klondike_positions(draw: st.DrawFn) -> tuple[Game, Position]:
    """Foundations up to 13 − left per suit; the other cards shuffled into
    the talon (a random pointer) and three columns (a random number face
    down under a face-up top: tall columns are where deals get stuck).
    The face-up cards form a run, as in every position play reaches (a
    card lands on a column only where it fits), which the twin rule of
    the sound domain takes for granted."""
    per_draw = draw(st.sampled_from((1, 3)))
    left = draw(left_per_suit)
    heights = [13 - n for n in left]
    cards = draw(st.permutations([make_card(rank, suit) for suit in range(4) for rank in range(heights[suit] + 1, 14)]))
    talon_size = draw(st.integers(0, len(cards)))
    talon, rest = cards[:talon_size], cards[talon_size:]
    pointer = draw(st.integers(0, talon_size))
    columns: list[list[int]] = [[] for _ in kl.TABLEAU]
    for card in rest:
        columns[draw(st.integers(0, 2))].append(card)
    face_down = [len(column) - draw(st.integers(1, top_run(column))) if column else 0 for column in columns]
    return engine.new_game("klondike", 1, draw=per_draw), laid_out(heights, talon, pointer, columns, face_down)


def top_run(column: list[int], floor: int = 0) -> int:
    """How many cards at the top of ``column``, none below index ``floor``,
    form a run (at least the top card)."""
    run = 1
    while run < len(column) - floor and kl.FITS_KEY[column[-run]] == kl.ACCEPTS_KEY[column[-run - 1]]:
        run += 1
    return run


def laid_out(heights: list[int], talon: list[int], pointer: int, columns: list[list[int]], face_down: list[int]) -> Position:
    """The WordLink position with foundations at ``heights``, the waste
    ``talon[:pointer]``, the rest of it in the stock, and ``columns`` with
    ``face_down`` cards face down each."""
    piles = [tuple(reversed(talon[pointer:])), tuple(talon[:pointer])]
    piles += [tuple(make_card(r, s) for r in range(1, heights[s] + 1)) for s in range(4)]
    piles += [tuple(column) for column in columns]
    down = [len(piles[kl.STOCK])] + [0] * 5 + face_down
    return Position(tuple(piles), tuple(down))


@given(klondike_positions())
@PROFILE
def test_wordlink_sound_domain_agrees_with_plain_search(example: tuple[Game, Position]) -> None:
    check(*example)


@st.composite
def klondike_twin_positions(draw: st.DrawFn) -> tuple[Game, Position]:
    """Like ``klondike_positions``, but with more cards left and most of
    them dealt in falling rank order, mostly onto a card they fit, so that
    columns end in long runs and both twins of a rank often lie face up
    with runs on them: where the sound domain's twin key and twin steps
    act."""
    per_draw = draw(st.sampled_from((1, 3)))
    left = draw(st.lists(st.integers(1, 3), min_size=4, max_size=4))
    heights = [13 - n for n in left]
    cards = draw(st.permutations([make_card(rank, suit) for suit in range(4) for rank in range(heights[suit] + 1, 14)]))
    talon_size = draw(st.integers(0, 3))
    hidden_size = draw(st.integers(0, 4))
    talon, hidden = cards[:talon_size], cards[talon_size : talon_size + hidden_size]
    falling = sorted(cards[talon_size + hidden_size :], key=lambda card: -kl.RANK[card])
    columns: list[list[int]] = [[] for _ in kl.TABLEAU]
    for card in hidden:
        columns[draw(st.integers(0, 3))].append(card)
    faces = [len(column) for column in columns]
    for card in falling:
        fitting = [column for column in columns if column and kl.FITS_KEY[card] == kl.ACCEPTS_KEY[column[-1]]]
        if fitting and draw(st.integers(0, 3)) > 0:
            fitting[draw(st.integers(0, len(fitting) - 1))].append(card)
        else:
            columns[draw(st.integers(0, 3))].append(card)
    pointer = draw(st.integers(0, talon_size))
    face_down = [len(column) - top_run(column, floor) if column else 0 for column, floor in zip(columns, faces)]
    return engine.new_game("klondike", 1, draw=per_draw), laid_out(heights, talon, pointer, columns, face_down)


@given(klondike_twin_positions())
@settings(PROFILE, max_examples=300)
def test_wordlink_twin_rule_agrees_with_plain_search(example: tuple[Game, Position]) -> None:
    game, start = example
    event(f"face-up twins with a run on one: {bool(loaded_twins(start))}")
    event(f"a twin step at the root: {any(is_twin_step(step.moves) for step in KlondikeDomain(game).steps(start))}")
    check(game, start)


@given(klondike_twin_positions(), st.randoms(use_true_random=False))
@settings(PROFILE, max_examples=300)
def test_wordlink_twins_swapping_runs_are_equally_winnable(example: tuple[Game, Position], chooser: random.Random) -> None:
    """What the twin key rests on: swapping what lies on two face-up
    twins leaves a position winnable or not, by plain search."""
    game, start = example
    twins = loaded_twins(start)
    assume(twins)
    swapped = swap_runs(start, chooser.choice(twins))
    before, after = plain_winnable(game, start), plain_winnable(game, swapped)
    assume(before is not None and after is not None)
    event(f"plain search: {'winnable' if before else 'unwinnable'}")
    assert before == after, game.to_text()


def swap_runs(pos: Position, card: int) -> Position:
    """``pos`` with the cards on ``card`` and on its twin (both face up) changed places."""
    piles = list(pos.piles)
    where = {c: (pile, index) for pile in kl.TABLEAU for index, c in enumerate(piles[pile])}
    (first, at_first), (second, at_second) = where[card], where[TWIN[card]]
    on_first, on_second = piles[first][at_first + 1 :], piles[second][at_second + 1 :]
    piles[first] = piles[first][: at_first + 1] + on_second
    piles[second] = piles[second][: at_second + 1] + on_first
    return Position(tuple(piles), pos.down, pos.aux)


def loaded_twins(pos: Position) -> list[int]:
    """The face-up cards whose twin is face up too, one of the two with a card on it."""
    face_up = {card: index < len(pos.piles[pile]) - 1 for pile in kl.TABLEAU for index, card in enumerate(pos.piles[pile]) if index >= pos.down[pile]}
    return [card for card, covered in face_up.items() if TWIN[card] in face_up and (covered or face_up[TWIN[card]])]


def is_twin_step(moves: tuple[Move, ...]) -> bool:
    """Whether a step starts with a run between columns, then the card it uncovered home."""
    columns = kl.TABLEAU_NAMES
    return len(moves) >= 2 and moves[0].src in columns and moves[0].dst in columns and moves[1].src == moves[0].src and moves[1].dst in kl.FOUNDATION_NAMES


@st.composite
def klondike_playouts(draw: st.DrawFn) -> tuple[Game, Position]:
    """Where a careless player leaves a real deal: 20 to 120 moves, each a
    random one of those the hint order calls useful or else a draw (most
    such positions are lost, which is what the proofs need trying on)."""
    game = engine.new_game("klondike", draw(st.integers(1, 10_000)), draw=draw(st.sampled_from((1, 3))))
    chooser = random.Random(draw(st.integers(0, 2**32)))
    for _ in range(draw(st.integers(20, 120))):
        legal = game.legal_moves()
        if not legal:
            break
        useful = [move for move in legal if move.dst and game.hint_order(game.position, move) is not None]
        drawing = [move for move in legal if not move.dst]
        game.play(chooser.choice(useful) if useful and (not drawing or chooser.random() < 0.6) else drawing[0])
    return game, game.position


@given(klondike_playouts())
@settings(PROFILE, max_examples=15)
def test_wordlink_playout_positions_agree_with_plain_search(example: tuple[Game, Position]) -> None:
    check(*example, cap=PLAYOUT_CAP)


def broken_deck_canon(pos: Position) -> Hashable:
    piles = pos.piles
    columns, cells = sorted(piles[i] for i in bd.TABLEAU), sorted(piles[i] for i in bd.CELLS)
    return (tuple(columns), tuple(cells), piles[bd.SLOT], piles[bd.FOUNDATIONS[0] :])


@st.composite
def broken_deck_positions(draw: st.DrawFn) -> tuple[Game, Position]:
    """Whole cards left per suit, up to two of them torn; every piece goes
    to a column, a free cell or the Repair Slot (one piece each)."""
    left = draw(st.lists(st.integers(0, 3), min_size=4, max_size=4).filter(lambda n: 1 <= sum(n) <= 6))
    heights = [13 - n for n in left]
    cards = [make_card(rank, suit) for suit in range(4) for rank in range(heights[suit] + 1, 14)]
    torn = draw(st.integers(0, min(2, len(cards))))
    pieces = cards[torn:] + [make_card(c % 16, (c // 16) % 4, part=part) for c in cards[:torn] for part in (1, 2)]
    game = engine.new_game("broken-deck", 1)
    piles: list[list[int]] = [[] for _ in game.PILES]
    for piece in draw(st.permutations(pieces)):
        place = draw(st.integers(0, 12))
        target = (*bd.TABLEAU, *bd.CELLS, bd.SLOT)[place]
        if target not in bd.TABLEAU and piles[target]:
            target = bd.TABLEAU[place % 8]
        piles[target].append(piece)
    for suit, f in enumerate(bd.FOUNDATIONS):
        piles[f] = [make_card(rank, suit) for rank in range(1, heights[suit] + 1)]
    return game, Position(tuple(tuple(p) for p in piles), (0,) * len(piles))


@given(broken_deck_positions())
@PROFILE
def test_broken_deck_sound_domain_agrees_with_plain_search(example: tuple[Game, Position]) -> None:
    check(*example, canon=broken_deck_canon)


def chequers_canon(pos: Position) -> Hashable:
    piles = pos.piles
    return (tuple(sorted(piles[i] for i in cq.TABLEAU)), piles[cq.RESERVE], tuple(len(piles[f]) for f in cq.FOUNDATIONS))


def two_deck_foundations(draw: st.DrawFn, suit_size: int = 13) -> tuple[list[tuple[int, int]], list[int]]:
    """Up and down heights per suit leaving a few cards out, and those cards
    (the copies the foundations do not hold)."""
    left = draw(st.lists(st.integers(0, 3), min_size=4, max_size=4).filter(lambda n: 1 <= sum(n) <= 6))
    heights = []
    out = []
    for suit, n in enumerate(left):
        up = draw(st.integers(max(0, 13 - n), min(13, 26 - n)))
        down = 26 - n - up
        heights.append((up, down))
        for rank in range(1, suit_size + 1):
            held = (rank <= up) + (rank >= 14 - down)
            out += [make_card(rank, suit, deck) for deck in range(held, 2)]
    return heights, out


def foundation_cards(heights: list[tuple[int, int]]) -> tuple[list[tuple[int, ...]], list[tuple[int, ...]]]:
    """Up piles (deck 0 first) and down piles (a rank the up pile holds too takes deck 1)."""
    ups = [tuple(make_card(rank, suit) for rank in range(1, up + 1)) for suit, (up, _) in enumerate(heights)]
    downs = [
        tuple(make_card(rank, suit, int(rank <= up)) for rank in range(13, 13 - down, -1))
        for suit, (up, down) in enumerate(heights)
    ]
    return ups, downs


@st.composite
def chequers_positions(draw: st.DrawFn) -> tuple[Game, Position]:
    """A few cards left on the 25 piles, the reserve empty (a reserve with
    cards needs every pile filled: too many cards to try every line)."""
    heights, out = two_deck_foundations(draw)
    ups, downs = foundation_cards(heights)
    piles: list[list[int]] = [[] for _ in cq.PILE_NAMES]
    for card in draw(st.permutations(out)):
        piles[cq.TABLEAU[draw(st.integers(0, 5))]].append(card)
    for suit in range(4):
        piles[cq.UP[suit]], piles[cq.DOWN[suit]] = list(ups[suit]), list(downs[suit])
    game = engine.new_game("chequers", 1)
    return game, Position(tuple(tuple(p) for p in piles), (0,) * len(piles))


@given(chequers_positions())
@PROFILE
def test_chequers_sound_domain_agrees_with_plain_search(example: tuple[Game, Position]) -> None:
    check(*example, canon=chequers_canon)


@st.composite
def laras_game_positions(draw: st.DrawFn) -> tuple[Game, Position]:
    """A few cards left in the packs, the stock and perhaps a spread row."""
    heights, out = two_deck_foundations(draw)
    ups, downs = foundation_cards(heights)
    piles: list[list[int]] = [[] for _ in range(lg.ROW + 1)]
    for card in draw(st.permutations(out)):
        piles[(*range(lg.PACK_BASE + 1, lg.STOCK + 1), lg.ROW)[draw(st.integers(0, 14))]].append(card)
    spread = 0
    if piles[lg.ROW]:
        spread = draw(st.integers(1, 13))
        piles[lg.ROW] = piles[lg.PACK_BASE + spread] + piles[lg.ROW]
        piles[lg.PACK_BASE + spread] = []
    for suit in range(4):
        piles[lg.UP[suit]], piles[lg.DOWN[suit]] = list(ups[suit]), list(downs[suit])
    down = [0] * len(piles)
    down[lg.STOCK] = len(piles[lg.STOCK])
    game = engine.new_game("laras-game", 1)
    return game, Position(tuple(tuple(p) for p in piles), tuple(down), (spread,))


@given(laras_game_positions())
@PROFILE
def test_laras_game_sound_domain_agrees_with_plain_search(example: tuple[Game, Position]) -> None:
    check(*example)
