"""The server's core: frames in, frames out, no sockets.

``Hub.handle(peer, frame)`` reads one client frame and answers through
the peers' outlets; the asyncio/websockets adapter (``server.app``) only
forwards frames and closes connections, so everything here runs in
tests with in-memory outlets and the memory store.

Rules kept here (ARCHITECTURE.md, "Sessions are logs" and "Identity and
trust"): only a game's owner acts on it; the engine checks every action;
an action is in the store's log before anyone hears of it; a refused or
failed action changes nothing; the server's clock times everything.

Decisions where the issue is silent:
- Watching needs no identity (anonymous spectators); starting or playing
  a game needs ``hello``.
- Every request with an ``id`` gets exactly one reply carrying it: an
  action's reply is the actor's own copy of the ``diff`` (the other
  watchers get the same diff without the id); ``hint`` also answers with
  a ``hint`` message after its diff, because a hint is a counted action.
- On ``hello`` with a token the player re-watches all of its live games:
  ``welcome`` lists them and a ``snapshot`` of each follows.
- A player has at most ``max_live_games`` live games; starting one more
  abandons the oldest (result ``abandoned``, logged as a resignation).
- A slow connection whose send queue overflows loses its backlog and gets
  a fresh snapshot of each game it watches (and a ``race`` message of each
  race it follows); after ``send_overflows`` overflows it is closed with 1013.

Races and the daily challenge (``server.race_desk``, ``server.daily``;
what ranks and who sees what is ``server.fair_play``'s):
- A race game (``race_id`` set) follows the race's rules here: nobody
  acts on it or watches it before the countdown ends; while the race
  runs its owner watches it live and rivals may not watch it
  (``forbidden``).  On a secret deal (a ranked race) everyone else gets
  ``progress`` (``Room.followers``) until the deal is revealed; on a
  typed number they watch a ``DelayedBoard`` (``server.delay``) that
  stays ``race_spectator_delay_seconds`` behind and catches up when the
  race ends.  A race game's ``game_over`` hides the deal while the race
  runs (rivals play it too).
- ``new_game`` with ``"daily"`` deals the day's committed secret seed;
  the first non-practice attempt per game, variant and day is ranked,
  practice waits until it has ended.  Its viewers other than its player
  get ``progress`` until the day's reveal.  A ranked win enters the day's
  leaderboard when the game is recorded.
- ``hello`` with a token also follows the player's unfinished races again.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import logging
import secrets
import time
from datetime import date
from typing import Any, Awaitable, Callable

import engine
from engine import EngineError
from protocol import CODECS, PROTOCOL_VERSION, ErrorCode, MalformedMessage
from protocol import to_client as tc
from protocol import to_server as ts
from protocol.codec import Codec
from protocol.to_server import RequestId
from server.admission import Admission
from server.assists import AssistDesk
from server.daily import (
    claim_lifetime,
    daily_info,
    forget_records,
    leaderboard_page,
    reveals_at,
    todays_record,
    utc_day,
)
from server.deals import DealChoice, choose_deal
from server.delay import DelayedBoard
from server.fair_play import board_visible, check_assist, check_practice, claim_ranked, clock_start, deal_is_secret
from server.metrics import Gauges, Metrics
from server.once import load_once
from server.peer import Outlet, Peer
from server.ratelimit import RateLimiter, Verdict
from server.race_desk import RaceDesk
from server.races import LEDGER_STATUS, new_id
from server.records import records_reply, settle
from server.refusal import Refusal, from_engine
from server.relay import Relay
from server.room import Room, summarize
from server.epoch import StoreEpoch
from server.keeper import DailyKeeper, RaceDealStock
from server.secret_deals import DealProver
from server.session import ABANDONED, Session
from server.settings import Settings
from server.storage.base import (
    Action,
    LogConflict,
    PlayerRecord,
    SessionHeader,
    StorageError,
    StorageUnavailable,
    Store,
)

log = logging.getLogger("arena.core")

CLOSE_POLICY_VIOLATION = 1008
CLOSE_TRY_AGAIN_LATER = 1013
SESSION_SCAN_LIMIT = 100


def wall_clock_ms() -> int:
    return time.time_ns() // 1_000_000


def hash_token(token: str) -> str:
    """Tokens are stored only as this hash, so a leaked store leaks no identity."""
    return hashlib.sha256(token.encode()).hexdigest()


class Hub:
    """Every connection and every game this process serves."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        clock: Callable[[], int] = wall_clock_ms,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings
        self.store = store
        self.clock = clock
        self.monotonic = monotonic
        self.metrics = Metrics(self.gauges)
        self.admission = Admission(settings, monotonic)
        self.rooms: dict[str, Room] = {}
        self.peers: set[Peer] = set()
        self.relay = Relay(store, secrets.token_hex(8), self._on_relayed)
        self.prover = DealProver(settings.deal_workers, settings.deal_proof_nodes, settings.deal_proof_attempts)
        self.race_deals = RaceDealStock(store, settings, self.prover)
        self.keeper = DailyKeeper(store, settings, self.prover, self.race_deals, lambda: self.clock())
        self.epoch = StoreEpoch()
        self._epoch_task: asyncio.Task[None] | None = None
        self.races = RaceDesk(self)
        self.assists = AssistDesk(self)
        self.delayed: dict[str, DelayedBoard] = {}
        self._delay_timers: dict[str, asyncio.TimerHandle] = {}
        self.closing = False
        self._loading: dict[str, asyncio.Future[Room]] = {}
        self._numbers = itertools.count(1)
        self._last_created = 0
        self._inflight = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self._rate_limited = {
            codec: codec.encode(
                tc.Error(code=ErrorCode.RATE_LIMITED, message="too many messages; this one was dropped unread")
            )
            for codec in CODECS.values()
        }
        self._handlers: dict[type[Any], Callable[[Peer, Any], Awaitable[None]]] = {
            ts.Hello: self._hello,
            ts.NewGame: self._new_game,
            ts.Move: self._act,
            ts.AutoMove: self._act,
            ts.Undo: self._act,
            ts.Redo: self._act,
            ts.Hint: self._act,
            ts.Finish: self._act,
            ts.Analyse: self.assists.analyse,
            ts.Restart: self._act,
            ts.Resign: self._act,
            ts.Watch: self._watch_request,
            ts.Resync: self._watch_request,
            ts.Unwatch: self._unwatch,
            ts.ListGames: self._list_games,
            ts.Ping: self._ping,
            ts.CreateRace: self.races.create,
            ts.JoinRace: self.races.join,
            ts.StartRace: self.races.start,
            ts.WatchRace: self.races.watch,
            ts.UnwatchRace: self.races.unwatch,
            ts.Rematch: self.races.rematch,
            ts.ListRaces: self.races.history,
            ts.Records: self._records,
            ts.Daily: self._daily,
            ts.Leaderboard: self._leaderboard,
        }

    # ------------------------------------------------------------ connections

    def connect(self, codec: Codec, outlet: Outlet, address: str) -> Peer:
        """A new connection from client ``address`` (``server.admission``:
        the adapter admitted it at the handshake); call ``disconnect`` when
        it ends.  Closing it with 1008 bars the address for the cool-down
        there and then, before the client can reconnect."""
        settings = self.settings

        def closing(code: int) -> None:
            if code == CLOSE_POLICY_VIOLATION:
                self.admission.cool_down(address)

        limiter = RateLimiter(settings.rate_per_second, settings.rate_burst, settings.rate_strikes, self.monotonic())
        peer = Peer(next(self._numbers), codec, outlet, limiter, settings.send_queue, address, closing)
        self.peers.add(peer)
        return peer

    def disconnect(self, peer: Peer) -> None:
        peer.closed = True
        peer.backlog.clear()
        self.peers.discard(peer)
        for game_id in list(peer.watching):
            self._stop_watching(peer, game_id)
        peer.watching.clear()
        self.races.disconnect(peer)

    async def handle(self, peer: Peer, frame: bytes | str) -> None:
        """Read one frame from ``peer`` and answer it (never raises)."""
        verdict = peer.limiter.admit(self.monotonic())
        if verdict is not Verdict.ACCEPT:
            self.metrics.errors.labels(ErrorCode.RATE_LIMITED.value).inc()
            if verdict is Verdict.CLOSE:
                peer.close(CLOSE_POLICY_VIOLATION, "message rate limit exceeded")
            elif not peer.send(self._rate_limited[peer.codec]):
                self._overflow(peer)
            return
        self._inflight += 1
        self._idle.clear()
        try:
            await self._dispatch(peer, frame)
        finally:
            self._inflight -= 1
            if not self._inflight:
                self._idle.set()

    async def _dispatch(self, peer: Peer, frame: bytes | str) -> None:
        request_id: RequestId | None = None
        try:
            message = peer.codec.decode(frame)
            request_id = message.id
            if self.closing and not isinstance(message, ts.Ping):
                raise Refusal(ErrorCode.SHUTTING_DOWN, "the server is shutting down; reconnect in a moment")
            await self._handlers[type(message)](peer, message)
        except MalformedMessage as error:
            self._error(peer, Refusal(ErrorCode.BAD_MESSAGE, str(error)), error.request_id)
        except Refusal as refusal:
            self._error(peer, refusal, request_id)
        except StorageUnavailable:
            unavailable = Refusal(ErrorCode.STORAGE_UNAVAILABLE, "storage is unavailable, so this was not done; try again shortly")
            self._error(peer, unavailable, request_id)
        except Exception:
            log.exception("failed to handle a message from %r", peer)
            self._error(peer, Refusal(ErrorCode.INTERNAL_ERROR, "the server failed; nothing changed"), request_id)

    # ------------------------------------------------------------ sending

    def send(self, peer: Peer, message: tc.Event) -> None:
        if not peer.send(peer.codec.encode(message)):
            self._overflow(peer)

    def _error(self, peer: Peer, refusal: Refusal, request_id: RequestId | None) -> None:
        self.metrics.errors.labels(refusal.code.value).inc()
        self.send(
            peer,
            tc.Error(
                id=request_id,
                code=refusal.code,
                message=refusal.message,
                reason=refusal.reason,
                game_id=refusal.game_id,
            ),
        )

    def send_frame(self, peer: Peer, frame: bytes) -> None:
        """Send bytes already encoded with ``peer``'s codec."""
        if not peer.send(frame):
            self._overflow(peer)

    def _overflow(self, peer: Peer) -> None:
        """The peer's queue is full: replace its backlog by fresh snapshots,
        or give up on it (1013) when it keeps falling behind."""
        self.metrics.overflows.inc()
        peer.backlog.clear()
        peer.overflows += 1
        if peer.overflows > self.settings.send_overflows:
            peer.close(CLOSE_TRY_AGAIN_LATER, "too slow to keep up; reconnect and watch again")
            return
        now = self.clock()
        for game_id in peer.watching:
            board = self.delayed.get(game_id)
            room = self.rooms.get(game_id)
            if board is not None and peer in board.watchers:
                peer.backlog.append(peer.codec.encode(board.snapshot(now)))
            elif room is not None and peer in room.followers:
                peer.backlog.append(peer.codec.encode(room.progress(now)))
            elif room is not None:
                peer.backlog.append(peer.codec.encode(room.snapshot(now)))
        self.races.overflowed(peer)
        if peer.backlog:
            peer.outlet.wake()

    def broadcast(self, room: Room, message: tc.Event | dict[str, Any], skip: Peer | None = None) -> None:
        data = message if isinstance(message, dict) else message.model_dump(mode="json")
        for peer in room.broadcast(data, skip):
            self._overflow(peer)

    # ------------------------------------------------------------ identity

    @staticmethod
    def identity(peer: Peer) -> PlayerRecord:
        if peer.player is None:
            raise Refusal(ErrorCode.HELLO_REQUIRED, "say hello first: games belong to players")
        return peer.player

    async def _hello(self, peer: Peer, message: ts.Hello) -> None:
        """Identify the connection.  A new identity costs one of its
        address's hourly allowance (``too_many_identities`` past it), since
        each would otherwise be a free ranked attempt; a token is free.
        ``bot`` marks the identity for good (``Peer.bot``)."""
        if peer.player is not None:
            raise Refusal(ErrorCode.FORBIDDEN, "this connection has already said hello")
        if message.token is not None:
            token = message.token
            player = await self.store.player_by_token_hash(hash_token(token))
            if player is None:
                raise Refusal(ErrorCode.BAD_TOKEN, "no player has this token; say hello without one to start afresh")
            if message.name is not None and message.name != player.display_name:
                await self.store.set_display_name(player.player_id, message.name)
                player.display_name = message.name
            if message.bot and not player.bot:
                await self.store.mark_bot(player.player_id)
                player.bot = True
        else:
            denial = self.admission.new_identity(peer.address)
            if denial is not None:
                raise Refusal(denial.code, denial.message)
            token = secrets.token_urlsafe(32)
            player_id = new_id("p_")
            name = message.name or f"player-{player_id[-4:]}"
            player = PlayerRecord(player_id, name, hash_token(token), self.clock(), bot=message.bot)
            await self.store.create_player(player)
        peer.player = player
        live = await self._live_headers(player.player_id)
        owner = tc.Owner(player_id=player.player_id, name=player.display_name)
        settings = self.settings
        self.send(
            peer,
            tc.Welcome(
                id=message.id,
                player_id=player.player_id,
                name=player.display_name,
                token=token,
                server_time=self.clock(),
                protocol=PROTOCOL_VERSION,
                games=[summarize(header, owner) for header in live],
                limits=tc.Limits(
                    max_frame_bytes=settings.max_frame_bytes,
                    messages_per_second=settings.rate_per_second,
                    burst=settings.rate_burst,
                ),
                bot=player.bot,
            ),
        )
        for header in live:
            try:
                await self.watch_game(peer, header.game_id)
            except Refusal:
                continue
        if message.token is not None:
            await self.races.rejoin(peer, player.player_id)

    async def _live_headers(self, player_id: str) -> list[SessionHeader]:
        """The player's unfinished games, newest first (race games prepared
        for a start that failed are discarded on the way)."""
        headers = await self.store.sessions_of(player_id, limit=SESSION_SCAN_LIMIT)
        return await self.races.without_orphans([header for header in headers if header.status == "playing"])

    async def _owner(self, player_id: str) -> tc.Owner:
        player = await self.store.get_player(player_id)
        return tc.Owner(player_id=player_id, name=player.display_name if player else player_id)

    # ------------------------------------------------------------ games

    async def _new_game(self, peer: Peer, message: ts.NewGame) -> None:
        player = self.identity(peer)
        # Strictly increasing creation times, so "the oldest live game" is
        # never a tie between games started in the same millisecond.
        now = self._last_created = max(self.clock(), self._last_created + 1)
        game_id = new_id("g_")
        record = None
        try:
            game_cls = engine.game_class(message.game)
            if message.position is not None:
                if not self.settings.allow_positions:
                    raise Refusal(ErrorCode.FORBIDDEN, "this server does not accept practice positions")
                if message.options:
                    raise Refusal(ErrorCode.BAD_OPTION, "a practice position carries its own options; send none")
                game = engine.from_text(message.game, message.position)
                choice = DealChoice(game.deal, "position", False)
            elif message.deal == "daily":
                record = await todays_record(self.store, self.settings, self.prover, game_cls, message.options, now)
                choice = DealChoice(0, "daily", True)
                game = engine.seeded_game(message.game, record.seed, **message.options)
            else:
                choice = choose_deal(game_cls, message.deal, message.options)
                game = engine.new_game(message.game, choice.number, **message.options)
        except EngineError as error:
            raise from_engine(error) from None
        practice = message.practice or message.position is not None or bool(game.options.get("practice"))
        ranked = False
        if record is not None:
            ranked = not practice and await claim_ranked(
                self.store, record.key, player.player_id, game_id, claim_lifetime(record, self.settings, now)
            )
            if not ranked:
                await check_practice(self.store, record.key, player.player_id, utc_day(now))
        await self.abandon_beyond_limit(player.player_id)
        header = SessionHeader(
            game_id=game_id,
            game=game_cls.id,
            deal=choice.number,
            options=dict(game.options),
            owner=player.player_id,
            created_ms=now,
            practice=practice or record is not None and not ranked,
            position=message.position,
            daily=record.date if record is not None else None,
            ranked=ranked,
            seed=record.seed if record is not None else None,
            bot=player.bot,
        )
        header.started_ms = clock_start(header, self.clock())
        subscription = await self.relay.subscribe(header.game_id)
        try:
            await self.store.create_session(header)
        except BaseException:
            await subscription.close()
            raise
        room = Room(Session(header, game), tc.Owner(player_id=player.player_id, name=player.display_name))
        self.rooms[header.game_id] = room
        self.relay.follow(header.game_id, subscription)
        self.send(
            peer,
            tc.GameStarted(
                id=message.id,
                game_id=header.game_id,
                game=header.game,
                title=room.title,
                options=header.options,
                practice=header.practice,
                deal_kind=choice.kind,
                verified=choice.verified,
                ranked=ranked,
            ),
        )
        await self._watch(peer, room, None)

    async def abandon_beyond_limit(self, player_id: str) -> None:
        """Make room for one more live game by abandoning the oldest ones."""
        live = await self._live_headers(player_id)
        for header in live[self.settings.max_live_games - 1 :]:
            await self.abandon(header.game_id)

    async def abandon(self, game_id: str) -> None:
        """End a game without its owner (result ``abandoned``), if it is live."""
        room = await self.room(game_id)
        try:
            async with room.lock:
                if room.session.result is None:
                    await self.apply(room, "resign", ABANDONED, None, None)
        finally:
            self.release(room)

    async def _act(self, peer: Peer, message: ts.GameAction) -> None:
        """Perform one game action for its owner.  An action carrying a
        ``seq`` other than the game's is refused (``stale_state``) under
        the room's lock, before anything runs, so of two identical
        requests made against one state (two tabs, a retry) one applies."""
        self.identity(peer)
        room = await self.room(message.game_id)
        if not room.is_owner(peer):
            raise Refusal(ErrorCode.FORBIDDEN, "only the game's owner can play it; you can watch", game_id=room.game_id)
        try:
            if room.session.header.race_id is not None and room.session.result is None:
                await self.races.check_action(room.session)
            async with room.lock:
                current = room.session.seq
                if message.seq is not None and message.seq != current:
                    when = "an older state" if message.seq < current else "a state the game never reached"
                    raise Refusal(
                        ErrorCode.STALE_STATE,
                        f"this {getattr(message, 'type')} was made against {when} (seq {message.seq}); the game is "
                        f"at seq {current}, nothing was done",
                        game_id=room.game_id,
                    )
                if isinstance(message, ts.AutoMove):
                    self._check_live(room)
                    try:
                        found = room.session.game.auto_move(message.src, message.count)
                    except EngineError as error:
                        raise from_engine(error, room.game_id) from None
                    if found is None:
                        self.send(peer, tc.Ack(id=message.id, game_id=room.game_id))
                        return
                    kind, text = "move", str(found)
                else:
                    kind = str(getattr(message, "type"))
                    text = message.move if isinstance(message, ts.Move) else ""
                if isinstance(message, ts.Finish):
                    check_assist(room.session.header, "Automatic finishing")
                    self._check_live(room)
                    await self.assists.finish(room, peer, message)
                    return
                if kind == "hint":
                    check_assist(room.session.header, "Hint")
                    text = await self._find_hint(room)
                diff_id = None if kind == "hint" else message.id
                suggestion = await self.apply(room, kind, text, peer, diff_id)
            if kind == "hint":
                self.send(peer, tc.HintReply(id=message.id, game_id=room.game_id, move=suggestion))
        finally:
            self.assists.refresh_offer(room)
            self.release(room)

    async def _find_hint(self, room: Room) -> str:
        """The hint's move as notation ("" for none), searched in a worker
        process (``AssistDesk.hint``): the solver spends its node budget
        (about 200 ms) there instead of on the interpreter every other
        connection shares.  The caller holds ``room.lock``, so the game
        cannot change meanwhile and the worker searches it as it is now."""
        self._check_live(room)
        try:
            room.session.game.check_hint()
        except EngineError as error:
            raise from_engine(error, room.game_id) from None
        return await self.assists.hint(room)

    @staticmethod
    def _check_live(room: Room) -> None:
        result = room.session.result
        if result is not None:
            raise Refusal(ErrorCode.GAME_FINISHED, f"this game is over ({result})", game_id=room.game_id)

    async def apply(
        self, room: Room, kind: str, text: str, actor: Peer | None, request_id: RequestId | None
    ) -> str | None:
        """Perform, persist, commit and broadcast one action (the caller
        holds ``room.lock``); return a hint's suggestion."""
        begun = time.perf_counter()
        self._check_live(room)
        session = room.session
        try:
            logged, suggestion = session.perform(kind, text)
        except EngineError as error:
            raise from_engine(error, room.game_id) from None
        action = Action(kind, logged, self.clock())
        try:
            await self.store.append(room.game_id, session.seq, action, ends=session.ends(action))
        except LogConflict:
            await self._reload(room)
            raise Refusal(
                ErrorCode.STATE_CONFLICT,
                "the game changed on another server; here is its true state, your action was not applied",
                game_id=room.game_id,
            ) from None
        except KeyError:
            room.session = Session.replay(session.header, session.log)
            raise Refusal(ErrorCode.GAME_NOT_FOUND, "this game is no longer stored", game_id=room.game_id) from None
        except BaseException:
            room.session = Session.replay(session.header, session.log)
            raise
        change = session.commit(action)
        started = time.perf_counter()
        shared = room.diff(change)
        if actor is not None:
            reply = shared if request_id is None else {"id": request_id, **shared}
            self.send_frame(actor, actor.codec.encode_data(reply))
        self.broadcast(room, shared, skip=actor)
        self._tell_followers(room)
        self.metrics.broadcast.observe(time.perf_counter() - started)
        self.metrics.action(time.perf_counter() - begun)
        self.metrics.relay_lag.observe(max(0, self.clock() - action.at_ms) / 1000)
        await self.relay.publish(room.game_id, change.seq, action)
        self._advance_delayed(room.game_id)
        if change.finished:
            self.broadcast(room, self._game_over(room))
            await self._record(session)
        if session.header.race_id is not None:
            await self.races.progressed(session)
        return suggestion

    def _game_over(self, room: Room) -> tc.GameOver:
        """The game's ``game_over``, without the deal in a race still running."""
        message = room.game_over()
        race_id = room.session.header.race_id
        if race_id is not None and self.races.hides_deal(race_id):
            return message.model_copy(update={"deal": None})
        return message

    async def _record(self, session: Session) -> None:
        """Settle a finished game's outbox: its final header, its owner's
        record and Vegas earnings, a ranked daily win's leaderboard entry
        (``records.settle``).  If the store fails here the outbox stays
        open, and the next start or the next process to load the game
        settles it."""
        try:
            await settle(self.store, self.settings, session)
        except StorageError as error:
            log.warning("could not settle the end of %s: %s", session.game_id, error)

    # ------------------------------------------------------------ rooms

    async def room(self, game_id: str) -> Room:
        """The room of ``game_id``, loading it from the store (once, however
        many ask at the same time); raises ``Refusal`` if there is none."""
        room = self.rooms.get(game_id)
        if room is not None:
            return room
        return await load_once(self._loading, game_id, lambda: self._load_room(game_id))

    async def _load_room(self, game_id: str) -> Room:
        subscription = await self.relay.subscribe(game_id)
        try:
            loaded = await self.store.load_session(game_id)
            if loaded is None:
                raise Refusal(ErrorCode.GAME_NOT_FOUND, f"there is no game {game_id!r}", game_id=game_id)
            header, entries = loaded
            if header.status == LEDGER_STATUS:
                raise Refusal(ErrorCode.GAME_NOT_FOUND, f"{game_id!r} is a race; send watch_race", game_id=game_id)
            session = Session.replay(header, entries)
            owner = await self._owner(header.owner)
        except BaseException:
            await subscription.close()
            raise
        room = Room(session, owner)
        self.rooms[game_id] = room
        self.relay.follow(game_id, subscription)
        if session.result is not None and header.status == "playing":
            await self._record(session)
        return room

    def release(self, room: Room) -> None:
        """Forget a room nobody watches (the store still has it)."""
        if room.watchers or room.followers or room.game_id in self.delayed or room.lock.locked() or self.rooms.get(room.game_id) is not room:
            return
        del self.rooms[room.game_id]
        self.relay.unfollow(room.game_id)
        self.races.release_if_idle(room.session.header.race_id)

    async def _reload(self, room: Room) -> None:
        """Rebuild a room's session from the store and snapshot every watcher
        (after a log conflict or a gap in relayed entries)."""
        loaded = await self.store.load_session(room.game_id)
        if loaded is None:
            raise Refusal(ErrorCode.GAME_NOT_FOUND, f"there is no game {room.game_id!r}", game_id=room.game_id)
        room.session = Session.replay(*loaded)
        self.broadcast(room, room.snapshot(self.clock()))
        self._tell_followers(room)
        self._advance_delayed(room.game_id)

    async def _on_relayed(self, game_id: str, seq: int, action: Action) -> None:
        """Another process appended ``action`` as entry ``seq`` of a game we hold."""
        room = self.rooms.get(game_id)
        if room is None:
            return
        async with room.lock:
            session = room.session
            if seq <= session.seq:
                return
            try:
                if seq > session.seq + 1:
                    raise LookupError(f"missed entries {session.seq + 1}..{seq - 1}")
                change = session.apply_committed(action)
            except (LookupError, EngineError) as problem:
                log.info("reloading %s: %s", game_id, problem)
                await self._reload_quietly(room)
                return
            self.broadcast(room, room.diff(change))
            self._tell_followers(room)
            self.metrics.relay_lag.observe(max(0, self.clock() - action.at_ms) / 1000)
            self._advance_delayed(game_id)
            if change.finished:
                self.broadcast(room, self._game_over(room))
            self.assists.refresh_offer(room)

    async def _reload_quietly(self, room: Room) -> None:
        try:
            await self._reload(room)
        except (Refusal, StorageError) as error:
            log.warning("could not reload %s: %s", room.game_id, error)

    # ------------------------------------------------------------ watching

    async def _watch(self, peer: Peer, room: Room, request_id: RequestId | None) -> None:
        if room.game_id not in peer.watching and len(peer.watching) >= self.settings.watch_limit:
            self.release(room)
            raise Refusal(
                ErrorCode.FORBIDDEN,
                f"a connection watches at most {self.settings.watch_limit} games; unwatch one first",
                game_id=room.game_id,
            )
        header = room.session.header
        live = True
        if header.race_id is not None:
            try:
                live = await self.races.watch_mode(peer, room.session)
            except Refusal:
                self.release(room)
                raise
        viewer = peer.player.player_id if peer.player is not None else None
        if not board_visible(header, viewer, await self._deal_secret(header)):
            async with room.lock:
                peer.watching.add(room.game_id)
                room.followers.add(peer)
                self.send(peer, room.progress(self.clock(), request_id))
            return
        async with room.lock:
            peer.watching.add(room.game_id)
            now = self.clock()
            if live:
                room.watchers.add(peer)
                self.send(peer, room.snapshot(now, request_id))
                self.assists.refresh_offer(room)
                offer = self.assists.standing_offer(room)
                if offer is not None:
                    self.send(peer, offer)
                return
            board = self.delayed.get(room.game_id)
            if board is None:
                delay_ms = round(self.settings.race_spectator_delay_seconds * 1000)
                board = self.delayed[room.game_id] = DelayedBoard(room, delay_ms, now)
            board.watchers.add(peer)
            self.send(peer, board.snapshot(now, request_id))
            self._advance_delayed(room.game_id)

    async def _deal_secret(self, header: SessionHeader) -> bool:
        """Whether a game's deal is a secret seed not yet revealed: a daily's
        until its day's reveal, a race's until the race is over."""
        if header.seed is None:
            return False
        if header.daily is not None:
            return deal_is_secret(header, self.clock(), reveals_at(date.fromisoformat(header.daily), self.settings))
        assert header.race_id is not None, "secret seeds deal dailies and races only"
        return not await self.races.deal_public(header.race_id)

    def _tell_followers(self, room: Room) -> None:
        """Send the game's progress to those who may not see its board."""
        if not room.followers:
            return
        message = room.progress(self.clock())
        frames: dict[Codec, bytes] = {}
        for peer in room.followers:
            frame = frames.get(peer.codec)
            if frame is None:
                frame = frames[peer.codec] = peer.codec.encode(message)
            self.send_frame(peer, frame)

    async def watch_game(self, peer: Peer, game_id: str) -> None:
        """Watch a game as ``watch`` does, without a request id."""
        await self._watch(peer, await self.room(game_id), None)

    async def _watch_request(self, peer: Peer, message: ts.Watch | ts.Resync) -> None:
        await self._watch(peer, await self.room(message.game_id), message.id)

    async def _unwatch(self, peer: Peer, message: ts.Unwatch) -> None:
        peer.watching.discard(message.game_id)
        self._stop_watching(peer, message.game_id)
        self.send(peer, tc.Ack(id=message.id, game_id=message.game_id))

    def _stop_watching(self, peer: Peer, game_id: str) -> None:
        board = self.delayed.get(game_id)
        if board is not None:
            board.watchers.discard(peer)
            if not board.watchers:
                self._drop_delayed(game_id)
        room = self.rooms.get(game_id)
        if room is not None:
            room.watchers.discard(peer)
            room.followers.discard(peer)
            self.release(room)

    # ------------------------------------------------------------ delayed boards

    def _advance_delayed(self, game_id: str) -> None:
        """Send delayed watchers what has become old enough, and come back
        when the next entry will be."""
        board = self.delayed.get(game_id)
        if board is None:
            return
        timer = self._delay_timers.pop(game_id, None)
        if timer is not None:
            timer.cancel()
        now = self.clock()
        self._send_delayed(board, board.due(now))
        due = board.next_due_ms()
        if due is not None:
            self._delay_timers[game_id] = asyncio.get_running_loop().call_later(
                max(0, due - now) / 1000, self._advance_delayed, game_id
            )

    def _send_delayed(self, board: DelayedBoard, messages: list[dict[str, Any] | tc.GameOver]) -> None:
        for message in messages:
            if isinstance(message, tc.GameOver):
                message = self._game_over(board.mirror)
            self.broadcast(board.mirror, message)

    def _drop_delayed(self, game_id: str) -> DelayedBoard | None:
        board = self.delayed.pop(game_id, None)
        timer = self._delay_timers.pop(game_id, None)
        if timer is not None:
            timer.cancel()
        if board is not None:
            self.release(board.room)
        return board

    def race_over(self, game_ids: list[str]) -> None:
        """A race has ended: its delayed watchers catch up and watch live,
        and those who followed its progress get the board (a daily race's
        deal stays secret until the day's reveal: they keep progress)."""
        for game_id in game_ids:
            room = self.rooms.get(game_id)
            if room is not None and room.followers and room.session.header.daily is None:
                now = self.clock()
                for peer in room.followers:
                    self.send(peer, room.snapshot(now))
                room.watchers.update(room.followers)
                room.followers.clear()
            board = self.delayed.get(game_id)
            if board is None:
                continue
            self._send_delayed(board, board.drain())
            board.room.watchers.update(board.watchers)
            board.watchers.clear()
            self._drop_delayed(game_id)

    async def _list_games(self, peer: Peer, message: ts.ListGames) -> None:
        headers = await self.store.live_sessions(limit=SESSION_SCAN_LIMIT)
        chosen = [header for header in headers if message.game in (None, header.game)][: message.limit]
        owners = {player_id: await self._owner(player_id) for player_id in {header.owner for header in chosen}}
        self.send(peer, tc.Games(id=message.id, games=[summarize(header, owners[header.owner]) for header in chosen]))

    async def _ping(self, peer: Peer, message: ts.Ping) -> None:
        self.send(peer, tc.Pong(id=message.id, server_time=self.clock()))

    async def _records(self, peer: Peer, message: ts.Records) -> None:
        """A player's records; records are public, like a leaderboard's
        entries (anyone may ask by ``player_id``; yours need ``hello``)."""
        if message.player_id is None:
            player = self.identity(peer)
        else:
            found = await self.store.get_player(message.player_id)
            if found is None:
                raise Refusal(ErrorCode.PLAYER_NOT_FOUND, f"there is no player {message.player_id!r}")
            player = found
        self.send(peer, await records_reply(self.store, player.player_id, player.display_name, message.id))

    async def _daily(self, peer: Peer, message: ts.Daily) -> None:
        self.send(peer, await daily_info(self.store, self.settings, self.prover, message, self.clock()))

    async def _leaderboard(self, peer: Peer, message: ts.Leaderboard) -> None:
        player_id = peer.player.player_id if peer.player is not None else None
        self.send(peer, await leaderboard_page(self.store, message, player_id, self.clock()))

    # ------------------------------------------------------------ life

    def live_games(self) -> int:
        return sum(1 for room in self.rooms.values() if room.session.result is None)

    def gauges(self) -> Gauges:
        """What ``/metrics`` reads at each scrape: counting these then is
        cheaper than tracking them on every connect, watch and send."""
        return Gauges(
            connections=len(self.peers),
            live_games=self.live_games(),
            watchers=sum(len(room.watchers) for room in self.rooms.values()),
            backlog=sum(len(peer.backlog) for peer in self.peers),
            races=self.races.phases(),
        )

    def render_metrics(self) -> str:
        """The Prometheus exposition text that ``/metrics`` serves."""
        return self.metrics.render()

    def start(self) -> None:
        """Start the background work: preparing the dailies ahead, and
        watching the store's epoch."""
        if self.settings.prepare_dailies:
            self.keeper.start()
        self._epoch_task = asyncio.create_task(self._watch_epoch(), name="store epoch")

    async def _watch_epoch(self) -> None:
        while True:
            try:
                if await self.epoch.check(self.store):
                    log.warning("the store was wiped or replaced (new epoch %s): dropping what this process cached", self.epoch.seen)
                    await self.store_replaced()
            except StorageError as error:
                log.info("could not read the store's epoch: %s", error)
            await asyncio.sleep(self.settings.store_epoch_check_seconds)

    async def store_replaced(self) -> None:
        """Forget every cache of the old store (``server.epoch``): the daily
        records, then each game room (reloaded, or gone: its watchers hear
        ``game_not_found``) and each race."""
        forget_records(self.store)
        for room in list(self.rooms.values()):
            async with room.lock:
                try:
                    await self._reload(room)
                except Refusal:
                    self._drop_lost(room)
        await self.races.store_replaced()

    def _drop_lost(self, room: Room) -> None:
        """Forget a room whose game the store no longer has, telling its watchers."""
        lost = tc.Error(
            code=ErrorCode.GAME_NOT_FOUND, message="this game was lost with the server's store",
            reason=None, game_id=room.game_id,
        )
        for peer in [*room.watchers, *room.followers]:
            peer.watching.discard(room.game_id)
            self.send(peer, lost)
        room.watchers.clear()
        room.followers.clear()
        self._drop_delayed(room.game_id)
        if self.rooms.get(room.game_id) is room:
            del self.rooms[room.game_id]
            self.relay.unfollow(room.game_id)

    async def drain(self, timeout: float) -> bool:
        """Refuse new requests and wait up to ``timeout`` for those in
        progress; True if they all finished."""
        self.closing = True
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
        except TimeoutError:
            return False
        return True

    async def close(self) -> None:
        """Stop following other processes and the clocks of races and
        delayed boards (after ``drain``)."""
        for timer in self._delay_timers.values():
            timer.cancel()
        self._delay_timers.clear()
        await self.races.close()
        await self.assists.close()
        await self.keeper.close()
        if self._epoch_task is not None:
            self._epoch_task.cancel()
            await asyncio.gather(self._epoch_task, return_exceptions=True)
        await self.race_deals.close()
        self.prover.close()
        await self.relay.close()
