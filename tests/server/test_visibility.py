"""The visibility rules as pure functions (``server.model.visibility``):
a table of the cases every watch path meets, and properties that hold
for any header, viewer, time and race.

The paths that ask them (watching, hello, a race's boards, analyses and
replays, hints and finishing) are tried end to end in
``test_fair_play.py``, ``test_server_spectators.py``,
``test_server_hidden.py``, ``test_server_assists.py`` and the race tests.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import ErrorCode
from server.model.race_phases import COUNTDOWN, EXPIRED, FINISHED, LOBBY, RUNNING
from server.model.records import SessionHeader
from server.model.visibility import (
    GONE,
    RACE_GONE,
    Assist,
    Facts,
    RaceFacts,
    Visibility,
    assist_refusal,
    deal_named,
    deal_secret,
    race_names,
    view_of,
)

OWNER, RIVAL, STRANGER = "p_owner", "p_rival", "p_stranger"
REVEAL = 10_000
BEFORE, AFTER = REVEAL - 1, REVEAL
DELAY = 60_000
RACERS = frozenset({OWNER, RIVAL})


def header(*, seed: bool = False, daily: bool = False, race: bool = False, ranked: bool = False) -> SessionHeader:
    return SessionHeader(
        game_id="g_1", game="klondike", deal=7, options={"draw": 1}, owner=OWNER, created_ms=0,
        daily="2026-01-01" if daily else None, ranked=ranked, seed=12345 if seed else None,
        race_id="r_1" if race else None,
    )


def race(phase: str) -> RaceFacts:
    return RaceFacts(phase, RACERS, "the race starts in 3.0 s")


CASUAL = header()
DAILY = header(seed=True, daily=True, ranked=True)
NUMBERED_RACE = header(race=True)
WINNABLE_RACE = header(seed=True, race=True)
DAILY_RACE = header(seed=True, daily=True, race=True, ranked=True)

L, D, P, R = Visibility.LIVE, Visibility.DELAYED, Visibility.PROGRESS_ONLY, Visibility.REFUSED

VIEWS = [
    # game, viewer, now, race, result: visibility
    (CASUAL, None, BEFORE, None, None, L),
    (CASUAL, STRANGER, BEFORE, None, None, L),
    (DAILY, OWNER, BEFORE, None, None, L),
    (DAILY, STRANGER, BEFORE, None, None, P),
    (DAILY, None, BEFORE, None, "won", P),
    (DAILY, STRANGER, AFTER, None, "won", L),
    (NUMBERED_RACE, OWNER, BEFORE, race(RUNNING), None, L),
    (NUMBERED_RACE, STRANGER, BEFORE, race(RUNNING), None, D),
    (NUMBERED_RACE, None, BEFORE, race(RUNNING), None, D),
    (NUMBERED_RACE, RIVAL, BEFORE, race(RUNNING), None, R),
    (NUMBERED_RACE, OWNER, BEFORE, race(COUNTDOWN), None, R),
    (NUMBERED_RACE, STRANGER, BEFORE, race(LOBBY), None, R),
    (NUMBERED_RACE, STRANGER, BEFORE, race(EXPIRED), None, R),
    (NUMBERED_RACE, RIVAL, BEFORE, race(FINISHED), "won", L),
    (NUMBERED_RACE, STRANGER, BEFORE, RACE_GONE, None, D),
    (NUMBERED_RACE, STRANGER, BEFORE, RACE_GONE, "won", L),
    (NUMBERED_RACE, RIVAL, BEFORE, RACE_GONE, None, D),
    (WINNABLE_RACE, OWNER, BEFORE, race(RUNNING), None, L),
    (WINNABLE_RACE, STRANGER, BEFORE, race(RUNNING), None, P),
    (WINNABLE_RACE, RIVAL, BEFORE, race(RUNNING), None, R),
    (WINNABLE_RACE, STRANGER, BEFORE, race(FINISHED), "lost", L),
    (WINNABLE_RACE, STRANGER, BEFORE, RACE_GONE, "lost", L),
    (DAILY_RACE, STRANGER, BEFORE, race(RUNNING), None, P),
    (DAILY_RACE, STRANGER, BEFORE, race(FINISHED), "won", P),
    (DAILY_RACE, RIVAL, BEFORE, race(FINISHED), "won", P),
    (DAILY_RACE, STRANGER, AFTER, race(FINISHED), "won", L),
    (DAILY_RACE, OWNER, BEFORE, race(FINISHED), "won", L),
]


def facts_for(game: SessionHeader, now: int, race_facts: RaceFacts | None, result: str | None = None) -> Facts:
    return Facts(now, result, REVEAL if game.daily is not None else None, race_facts)


@pytest.mark.parametrize("game, viewer, now, race_facts, result, expected", VIEWS)
def test_who_sees_a_game_how(
    game: SessionHeader, viewer: str | None, now: int, race_facts: RaceFacts | None, result: str | None,
    expected: Visibility,
) -> None:
    view = view_of(game, viewer, facts_for(game, now, race_facts, result), DELAY)
    assert view.visibility is expected
    assert view.delay_ms == (DELAY if expected is D else 0)
    assert (view.refusal is not None) == (expected is R)


def test_a_refused_view_says_why_with_the_codes_the_wire_knows() -> None:
    rival = view_of(NUMBERED_RACE, RIVAL, facts_for(NUMBERED_RACE, BEFORE, race(RUNNING)), DELAY)
    early = view_of(NUMBERED_RACE, STRANGER, facts_for(NUMBERED_RACE, BEFORE, race(COUNTDOWN)), DELAY)
    assert rival.refusal is not None and rival.refusal.code is ErrorCode.FORBIDDEN
    assert early.refusal is not None and early.refusal.code is ErrorCode.RACE_STATE
    assert early.refusal.message == "the race starts in 3.0 s" and early.refusal.game_id == "g_1"


@pytest.mark.parametrize(
    "game, race_facts, named",
    [
        (CASUAL, None, True),
        (DAILY, None, False),
        (NUMBERED_RACE, None, False),
        (NUMBERED_RACE, race(RUNNING), False),
        (NUMBERED_RACE, race(FINISHED), True),
        (WINNABLE_RACE, race(FINISHED), False),
    ],
)
def test_what_a_game_over_names(game: SessionHeader, race_facts: RaceFacts | None, named: bool) -> None:
    assert deal_named(game, race_facts) is named


@pytest.mark.parametrize(
    "game, race_facts, member, named",
    [
        # game, race, member: (code, deal, proof)
        (NUMBERED_RACE, race(LOBBY), True, (True, False, False)),
        (NUMBERED_RACE, race(LOBBY), False, (False, False, False)),
        (NUMBERED_RACE, race(RUNNING), True, (True, False, False)),
        (NUMBERED_RACE, race(FINISHED), False, (False, True, False)),
        (WINNABLE_RACE, race(RUNNING), False, (False, False, False)),
        (WINNABLE_RACE, race(FINISHED), False, (False, False, True)),
        (WINNABLE_RACE, race(FINISHED), True, (True, False, True)),
        (DAILY_RACE, race(RUNNING), True, (True, False, False)),
        (DAILY_RACE, race(FINISHED), False, (False, False, False)),
    ],
)
def test_what_a_race_message_names(
    game: SessionHeader, race_facts: RaceFacts, member: bool, named: tuple[bool, bool, bool]
) -> None:
    names = race_names(race_facts, member, game.seed is not None, game.daily is not None)
    assert (names.code, names.deal, names.proof) == named


ASSISTS = [
    # game, assist, now, race, result: (code, reason) or None
    (CASUAL, Assist.HINT, BEFORE, None, None, None),
    (CASUAL, Assist.FINISH, BEFORE, None, None, None),
    (CASUAL, Assist.HINT, BEFORE, None, "won", (ErrorCode.GAME_FINISHED, None)),
    (DAILY, Assist.HINT, BEFORE, None, None, (ErrorCode.UNAVAILABLE, "ranked")),
    (DAILY, Assist.FINISH, BEFORE, None, "won", (ErrorCode.UNAVAILABLE, "ranked")),
    (NUMBERED_RACE, Assist.HINT, BEFORE, None, None, (ErrorCode.UNAVAILABLE, "ranked")),
    (header(seed=True, daily=True), Assist.HINT, BEFORE, None, None, None),
    (CASUAL, Assist.ANALYSIS, BEFORE, None, None, (ErrorCode.UNAVAILABLE, "game_live")),
    (CASUAL, Assist.ANALYSIS, BEFORE, None, "won", None),
    (DAILY, Assist.ANALYSIS, BEFORE, None, "won", (ErrorCode.UNAVAILABLE, "deal_secret")),
    (DAILY, Assist.ANALYSIS, AFTER, None, "won", None),
    (NUMBERED_RACE, Assist.ANALYSIS, BEFORE, race(RUNNING), "won", (ErrorCode.UNAVAILABLE, "deal_secret")),
    (NUMBERED_RACE, Assist.ANALYSIS, BEFORE, race(FINISHED), "won", None),
    (NUMBERED_RACE, Assist.ANALYSIS, BEFORE, RACE_GONE, "won", None),
    (DAILY_RACE, Assist.ANALYSIS, BEFORE, race(FINISHED), "won", (ErrorCode.UNAVAILABLE, "deal_secret")),
    (DAILY_RACE, Assist.ANALYSIS, AFTER, race(FINISHED), "won", None),
]


@pytest.mark.parametrize("game, assist, now, race_facts, result, expected", ASSISTS)
def test_which_assists_are_given(
    game: SessionHeader, assist: Assist, now: int, race_facts: RaceFacts | None, result: str | None,
    expected: tuple[ErrorCode, str | None] | None,
) -> None:
    refusal = assist_refusal(game, assist, facts_for(game, now, race_facts, result))
    assert (None if refusal is None else (refusal.code, refusal.reason)) == expected


headers = st.builds(
    header, seed=st.booleans(), daily=st.booleans(), race=st.booleans(), ranked=st.booleans()
).filter(lambda game: game.seed is None or game.daily is not None or game.race_id is not None)
viewers = st.sampled_from([None, OWNER, RIVAL, STRANGER])
phases = st.sampled_from([LOBBY, EXPIRED, COUNTDOWN, RUNNING, FINISHED, GONE])
times = st.integers(min_value=0, max_value=2 * REVEAL)
results = st.sampled_from([None, "won", "lost", "abandoned"])


@settings(max_examples=300, deadline=None)
@given(game=headers, viewer=viewers, now=times, phase=phases, result=results)
def test_views_keep_the_fair_play_promises(
    game: SessionHeader, viewer: str | None, now: int, phase: str, result: str | None
) -> None:
    race_facts = race(phase) if game.race_id is not None else None
    facts = facts_for(game, now, race_facts, result)
    view = view_of(game, viewer, facts, DELAY)
    owner = viewer == game.owner
    assert (view.refusal is not None) == (view.visibility is R)
    if owner:
        assert view.visibility in (L, R), "a player always sees their own board, once there is one"
    if view.visibility in (L, D) and not owner:
        assert not deal_secret(game, facts), "nobody else sees a secret deal's cards"
    if game.race_id is None:
        assert view.visibility in (L, P), "only a race delays or refuses a board"
    elif race_facts is not None and not race_facts.over and viewer in RACERS and not owner:
        assert view.visibility in (P, R), "a racer never sees a rival's board while they race"
    if view.visibility is D:
        assert view.delay_ms == DELAY and not owner and phase in (RUNNING, GONE)
    later = view_of(game, viewer, facts_for(game, now + REVEAL, race_facts, result), DELAY)
    if view.visibility is L:
        assert later.visibility is L, "a board once shown is never taken back by time"


@settings(max_examples=300, deadline=None)
@given(game=headers, now=times, phase=phases, result=results)
def test_assists_keep_the_fair_play_promises(game: SessionHeader, now: int, phase: str, result: str | None) -> None:
    race_facts = race(phase) if game.race_id is not None else None
    facts = facts_for(game, now, race_facts, result)
    for assist in (Assist.HINT, Assist.FINISH):
        refusal = assist_refusal(game, assist, facts)
        if game.ranked or game.race_id is not None:
            assert refusal is not None and refusal.reason == "ranked", "nothing plays for you where you compete"
        assert refusal is not None or result is None
    if assist_refusal(game, Assist.ANALYSIS, facts) is None:
        assert result is not None and not deal_secret(game, facts)
        assert game.race_id is None or race_facts is not None and race_facts.over
        assert view_of(game, STRANGER, facts, DELAY).visibility is L, "what an analysis shows, anyone may watch"


@settings(max_examples=200, deadline=None)
@given(game=headers.filter(lambda game: game.race_id is not None), phase=phases, member=st.booleans())
def test_a_race_message_tells_a_deal_only_as_a_game_over_may(game: SessionHeader, phase: str, member: bool) -> None:
    race_facts = race(phase)
    names = race_names(race_facts, member, game.seed is not None, game.daily is not None)
    assert names.code is member, "the invite code goes to racers only"
    assert names.deal is deal_named(game, race_facts), "a race and its games' game_over agree on the deal"
    if names.proof:
        assert race_facts.over and game.daily is None, "a secret seed is proven once raced, a daily's never here"
