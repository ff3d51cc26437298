"""The server's core: frames in, frames out, no sockets.

``Hub.handle(peer, frame)`` reads one client frame and hands it to the
part that serves it; the asyncio/websockets adapter (``server.transport.app``)
only forwards frames and closes connections, so everything here runs in
tests with in-memory outlets and the memory store.

The Hub is the composition root and the dispatcher, nothing more.  Each
part gets what it needs (settings, clock, scheduler, its stream of the
entropy, store, outbox, the parts below it) and never the Hub.  The
parts, from the outbox up to the games, the races and the people around
a player (``server.social``), are listed with their jobs in
``docs/architecture.md``, "The server's parts".

Decisions made here, kept here because they are about connections:
- A slow connection whose send queue overflows loses its backlog and gets
  a fresh snapshot of each game it watches (and a ``race`` message of each
  race it follows); after ``send_overflows`` overflows it is closed with 1013.
- While the server drains for shutdown every request but ``ping`` is refused (``shutting_down``).
"""

from __future__ import annotations

import asyncio
import logging
import itertools
import time
from typing import Any, Awaitable, Callable

from protocol import CODECS, Codec, ErrorCode, MalformedMessage
from protocol import friends as pf, to_client as tc, to_server as ts
from protocol.to_server import RequestId
from server.net.admission import Admission
from server.games.assists import AssistDesk
from server.deals.book import DailyBook
from server.games.delivery import Delivery
from server.storage.epoch import StoreEpoch
from server.games.tables import GameRooms
from server.deals.keeper import DailyKeeper, RaceDealStock
from server.games.leaderboards import Leaderboards
from server.games.listing import LiveListing
from server.games.lobby import Lobby
from server.runtime.metrics import Gauges, Metrics
from server.net.outbox import Outbox
from server.net.peer import Outlet, Peer
from server.games.play import Play
from server.races.clocks import RaceBoards
from server.races.desk import RaceDesk
from server.net.ratelimit import RateLimiter, Verdict
from server.net.address_budgets import budget_by_address
from server.model.refusal import Refusal
from server.games.replay_budget import ReplayBudget
from server.games.replayed import ReplayedSessions
from server.games.replays import Replays
from server.games.stats import DailyStats
from server.runtime.clock import wall_clock_ms
from server.runtime.entropy import Entropy, SystemEntropy
from server.runtime.scheduler import BackgroundLoop, LoopScheduler, Scheduler, sleep
from server.runtime.workers import WorkerDied, WorkerPool
from server.deals.proofs import DealProver
from server.runtime.settings import Settings
from server.storage.health import StoreHealth
from server.storage.base import StorageError, StorageUnavailable, Store
from server.social.devices import Devices
from server.games.watching import Watching
from server.social.bus import PlayerBus
from server.social.presence import Presence
from server.social.presence_leases import PresenceLeases
from server.social.challenges import Challenges
from server.social.friends import Friends
from server.social.inbox import Inbox
from server.social.friends_board import FriendsBoards
from server.social.leagues import Leagues
from server.social.ghosts import Ghosts

log = logging.getLogger("arena.core")

CLOSE_POLICY_VIOLATION = 1008


