"""The generated parts of ``docs/protocol.md``, and the script that writes them.

``python -m tests.protocol.protocol_doc`` runs a real server on a free
port, plays the example sessions with real clients, and rewrites the
marked sections of the document: the four session transcripts (a game,
a race, the solver's assists, and two friends from request to race), the error-code and close-code tables, and the tables
of limits, race, assist and friends settings.  ``test_protocol_doc.py`` (and ``tests/races`` for the
race parts) regenerates them and compares, so the document cannot drift
from the code: the tables must match exactly, the sessions frame for
frame by sender, type and fields (ids, tokens and times differ from run
to run).
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from pathlib import Path
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.typing import Subprotocol

from tests.server.arena_positions import REPAIRS, broken_deck_two_halves_left
from tests.solver.positions import klondike_hearts_locked
from tests.races.arena_races import KLONDIKE_DRAW_1, pin_daily_deal
from tests.server.arena_clock import FakeClock, ManualScheduler
from tests.solver.test_analysis import BLUNDER_LOG

from protocol import JSON_SUBPROTOCOL, ErrorCode
from protocol.close_codes import CLOSE_CODES
from server.transport.app import ArenaServer
from server.runtime.settings import Settings, env_name
from server.storage.memory import MemoryStore
from server.deals.daily import utc_day
from server.runtime.clock import wall_clock_ms

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "protocol.md"
JSON_OFFER = [Subprotocol(JSON_SUBPROTOCOL)]

LIMIT_SETTINGS = (
    "max_frame_bytes",
    "rate_per_second",
    "rate_burst",
    "rate_strikes",
    "reads_per_second",
    "reads_burst",
    "new_games_per_minute",
    "new_games_burst",
    "replay_actions_per_second",
    "replay_actions_burst",
    "send_queue",
    "send_overflows",
    "write_buffer_bytes",
    "kernel_send_buffer_bytes",
    "write_timeout_seconds",
    "ping_interval",
    "ping_timeout",
    "close_timeout",
    "watch_limit",
    "max_live_games",
    "finished_retention_seconds",
    "unplayed_retention_seconds",
    "shutdown_grace_seconds",
    "health_timeout_seconds",
    "connections_per_address",
    "connection_rate_per_second",
    "connection_burst",
    "tcp_connection_rate_per_second",
    "tcp_connection_burst",
    "identities_per_hour",
    "abuse_cooldown_seconds",
    "forwarded_for_header",
)
RACE_SETTINGS = (
    "race_limit",
    "race_countdown_seconds",
    "race_spectator_delay_seconds",
    "race_invite_seconds",
    "race_time_limit_seconds",
    "daily_grace_seconds",
    "daily_secret",
    "data_dir",
    "leaderboard_retention_seconds",
)
FRIEND_SETTINGS = (
    "friends_limit",
    "friend_pending_limit",
    "friend_block_limit",
    "friend_requests_per_hour",
    "friend_request_days",
    "friend_lookup_failures_per_hour",
    "friend_lookup_failures_per_address",
    "inbox_size",
    "inbox_days",
    "challenge_seconds",
    "ghost_limit",
)
LEAGUE_SETTINGS = (
    "leagues_per_player",
    "league_members_limit",
    "league_lookup_failures_per_hour",
    "league_lookup_failures_per_address",
    "league_weeks_kept",
)
ASSIST_SETTINGS = ("search_workers", "hint_rate", "hint_burst", "hint_planless_nodes", "finish_search_nodes", "analysis_nodes", "analysis_slots", "analysis_queue")
DEVICE_SETTINGS = ("max_devices", "link_code_seconds", "link_codes_per_hour", "link_redeems_per_hour")
RACE_RECORDING = {"race_countdown_seconds": 0.5, "race_spectator_delay_seconds": 1.0}
RECEIVE_SECONDS = 600.0
"""Bounds a hang only: a race on the daily deal, and the daily's
commitments, wait for their proofs (a worker process); proving Lara's
Game's daily took over 60 s beside two burners (``bench/stress_suite.py``)."""
"""Short waits for the recorded race, so the recording takes seconds."""


