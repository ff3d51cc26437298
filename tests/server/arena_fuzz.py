"""A seeded fuzzer of client frames, shared by the fuzz test and ``bench/fuzz.py``.

Each frame starts as a valid message of a random type (every client
message type, with ids of real games and races where it needs one) and
then gets one to three mutations: wrong types, huge and negative numbers,
deep nesting, unknown fields and types, missing fields, bad UTF-8, lone
surrogates, NaN and Infinity, oversized strings, options that clash with
``new_game``'s parameters, whole frames of garbage, and frames of the
wrong kind (binary for JSON, text for MessagePack, invalid UTF-8 in a
text frame).  Frames go out over real WebSocket connections in batches,
each batch ended by a ``ping`` whose ``pong`` says every reply before it
arrived; a connection the server closes is counted by its close code and
opened again.  The same seed gives the same frames.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

import msgpack
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.typing import Subprotocol

from protocol import JSON_SUBPROTOCOL, MSGPACK_SUBPROTOCOL, codec_for

DOCUMENTED_CLOSE_CODES = frozenset({1000, 1007, 1008, 1009, 1012, 1013, 4001})
"""The close codes ``docs/protocol.md`` lists, bar 1011 (a ping timeout,
which cannot happen with pings off, or a server failure: a bug).  Pings
are off on both sides: the server's in ``make_settings``, the fuzzer's in
``connect``.  With websockets' default client keepalive (a ping every
20 s, 20 s for its pong) one fuzzer connection beside two CPU burners
ended in 1006 with nothing in the server's log: the client gives a
connection up when its pong is late, and a server connection reads its
next frame (and so the ping) only after the frame before is handled,
which can wait on a search in a starved worker.  That is keepalive under
load, not the frames this fuzzer is about."""
BATCH = 25
SYNC_SECONDS = 120.0
"""A hang: a batch's pong missing this long while the server handles no
request.  A batch may ask for a daily or a winnable deal whose proof (a
worker process) took over 30 s at load 15 on 2 cores, and over 120 s
beside the whole suite's other work; while a request is in flight the
server is working, not hung, and the wait goes on."""
Busy = Callable[[], bool]

HUGE_NUMBERS = (10**30, -(10**30), 2**63, 2**64, 2**64 - 1, -(2**63) - 1, 2**53 + 1, 2**63 - 1, -(2**63), -1, -(2**31))
BAD_STRINGS = ("\ud800", "a\udfffb", "\x00", "\u202e", "", " ", "🂡" * 20, "x" * 65, "y" * 9000)
MESSAGE_TYPES = (
    "hello", "new_game", "move", "auto_move", "undo", "redo", "hint", "finish", "analyse", "restart", "resign", "watch",
    "unwatch", "resync", "list_games", "ping", "create_race", "join_race", "start_race", "watch_race", "unwatch_race",
    "rematch", "list_races", "records", "daily", "leaderboard",
)
GAMES = ("klondike", "broken-deck", "laras-game", "chequers")


class Raw:
    """A value spliced into the encoded frame as raw text or bytes, for
    what an encoder would refuse to write (1,000 levels of nesting, a
    MessagePack string of invalid UTF-8)."""

    def __init__(self, json_text: str, msgpack_bytes: bytes) -> None:
        self.json_text = json_text
        self.msgpack_bytes = msgpack_bytes


@dataclass
class Known:
    """Ids the fuzzer has seen, so valid-looking requests reach real games."""

    victim_game: str
    victim_player: str
    games: list[str] = field(default_factory=list)
    races: list[str] = field(default_factory=list)
    codes: list[str] = field(default_factory=list)

    def learn(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "game_started" and len(self.games) < 50:
            self.games.append(message["game_id"])
        elif kind == "race" and len(self.races) < 50:
            race = message.get("race", {})
            self.races.append(race.get("race_id", ""))
            self.codes.append(race.get("code", ""))


@dataclass
class Tally:
    """What the server answered: replies by type (errors by ``error:code``)
    and closes by code."""

    frames: int = 0
    replies: Counter[str] = field(default_factory=Counter)
    closes: Counter[int] = field(default_factory=Counter)

    @property
    def internal_errors(self) -> int:
        return self.replies["error:internal_error"]

    @property
    def undocumented_closes(self) -> dict[int, int]:
        return {code: count for code, count in self.closes.items() if code not in DOCUMENTED_CLOSE_CODES}


def random_value(rng: random.Random, depth: int = 0) -> Any:
    """Any value of any kind, wrong for most fields."""
    kind = rng.randrange(12 if depth < 3 else 9)
    if kind == 0:
        return rng.choice(HUGE_NUMBERS)
    if kind == 1:
        return rng.randint(-5, 200)
    if kind == 2:
        return rng.choice((0.5, 3.0, -1e300, 1e20, float("nan"), float("inf"), float("-inf")))
    if kind == 3:
        return rng.choice(BAD_STRINGS)
    if kind == 4:
        return rng.choice((True, False, None))
    if kind == 5:
        return rng.choice(MESSAGE_TYPES + GAMES + ("t1", "draw", "daily", "random"))
    if kind == 6:
        return deep(rng, rng.choice((9, 40, 600, 1100, 3000)))
    if kind == 7:
        return Raw('"\\udc00x"', b"\xa2\xff\xfe")
    if kind == 8:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 8)))
    if kind == 9:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if kind == 10:
        return {rng.choice(("draw", "type", "id", "deal", "x")): random_value(rng, depth + 1) for _ in range(rng.randrange(3))}
    return {"type": random_value(rng, depth + 1)}


def deep(rng: random.Random, levels: int) -> Raw:
    """``levels`` nested lists (or maps of ``type``) around a null."""
    if rng.random() < 0.5:
        return Raw("[" * levels + "null" + "]" * levels, b"\x91" * levels + b"\xc0")
    return Raw('{"type":' * levels + "null" + "}" * levels, b"\x81\xa4type" * levels + b"\xc0")


def bad_options(rng: random.Random) -> dict[str, Any]:
    return rng.choice(
        (
            {"deal": 5}, {"seed": 1}, {"game_id": "x"}, {"undo_limit": 10**30}, {"undo_limit": 2**53}, {"hint_limit": -1},
            {"draw": 3.0}, {"draw": True}, {"draw": [3]}, {"difficulty": "challenge"}, {"scoring": "vegas", "draw": 3},
            {"practice": True}, {"x" * 50: 1}, {str(n): n for n in range(20)}, {"draw": float("nan")},
        )
    )


def valid_message(rng: random.Random, known: Known) -> dict[str, Any]:
    """A well-formed request of a random type, aimed at real ids."""
    kind = rng.choice(MESSAGE_TYPES)
    game_id = rng.choice([known.victim_game, *known.games[-5:], "g_nothing"])
    race_id = rng.choice(known.races[-5:] or ["r_nothing"])
    message: dict[str, Any] = {"type": kind, "id": rng.choice((rng.randrange(1, 10**6), f"f{rng.randrange(999)}"))}
    game = rng.choice(GAMES)
    extras: dict[str, dict[str, Any]] = {
        "hello": {"name": rng.choice(("eve", "mallory"))},
        "new_game": {"game": game, "deal": rng.choice((rng.randrange(1, 500), "random", "winnable")), "options": {}},
        "move": {"game_id": game_id, "move": rng.choice(("draw", "t1-t2", "w-f", "t7-f"))},
        "auto_move": {"game_id": game_id, "src": rng.choice(("t1", "w", "t3")), "count": 1},
        "list_games": {"limit": rng.randrange(1, 101)},
        "create_race": {"game": game, "deal": "winnable", "options": {}},
        "join_race": {"code": rng.choice(known.codes[-5:] or ["ABCD-EFGH"])},
        "list_races": {"player_id": known.victim_player},
        "records": {"player_id": known.victim_player},
        "daily": {"game": game},
        "leaderboard": {"game": game, "options": {}},
    }
    message.update(extras.get(kind, {}))
    if kind in ("undo", "redo", "hint", "finish", "analyse", "restart", "resign", "watch", "unwatch", "resync"):
        message["game_id"] = game_id
    if kind in ("start_race", "watch_race", "unwatch_race", "rematch"):
        message["race_id"] = race_id
    return message


def mutate(rng: random.Random, message: dict[str, Any]) -> None:
    """One mutation of ``message``, in place."""
    keys = list(message)
    key = rng.choice(keys) if keys else "type"
    choice = rng.randrange(10)
    if choice == 0:
        message[key] = random_value(rng)
    elif choice == 1:
        message[key] = rng.choice(HUGE_NUMBERS)
    elif choice == 2:
        message.pop(key, None)
    elif choice == 3:
        message[rng.choice(("extra", "Type", "ID", "options", "seq", "deal"))] = random_value(rng)
    elif choice == 4:
        message["type"] = rng.choice((*MESSAGE_TYPES, "fly", "", "PING", "ping\x00"))
    elif choice == 5:
        message["options"] = bad_options(rng)
    elif choice == 6:
        message["seq"] = rng.choice((-1, 0, 1, 2**53, 10**30, 3.0, "1"))
    elif choice == 7:
        message[key] = rng.choice(BAD_STRINGS)
    elif choice == 8:
        message[key] = rng.choice((float("nan"), float("inf"), Raw("NaN", b"\xcb\x7f\xf8\x00\x00\x00\x00\x00\x00")))
    else:
        message[key] = deep(rng, rng.choice((8, 9, 100, 1010, 2000)))


def encode(message: Any, msgpack_codec: bool) -> bytes | str:
    """``message`` in one codec, ``Raw`` values spliced in as they are."""
    spliced: dict[str, Raw] = {}

    def placeholders(value: Any) -> Any:
        if isinstance(value, Raw):
            name = f"\x01raw{len(spliced)}\x01"
            spliced[name] = value
            return name
        if isinstance(value, dict):
            return {key: placeholders(item) for key, item in value.items()}
        if isinstance(value, list):
            return [placeholders(item) for item in value]
        if isinstance(value, bytes) and not msgpack_codec:
            return value.hex()
        if isinstance(value, str) and msgpack_codec and any("\ud800" <= char <= "\udfff" for char in value):
            return placeholders(Raw("", msgpack.packb(value.encode("utf-8", "surrogatepass"), use_bin_type=False)))
        if isinstance(value, int) and msgpack_codec:
            return min(max(value, -(2**63)), 2**64 - 1)  # all MessagePack can carry
        return value

    plain = placeholders(message)
    if msgpack_codec:
        frame = msgpack.packb(plain, use_bin_type=True)
        for name, raw in spliced.items():
            frame = frame.replace(msgpack.packb(name), raw.msgpack_bytes)
        return frame
    text = json.dumps(plain)
    for name, raw in spliced.items():
        text = text.replace(json.dumps(name), raw.json_text)
    return text


def fuzz_frame(rng: random.Random, known: Known, msgpack_codec: bool) -> tuple[bytes | str, bool]:
    """One frame and whether it goes as a text frame."""
    text = not msgpack_codec
    roll = rng.random()
    if roll < 0.03:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(0, 40))), rng.random() < 0.1
    if roll < 0.05:
        return encode(rng.choice(([1, 2], "ping", 5, None, [])), msgpack_codec), text
    message = valid_message(rng, known)
    for _ in range(rng.choice((0, 1, 1, 2, 3))):
        mutate(rng, message)
    frame = encode(message, msgpack_codec)
    roll = rng.random()
    if roll < 0.03:
        frame = frame[: rng.randrange(len(frame) + 1)]
    elif roll < 0.05:
        text = not text
        if isinstance(frame, str) and rng.random() < 0.5:
            frame = frame.encode()
    elif roll < 0.052:
        frame = (frame.encode() if isinstance(frame, str) else frame) + b"\xff\xc0\x80"
        text = True
    elif roll < 0.053:
        frame = encode({**message, "pad": "z" * 70_000}, msgpack_codec)
    return frame, text


class FuzzConnection:
    """One connection that sends fuzzed frames batch by batch, reopening
    (with its token) whenever the server closes it."""

    def __init__(
        self, url: str, msgpack_codec: bool, hello: bool, known: Known, tally: Tally, rng: random.Random, busy: Busy
    ) -> None:
        self.url = url
        self.busy = busy
        self.subprotocol = MSGPACK_SUBPROTOCOL if msgpack_codec else JSON_SUBPROTOCOL
        self.msgpack_codec = msgpack_codec
        self.say_hello = hello
        self.known = known
        self.tally = tally
        self.rng = rng
        self.token: str | None = None
        self.connection: ClientConnection | None = None
        self._pongs: dict[str, asyncio.Event] = {}
        self._reader: asyncio.Task[None] | None = None
        self._syncs = 0
        self._closing = False

    async def open(self) -> None:
        self.connection = await connect(
            self.url, subprotocols=[Subprotocol(self.subprotocol)], max_size=None, ping_interval=None
        )
        self._reader = asyncio.create_task(self._read(self.connection))
        if self.say_hello:
            await self._request({"type": "hello", "token": self.token} if self.token else {"type": "hello"})

    async def _read(self, connection: ClientConnection) -> None:
        codec = codec_for(connection.subprotocol)
        try:
            async for frame in connection:
                message = codec.decode_reply(frame).model_dump(mode="json")
                kind = message["type"]
                self.tally.replies[f"error:{message['code']}" if kind == "error" else kind] += 1
                if kind == "welcome":
                    self.token = message["token"]
                if kind == "pong" and message.get("id") in self._pongs:
                    self._pongs[message["id"]].set()
                self.known.learn(message)
        except ConnectionClosed:
            pass
        if not self._closing:
            code = connection.close_code
            self.tally.closes[code if code is not None else 1006] += 1
        for waiting in self._pongs.values():
            waiting.set()

    async def _request(self, message: dict[str, Any]) -> None:
        await self._exchange([(encode(message, self.msgpack_codec), not self.msgpack_codec)])

    async def _exchange(self, frames: Iterable[tuple[bytes | str, bool]]) -> None:
        """Send ``frames`` and a ping after them; return when its pong is
        in (every reply before it is too) or the connection is gone."""
        assert self.connection is not None
        self._syncs += 1
        sync = f"sync{self._syncs}"
        self._pongs[sync] = arrived = asyncio.Event()
        try:
            for frame, text in frames:
                await self.connection.send(frame, text=text)
            await self.connection.send(encode({"type": "ping", "id": sync}, self.msgpack_codec), text=not self.msgpack_codec)
        except ConnectionClosed:
            pass
        while True:
            try:
                async with asyncio.timeout(SYNC_SECONDS):
                    await arrived.wait()
                break
            except TimeoutError:
                if not self.busy():
                    raise
        del self._pongs[sync]

    def _frames(self, count: int) -> Iterator[tuple[bytes | str, bool]]:
        for _ in range(count):
            self.tally.frames += 1
            yield fuzz_frame(self.rng, self.known, self.msgpack_codec)

    async def run(self, frames: int) -> None:
        await self.open()
        while frames > 0:
            batch = min(BATCH, frames)
            frames -= batch
            await self._exchange(self._frames(batch))
            assert self._reader is not None
            if self._reader.done():
                await self.open()

    async def close(self) -> None:
        self._closing = True
        if self.connection is not None:
            await self.connection.close()
        if self._reader is not None:
            await self._reader


async def fuzz(url: str, frames: int, seed: int, known: Known, busy: Busy, connections: int = 3) -> Tally:
    """Send ``frames`` fuzzed frames over ``connections`` connections of
    each codec (one of each never says hello); the replies and closes.
    ``busy``: whether the server is handling a request now."""
    tally = Tally()
    rng = random.Random(seed)
    clients = [
        FuzzConnection(url, msgpack_codec, hello=index > 0, known=known, tally=tally, rng=random.Random(rng.random()), busy=busy)
        for msgpack_codec in (False, True)
        for index in range(connections)
    ]
    share = frames // len(clients)
    try:
        await asyncio.gather(*(client.run(share + (frames % len(clients) if i == 0 else 0)) for i, client in enumerate(clients)))
    finally:
        for client in clients:
            await client.close()
    return tally
