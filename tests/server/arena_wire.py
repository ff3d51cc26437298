"""The server tests' client, a small real WebSocket client, and one raw
HTTP exchange on the same port.

``RecordingClient`` keeps every frame it receives (raw and decoded, in
order) and matches replies to requests by ``id``: tests assert on what a
third-party client would see, nothing more.  ``WireClient`` is one over
the real ``websockets`` client, in either subprotocol;
``tests.server.arena_memory.MemoryClient`` is one fed by the hub without
a socket, for the tests whose subject is a rule rather than the adapter.
"""

from __future__ import annotations

import asyncio
import itertools
from abc import ABC, abstractmethod
from typing import Any, Callable, Literal, overload

import engine
from pydantic import BaseModel
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.typing import Subprotocol

from protocol import JSON, MSGPACK_SUBPROTOCOL, Codec, ServerMessage, codec_for
from protocol import to_client as tc
from protocol import to_server as ts

# Only bounds a hang, so it is generous: a passing run never waits for it,
# while a loaded machine (a daily proof in a worker process at load 15 on
# 2 cores) can take well over 10 s to answer one request.
WAIT_SECONDS = 60.0
SEARCH_WAIT_SECONDS = 600.0
"""The hang bound for a reply that waits on a whole real search (an
analysis of a long line, say): searches run in worker processes at a
lower priority, so beside two CPU burners one took over 60 s."""