@dataclass(frozen=True)
class Frame:
    """One frame of the example session: who, which way (``→`` to the
    server, ``←`` from it), and the JSON text exactly as it travelled."""

    who: str
    way: str
    text: str

    def line(self) -> str:
        return f"{self.who} {self.way} {self.text}"

    def shape(self) -> tuple[str, str, str, tuple[str, ...]]:
        data = json.loads(self.text)
        return self.who, self.way, data["type"], tuple(sorted(data))


class Recorder:
    """A JSON client that writes down everything it sends and receives."""

    def __init__(self, who: str, connection: ClientConnection, frames: list[Frame], unrecorded: frozenset[str] = frozenset()) -> None:
        self.who = who
        self.connection = connection
        self.frames = frames
        self.unrecorded = unrecorded

    async def send(self, **message: Any) -> None:
        text = json.dumps(message, separators=(",", ":"))
        self.frames.append(Frame(self.who, "→", text))
        await self.connection.send(text)

    async def receive(self, count: int = 1) -> list[dict[str, Any]]:
        """The next ``count`` frames, passing over those of an unrecorded type."""
        got: list[dict[str, Any]] = []
        while len(got) < count:
            text = await asyncio.wait_for(self.connection.recv(), RECEIVE_SECONDS)
            assert isinstance(text, str)
            message = json.loads(text)
            if message.get("type") in self.unrecorded:
                continue
            self.frames.append(Frame(self.who, "←", text))
            got.append(message)
        return got


async def record_session() -> list[Frame]:
    """Hello, a new game, moves (one illegal), a spectator joining, a hint,
    a resync, a resignation, and the player's records afterwards."""
    frames: list[Frame] = []
    settings = Settings(port=0, ping_interval=None, prepare_dailies=False)
    async with ArenaServer(settings, store=MemoryStore()) as server:
        async with connect(server.url, subprotocols=JSON_OFFER) as player_socket:
            player = Recorder("player", player_socket, frames)
            await player.send(type="hello", id=1, name="ann")
            await player.receive()
            await player.send(type="new_game", id=2, game="klondike", deal=7, options={"draw": 1})
            _, snapshot = await player.receive(2)
            game_id, legal = snapshot["game_id"], snapshot["legal"]
            await player.send(type="move", id=3, game_id=game_id, move=legal[0])
            (diff,) = await player.receive()
            await player.send(type="move", id=4, game_id=game_id, move="t1-fs")
            await player.receive()
            async with connect(server.url, subprotocols=JSON_OFFER) as spectator_socket:
                spectator = Recorder("spectator", spectator_socket, frames)
                await spectator.send(type="hello", id=1, name="bob")
                await spectator.receive()
                await spectator.send(type="watch", id=2, game_id=game_id)
                await spectator.receive()
                await player.send(type="move", id=5, game_id=game_id, move=diff["legal"][0])
                await player.receive()
                await spectator.receive()
                await player.send(type="hint", id=6, game_id=game_id)
                await player.receive(2)
                await spectator.receive()
                await spectator.send(type="resync", id=3, game_id=game_id)
                await spectator.receive()
                await spectator.send(type="undo", id=4, game_id=game_id)
                await spectator.receive()
                await player.send(type="resign", id=7, game_id=game_id)
                await player.receive(2)
                await spectator.receive(2)
                await player.send(type="records", id=8)
                await player.receive()
    return frames


