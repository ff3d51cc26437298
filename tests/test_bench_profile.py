"""``bench/profile.py`` puts each sampled stack in the stage of an action
it belongs to.

The shares it prints are only as good as that table, and the table is read
against stacks whose shape the server's code decides: these hand-written
stacks, in py-spy's raw form, are the cases a change to the table or to the
action's path must keep right.  Nothing here samples or times anything.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from bench.profile import EVENT_LOOP, OTHER, RULES, STAGES, Tally, frame_parts, read_raw, shares, stage_of

ROOT = Path(__file__).resolve().parent.parent
LOOP = [
    "_run_module_as_main (<frozen runpy>:198)",
    "main (server/cli.py:82)",
    "BaseEventLoop._run_once (asyncio/base_events.py:1922)",
    "Handle._run (asyncio/events.py:80)",
]
HANDLER = LOOP + [
    "serve.<locals>.protocol_handler (websockets/asyncio/server.py:762)",
    "ArenaServer._serve_connection (server/transport/app.py:191)",
    "Hub.handle (server/core.py:288)",
    "Hub._dispatch (server/core.py:303)",
    "Play.act (server/games/play.py:260)",
]
APPLY = HANDLER + ["Play.apply (server/games/play.py:328)"]
DELIVER = HANDLER + ["Delivery.deliver (server/games/delivery.py:107)"]


def test_a_frame_is_read_with_or_without_its_line() -> None:
    assert frame_parts("Klondike._moves (engine/games/klondike.py:120)") == ("Klondike._moves", "engine/games/klondike.py")
    assert frame_parts("diff (engine/views.py)") == ("diff", "engine/views.py")
    assert frame_parts("_run_code (<frozen runpy>:88)") == ("_run_code", "<frozen runpy>")
    assert frame_parts("not a frame") == ("", "")


def test_a_library_counts_in_the_stage_that_called_it() -> None:
    encoding = DELIVER + [
        "Outbox.send (server/net/outbox.py:52)",
        "encode (server/net/outbox.py:37)",
        "MsgpackCodec.encode_data (protocol/codec.py:210)",
        "packb (msgpack/__init__.py:30)",
    ]
    assert stage_of(encoding) == ("encode", "MsgpackCodec.encode_data (protocol/codec.py)")
    validating = HANDLER[:-1] + [
        "Codec.decode (protocol/codec.py:174)",
        "Codec._parse (protocol/codec.py:160)",
        "TypeAdapter.validate_python (pydantic/type_adapter.py:412)",
    ]
    assert stage_of(validating)[0] == "decode and validate"


def test_the_innermost_stage_wins() -> None:
    appending = APPLY + ["HeldTable.append (server/games/held.py:140)", "MemoryStore.append (server/storage/memory.py:140)"]
    assert stage_of(appending)[0] == "store append"
    assert stage_of(appending + ["MemoryChannels.publish (server/storage/memory_channels.py:57)"])[0] == "relay"
    committing = APPLY + ["Session.commit (server/model/session.py:164)"]
    assert stage_of(committing)[0] == "engine play and status"
    assert stage_of(committing + ["diff (engine/views.py:37)"])[0] == "view and diff"
    publishing = committing + ["Session._publish_state (server/model/session.py:175)"]
    assert stage_of(publishing + ["Game.view.<locals>.<listcomp> (engine/game.py:300)"])[0] == "view and diff"
    assert stage_of(publishing + ["Game.destinations (engine/game.py:310)"])[0] == "engine play and status"
    playing = APPLY + [
        "Session.perform (server/model/session.py:124)",
        "Game.play (engine/game.py:200)",
        "Klondike._moves (engine/games/klondike.py:120)",
    ]
    assert stage_of(playing) == ("engine play and status", "Klondike._moves (engine/games/klondike.py)")
    generating = playing + ["Klondike._moves.<locals>.<genexpr> (engine/games/klondike.py:125)"]
    assert stage_of(generating) == ("engine play and status", "Klondike._moves (engine/games/klondike.py)")


def test_websockets_reads_and_writes_are_told_apart() -> None:
    reading = LOOP + [
        "serve.<locals>.protocol_handler (websockets/asyncio/server.py:762)",
        "ArenaServer._serve_connection (server/transport/app.py:184)",
        "Connection.__aiter__ (websockets/asyncio/connection.py:242)",
        "Connection.recv (websockets/asyncio/connection.py:299)",
        "Assembler.get (websockets/asyncio/messages.py:188)",
    ]
    assert stage_of(reading)[0] == "receive and WebSocket framing"
    assert stage_of(LOOP + ["_SelectorSocketTransport._read_ready (asyncio/selector_events.py:1000)"])[0] == (
        "receive and WebSocket framing"
    )
    writing = DELIVER + [
        "Outbox.send_frame (server/net/outbox.py:57)",
        "Peer.send (server/net/peer.py:103)",
        "WebSocketOutlet.write_now (server/transport/outlet.py:56)",
        "broadcast (websockets/asyncio/connection.py:1120)",
        "Connection.send_data (websockets/asyncio/connection.py:1060)",
        "_SelectorSocketTransport.write (asyncio/selector_events.py:1070)",
    ]
    assert stage_of(writing) == ("send", "_SelectorSocketTransport.write (asyncio/selector_events.py)")


def test_checks_and_metrics_have_their_stages() -> None:
    assert stage_of(HANDLER + ["Room.is_owner (server/games/room.py:85)"])[0] == "fair-play checks"
    assert stage_of(LOOP[:-1] + ["Hub.handle (server/core.py:277)", "RateLimiter.admit (server/net/ratelimit.py:104)"])[0] == (
        "admission and rate limits"
    )
    observing = DELIVER + ["Metrics.action (server/runtime/metrics.py:149)", "Histogram.observe (prometheus_client/metrics.py:600)"]
    assert stage_of(observing)[0] == "metrics and logs"


def test_the_rest_is_glue_or_the_loop() -> None:
    assert stage_of(HANDLER) == (OTHER, "Play.act (server/games/play.py)")
    assert stage_of(LOOP + ["EpollSelector.select (selectors.py:468)"])[0] == EVENT_LOOP
    assert stage_of(LOOP) == (EVENT_LOOP, "Handle._run (asyncio/events.py)")
    assert stage_of(["worker (somewhere/else.py:3)"]) == (OTHER, "worker (somewhere/else.py)")
    assert stage_of([]) == (OTHER, "(no Python frame)")


def test_every_rule_names_a_printed_stage() -> None:
    assert {rule.stage for rule in RULES} == set(STAGES)


def test_raw_output_is_tallied_into_shares() -> None:
    raw = "\n".join([
        ";".join(APPLY + ["Klondike._moves (engine/games/klondike.py:120)"]) + " 3",
        ";".join(LOOP + ["EpollSelector.select (selectors.py:468)"]) + " 1",
        "",
    ])
    assert [count for _, count in read_raw(raw)] == [3, 1]
    tally = Tally()
    tally.add(read_raw(raw))
    assert tally.total == 4
    table = shares(tally)
    assert any(line.startswith("engine play and status") and " 75.0%  Klondike._moves 75.0%" in line for line in table), table
    assert any(line.startswith(EVENT_LOOP) and " 25.0%" in line for line in table), table
    looping = Tally()
    looping.add(read_raw(";".join(LOOP) + " 1"))
    spread = shares(tally, [tally, looping])
    assert any(line.startswith(EVENT_LOOP) and " 25.0-100.0%" in line for line in spread), spread


def test_without_py_spy_it_says_so_and_starts_nothing() -> None:
    environment = {**os.environ, "PATH": "", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "profile.py")], env=environment, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1
    assert "py-spy, which is not on PATH" in done.stderr
    assert "load average" not in done.stdout
