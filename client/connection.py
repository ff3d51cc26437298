"""``ArenaClient``: the asyncio client of the Solitaire Arena protocol.

One WebSocket connection, speaking ``arena.v1.msgpack`` (the default) or
``arena.v1.json``.  Each request gets a fresh ``id`` and a future keyed by
it; the reader task resolves the future with the reply carrying that id,
or fails it with the ``ArenaError`` subclass of the server's error code,
so requests may run concurrently and still each get their own answer.
Every watched game has a ``GameMirror`` and every followed race a
``RaceMirror``, fed in arrival order before any request's future
resolves: when ``await client.move(...)`` returns, the mirror already
shows the move.

When the connection drops without ``close()`` having been called, the
client reconnects with exponential backoff and jitter (``Backoff``), says
hello again with its token (the server then re-watches the player's live
games and their unfinished races and sends their snapshots), asks for a
fresh snapshot of every other game it mirrors, follows again every other
race it mirrors, and only then lets waiting requests through.  Requests in
flight when the connection dropped fail with ``ConnectionLost`` (they may
have been applied: the refreshed mirror tells).

Example::

    from client import ArenaClient, IllegalMove

    async with ArenaClient("ws://127.0.0.1:8765/ws", name="ada") as client:
        game = await client.new_game("klondike", deal="daily", options={"draw": 3})
        while not game.finished and (move := await client.hint(game.game_id)):
            await client.move(game.game_id, move)
        print(game.status, game.counters)

Decisions where the protocol is silent:
- Game actions (move, auto_move, undo, redo, restart, resign, hint,
  finish) carry the ``seq`` of the mirror, the state the caller saw; a
  refusal (``StaleState``) is not retried, since the caller decided on a
  board that is gone.  Actions sent at once on one game therefore apply
  one: send them one after another, or through ``request`` without
  ``seq``.
- After ``welcome`` the client paces itself below the server's announced
  rate limit (90 % of the rate, half the burst), so a busy bot waits a
  little instead of being refused with ``rate_limited``.
- A ``rate_limited`` error has no id because the server dropped the frame
  unread; the server answers one connection's frames in order, so it is
  the reply to the oldest request still waiting, which fails with it.
- While reconnecting, a refusal that means "not now" (``shutting_down``,
  ``storage_unavailable``, ``rate_limited``, ``internal_error``) is
  retried after the next delay; any other (``bad_token``) closes the
  client, since trying again cannot help.
- The server re-follows after ``hello`` only the races the player runs
  in and that are not over; the client follows again, with
  ``watch_race``, every mirrored race that did not get a ``race``
  snapshot by then (races it watches as a spectator, races that ended
  meanwhile, all races of a client without ``hello``).
- A frame the shared models cannot read (a newer server) does not stop
  the client: an ``error`` with an unknown code still fails its request
  with ``ArenaError`` (code kept), a reply of an unknown type fails its
  request with ``ProtocolMismatch``, anything else is logged and skipped.
"""

from __future__ import annotations

import asyncio
import enum
import itertools
import json
import logging
import time
from datetime import date
from typing import Any, Callable, TypeVar

import msgpack
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus, InvalidURI
from websockets.typing import Subprotocol

from protocol import JSON, MSGPACK_SUBPROTOCOL, SUBPROTOCOLS, Codec, MalformedMessage, ServerMessage, codec_for
from protocol import to_client as tc
from protocol import to_server as ts

from .backoff import Backoff
from .errors import (
    ArenaError,
    CannotConnect,
    ClientClosed,
    ClientError,
    ConnectionLost,
    DealSecret,
    GameNotFound,
    InternalError,
    ProtocolMismatch,
    RaceNotFound,
    RateLimited,
    RequestTimeout,
    ShuttingDown,
    StorageUnavailable,
    arena_error,
)
from .mirror import DiffOutcome, GameMirror
from .race_mirror import RaceMirror

log = logging.getLogger("arena.client")

