"""Certificate files as text, both ways: what "verified" rests on.

One file per game and variant (``engine/data/<variant>.txt``), read by the
server (``server/deals/pools.py``) and by the tests; the engine itself never
opens it.  The format::

    # comment lines start with '#'
    game=klondike draw=3 next=2437
    1	1	t2-t6 draw*2 w-t3 ...

- The header names the game, the options that make the variant (the
  certificates replay with exactly these) and ``next``, the first deal
  number the builder has not tried yet (so a stopped build resumes there).
- One line per verified deal: the deal number, the shuffle seed behind it
  (the same number except in Broken Deck's remapped deals), and the
  winning moves in the game's notation.  ``m*N`` stands for ``N``
  consecutive ``m`` (WordLink's draws would otherwise be a third of the
  file); the notation never uses ``*``, so nothing is ambiguous.

Variants and which deals they hold:
- ``klondike-draw1`` / ``klondike-draw3``: WordLink's Winning Deal and
  Daily Challenge pools.  Scoring does not change which moves are legal,
  so Vegas uses the same certificates; the Vegas preset deals are the
  first ``VEGAS_PRESETS`` deals of the pool of the chosen draw count.
- ``broken-deck``: deals 1–1,000, every one verified.  Deal ``N`` uses
  shuffle seed ``N`` when the solver wins it; otherwise the first seed
  from ``remap_seed_base(N)`` upwards that it wins (see ``deal_seeds``).
- ``chequers``, ``laras-game``: daily pools.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Mapping, NamedTuple

from ..descriptor import GameDescriptor, PoolVariant
from ..games import DESCRIPTORS

VEGAS_PRESETS = 500
"""How many deals of a WordLink pool (the first, by deal number) are Vegas presets."""
REMAP_BASE = 1_000_000
REMAP_STRIDE = 1_000


class _PoolTable(Mapping[str, Any]):
    """A table of every registered game's pools (``GameDescriptor.pools``),
    read from the registry at each look-up, so a game registered later
    (a test's toy game) is in it too; ``pick`` says what a row holds."""

    def __init__(self, pick: Callable[[GameDescriptor, PoolVariant], Any]) -> None:
        self._pick = pick

    def _rows(self) -> dict[str, Any]:
        return {pool.name: self._pick(game, pool) for game in DESCRIPTORS.values() for pool in game.pools}

    def __getitem__(self, name: str) -> Any:
        return self._rows()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows())

    def __len__(self) -> int:
        return len(self._rows())


VARIANTS: Mapping[str, tuple[str, dict[str, Any]]] = _PoolTable(lambda game, pool: (game.id, dict(pool.options)))
"""Variant name → (game id, options the certificates are played with)."""

TARGETS: Mapping[str, int] = _PoolTable(lambda game, pool: pool.target)
"""How many verified deals each pool is meant to hold (``arena deals verify``
builds up to it by default)."""


class Certificate(NamedTuple):
    """A deal, the seed its layout comes from, and moves that win it."""

    deal: int
    seed: int
    moves: tuple[str, ...]


class Pool(NamedTuple):
    game_id: str
    options: dict[str, Any]
    next_deal: int
    certificates: dict[int, Certificate]

    def deals(self) -> list[int]:
        return sorted(self.certificates)


def remap_seed_base(deal: int) -> int:
    """Where the search for a replacement layout of Broken Deck's deal ``deal`` starts."""
    return REMAP_BASE + deal * REMAP_STRIDE


def variant_of(game_id: str, options: dict[str, Any]) -> str:
    """The pool variant for a game played with ``options``
    (``GameDescriptor.pool_for``: WordLink's draw count; every other option
    leaves the certificates valid), or the game id if no pool fits."""
    descriptor = DESCRIPTORS.get(game_id)
    pool = descriptor.pool_for(options) if descriptor is not None else None
    return pool.name if pool is not None else game_id