class RecordingClient(ABC):
    """One connection; ``received`` holds every message in arrival order."""

    def __init__(self, codec: Codec) -> None:
        self.codec = codec
        self.raw: list[bytes | str] = []
        self.received: list[ServerMessage] = []
        self._taken: set[int] = set()
        self._waiters: list[asyncio.Future[None]] = []
        self._ids = itertools.count(1)
        self.token: str | None = None
        self._player_id: str | None = None

    def _record(self, frame: bytes | str) -> None:
        """A frame the server sent: kept, decoded, and every waiter woken."""
        message = self.codec.decode_reply(frame)
        self.raw.append(frame)
        self.received.append(message)
        self._wake_waiters()

    def _wake_waiters(self) -> None:
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(None)
        self._waiters.clear()

    @property
    @abstractmethod
    def ended(self) -> bool:
        """The connection is closed: no frame will arrive any more."""

    @property
    @abstractmethod
    def close_code(self) -> int | None:
        """The close code once ``ended``."""

    @abstractmethod
    async def send_raw(self, frame: bytes | str) -> None:
        """Send one frame as is: ``str`` a text frame, ``bytes`` a binary one."""

    @abstractmethod
    async def closed(self, timeout: float = WAIT_SECONDS) -> int | None:
        """Wait for the server to close the connection; its close code."""

    @abstractmethod
    async def close(self) -> None:
        """Close the connection from the client's side."""

    async def send(self, message: BaseModel) -> None:
        frame = self.codec.encode(message)
        await self.send_raw(frame.decode() if self.codec.text else frame)

    @property
    def player_id(self) -> str:
        """Who the server says this connection is: known once ``hello``
        was answered, and a test asking earlier has a bug."""
        assert self._player_id is not None, "no welcome yet: call hello first"
        return self._player_id

    def next_id(self) -> int:
        return next(self._ids)

    # What each request is answered by, so a test reads its reply's fields
    # checked: a refusal is always possible, so every reply may be an
    # ``Error`` until the test asserts its ``type`` (which narrows it).  A
    # request without its own line (a base class, a new message) may get
    # any server message.
    @overload
    async def request(self, kind: type[ts.Hello], timeout: float = ..., /, **fields: Any) -> tc.Welcome | tc.Error: ...
    @overload
    async def request(self, kind: type[ts.NewGame], timeout: float = ..., /, **fields: Any) -> tc.GameStarted | tc.Error: ...
    @overload
    async def request(
        self, kind: type[ts.Move | ts.Undo | ts.Redo | ts.Restart | ts.Resign], timeout: float = ..., /, **fields: Any
    ) -> tc.Diff | tc.Error: ...
    @overload
    async def request(self, kind: type[ts.AutoMove], timeout: float = ..., /, **fields: Any) -> tc.Diff | tc.Ack | tc.Error: ...
    @overload
    async def request(self, kind: type[ts.Hint], timeout: float = ..., /, **fields: Any) -> tc.HintReply | tc.Error: ...
    @overload
    async def request(self, kind: type[ts.Finish], timeout: float = ..., /, **fields: Any) -> tc.FinishReply | tc.Error: ...
    @overload
    async def request(self, kind: type[ts.Analyse], timeout: float = ..., /, **fields: Any) -> tc.AnalysisReply | tc.Error: ...
    @overload
    async def request(self, kind: type[ts.Replay], timeout: float = ..., /, **fields: Any) -> tc.ReplayReply | tc.Error: ...
    @overload
    async def request(
        self, kind: type[ts.Watch | ts.Resync], timeout: float = ..., /, **fields: Any
    ) -> tc.Snapshot | tc.GameProgress | tc.Error: ...
    @overload
    async def request(
        self, kind: type[ts.Unwatch | ts.UnwatchRace], timeout: float = ..., /, **fields: Any
    ) -> tc.Ack | tc.Error: ...
    @overload
    async def request(self, kind: type[ts.ListGames], timeout: float = ..., /, **fields: Any) -> tc.Games | tc.Error: ...
    @overload
    async def request(self, kind: type[ts.Ping], timeout: float = ..., /, **fields: Any) -> tc.Pong | tc.Error: ...
    @overload
    async def request(self, kind: type[ts.Catalogue], timeout: float = ..., /, **fields: Any) -> tc.CatalogueReply | tc.Error: ...
    @overload
    async def request(
        self,
        kind: type[ts.CreateRace | ts.JoinRace | ts.StartRace | ts.WatchRace | ts.Rematch],
        timeout: float = ...,
        /,
        **fields: Any,
    ) -> tc.Race | tc.Error: ...
    @overload
    async def request(self, kind: type[ts.ListRaces], timeout: float = ..., /, **fields: Any) -> tc.Races | tc.Error: ...
    @overload
    async def request(self, kind: type[ts.Records], timeout: float = ..., /, **fields: Any) -> tc.RecordsReply | tc.Error: ...
    @overload
    async def request(self, kind: type[ts.Daily], timeout: float = ..., /, **fields: Any) -> tc.DailyInfo | tc.Error: ...
    @overload
    async def request(
        self, kind: type[ts.Leaderboard], timeout: float = ..., /, **fields: Any
    ) -> tc.LeaderboardPage | tc.Error: ...
    @overload
    async def request(self, kind: type[ts.Request], timeout: float = ..., /, **fields: Any) -> ServerMessage: ...
    async def request(self, kind: type[ts.Request], timeout: float = WAIT_SECONDS, /, **fields: Any) -> ServerMessage:
        """Send a request with a fresh id and return the reply carrying it
        (``timeout``: a longer hang bound for a reply that costs proofs;
        positional, so a test's ``**fields`` never stands for it)."""
        request_id = self.next_id()
        await self.send(kind(id=request_id, **fields))
        reply: ServerMessage = await self.wait_for(lambda m: m.id == request_id, timeout)
        return reply

    async def play_first_legal(self, game_id: str, legal: list[str] | None, count: int) -> list[tc.Diff]:
        """Make ``count`` moves, each the first legal one (``legal``: the
        snapshot's), each acknowledged before the next; the replies, in order."""
        replies: list[tc.Diff] = []
        for _ in range(count):
            assert legal, "the owner is told the legal moves"
            reply = await self.request(ts.Move, game_id=game_id, move=legal[0])
            assert reply.type == "diff", reply
            replies.append(reply)
            legal = reply.legal
        return replies

    async def wait_for(self, predicate: Callable[..., bool], timeout: float = WAIT_SECONDS) -> Any:
        """The first not yet taken message matching ``predicate`` (called
        with the message alone: ``...`` lets a test's lambda bind its loop
        variable as a default, ``lambda m, n=number: ...``)."""

        def find() -> Any:
            for index, message in enumerate(self.received):
                if index not in self._taken and predicate(message):
                    self._taken.add(index)
                    return message
            return None

        async with asyncio.timeout(timeout):
            while (found := find()) is None:
                if self.ended:
                    raise ConnectionError(f"connection closed: {self.close_code}")
                waiter = asyncio.get_running_loop().create_future()
                self._waiters.append(waiter)
                await waiter
        return found

    # The messages a server sends unasked, typed by their ``type``; any
    # other kind is read untyped.
    @overload
    async def next_of(self, kind: Literal["diff"], timeout: float = ...) -> tc.Diff: ...
    @overload
    async def next_of(self, kind: Literal["snapshot"], timeout: float = ...) -> tc.Snapshot: ...
    @overload
    async def next_of(self, kind: Literal["progress"], timeout: float = ...) -> tc.GameProgress: ...
    @overload
    async def next_of(self, kind: Literal["game_over"], timeout: float = ...) -> tc.GameOver: ...
    @overload
    async def next_of(self, kind: Literal["finish_offer"], timeout: float = ...) -> tc.FinishOffer: ...
    @overload
    async def next_of(self, kind: Literal["race"], timeout: float = ...) -> tc.Race: ...
    @overload
    async def next_of(self, kind: Literal["race_progress"], timeout: float = ...) -> tc.RaceProgress: ...
    @overload
    async def next_of(self, kind: Literal["error"], timeout: float = ...) -> tc.Error: ...
    @overload
    async def next_of(self, kind: str, timeout: float = ...) -> Any: ...
    async def next_of(self, kind: str, timeout: float = WAIT_SECONDS) -> Any:
        """The next not yet taken message of this ``type``."""
        return await self.wait_for(lambda m: m.type == kind, timeout)

    async def hello(self, token: str | None = None, name: str | None = None, bot: bool = False) -> tc.Welcome:
        welcome = await self.request(ts.Hello, token=token, name=name, bot=bot)
        assert welcome.type == "welcome", welcome
        self.token, self._player_id = welcome.token, welcome.player_id
        return welcome

    async def new_game(self, game: str = "klondike", **fields: Any) -> tuple[tc.GameStarted, tc.Snapshot]:
        """Start a game; return (game_started, its snapshot)."""
        started = await self.request(ts.NewGame, game=game, **fields)
        assert started.type == "game_started", started
        game_id = started.game_id
        snapshot: tc.Snapshot = await self.wait_for(lambda m: m.type == "snapshot" and m.game_id == game_id)
        return started, snapshot