DEFAULT_URL = "ws://127.0.0.1:8765/ws"
DEFAULT_TIMEOUT = 10.0
MAX_FRAME_BYTES = 1 << 24
PACING_SHARE = 0.9
RATE_LIMITED = "rate_limited"
RaceDeal = ts.RaceDealKind
TRANSIENT_REFUSALS = (ShuttingDown, StorageUnavailable, RateLimited, InternalError)

Reply = TypeVar("Reply", bound=tc.Event)
MessageFilter = Callable[[ServerMessage], bool]


class ClientState(enum.Enum):
    CONNECTING = "connecting"
    OPEN = "open"
    RECONNECTING = "reconnecting"
    CLOSED = "closed"


class _Pacer:
    """A token bucket mirroring the server's, a little slower."""

    def __init__(self, limits: tc.Limits) -> None:
        self.rate = limits.messages_per_second * PACING_SHARE
        self.capacity = max(1.0, limits.burst / 2)
        self.tokens = self.capacity
        self.last = time.monotonic()

    async def take(self) -> None:
        while True:
            now = time.monotonic()
            self.tokens = min(self.capacity, self.tokens + (now - self.last) * self.rate)
            self.last = now
            if self.tokens >= 1:
                self.tokens -= 1
                return
            await asyncio.sleep((1 - self.tokens) / self.rate)


def _raw_fields(frame: bytes | str, codec: Codec) -> dict[str, Any] | None:
    """A frame's top-level object without validation (for frames the
    models reject), or None if it is not even an object."""
    try:
        data = json.loads(frame) if codec.text else msgpack.unpackb(frame, raw=False)
    except (ValueError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError):
        return None
    return data if isinstance(data, dict) else None


