"""The memory store's sweeps find what is due without a pass over every
entry (``server.storage.memory_deadlines``), and find the same keys a
pass over every entry would."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from server.storage.memory_deadlines import SLACK, Deadlines, due_in_front, rewritten

KEYS = st.sampled_from([("session", f"g{n}") for n in range(6)] + [("board", "daily")])
STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("set"), KEYS, st.integers(0, 50)),
        st.tuples(st.just("pop"), KEYS, st.just(0)),
        st.tuples(st.just("due"), KEYS, st.integers(0, 10)),
    ),
    max_size=60,
)


@given(STEPS)
def test_the_due_deadlines_are_those_a_pass_over_every_deadline_finds(
    steps: list[tuple[str, tuple[str, str], int]],
) -> None:
    deadlines = Deadlines()
    now = 0
    for step, key, number in steps:
        if step == "set":
            deadlines[key] = now + number
        elif step == "pop":
            deadlines.pop(key, None)
        else:
            now += number
            expected = {each for each, at in deadlines.items() if at <= now}
            due = deadlines.due(now)
            assert len(due) == len(set(due)) and set(due) == expected
            for each in due:
                del deadlines[each]


def test_a_deadline_set_later_is_not_due_at_its_old_time_and_is_due_at_its_new_one() -> None:
    deadlines = Deadlines()
    deadlines[("session", "g1")] = 10
    deadlines[("session", "g1")] = 30
    deadlines[("board", "daily")] = 20
    assert deadlines.due(25) == [("board", "daily")]
    assert deadlines.due(30) == [("session", "g1")]


def test_renewing_one_key_again_and_again_keeps_the_heap_bounded() -> None:
    deadlines = Deadlines()
    deadlines[("board", "daily")] = 1_000_000
    for renewal in range(10_000):
        deadlines[("session", "g1")] = 1_000 + renewal
    assert len(deadlines._heap) <= 2 * len(deadlines) + SLACK + 1
    assert deadlines.due(1_000_000) == [("session", "g1"), ("board", "daily")]


def test_the_entries_due_are_taken_from_the_front_of_the_order_last_written() -> None:
    written: dict[str, int] = {}
    for player, at in (("ann", 1), ("bob", 2), ("cy", 3)):
        rewritten(written, player, at)
    rewritten(written, "ann", 4)
    assert list(written) == ["bob", "cy", "ann"], "a rewrite moves the entry to the end"
    assert due_in_front(written, lambda at: at <= 3) == ["bob", "cy"]
    assert due_in_front(written, lambda at: at <= 1) == []