async def record_race_session() -> list[Frame]:
    """A host and a friend race on the daily deal; a spectator follows the
    race and watches the host's game (progress only: the deal is secret);
    the friend cannot watch it; both resign; the results; a rematch; the host's race history; the
    daily commitments and the leaderboard."""
    frames: list[Frame] = []
    settings = Settings(port=0, ping_interval=None, prepare_dailies=False, **RACE_RECORDING)
    async with ArenaServer(settings, store=MemoryStore()) as server:
        async with (
            connect(server.url, subprotocols=JSON_OFFER) as host_socket,
            connect(server.url, subprotocols=JSON_OFFER) as friend_socket,
            connect(server.url, subprotocols=JSON_OFFER) as spectator_socket,
        ):
            host = Recorder("host", host_socket, frames)
            friend = Recorder("friend", friend_socket, frames)
            spectator = Recorder("spectator", spectator_socket, frames)
            await host.send(type="hello", id=1, name="ann")
            await host.receive()
            await host.send(type="create_race", id=2, game="klondike", options={"draw": 1}, deal="daily")
            (created,) = await host.receive()
            race_id, code = created["race"]["race_id"], created["race"]["code"]
            await friend.send(type="hello", id=1, name="bob")
            await friend.receive()
            await friend.send(type="join_race", id=2, code=code)
            await friend.receive()
            await host.receive()
            await spectator.send(type="watch_race", id=1, race_id=race_id)
            await spectator.receive()
            await host.send(type="start_race", id=3, race_id=race_id)
            (started,) = await host.receive()
            await friend.receive()
            await spectator.receive()
            games = {racer["name"]: racer["game_id"] for racer in started["race"]["racers"]}
            (board,) = await host.receive()
            await friend.receive()
            await host.send(type="move", id=4, game_id=games["ann"], move=board["legal"][0])
            await host.receive(2)
            await friend.receive()
            await spectator.receive()
            await friend.send(type="watch", id=3, game_id=games["ann"])
            await friend.receive()
            await spectator.send(type="watch", id=2, game_id=games["ann"])
            await spectator.receive()
            await friend.send(type="resign", id=4, game_id=games["bob"])
            await friend.receive(3)
            await host.receive()
            await spectator.receive()
            await host.send(type="resign", id=5, game_id=games["ann"])
            await host.receive(4)
            await friend.receive(2)
            await spectator.receive(3)
            await friend.send(type="rematch", id=5, race_id=race_id)
            await friend.receive(2)
            await host.receive(2)
            await spectator.receive()
            await host.send(type="list_races", id=6, limit=1)
            await host.receive()
            await spectator.send(type="daily", id=3, game="laras-game")
            await spectator.receive()
            await spectator.send(type="leaderboard", id=4, game="klondike", options={"draw": 1})
            await spectator.receive()
    return frames


async def record_assists_session() -> list[Frame]:
    """Broken Deck's automatic finishing after the last repair (a practice
    position), then a WordLink game lost by one move, resigned and analysed."""
    frames: list[Frame] = []
    settings = Settings(port=0, ping_interval=None, prepare_dailies=False, allow_positions=True)
    async with ArenaServer(settings, store=MemoryStore()) as server:
        async with connect(server.url, subprotocols=JSON_OFFER) as player_socket:
            player = Recorder("player", player_socket, frames)
            await player.send(type="hello", id=1, name="ann")
            await player.receive()
            await player.send(type="new_game", id=2, game="broken-deck", position=broken_deck_two_halves_left())
            _, snapshot = await player.receive(2)
            game_id = snapshot["game_id"]
            await player.send(type="move", id=3, game_id=game_id, move=REPAIRS[0])
            await player.receive()
            await player.send(type="move", id=4, game_id=game_id, move=REPAIRS[1])
            _, offer = await player.receive(2)
            await player.send(type="finish", id=5, game_id=game_id)
            await player.receive(offer["moves"] + 2)
            position = klondike_hearts_locked(empty_seventh=True).to_text()
            await player.send(type="new_game", id=6, game="klondike", position=position)
            _, snapshot = await player.receive(2)
            game_id = snapshot["game_id"]
            for number, move in enumerate(BLUNDER_LOG, start=7):
                await player.send(type="move", id=number, game_id=game_id, move=move)
                await player.receive()
            request = 7 + len(BLUNDER_LOG)
            await player.send(type="resign", id=request, game_id=game_id)
            await player.receive(2)
            await player.send(type="analyse", id=request + 1, game_id=game_id)
            await player.receive()
    return frames