class ArenaClient:
    """A connection to an arena server; see the module docstring.

    ``subprotocol``: ``arena.v1.msgpack`` or ``arena.v1.json``.
    ``token``: come back as an existing player (its live games are
    mirrored at once).  ``identify=False`` skips ``hello``: enough to
    watch, not to play.  ``bot=True`` declares a program playing by
    itself in ``hello`` (it ranks among bots; the mark sticks to the
    identity).  ``timeout``: seconds to wait for each reply (and
    for a reconnection, when a request is made during one).
    ``message_filter``: sees every decoded server message first and drops
    it by returning False; it exists to simulate loss (tests, demos of
    resync) and to log traffic.  ``pace=False`` turns off the pacing
    below the server's rate limit (see the module docstring).
    """

    def __init__(
        self,
        url: str = DEFAULT_URL,
        *,
        subprotocol: str = MSGPACK_SUBPROTOCOL,
        token: str | None = None,
        name: str | None = None,
        identify: bool = True,
        bot: bool = False,
        timeout: float = DEFAULT_TIMEOUT,
        backoff: Backoff | None = None,
        message_filter: MessageFilter | None = None,
        pace: bool = True,
    ) -> None:
        if subprotocol not in SUBPROTOCOLS:
            raise ValueError(f"subprotocol must be one of {', '.join(SUBPROTOCOLS)}, not {subprotocol!r}")
        self.url = url
        self.subprotocol = subprotocol
        self.token = token
        self.name = name
        self.identify = identify
        self.bot = bot
        self.timeout = timeout
        self.backoff = backoff if backoff is not None else Backoff()
        self.message_filter = message_filter
        self.pace = pace
        self.player_id: str | None = None
        self.welcome: tc.Welcome | None = None
        self.games: dict[str, GameMirror] = {}
        self.races: dict[str, RaceMirror] = {}
        self.state = ClientState.CONNECTING
        self.reconnects = 0
        self.failure: BaseException | None = None
        self._ws: ClientConnection | None = None
        self._codec: Codec = codec_for(subprotocol)
        self._reader: asyncio.Task[None] | None = None
        self._supervisor: asyncio.Task[None] | None = None
        self._pending: dict[int, asyncio.Future[ServerMessage]] = {}
        self._ids = itertools.count(1)
        self._send_lock = asyncio.Lock()
        self._pacer: _Pacer | None = None
        self._state_changed = asyncio.Event()
        self._background: set[asyncio.Task[None]] = set()

    def __repr__(self) -> str:
        return f"<ArenaClient {self.url} {self.state.value} player={self.player_id}>"

    # ------------------------------------------------------------ life

    async def start(self) -> None:
        """Connect and say hello; raises ``CannotConnect`` or the
        ``ArenaError`` of a refused hello (``BadToken``)."""
        if self.state is not ClientState.CONNECTING or self._supervisor is not None:
            raise ClientError("start() may be called once")
        try:
            await self._establish()
        except BaseException:
            self._set_state(ClientState.CLOSED)
            raise
        self._supervisor = asyncio.create_task(self._supervise(), name="arena client supervisor")

    async def close(self) -> None:
        """Close the connection and stop reconnecting; pending requests
        fail with ``ClientClosed`` and every update stream ends."""
        if self.state is ClientState.CLOSED and self._supervisor is None:
            return
        self._set_state(ClientState.CLOSED)
        supervisor, self._supervisor = self._supervisor, None
        if supervisor is not None:
            supervisor.cancel()
            await asyncio.gather(supervisor, return_exceptions=True)
        await self._drop_connection()
        self._shut(ClientClosed("the client was closed"))

    async def __aenter__(self) -> ArenaClient:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def wait_open(self, timeout: float | None = None) -> None:
        """Return once the connection is open (at once if it is); raise
        ``ClientClosed`` if the client closed or gave up reconnecting."""
        if await self.wait_state(ClientState.OPEN, ClientState.CLOSED, timeout=timeout) is ClientState.CLOSED:
            raise ClientClosed("the client is closed") from self.failure

    async def wait_state(self, *states: ClientState, timeout: float | None = None) -> ClientState:
        """Return the state once it is one of ``states``; ``RequestTimeout``
        after ``timeout`` seconds (default: the client's timeout).

        Example: ``await client.wait_state(ClientState.RECONNECTING)``.
        """
        limit = self.timeout if timeout is None else timeout
        try:
            async with asyncio.timeout(limit):
                while self.state not in states:
                    await self._state_changed.wait()
        except TimeoutError:
            wanted = " or ".join(state.value for state in states)
            raise RequestTimeout(f"still {self.state.value}, not {wanted}, after {limit} s") from None
        return self.state

    def _set_state(self, state: ClientState) -> None:
        self.state = state
        changed, self._state_changed = self._state_changed, asyncio.Event()
        changed.set()

    async def _establish(self) -> None:
        """Open a connection, start reading it, say hello, refresh every mirror."""
        try:
            ws = await connect(
                self.url,
                subprotocols=[Subprotocol(self.subprotocol)],
                open_timeout=self.timeout,
                max_size=MAX_FRAME_BYTES,
            )
        except (OSError, InvalidHandshake, InvalidURI, TimeoutError) as error:
            refusal = _handshake_refusal(error)
            reason = refusal if refusal is not None else error
            raise CannotConnect(f"cannot connect to {self.url}: {reason}", refusal) from error
        self._ws = ws
        self._codec = codec_for(ws.subprotocol)
        self._reader = asyncio.create_task(self._read(ws), name="arena client reader")
        followed = {race_id: race.snapshots for race_id, race in self.races.items()}
        try:
            if self.identify:
                await self._hello()
            await self._refresh_mirrors(followed)
        except BaseException:
            await self._drop_connection()
            raise
        self._set_state(ClientState.OPEN)

    async def _hello(self) -> None:
        welcome = self._expect(await self._call(ts.Hello(token=self.token, name=self.name, bot=self.bot), gated=False), tc.Welcome)
        self.welcome = welcome
        self.token, self.player_id, self.name = welcome.token, welcome.player_id, welcome.name
        self._pacer = _Pacer(welcome.limits) if self.pace else None

    async def _refresh_mirrors(self, followed: dict[str, int]) -> None:
        """Snapshot every mirrored game and race again.  The server already
        sends one for each live game and unfinished race of the player
        after ``welcome``; a ping behind them is the barrier that says
        they have arrived, and the rest are asked for: the games not in
        ``welcome``, the races whose snapshot count is still the one in
        ``followed`` (taken before ``hello``)."""
        await self._call(ts.Ping(), gated=False)
        resent = {game.game_id for game in self._welcome_games()}
        games = [game_id for game_id, mirror in self.games.items() if game_id not in resent and not mirror.finished]
        races = [race_id for race_id, race in self.races.items() if not race.ended and race.snapshots == followed.get(race_id)]
        results = await asyncio.gather(
            *(self._call(ts.Resync(game_id=game_id), gated=False) for game_id in games),
            *(self._call(ts.WatchRace(race_id=race_id), gated=False) for race_id in races),
            return_exceptions=True,
        )
        for game_id, result in zip(games, results):
            if isinstance(result, GameNotFound):
                self.games.pop(game_id).close()
            elif isinstance(result, BaseException):
                raise result
        for race_id, result in zip(races, results[len(games) :]):
            if isinstance(result, RaceNotFound):
                self.races.pop(race_id).close()
            elif isinstance(result, BaseException):
                raise result

    def _welcome_games(self) -> list[tc.GameSummary]:
        return self.welcome.games if self.welcome is not None and self.identify else []

    async def _drop_connection(self) -> None:
        ws, reader = self._ws, self._reader
        self._ws = self._reader = None
        if ws is not None:
            await ws.close()
        if reader is not None:
            await asyncio.gather(reader, return_exceptions=True)

    async def _supervise(self) -> None:
        """Wait for the connection to end; reconnect unless closed."""
        while True:
            reader = self._reader
            if reader is not None:
                await asyncio.wait({reader})
            await self._drop_connection()
            self._fail_pending(ConnectionLost("the connection to the server was lost"))
            self._set_state(ClientState.RECONNECTING)
            if not await self._reconnect():
                self._supervisor = None
                self._set_state(ClientState.CLOSED)
                self._shut(ClientClosed(f"gave up reconnecting to {self.url}"))
                return

    async def _reconnect(self) -> bool:
        for delay in self.backoff.delays():
            await asyncio.sleep(delay)
            try:
                await self._establish()
            except ArenaError as error:
                if isinstance(error, TRANSIENT_REFUSALS):
                    log.info("the server is not ready for us yet: %s", error)
                    continue
                self.failure = error
                log.warning("the server refused the reconnection: %s", error)
                return False
            except ClientError as error:
                log.info("reconnecting to %s failed: %s", self.url, error)
                continue
            self.reconnects += 1
            return True
        self.failure = ConnectionLost(f"no connection to {self.url} after every attempt")
        return False

    def _fail_pending(self, error: ClientError) -> None:
        pending, self._pending = self._pending, {}
        for future in pending.values():
            if not future.done():
                future.set_exception(error)

    def _shut(self, error: ClientError) -> None:
        self._fail_pending(error)
        for task in list(self._background):
            task.cancel()
        for game in self.games.values():
            game.close()
        for race in self.races.values():
            race.close()

    # ------------------------------------------------------------ requests

    async def request(self, message: ts.Request) -> ServerMessage:
        """Send any request and return its reply (the message carrying its
        id).  Raises the ``ArenaError`` of a refusal, ``RequestTimeout``,
        ``ConnectionLost`` or ``ClientClosed``.  The named methods below
        are this plus a check of the reply's type."""
        return await self._call(message)

    async def _call(self, message: ts.Request, *, gated: bool = True) -> ServerMessage:
        if gated:
            await self.wait_open()
        if self._pacer is not None:
            await self._pacer.take()
        ws = self._ws
        if ws is None:
            raise ConnectionLost("not connected")
        request_id = next(self._ids)
        future: asyncio.Future[ServerMessage] = asyncio.get_running_loop().create_future()
        frame = self._codec.encode(message.model_copy(update={"id": request_id}))
        try:
            async with self._send_lock:
                self._pending[request_id] = future
                await ws.send(frame, text=self._codec.text)
            async with asyncio.timeout(self.timeout):
                return await future
        except ConnectionClosed:
            raise ConnectionLost("the connection closed while sending") from None
        except TimeoutError:
            raise RequestTimeout(f"no reply to {type(message).__name__} within {self.timeout} s") from None
        finally:
            self._pending.pop(request_id, None)

    @staticmethod
    def _expect(reply: ServerMessage, kind: type[Reply]) -> Reply:
        if not isinstance(reply, kind):
            raise ProtocolMismatch(f"expected a {kind.__name__} reply, got {reply.type}")
        return reply

    async def new_game(
        self,
        game: str,
        deal: int | ts.DealKind = "random",
        options: dict[str, Any] | None = None,
        *,
        practice: bool = False,
        position: str | None = None,
    ) -> GameMirror:
        """Start a game of ``game`` and return its mirror, ready.

        ``deal``: a number, ``"random"``, ``"winnable"`` or ``"daily"``;
        ``options``: the game's options, e.g. ``{"draw": 3}``.  The mirror's
        ``started`` holds the server's ``game_started`` (deal kind,
        ``verified``).
        """
        request = ts.NewGame(game=game, deal=deal, options=options or {}, practice=practice, position=position)
        started = self._expect(await self._call(request), tc.GameStarted)
        mirror = self.games[started.game_id]
        try:
            await mirror.wait_until(lambda m: m.ready, self.timeout)
        except TimeoutError:
            raise RequestTimeout(f"no snapshot of the new game {started.game_id} within {self.timeout} s") from None
        return mirror

    def _against(self, game_id: str, seq: int | None) -> int | None:
        """The ``seq`` a game action is made against: ``seq`` when given,
        else the mirror's (the state this client shows), or none for a
        game it does not mirror (the server then acts on whatever state
        the game is in)."""
        if seq is not None:
            return seq
        mirror = self.games.get(game_id)
        return mirror.seq if mirror is not None and mirror.ready else None

    async def move(self, game_id: str, move: str, *, seq: int | None = None) -> tc.Diff:
        """Play ``move`` (notation: ``t3-t5``, ``w-f``, ``draw``, ``r3-r1``).

        Every game action is made against a state: ``seq`` defaults to the
        mirror's, so a move decided on an outdated board (another tab moved
        first) is refused with ``StaleState`` and changes nothing.  To retry
        safely after ``ConnectionLost``, pass the ``seq`` of the first try:
        if that try was applied, the retry is refused instead of playing twice.
        """
        request = ts.Move(game_id=game_id, move=move, seq=self._against(game_id, seq))
        return self._expect(await self._call(request), tc.Diff)

    async def auto_move(self, game_id: str, src: str, count: int = 1, *, seq: int | None = None) -> tc.Diff | None:
        """Move the top ``count`` cards of ``src`` to their best destination;
        None when there is none (nothing changed).  ``seq`` as in ``move``."""
        request = ts.AutoMove(game_id=game_id, src=src, count=count, seq=self._against(game_id, seq))
        reply = await self._call(request)
        return None if isinstance(reply, tc.Ack) else self._expect(reply, tc.Diff)

    async def undo(self, game_id: str, *, seq: int | None = None) -> tc.Diff:
        """Take the last move back (``seq`` as in ``move``)."""
        return self._expect(await self._call(ts.Undo(game_id=game_id, seq=self._against(game_id, seq))), tc.Diff)

    async def redo(self, game_id: str, *, seq: int | None = None) -> tc.Diff:
        """Play the last undone move again (``seq`` as in ``move``)."""
        return self._expect(await self._call(ts.Redo(game_id=game_id, seq=self._against(game_id, seq))), tc.Diff)

    async def restart(self, game_id: str, *, seq: int | None = None) -> tc.Diff:
        """Back to the deal's first position (``seq`` as in ``move``)."""
        return self._expect(await self._call(ts.Restart(game_id=game_id, seq=self._against(game_id, seq))), tc.Diff)

    async def resign(self, game_id: str, *, seq: int | None = None) -> tc.Diff:
        """Give the game up (``seq`` as in ``move``)."""
        return self._expect(await self._call(ts.Resign(game_id=game_id, seq=self._against(game_id, seq))), tc.Diff)

    async def hint(self, game_id: str, *, seq: int | None = None) -> str | None:
        """A suggested move, or None when no move is useful.  The server
        counts it as a hint (and charges it where the game does); ``seq``
        as in ``move``, so two tabs asking at once are charged one hint."""
        request = ts.Hint(game_id=game_id, seq=self._against(game_id, seq))
        return self._expect(await self._call(request), tc.HintReply).move

    async def finish(self, game_id: str, *, seq: int | None = None) -> list[str]:
        """Let the server play its proven path to the foundations (Broken
        Deck, once ``GameMirror.can_finish``); the moves it played, each
        already applied to the mirror.  ``Unavailable`` when there is no
        such path (``reason``: ``no_finish_path``, ``halves_unrepaired`` …);
        ``seq`` as in ``move``."""
        request = ts.Finish(game_id=game_id, seq=self._against(game_id, seq))
        return self._expect(await self._call(request), tc.FinishReply).moves

    async def analyse(self, game_id: str) -> tc.AnalysisReply:
        """Where a finished game stopped being winnable (any game you may
        watch, once it is over and its deal is no longer secret).  The
        server may search for seconds; the client's timeout applies."""
        return self._expect(await self._call(ts.Analyse(game_id=game_id)), tc.AnalysisReply)

    async def watch(self, game_id: str) -> GameMirror:
        """Follow a game (anyone may); returns its mirror, ready.
        ``DealSecret`` when the game is someone else's on a deal still
        secret: the server then shows progress, never the board."""
        self._expect(self._board_shown(await self._call(ts.Watch(game_id=game_id))), tc.Snapshot)
        return self.games[game_id]

    async def resync(self, game_id: str) -> GameMirror:
        """Replace a mirror by a fresh snapshot (the client does this by
        itself after a gap; call it to be sure of the state)."""
        self._expect(self._board_shown(await self._call(ts.Resync(game_id=game_id))), tc.Snapshot)
        return self.games[game_id]

    @staticmethod
    def _board_shown(reply: ServerMessage) -> ServerMessage:
        if isinstance(reply, tc.GameProgress):
            raise DealSecret(reply)
        return reply

    async def unwatch(self, game_id: str) -> None:
        """Stop following a game; its mirror closes and leaves ``games``."""
        self._expect(await self._call(ts.Unwatch(game_id=game_id)), tc.Ack)
        mirror = self.games.pop(game_id, None)
        if mirror is not None:
            mirror.close()

    async def list_games(self, game: str | None = None, limit: int = 50) -> list[tc.GameSummary]:
        """Live games open to watch, newest first."""
        return self._expect(await self._call(ts.ListGames(game=game, limit=limit)), tc.Games).games

    async def ping(self) -> int:
        """The server's clock (ms since the epoch); a cheap liveness check."""
        return self._expect(await self._call(ts.Ping()), tc.Pong).server_time

    # ------------------------------------------------------------ races

    async def create_race(
        self, game: str, options: dict[str, Any] | None = None, deal: int | RaceDeal = "daily"
    ) -> RaceMirror:
        """Host a race and return its mirror: ``race.code`` is the invite
        to hand out.  ``deal``: ``"daily"``, ``"winnable"`` or a number."""
        request = ts.CreateRace(game=game, options=options or {}, deal=deal)
        return self._race_of(await self._call(request))

    async def join_race(self, code: str) -> RaceMirror:
        """Join a race by its invite code (case and dashes do not matter);
        joining a race you are in again just follows it."""
        return self._race_of(await self._call(ts.JoinRace(code=code)))

    async def start_race(self, race_id: str) -> RaceMirror:
        """Start the countdown (host only); ``race.countdown_ms()`` tells
        how long until the boards come (``race_board``)."""
        return self._race_of(await self._call(ts.StartRace(race_id=race_id)))

    async def watch_race(self, race_id: str) -> RaceMirror:
        """Follow a race (anyone may, no ``hello`` needed): its mirror, ready."""
        return self._race_of(await self._call(ts.WatchRace(race_id=race_id)))

    async def unwatch_race(self, race_id: str) -> None:
        """Stop following a race; its mirror closes and leaves ``races``."""
        self._expect(await self._call(ts.UnwatchRace(race_id=race_id)), tc.Ack)
        mirror = self.races.pop(race_id, None)
        if mirror is not None:
            mirror.close()

    async def rematch(self, race_id: str) -> RaceMirror:
        """After a race: the rematch's mirror (a new race in its lobby with
        the same racers, hosted by whoever asked first)."""
        return self._race_of(await self._call(ts.Rematch(race_id=race_id)))

    async def list_races(self, player_id: str | None = None, limit: int = 20) -> list[tc.RaceInfo]:
        """A player's races (yours by default), newest first."""
        return self._expect(await self._call(ts.ListRaces(player_id=player_id, limit=limit)), tc.Races).races

    async def race_board(self, race_id: str, timeout: float | None = None) -> GameMirror:
        """Your own game in a race you follow, once its board has come:
        waits through the lobby and the countdown.  ``timeout`` (seconds,
        None: as long as it takes) raises ``RequestTimeout``; a race that
        ends first, or in which you do not race, raises ``ClientError``."""
        race = self.races.get(race_id)
        if race is None:
            raise ClientError(f"this client does not follow race {race_id!r}")
        try:
            await race.wait_until(lambda r: r.board is not None or r.ended or r.racer(self.player_id) is None, timeout)
        except TimeoutError:
            raise RequestTimeout(f"no board in race {race_id} within {timeout} s") from None
        if race.board is None:
            raise ClientError(f"no board for you in race {race_id} ({race.phase})")
        return race.board

    async def records(self, player_id: str | None = None) -> tc.RecordsReply:
        """A player's records per game and variant, and Vegas earnings
        (yours without ``player_id``)."""
        return self._expect(await self._call(ts.Records(player_id=player_id)), tc.RecordsReply)

    async def daily(self, day: date | str | None = None, game: str | None = None) -> tc.DailyInfo:
        """The daily deals of a UTC day (default today): commitments while
        it lasts, deals and nonces once revealed.  ``game`` filters."""
        when = day.isoformat() if isinstance(day, date) else day
        return self._expect(await self._call(ts.Daily(date=when, game=game)), tc.DailyInfo)

    async def leaderboard(
        self,
        game: str,
        options: dict[str, Any] | None = None,
        day: date | str | None = None,
        *,
        offset: int = 0,
        limit: int = 10,
        around_me: bool = False,
        bots: bool = False,
    ) -> tc.LeaderboardPage:
        """A day's leaderboard of one game and variant (``options`` pick
        it, e.g. ``{"draw": 3}``); ``page.me`` is your own entry.
        ``bots``: the bots' board (bots declared in ``hello`` rank apart)."""
        when = day.isoformat() if isinstance(day, date) else day
        request = ts.Leaderboard(
            game=game, options=options or {}, date=when, offset=offset, limit=limit, around_me=around_me, bots=bots
        )
        return self._expect(await self._call(request), tc.LeaderboardPage)

    def _race_of(self, reply: ServerMessage) -> RaceMirror:
        return self.races[self._expect(reply, tc.Race).race.race_id]

    # ------------------------------------------------------------ reading

    async def _read(self, ws: ClientConnection) -> None:
        try:
            async for frame in ws:
                self._receive(frame)
        except ConnectionClosed:
            pass

    def _receive(self, frame: bytes | str) -> None:
        try:
            message = self._codec.decode_reply(frame)
        except MalformedMessage as problem:
            self._unreadable(frame, problem)
            return
        if self.message_filter is not None and not self.message_filter(message):
            return
        self._route(message)
        if message.id is not None:
            future = self._pending.pop(message.id, None) if isinstance(message.id, int) else None
            if future is None or future.done():
                log.debug("a reply nobody waits for: %s", message.type)
            elif isinstance(message, tc.Error):
                future.set_exception(arena_error(message.code, message.message, message.reason, message.game_id))
            else:
                future.set_result(message)
        elif isinstance(message, tc.Error):
            self._unaddressed_error(arena_error(message.code, message.message, message.reason, message.game_id))

    def _route(self, message: ServerMessage) -> None:
        """Feed the mirrors (before any request hears of the message)."""
        if isinstance(message, tc.GameStarted):
            self.games.setdefault(message.game_id, GameMirror(message.game_id, message)).started = message
        elif isinstance(message, tc.Snapshot):
            self.games.setdefault(message.game_id, GameMirror(message.game_id)).apply_snapshot(message)
            for race in self.races.values():
                self._link_board(race)
        elif isinstance(message, tc.Race):
            race = self.races.setdefault(message.race.race_id, RaceMirror(message.race.race_id))
            race.apply_race(message)
            self._link_board(race)
        elif isinstance(message, tc.RaceProgress):
            if (followed := self.races.get(message.race_id)) is not None:
                followed.apply_progress(message)
        elif isinstance(message, (tc.Diff, tc.GameOver, tc.FinishOffer)):
            mirror = self.games.get(message.game_id)
            if mirror is None:
                return
            if isinstance(message, tc.FinishOffer):
                mirror.apply_finish_offer(message)
            elif isinstance(message, tc.GameOver):
                mirror.apply_game_over(message)
            elif mirror.apply_diff(message) is DiffOutcome.GAP:
                log.info("gap in %s after seq %d (got %d): resyncing", mirror.game_id, mirror.seq, message.seq)
                self._in_background(self._resync_quietly(mirror.game_id))

    def _link_board(self, race: RaceMirror) -> None:
        """Give a race mirror its racer's own game mirror once both exist."""
        game_id = race.game_of(self.player_id)
        board = self.games.get(game_id) if game_id is not None else None
        if board is not None and board.ready and race.board is not board:
            race.attach_board(board)

    def _unaddressed_error(self, error: ArenaError) -> None:
        if error.code == RATE_LIMITED:
            oldest = next((future for future in self._pending.values() if not future.done()), None)
            if oldest is not None:
                oldest.set_exception(error)
                return
        log.warning("the server reported: %s", error)

    def _unreadable(self, frame: bytes | str, problem: MalformedMessage) -> None:
        fields = _raw_fields(frame, self._codec) or {}
        request_id = problem.request_id
        future = self._pending.pop(request_id, None) if isinstance(request_id, int) else None
        if fields.get("type") == "error":
            error = arena_error(
                str(fields.get("code")), str(fields.get("message", "")), fields.get("reason"), fields.get("game_id")
            )
            if future is not None and not future.done():
                future.set_exception(error)
            else:
                self._unaddressed_error(error)
        elif future is not None and not future.done():
            future.set_exception(ProtocolMismatch(f"cannot read the server's reply: {problem}"))
        else:
            log.warning("skipped a server message this client cannot read: %s", problem)

    def _in_background(self, work: Any) -> None:
        task = asyncio.create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _resync_quietly(self, game_id: str) -> None:
        try:
            await self._call(ts.Resync(game_id=game_id))
        except ClientError as error:
            log.warning("resync of %s failed: %s", game_id, error)


def _handshake_refusal(error: Exception) -> ArenaError | None:
    """The server's ``error`` in the body of a refused handshake (HTTP 429
    for an address over its limits), so the caller learns the stable code
    and the sentence rather than a bare status."""
    if not isinstance(error, InvalidStatus):
        return None
    try:
        message = JSON.decode_reply(bytes(error.response.body))
    except MalformedMessage:
        return None
    return arena_error(message.code, message.message) if isinstance(message, tc.Error) else None


async def connect_client(url: str = DEFAULT_URL, **options: Any) -> ArenaClient:
    """A started ``ArenaClient`` (``options`` as its constructor takes);
    close it with ``await client.close()``, or use ``async with
    ArenaClient(url) as client`` instead."""
    client = ArenaClient(url, **options)
    await client.start()
    return client