class Hub:
    """Every connection and every game this process serves."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        clock: Callable[[], int] = wall_clock_ms,
        monotonic: Callable[[], float] = time.monotonic,
        scheduler: Scheduler | None = None,
        workers: WorkerPool | None = None,
        prover: DealProver | None = None,
        entropy: Entropy | None = None,
    ) -> None:
        self.settings = settings
        self.store = store
        self.clock = clock
        """The server's clock; the parts read it through ``_now``, so a test may replace it on a running hub."""
        self.monotonic = monotonic
        scheduler = self.scheduler = scheduler or LoopScheduler()
        entropy = self.entropy = entropy or SystemEntropy()
        """Every random value the parts draw: ids, tokens, codes, nonces, secrets, random deals (``server.runtime.entropy``)."""
        now = self._now
        origin = entropy.stream("origin").token_hex(8)
        self.metrics = Metrics(self.gauges)
        self.admission = Admission(settings, monotonic)
        self.peers: set[Peer] = set()
        self.workers = workers or WorkerPool.sized(settings)
        self.prover = prover or DealProver(self.workers, settings.deal_proof_nodes, settings.deal_proof_attempts)
        self.dailies = DailyBook(store, settings, self.prover, entropy.stream("dailies"))
        self.race_deals = RaceDealStock(self.dailies, entropy.stream("race deals"))
        self.keeper = DailyKeeper(self.dailies, self.race_deals, now, scheduler)
        self.epoch = StoreEpoch(entropy.stream("epoch"))
        self.store_health = StoreHealth(self.metrics.registry)
        self._epoch_watch = BackgroundLoop("store epoch")
        self.outbox = Outbox(settings.send_overflows, self.metrics)
        self.tables = GameRooms(settings, store, origin, now, self.metrics)
        self.rooms = self.tables.rooms
        self.races = RaceDesk(
            settings, store, now, scheduler, entropy.stream("races"), self.outbox, self.metrics, origin, self.dailies,
            self.race_deals, self.rooms,
        )
        ledgers = self.races.ledgers
        replay_budget = ReplayBudget(settings, monotonic)
        self.assists = AssistDesk(
            settings, now, monotonic, self.metrics, self.outbox, self.tables, ledgers.race_facts, self.workers, replay_budget
        )
        self.watching = Watching(settings, now, scheduler, self.outbox, self.tables, ledgers, self.assists, replay_budget)
        self.delivery = Delivery(now, self.metrics, self.outbox, self.tables, self.watching, self.races, self.assists)
        self.play = Play(
            settings, store, now, self.dailies, entropy.stream("play"), self.outbox, self.tables, self.watching,
            self.assists, self.races, self.delivery,
        )
        self.daily_stats = DailyStats(settings, store, now, self.outbox)
        self.bus = PlayerBus(store, origin, self.outbox)
        """Every message for a player rather than a game, on every process (``server.social``)."""
        self.devices = Devices(settings, store, now, entropy.stream("devices"), self.outbox, lambda: self.peers, origin)
        self.presence = Presence(store, origin, now, scheduler, self.bus, self.outbox)
        self.presence_leases = PresenceLeases(store, self.presence, now, scheduler)
        replayed = ReplayedSessions(store, self.tables.pacing)
        self.lobby = Lobby(
            settings, store, now, entropy.stream("lobby"), self.admission, self.keeper.today, self.outbox,
            LiveListing(store, monotonic, self.delivery.on_changed), Leaderboards(store, replayed, self.delivery.on_changed),
            self.play.live_headers, self.watching.watch_game, self.races.rejoin, self.devices,
        )
        self.inbox = Inbox(settings, store, now, entropy.stream("inbox"), self.outbox, self.bus)
        self.friends = Friends(settings, store, now, entropy.stream("friends"), self.outbox, self.inbox.tell_friends_event)
        self.challenges = Challenges(
            settings, store, now, entropy.stream("challenges"), self.outbox, self.friends.are_friends, self.inbox.notify, self.races.host,
            self.races.join, self._online,
        )
        self.friends_boards = FriendsBoards(store, now, scheduler, self.outbox, self.bus, self.friends, self.delivery.on_changed, replayed)
        self.leagues = Leagues(settings, store, now, entropy.stream("leagues"), self.outbox, self.friends.blocks, replayed)
        self.ghosts = Ghosts(settings, store, now, scheduler, self.outbox, self.bus, self.friends, self.delivery.on_changed,
                             self.tables, replay_budget)
        # The edges that point up the stack, wired once everything exists.
        self.watching.hidden_from = self.lobby.hidden_from = self.friends.blocks
        self.ghosts.allow(self.leagues.share_a_league)
        self.inbox.use_friends(self.friends.friends_of)
        self.presence.use_friends(self.friends.friends_of, self.friends.blocked)
        self.tables.on_ended(self.inbox.game_ended)
        self.tables.tell(self.delivery)
        self.tables.on_release(ledgers.release_if_idle)
        self.races.attach(
            RaceBoards(self.watching.watch_game, self.watching.race_over, self.play.abandon, self.play.make_room_for)
        )
        self.outbox.on_overflow(self.watching.resync)
        self.outbox.on_overflow(self.races.resync)
        self.bus.on_arrival(self.presence.arrived)
        self.bus.on_departure(self.presence.departed)
        self.bus.on_resume(self.presence.resumed)
        self.play.on_playing(self.presence.playing)
        self.closing = False
        self._numbers = itertools.count(1)
        self._closing = self._peer_closing  # shared by every peer: one each costs an idle connection 100 bytes
        self._inflight = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self._rate_limited = {
            codec: codec.encode(
                tc.Error(code=ErrorCode.RATE_LIMITED, message="too many messages; this one was dropped unread")
            )
            for codec in CODECS.values()
        }
        races, play, lobby = self.races, self.play, self.lobby
        self._handlers: dict[type[Any], Callable[[Peer, Any], Awaitable[None]]] = {
            ts.Hello: self._hello,
            ts.NewGame: play.new_game,
            ts.Move: play.act, ts.AutoMove: play.act,
            ts.Undo: play.act, ts.Redo: play.act,
            ts.Hint: play.act,
            ts.Finish: play.act,
            ts.Analyse: self.assists.analyse,
            ts.Replay: Replays(settings, self.tables, self.assists, self.outbox, replay_budget).replay,
            ts.Restart: play.act, ts.Resign: play.act,
            ts.Watch: self.watching.watch_request, ts.Resync: self.watching.watch_request,
            ts.Unwatch: self.watching.unwatch,
            ts.ListGames: lobby.list_games,
            ts.Catalogue: lobby.catalogue,
            ts.Ping: lobby.ping,
            ts.CreateRace: races.create,
            ts.JoinRace: races.join,
            ts.StartRace: races.start,
            ts.WatchRace: races.watch,
            ts.UnwatchRace: races.unwatch,
            ts.Rematch: races.rematch,
            ts.ListRaces: races.history,
            ts.Records: lobby.records,
            ts.Daily: lobby.daily,
            ts.Leaderboard: lobby.leaderboard,
            ts.LinkDevice: self.devices.link_device,
            ts.ListDevices: self.devices.list_devices,
            ts.RevokeDevice: self.devices.revoke_device,
            ts.RotateToken: self.devices.rotate_token,
            pf.Friends: self.friends.listing,
            pf.FriendCode: self.friends.code,
            pf.FriendAdd: self.friends.add,
            pf.FriendChange: self.friends.change,
            pf.Notifications: self.inbox.listing,
            pf.ReadNotifications: self.inbox.read,
            pf.Challenge: self.challenges.challenge,
            pf.ChallengeAnswer: self.challenges.answer,
            ts.FriendsBoard: self.friends_boards.board,
            ts.SetPresence: self.presence.set_presence,
            ts.AppearOffline: self.presence.appear_offline,
            ts.FriendsPresence: self.presence.friends_presence,
            ts.Stats: self.daily_stats.stats,
            ts.RaceGhost: self.ghosts.race, ts.StopGhost: self.ghosts.stop,
        }
        self._handlers.update(self.leagues.handlers())
        budget_by_address(self._handlers, settings, monotonic)

    async def _online(self, player_id: str) -> bool:
        """Whether a player is online (or away) on any process, as its
        friends see it (``Challenges.is_online``): a player who appears
        offline is offline to a challenge too, or the refusal would tell."""
        seen = await self.presence.presence_of([player_id])
        return seen[player_id].state != "offline"

    def _now(self) -> int:
        return self.clock()

    # ------------------------------------------------------------ connections

    def connect(self, codec: Codec, outlet: Outlet, address: str, connection_id: str | None = None) -> Peer:
        """A new connection from client ``address`` (``server.net.admission``:
        the adapter admitted it at the handshake); call ``disconnect`` when
        it ends.  Closing it with 1008 bars the address for the cool-down
        there and then, before the client can reconnect."""
        settings = self.settings
        limiter = RateLimiter(settings.rate_per_second, settings.rate_burst, settings.rate_strikes, self.monotonic())
        peer = Peer(next(self._numbers), codec, outlet, limiter, settings.send_queue, address, self._closing, connection_id)
        self.peers.add(peer)
        return peer

    def _peer_closing(self, address: str, code: int) -> None:
        if code == CLOSE_POLICY_VIOLATION:
            self.admission.cool_down(address)

    async def _hello(self, peer: Peer, message: ts.Hello) -> None:
        await self.lobby.hello(peer, message)
        await self.bus.arrived(peer)

    def disconnect(self, peer: Peer) -> None:
        self.bus.departed(peer)
        peer.closed = True
        peer.backlog.clear()
        self.peers.discard(peer)
        self.watching.disconnect(peer)
        self.races.disconnect(peer)

    async def handle(self, peer: Peer, frame: bytes | str) -> None:
        """Read one frame from ``peer`` and answer it (never raises)."""
        verdict = peer.limiter.admit(self.monotonic())
        if verdict is not Verdict.ACCEPT:
            self.metrics.errors.labels(ErrorCode.RATE_LIMITED.value).inc()
            if verdict is Verdict.CLOSE:
                peer.close(CLOSE_POLICY_VIOLATION, "message rate limit exceeded")
            elif not peer.send(self._rate_limited[peer.codec]):
                self.outbox.overflow(peer)
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
        error = self.outbox.error
        try:
            message = peer.codec.decode(frame)
            request_id = message.id
            self.presence.heard(peer, message)
            if self.closing and not isinstance(message, ts.Ping):
                raise Refusal(ErrorCode.SHUTTING_DOWN, "the server is shutting down; reconnect in a moment")
            await self._handlers[type(message)](peer, message)
        except MalformedMessage as malformed:
            error(peer, Refusal(ErrorCode.BAD_MESSAGE, str(malformed)), malformed.request_id)
        except Refusal as refusal:
            error(peer, refusal, request_id)
        except StorageUnavailable as failure:
            self.store_health.failed(failure)
            unavailable = Refusal(ErrorCode.STORAGE_UNAVAILABLE, "storage is unavailable, so this was not done; try again shortly")
            error(peer, unavailable, request_id)
        except WorkerDied:
            stopped = "the search process stopped during this request (killed, or out of memory); nothing changed, try again"
            error(peer, Refusal(ErrorCode.UNAVAILABLE, stopped, reason="worker_stopped"), request_id)
        except Exception:
            log.exception("failed to handle a message from %r", peer, extra={**peer.log_fields(), "error_code": "internal_error"})
            error(peer, Refusal(ErrorCode.INTERNAL_ERROR, "the server failed; nothing changed"), request_id)

    # ------------------------------------------------------------ life

    @property
    def requests_in_flight(self) -> int:
        """Requests being handled now (a proof a new game waits for counts)."""
        return self._inflight

    def live_games(self) -> int:
        return sum(1 for room in self.rooms.values() if room.session.result is None)

    def gauges(self) -> Gauges:
        """What ``/metrics`` reads at each scrape: counting these then is
        cheaper than tracking them on every connect, watch and send."""
        return Gauges(
            connections=len(self.peers),
            live_games=self.live_games(),
            watchers=sum(len(room.watchers) for room in self.rooms.values()),
            backlog=sum(peer.queued for peer in self.peers),
            races=self.races.ledgers.phases(),
        )

    def render_metrics(self) -> str:
        """The Prometheus exposition text that ``/metrics`` serves."""
        return self.metrics.render()

    async def start(self) -> None:
        """Start the background work: preparing the dailies ahead, watching
        the store's epoch, comparing the games held with the store, and
        hearing what other processes tell players connected here."""
        await self.bus.start()
        await self.presence_leases.start()
        if self.settings.prepare_dailies:
            self.keeper.start()
        self._epoch_watch.start(self._watch_epoch)
        self.tables.audit_every(self.scheduler, self.settings.relay_audit_seconds)

    async def _watch_epoch(self) -> None:
        """Check the store's epoch, then whether it takes a write (so a
        recovery is noticed without anyone asking /healthz), every
        ``store_epoch_check_seconds``."""
        while True:
            try:
                if await self.epoch.check(self.store):
                    log.warning("the store was wiped or replaced (new epoch %s): dropping what this process cached", self.epoch.seen)
                    await self.store_replaced()
            except StorageError as error:
                log.debug("could not read the store's epoch: %s", error)
            await self.store_health.probe(self.store)
            if self._epoch_watch.closing:
                return
            await sleep(self.scheduler, self.settings.store_epoch_check_seconds)

    async def store_replaced(self) -> None:
        """Forget every cache of the old store (``server.storage.epoch``): the daily
        records, then each game room (reloaded, or gone: its watchers hear
        ``game_not_found``) and each race."""
        self.dailies.forget()
        await self.tables.store_replaced()
        await self.races.ledgers.store_replaced()

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
        self.watching.close()
        await self.devices.close()
        await self.races.ledgers.close()
        await self.assists.close()
        await self.keeper.close()
        await self._epoch_watch.close()
        await self.race_deals.close()
        await self.workers.close()
        await self.tables.close()
        await self.presence.close()
        await self.presence_leases.close()
        await self.bus.close()