PRESENCE_PUSHES = frozenset({"presence"})


@asynccontextmanager
async def _friends(frames: list[Frame], **injected: Any) -> AsyncIterator[tuple[Recorder, Recorder]]:
    """Ann and bob on a fresh server (its store, clock or scheduler
    ``injected``), each said hello, friends.

    A friend's presence change is pushed when its coalescing timer fires,
    so whether one falls inside a session depends on the machine's speed:
    presence frames are left out here and shown in their own section."""
    settings = Settings(port=0, ping_interval=None, prepare_dailies=False, **RACE_RECORDING)
    async with ArenaServer(settings, **{"store": MemoryStore(), **injected}) as server:
        async with (
            connect(server.url, subprotocols=JSON_OFFER) as ann_socket,
            connect(server.url, subprotocols=JSON_OFFER) as bob_socket,
        ):
            ann = Recorder("ann", ann_socket, frames, PRESENCE_PUSHES)
            bob = Recorder("bob", bob_socket, frames, PRESENCE_PUSHES)
            for player, name in ((ann, "ann"), (bob, "bob")):
                await player.send(type="hello", id=1, name=name)
                await player.receive()
            await _befriend(ann, bob)
            yield ann, bob


async def _befriend(ann: Recorder, bob: Recorder) -> None:
    """Ann asks by bob's code, bob hears of it and accepts, ann hears that."""
    await bob.send(type="friend_code", id=2)
    (code,) = await bob.receive()
    await ann.send(type="friend_add", id=2, code=code["code"])
    await ann.receive()
    (request,) = await bob.receive()
    await bob.send(type="friend_change", id=3, player_id=request["notification"]["sender"]["player_id"], action="accept")
    await bob.receive()
    await ann.receive()


async def record_friends_board_session() -> list[Frame]:
    """Bob watches his friends' board; ann, his friend, starts the daily
    and makes a move (her own frames, her board, are left out): bob hears
    her start at once and her move by the end of its second, counts only,
    and reads the board again."""
    frames: list[Frame] = []
    async with _friends(frames) as (ann, bob):
        await bob.send(type="friends_board", id=4, game="klondike", options={"draw": 1})
        await bob.receive()
        unrecorded = Recorder("ann", ann.connection, [], PRESENCE_PUSHES)
        await unrecorded.send(type="new_game", id=4, game="klondike", deal="daily", options={"draw": 1})
        started, _ = await unrecorded.receive(2)
        await bob.receive()
        await unrecorded.send(type="move", id=5, game_id=started["game_id"], move="draw")
        await unrecorded.receive()
        await bob.receive()
        await bob.send(type="friends_board", id=5, game="klondike", options={"draw": 1}, watch=False)
        await bob.receive()
    return frames


async def record_friends_session() -> list[Frame]:
    """Two players become friends by code (request, notification, accept,
    notification), one lists its friends and challenges the other to a
    race, who accepts from the notification: both are in the race's lobby;
    then the friend reads its inbox and marks it read."""
    frames: list[Frame] = []
    async with _friends(frames) as (ann, bob):
        await ann.send(type="friends", id=3)
        (friends,) = await ann.receive()
        await ann.send(type="challenge", id=4, player_id=friends["friends"][0]["player_id"], game="klondike", deal="daily")
        await ann.receive()
        (challenge,) = await bob.receive()
        await bob.send(type="challenge_answer", id=4, challenge_id=challenge["notification"]["notification_id"], accept=True)
        await bob.receive()
        await ann.receive()
        await bob.send(type="notifications", id=5, limit=2)
        await bob.receive()
        await bob.send(type="read_notifications", id=6)
        await bob.receive()
    return frames