class WireClient(RecordingClient):
    """A ``RecordingClient`` over a real WebSocket connection."""

    def __init__(self, connection: ClientConnection) -> None:
        super().__init__(codec_for(connection.subprotocol))
        self.connection = connection
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, url: str, subprotocol: str | None = MSGPACK_SUBPROTOCOL, **options: Any) -> WireClient:
        offered = [Subprotocol(subprotocol)] if subprotocol else None
        return cls(await connect(url, subprotocols=offered, **options))

    async def _read(self) -> None:
        try:
            async for frame in self.connection:
                self._record(frame)
        except ConnectionClosed:
            pass
        finally:
            self._wake_waiters()

    @property
    def ended(self) -> bool:
        return self._reader.done()

    @property
    def close_code(self) -> int | None:
        return self.connection.close_code

    async def send(self, message: BaseModel) -> None:
        await self.connection.send(self.codec.encode(message), text=self.codec.text)

    async def send_raw(self, frame: bytes | str) -> None:
        await self.connection.send(frame)

    async def closed(self, timeout: float = WAIT_SECONDS) -> int | None:
        async with asyncio.timeout(timeout):
            await asyncio.shield(self._reader)
        return self.connection.close_code

    async def close(self) -> None:
        await self.connection.close()
        await asyncio.gather(self._reader, return_exceptions=True)


class Mirror:
    """A client's copy of a game: a snapshot, then each diff in order."""

    def __init__(self, snapshot: ServerMessage) -> None:
        assert snapshot.type == "snapshot", snapshot
        self.seq: int = snapshot.seq
        self.view: dict[str, Any] = snapshot.view.model_dump()

    def apply(self, diff: ServerMessage) -> None:
        """``diff`` as any reply, since a test hands it a request's reply
        straight: a refusal fails here, naming itself."""
        assert diff.type == "diff", diff
        assert diff.seq == self.seq + 1, f"gap: have {self.seq}, got {diff.seq}"
        self.view = engine.apply_diff(self.view, [op.model_dump() for op in diff.ops])
        self.seq = diff.seq


def json_frame(data: Any) -> bytes:
    """Encode any object the way a JSON client would (for malformed-input tests)."""
    return JSON.encode_data(data)


async def http_exchange(
    port: int, request_line: str, *headers: str, unique: bool = False
) -> tuple[int, dict[str, str], bytes]:
    """One raw HTTP/1.1 request on its own connection, byte for byte what is
    sent (no client-side path cleaning); status, headers, body.  ``unique``:
    assert that no header is repeated (a 426 sends two ``Connection``s; the
    dict keeps the last).  The request says ``Connection: close`` (unless
    ``headers`` name another), so the answer ends with the connection."""
    if not any(header.lower().startswith("connection:") for header in headers):
        headers = (*headers, "Connection: close")
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write("\r\n".join([request_line, "Host: arena", *headers, "", ""]).encode())
    await writer.drain()
    data = await reader.read()
    writer.close()
    await writer.wait_closed()
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode().split("\r\n")
    names = [line.partition(":")[0].strip().lower() for line in header_lines]
    assert not unique or len(names) == len(set(names)), f"repeated headers: {header_lines}"
    fields = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in header_lines)}
    return int(status_line.split()[1]), fields, body
