"""``ArenaClient``: the asyncio client of the Solitaire Arena protocol.

One WebSocket connection, speaking ``arena.v1.msgpack`` (the default) or
``arena.v1.json``.  Requests may run concurrently and still each get
their own answer (``client.link`` correlates them by ``id``); a refusal
raises the ``ArenaError`` subclass of the server's error code.  Every
watched game has a ``GameMirror`` and every followed race a
``RaceMirror``, fed in arrival order before any request's future
resolves: when ``await client.move(...)`` returns, the mirror already
shows the move.  The named requests (``move``, ``join_race`` …) are in
``client.requests``, how messages reach the mirrors in ``client.routing``;
this module keeps the connection's life.

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
import logging
import ssl
from typing import Callable, TypedDict, Unpack

from protocol import MSGPACK_SUBPROTOCOL, SUBPROTOCOLS, ServerMessage
from protocol import to_client as tc
from protocol import to_server as ts

from .backoff import Backoff
from .errors import (
    ArenaError,
    ClientClosed,
    ClientError,
    ConnectionLost,
    GameNotFound,
    InternalError,
    RaceNotFound,
    RateLimited,
    RequestTimeout,
    ShuttingDown,
    StorageUnavailable,
)
from .ghosts import GhostBoard
from .link import Link, MessageFilter, Pacer, open_link
from .mirror import GameMirror
from .race_mirror import RaceMirror
from .requests import RaceDeal, expect
from .routing import MirrorRouting
from .tls import CaFile, client_context

__all__ = ["DEFAULT_URL", "ArenaClient", "ClientState", "MessageFilter", "RaceDeal", "connect_client"]

log = logging.getLogger("arena.client")

DEFAULT_URL = "ws://127.0.0.1:8765/ws"
DEFAULT_TIMEOUT = 10.0
TRANSIENT_REFUSALS = (ShuttingDown, StorageUnavailable, RateLimited, InternalError)


class ClientState(enum.Enum):
    CONNECTING = "connecting"
    OPEN = "open"
    RECONNECTING = "reconnecting"
    CLOSED = "closed"


class ClientOptions(TypedDict, total=False):
    """``ArenaClient``'s keyword arguments, for ``connect_client``."""

    subprotocol: str
    token: str | None
    link_code: str | None
    device: str | None
    name: str | None
    identify: bool
    bot: bool
    timeout: float
    backoff: Backoff | None
    message_filter: MessageFilter | None
    pace: bool
    ca: CaFile | None
    ssl_context: ssl.SSLContext | None