async def record_stats_session() -> list[Frame]:
    """A player asks for a share text before playing (refused), plays the
    day's ranked attempt and resigns it, then asks for one variant's
    stats with the share text."""
    frames: list[Frame] = []
    store = MemoryStore()
    await pin_daily_deal(store, utc_day(wall_clock_ms()))
    settings = Settings(port=0, ping_interval=None, prepare_dailies=False)
    async with ArenaServer(settings, store=store) as server:
        async with connect(server.url, subprotocols=JSON_OFFER) as socket:
            ann = Recorder("ann", socket, frames)
            await ann.send(type="hello", id=1, name="ann")
            await ann.receive()
            variant = {"game": "klondike", "variant": KLONDIKE_DRAW_1}
            await ann.send(type="stats", id=2, share=True, **variant)
            await ann.receive()
            await ann.send(type="new_game", id=3, game="klondike", deal="daily", options={"draw": 1})
            (started, _) = await ann.receive(2)
            await ann.send(type="resign", id=4, game_id=started["game_id"])
            await ann.receive(2)
            await ann.send(type="stats", id=5, share=True, **variant)
            await ann.receive()
    return frames


async def record_league_session() -> list[Frame]:
    """Ann creates a league, bob joins it by its code, lists his leagues
    and reads its board and this week's standings; ann re-issues the code,
    removes bob, and leaves (the league, left empty, is gone)."""
    frames: list[Frame] = []
    async with _friends(frames) as (ann, bob):
        await ann.send(type="create_league", id=4, name="Lunch", variants=[{"game": "klondike", "options": {"draw": 1}}])
        (created,) = await ann.receive()
        await bob.send(type="join_league", id=4, code=created["league"]["code"])
        (joined,) = await bob.receive()
        bob_id = joined["league"]["members"][-1]["player"]["player_id"]
        league_id = created["league"]["league_id"]
        await bob.send(type="leagues", id=5)
        await bob.receive()
        await bob.send(type="league_board", id=6, league_id=league_id)
        await bob.receive()
        await bob.send(type="league_standings", id=7, league_id=league_id)
        await bob.receive()
        await ann.send(type="league_code", id=5, league_id=league_id)
        await ann.receive()
        await ann.send(type="remove_league_member", id=6, league_id=league_id, player_id=bob_id)
        await ann.receive()
        await ann.send(type="leave_league", id=7, league_id=league_id)
        await ann.receive()
    return frames


async def record_ghost_session() -> list[Frame]:
    """Ann plays the day's ranked attempt, a draw 2 s in and resigned at
    5 s (her frames left out); bob, her friend, hears that she finished,
    starts his attempt, asks for the
    day's leader (nobody has won yet), races ann's ghost, and is told her
    draw and her end when his own clock reaches 2 s and 5 s.  The clock
    and the timers are the recording's, so the pushes fall where they do
    on every run."""
    frames: list[Frame] = []
    clock = FakeClock()
    scheduler = ManualScheduler(clock)
    store = MemoryStore()
    await pin_daily_deal(store, utc_day(clock.ms))
    async with _friends(frames, store=store, clock=clock, scheduler=scheduler) as (ann, bob):
        unrecorded = Recorder("ann", ann.connection, [], PRESENCE_PUSHES)
        await unrecorded.send(type="new_game", id=4, game="klondike", deal="daily", options={"draw": 1})
        started, _ = await unrecorded.receive(2)
        for step, (kind, extra) in enumerate((("move", {"move": "draw"}), ("resign", {})), start=5):
            clock.ms += 2_000 if kind == "move" else 3_000
            await unrecorded.send(type=kind, id=step, game_id=started["game_id"], **extra)
            await unrecorded.receive(1 if kind == "move" else 2)
        await bob.receive()
        await bob.send(type="new_game", id=4, game="klondike", deal="daily", options={"draw": 1})
        bobs, _ = await bob.receive(2)
        await bob.send(type="race_ghost", id=5, game_id=bobs["game_id"], leader=True)
        await bob.receive()
        await bob.send(type="race_ghost", id=6, game_id=bobs["game_id"], player_id=ann_id(frames))
        await bob.receive()
        for wait_ms in (2_000, 3_000):
            scheduler.advance(wait_ms)
            await bob.receive()
        await bob.send(type="stop_ghost", id=7, game_id=bobs["game_id"])
        await bob.receive()
    return frames


