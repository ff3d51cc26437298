"""``client.reveal``: the checks a sceptic runs on a revealed daily deal,
each shown to fail on the lie it is there to catch; and the documented
commitment, checked with hashlib and with the real ``sha256sum``."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from tests.client.arena_restart import REPO_ROOT
from tests.races.arena_races import DEAL_1_DRAW_1_WIN, KLONDIKE_DRAW_1

import engine
from client.commitments import Commitments, CommitmentsUnreadable, Seen, file_for
from client.reveal import (
    UNCONFIRMED,
    day_start_ms,
    daily_proof,
    first_board_problems,
    history_problems,
    race_reveal_problems,
    reveal_problems,
)
from protocol import to_client as tc
from server.deals.daily import commitment
from server.deals.proofs import race_commitment

DAY = "2026-03-14"
PROTOCOL_DOC = REPO_ROOT / "docs" / "protocol.md"


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


def test_options_that_make_another_variant_than_the_committed_one_are_caught() -> None:
    """The committed text names draw 1; the deal revealed is dealt and won
    with draw 3.  Hash, layout and line all check out: only the variant
    the options make tells the contests apart."""
    draw_3 = "draw=3,scoring=standard"
    line = ("draw",) * 3
    forged = _revealed(1, "a" * 32, line).model_copy(update={"options": {"draw": 3}})
    assert forged.variant == KLONDIKE_DRAW_1
    problems = reveal_problems(forged)
    assert any(f"are the variant {draw_3}, not the committed {KLONDIKE_DRAW_1}" in problem for problem in problems)
    board = _revealed(1, "a" * 32, DEAL_1_DRAW_1_WIN).model_copy(update={"board": f"klondike/{draw_3}/{DAY}"})
    assert reveal_problems(board) == [f"the board klondike/{draw_3}/{DAY} is not klondike {KLONDIKE_DRAW_1} of {DAY}"]


def test_a_commitment_made_after_the_day_began_is_caught() -> None:
    late = _revealed(1, "a" * 32, DEAL_1_DRAW_1_WIN).model_copy(update={"committed_ms": day_start_ms(DAY)})
    assert len(reveal_problems(late)) == 1
    assert "after the day began" in reveal_problems(late)[0]
    assert reveal_problems(late.model_copy(update={"committed_ms": day_start_ms(DAY) - 1})) == []


def test_a_reveal_is_checked_against_the_commitment_kept_before_the_day() -> None:
    deal = _revealed(1, "a" * 32, DEAL_1_DRAW_1_WIN)
    before = day_start_ms(DAY) - 3_600_000
    assert history_problems(deal, Seen(deal.commitment, 0, before)) == []
    other = Seen(commitment("klondike", KLONDIKE_DRAW_1, DAY, 2, "a" * 32), 0, before)
    assert history_problems(deal, other)[0].startswith("forged: "), "another commitment seen before the day"
    assert history_problems(deal, None)[0].startswith(f"{UNCONFIRMED}: it cannot tell")
    late = history_problems(deal, Seen(deal.commitment, 0, day_start_ms(DAY)))
    assert late[0].startswith(f"{UNCONFIRMED}: it first saw this commitment on {DAY} 00:00:00 UTC")


def test_the_first_board_a_player_was_dealt_must_be_the_revealed_layout() -> None:
    deal = _revealed(1, "a" * 32, DEAL_1_DRAW_1_WIN)
    assert first_board_problems(deal, _first_board(1)) == []
    assert first_board_problems(deal, _first_board(2)) == [
        "the first board of the ranked attempt g_first is not the layout the revealed seed deals"
    ]


def _first_board(seed: int) -> tc.Snapshot:
    game = engine.seeded_game("klondike", seed, draw=1)
    return tc.Snapshot(
        game_id="g_first", seq=0, game="klondike", title="WordLink", owner=tc.Owner(player_id="p_a", name="ann"),
        practice=False, view=tc.GameView.model_validate(game.view()), status="playing", counters={}, score=0,
        legal=None, clock=tc.Clock(started_ms=0, finished_ms=None, elapsed_ms=0),
    )


def _documented() -> tuple[tc.DailyDeal, str]:
    """The daily_info example of docs/protocol.md and the text its
    ``printf … | sha256sum`` line hashes."""
    text = PROTOCOL_DOC.read_text(encoding="utf-8")
    info = json.loads(re.search(r'^\{"id": 15, "type": "daily_info".*$', text, re.MULTILINE).group(0))  # type: ignore[union-attr]
    printed = re.search(r"^printf '([^']+)' \| sha256sum$", text, re.MULTILINE).group(1)  # type: ignore[union-attr]
    return tc.DailyInfo.model_validate(info).deals[0], printed


def test_the_documented_commitment_is_the_sha256_of_the_documented_text() -> None:
    deal, printed = _documented()
    assert printed == daily_proof(deal)
    assert hashlib.sha256(printed.encode()).hexdigest() == deal.commitment
    assert f"prints `{deal.commitment}  -`" in PROTOCOL_DOC.read_text(encoding="utf-8").replace("\n", " ")


@pytest.mark.skipif(shutil.which("sha256sum") is None, reason="no sha256sum binary here")
def test_the_documented_printf_line_checks_out_with_the_real_sha256sum() -> None:
    deal, printed = _documented()
    shell = subprocess.run(
        ["sh", "-c", f"printf '{printed}' | sha256sum"], capture_output=True, text=True, check=True, timeout=60
    )
    assert shell.stdout == f"{deal.commitment}  -\n"


def test_the_documented_reveal_verifies_as_a_whole() -> None:
    deal, _ = _documented()
    assert reveal_problems(deal) == []


def test_kept_commitments_are_private_and_never_replaced(own_data_home: Path) -> None:
    url = "ws://127.0.0.1:8765/ws"
    deal = _revealed(1, "a" * 32, DEAL_1_DRAW_1_WIN)
    kept = Commitments.of_server(url)
    assert kept.path.parent == own_data_home / "solitaire-arena" / "commitments"
    assert kept.see([deal], 5) and not kept.see([deal.model_copy(update={"commitment": "0" * 64})], 6)
    kept.save()
    assert stat.S_IMODE(kept.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(kept.path.parent.stat().st_mode) == 0o700
    assert Commitments.of_server(url).get(deal) == Seen(deal.commitment, deal.committed_ms, 5)
    assert Commitments.of_server("ws://127.0.0.1:8766/ws").get(deal) is None, "one file per server URL"


def test_an_unreadable_file_of_commitments_is_an_error_not_a_fresh_start(own_data_home: Path) -> None:
    url = "ws://127.0.0.1:8765/ws"
    path = file_for(url)
    path.parent.mkdir(parents=True)
    path.write_text("not json")
    with pytest.raises(CommitmentsUnreadable, match="move it aside"):
        Commitments.of_server(url)
    assert path.read_text() == "not json"