class ArenaClient(MirrorRouting):
    """A connection to an arena server; see the module docstring.

    ``subprotocol``: ``arena.v1.msgpack`` or ``arena.v1.json``.
    ``token``: come back as an existing player (its live games are
    mirrored at once).  ``link_code`` (instead): become a new device of
    the player who asked for the code; its token is ``token`` after the
    first ``hello``, which every reconnection uses.  ``device``: what
    this device is called in the player's list of devices.
    ``identify=False`` skips ``hello``: enough to
    watch, not to play.  ``bot=True`` declares a program playing by
    itself in ``hello`` (it ranks among bots; the mark sticks to the
    identity).  ``timeout``: seconds to wait for each reply (and
    for a reconnection, when a request is made during one).
    ``message_filter``: sees every decoded server message first and drops
    it by returning False; it exists to simulate loss (tests, demos of
    resync) and to log traffic.  ``pace=False`` turns off the pacing
    below the server's rate limit (see the module docstring).
    ``ca``: a PEM file of certificates a ``wss://`` server may be
    signed by, besides the system's (a self-signed or private server);
    ``ssl_context`` (instead): the whole TLS context (``client.tls``).
    """

    def __init__(
        self,
        url: str = DEFAULT_URL,
        *,
        subprotocol: str = MSGPACK_SUBPROTOCOL,
        token: str | None = None,
        link_code: str | None = None,
        device: str | None = None,
        name: str | None = None,
        identify: bool = True,
        bot: bool = False,
        timeout: float = DEFAULT_TIMEOUT,
        backoff: Backoff | None = None,
        message_filter: MessageFilter | None = None,
        pace: bool = True,
        ca: CaFile | None = None,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        if subprotocol not in SUBPROTOCOLS:
            raise ValueError(f"subprotocol must be one of {', '.join(SUBPROTOCOLS)}, not {subprotocol!r}")
        self.url = url
        self.subprotocol = subprotocol
        self.token = token
        self.link_code = link_code
        self.device = device
        self.name = name
        self.identify = identify
        self.bot = bot
        self.timeout = timeout
        self.backoff = backoff if backoff is not None else Backoff()
        self.message_filter = message_filter
        self.pace = pace
        self.ssl_context = ssl_context if ssl_context is not None or ca is None else client_context(ca)
        self.player_id: str | None = None
        self.welcome: tc.Welcome | None = None
        self.games: dict[str, GameMirror] = {}
        self.races: dict[str, RaceMirror] = {}
        self.notifications = {}
        self._notification_listeners = []
        self.ghosts = GhostBoard()
        self.state = ClientState.CONNECTING
        self.reconnects = 0
        self.failure: BaseException | None = None
        self.close_code: int | None = None
        self.close_reason = ""
        self._state_listeners: list[Callable[[ClientState], None]] = []
        self._link: Link | None = None
        self._supervisor: asyncio.Task[None] | None = None
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
        await self._drop_connection(ClientClosed("the client was closed"))
        self._shut()

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

    def on_state(self, listener: Callable[[ClientState], None]) -> None:
        """Call ``listener`` with each new state: ``RECONNECTING`` when the
        connection drops (``close_code`` and ``close_reason`` then say how it
        closed: 1006 when no close frame came), ``OPEN`` when it is back
        with every mirror refreshed, ``CLOSED`` at the end."""
        self._state_listeners.append(listener)

    def _set_state(self, state: ClientState) -> None:
        changed_state, self.state = state is not self.state, state
        changed, self._state_changed = self._state_changed, asyncio.Event()
        changed.set()
        for listener in self._state_listeners if changed_state else ():
            listener(state)

    async def _establish(self) -> None:
        """Open a connection, start reading it, say hello, refresh every mirror."""
        self._link = await open_link(self.url, self.subprotocol, self.timeout, self._accept, self.ssl_context)
        followed = {race_id: race.snapshots for race_id, race in self.races.items()}
        try:
            if self.identify:
                await self._hello()
            await self._refresh_mirrors(followed)
        except BaseException:
            await self._drop_connection(ConnectionLost("the connection was dropped while it opened"))
            raise
        self._set_state(ClientState.OPEN)

    async def _hello(self) -> None:
        link_code = None if self.token is not None else self.link_code
        hello = ts.Hello(token=self.token, link_code=link_code, device=self.device, name=self.name, bot=self.bot)
        welcome = expect(await self._call(hello, gated=False), tc.Welcome)
        self.welcome = welcome
        self.token, self.player_id, self.name = welcome.token, welcome.player_id, welcome.name
        self.link_code = None
        if self.pace and self._link is not None:
            self._link.pacer = Pacer(welcome.limits)

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

    async def _drop_connection(self, error: ClientError) -> None:
        link, self._link = self._link, None
        if link is not None:
            await link.close(error)

    async def _supervise(self) -> None:
        """Wait for the connection to end; reconnect unless closed."""
        while True:
            if self._link is not None:
                await asyncio.wait({self._link.reader})
                self.close_code, self.close_reason = self._link.ws.close_code, self._link.ws.close_reason or ""
            await self._drop_connection(ConnectionLost("the connection to the server was lost"))
            self._set_state(ClientState.RECONNECTING)
            if not await self._reconnect():
                self._supervisor = None
                self._set_state(ClientState.CLOSED)
                self._shut()
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

    def _shut(self) -> None:
        """End every update stream: the client is closed for good."""
        for task in list(self._background):
            task.cancel()
        for game in self.games.values():
            game.close()
        for race in self.races.values():
            race.close()

    # ------------------------------------------------------------ requests

    async def _call(self, message: ts.Request, *, gated: bool = True, timeout: float | None = None) -> ServerMessage:
        if gated:
            await self.wait_open()
        link = self._link
        if link is None:
            raise ConnectionLost("not connected")
        return await link.call(message, self.timeout if timeout is None else timeout)


async def connect_client(url: str = DEFAULT_URL, **options: Unpack[ClientOptions]) -> ArenaClient:
    """A started ``ArenaClient`` (``options`` as its constructor takes);
    close it with ``await client.close()``, or use ``async with
    ArenaClient(url) as client`` instead."""
    client = ArenaClient(url, **options)
    await client.start()
    return client