def ann_id(frames: list[Frame]) -> str:
    """Ann's player id, from her welcome."""
    welcome = next(json.loads(frame.text) for frame in frames if frame.who == "ann" and '"welcome"' in frame.text)
    return str(welcome["player_id"])


def session_section(frames: list[Frame]) -> str:
    return "```text\n" + "\n".join(frame.line() for frame in frames) + "\n```"


def error_table() -> str:
    rows = ["| code | meaning |", "|---|---|"]
    rows += [f"| `{code.value}` | {code.description} |" for code in ErrorCode]
    return "\n".join(rows)


def close_code_table() -> str:
    rows = [f"| {code.code} | {code.when} |" for code in CLOSE_CODES]
    return "\n".join(["| close code | when |", "|---|---|", *rows])


def limits_table(names: tuple[str, ...] = LIMIT_SETTINGS) -> str:
    rows = ["| setting | variable | default | meaning |", "|---|---|---|---|"]
    for name in names:
        field = Settings.model_fields[name]
        default = "none" if field.default is None else field.default
        rows.append(f"| `{name}` | `{env_name(name)}` | {default} | {field.description} |")
    return "\n".join(rows)


def section(text: str, name: str) -> str:
    """The generated text between the document's markers for ``name``."""
    match = re.search(rf"<!-- {name}:begin -->\n(.*?)<!-- {name}:end -->", text, re.S)
    if match is None:
        raise LookupError(f"docs/protocol.md has no {name} section")
    return match.group(1).rstrip("\n")


def replace_section(text: str, name: str, body: str) -> str:
    section(text, name)
    return re.sub(
        rf"(<!-- {name}:begin -->\n).*?(<!-- {name}:end -->)", lambda m: m.group(1) + body + "\n" + m.group(2), text, flags=re.S
    )


def session_frames(text: str, name: str = "session") -> list[Frame]:
    frames = []
    for line in section(text, name).splitlines():
        match = re.match(r"^(\w+) ([→←]) (\{.*\})$", line)
        if match:
            frames.append(Frame(*match.groups()))
    return frames


def main() -> None:
    text = DOC.read_text(encoding="utf-8")
    text = replace_section(text, "session", session_section(asyncio.run(record_session())))
    text = replace_section(text, "race-session", session_section(asyncio.run(record_race_session())))
    text = replace_section(text, "assists-session", session_section(asyncio.run(record_assists_session())))
    text = replace_section(text, "friends-session", session_section(asyncio.run(record_friends_session())))
    text = replace_section(text, "stats-session", session_section(asyncio.run(record_stats_session())))
    text = replace_section(text, "friends-board-session", session_section(asyncio.run(record_friends_board_session())))
    text = replace_section(text, "league-session", session_section(asyncio.run(record_league_session())))
    text = replace_section(text, "league-settings", limits_table(LEAGUE_SETTINGS))
    text = replace_section(text, "ghost-session", session_section(asyncio.run(record_ghost_session())))
    text = replace_section(text, "errors", error_table())
    text = replace_section(text, "close-codes", close_code_table())
    text = replace_section(text, "limits", limits_table())
    text = replace_section(text, "race-settings", limits_table(RACE_SETTINGS))
    text = replace_section(text, "assist-settings", limits_table(ASSIST_SETTINGS))
    text = replace_section(text, "device-settings", limits_table(DEVICE_SETTINGS))
    text = replace_section(text, "friend-settings", limits_table(FRIEND_SETTINGS))
    DOC.write_text(text, encoding="utf-8")
    print(f"rewrote the generated sections of {DOC.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
