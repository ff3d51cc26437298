"""``client.reveal``: the checks a sceptic runs on a revealed daily deal,
each shown to fail on the lie it is there to catch."""

from __future__ import annotations

from tests.races.arena_races import DEAL_1_DRAW_1_WIN, KLONDIKE_DRAW_1

from client.reveal import race_reveal_problems, reveal_problems
from protocol import to_client as tc
from server.daily import commitment
from server.secret_deals import race_commitment

DAY = "2026-03-14"


def _revealed(seed: int, nonce: str, line: tuple[str, ...], promised: str | None = None) -> tc.DailyDeal:
    return tc.DailyDeal(
        game="klondike", title="WordLink", variant=KLONDIKE_DRAW_1, options={"draw": 1},
        board=f"klondike/{KLONDIKE_DRAW_1}/{DAY}", date=DAY,
        commitment=promised or commitment("klondike", KLONDIKE_DRAW_1, DAY, seed, nonce),
        committed_ms=0, reveals_at=0, seed=f"{seed:016x}", nonce=nonce, line=list(line),
    )


def test_an_honest_reveal_verifies() -> None:
    assert reveal_problems(_revealed(1, "a" * 32, DEAL_1_DRAW_1_WIN)) == []


def test_a_seed_other_than_the_committed_one_is_caught() -> None:
    promised = commitment("klondike", KLONDIKE_DRAW_1, DAY, 2, "a" * 32)
    assert reveal_problems(_revealed(1, "a" * 32, DEAL_1_DRAW_1_WIN, promised)) == [
        "the commitment does not match the seed and nonce"
    ]


def test_a_line_that_does_not_win_the_seed_is_caught() -> None:
    assert "ends playing, not won" in reveal_problems(_revealed(1, "a" * 32, DEAL_1_DRAW_1_WIN[:-1]))[0]
    assert "illegal" in reveal_problems(_revealed(2, "a" * 32, DEAL_1_DRAW_1_WIN))[0]


def test_a_deal_not_yet_revealed_does_not_verify() -> None:
    hidden = _revealed(1, "a" * 32, DEAL_1_DRAW_1_WIN).model_copy(update={"seed": None, "nonce": None, "line": None})
    assert reveal_problems(hidden) == ["not revealed yet"]


def test_a_finished_winnable_races_reveal_is_checked_the_same_way() -> None:
    race = tc.RaceInfo.model_validate({
        "race_id": "r_x", "code": None, "host": {"player_id": "p_a", "name": "ann"}, "game": "klondike",
        "title": "WordLink", "options": {"draw": 1}, "deal_kind": "winnable", "daily": None, "verified": True,
        "deal": None, "commitment": race_commitment("r_x", 1, "n" * 32), "seed": f"{1:016x}", "nonce": "n" * 32,
        "line": list(DEAL_1_DRAW_1_WIN), "phase": "finished", "limit": 8, "created_ms": 0, "invite_expires_ms": 0,
        "starts_at": 0, "ends_at": 0, "finished_ms": 0, "racers": [], "results": [], "rematch": None,
    })
    assert race_reveal_problems(race) == []
    assert race_reveal_problems(race.model_copy(update={"race_id": "r_y"})) == [
        "the commitment does not match the seed and nonce"
    ]