def vegas_presets(pool: Pool) -> list[int]:
    return pool.deals()[:VEGAS_PRESETS]


def deal_seeds(pool: Pool) -> dict[int, int]:
    """Deal number → shuffle seed, for the deals whose layout was remapped."""
    return {deal: cert.seed for deal, cert in pool.certificates.items() if cert.seed != deal}


def compress(moves: list[str] | tuple[str, ...]) -> str:
    tokens: list[str] = []
    index = 0
    while index < len(moves):
        run = 1
        while index + run < len(moves) and moves[index + run] == moves[index]:
            run += 1
        tokens.append(moves[index] if run == 1 else f"{moves[index]}*{run}")
        index += run
    return " ".join(tokens)


def expand(text: str) -> tuple[str, ...]:
    moves: list[str] = []
    for token in text.split():
        move, star, count = token.partition("*")
        if star and (not count.isdigit() or int(count) < 1):
            raise ValueError(f"bad repeat count in {token!r}")
        moves.extend([move] * (int(count) if star else 1))
    return tuple(moves)


def _value(text: str) -> Any:
    if text in ("true", "false"):
        return text == "true"
    return int(text) if text.lstrip("-").isdigit() else text


def parse_pool(text: str) -> Pool:
    """Read a certificate file; raises ``ValueError`` with the line number."""
    header: dict[str, Any] | None = None
    certificates: dict[int, Certificate] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        try:
            if header is None:
                header = {key: _value(value) for key, _, value in (item.partition("=") for item in line.split())}
                continue
            deal, seed, moves = line.split("\t")
            certificates[int(deal)] = Certificate(int(deal), int(seed), expand(moves))
        except ValueError as error:
            raise ValueError(f"line {number}: {error}") from None
    if header is None or "game" not in header:
        raise ValueError("a pool needs a header line naming its game (game=...)")
    game_id = str(header.pop("game"))
    next_deal = int(header.pop("next", max(certificates, default=0) + 1))
    return Pool(game_id, header, next_deal, certificates)


def deal_numbers(text: str) -> list[int]:
    """The deal numbers of a certificate file, sorted, without expanding any
    move list: what a server drawing deals needs (``parse_pool`` holds every
    move of every certificate; the tests replay those)."""
    deals: set[int] = set()
    header = False
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        if not header:
            header = True
            continue
        deal, tab, _ = line.partition("\t")
        try:
            if not tab:
                raise ValueError("expected DEAL<TAB>SEED<TAB>moves")
            deals.add(int(deal))
        except ValueError as error:
            raise ValueError(f"line {number}: {error}") from None
    return sorted(deals)


def format_pool(pool: Pool, comment: str = "") -> str:
    lines = [f"# {line}".rstrip() for line in comment.splitlines()]
    settings = " ".join(f"{key}={str(value).lower() if isinstance(value, bool) else value}" for key, value in pool.options.items())
    lines.append(f"game={pool.game_id} {settings} next={pool.next_deal}".replace("  ", " "))
    for deal in pool.deals():
        cert = pool.certificates[deal]
        lines.append(f"{deal}\t{cert.seed}\t{compress(cert.moves)}")
    return "\n".join(lines) + "\n"


def seed_table_module(seeds: dict[int, int]) -> str:
    """The source of ``engine/data/broken_deck_seeds.py``: the remapped
    seeds as a Python literal, because the engine deals Broken Deck without
    reading files (a test checks it against the certificate file)."""
    rows = "".join(f"    {deal}: {seed},\n" for deal, seed in sorted(seeds.items()))
    return (
        '"""Broken Deck deal numbers whose own shuffle is not verified, and the\n'
        "verified seed each is dealt from instead.  Generated with the\n"
        '``broken-deck.txt`` certificates by ``arena deals verify broken-deck``."""\n\n'
        f"SEEDS: dict[int, int] = {{\n{rows}}}\n"
    )
