"""Races as one server process serves them: the requests, and what the
game side asks about a race game.

Built from parts it holds: ``server.races.ledgers.RaceRooms`` (the ledgers
and their channel, and the watching part's questions about race games);
``server.races.clocks.RaceClocks`` (a race's clocks and settling, and what
each change of a race means here: the ledgers tell it, not the desk);
``server.races.followers`` (who follows a race and what they are sent);
``server.races.start`` (a start's deal and games).  Here:

- Requests: create, join (by code), start (prepares one game per racer,
  claiming daily ranked attempts, then appends ``start``; a start that
  fails discards its games, and games a failed discard or a killed
  process left behind give up their claims and are dropped when their
  racer next says hello or starts a game; ``server.races.start``), watch,
  rematch, history;
  and for playing: whether a race game may be acted on, and the progress
  to publish after each action.
- Presence: a racer with no connection following the race here is
  ``disconnected`` (a ledger entry, so every process agrees).

The desk never sees the Hub: what it needs of the game side is four
calls (``RaceBoards``), attached once both sides exist.
"""

from __future__ import annotations

import logging
from typing import Callable, Container

import engine
from engine import EngineError
from protocol import ErrorCode
from protocol import to_client as tc
from protocol import to_server as ts
from protocol.to_server import RequestId
from server.deals.daily import daily_variant, known_game
from server.model.fair_play import check_automatic
from server.deals.keeper import RaceDealStock
from server.runtime.metrics import Metrics
from server.net.outbox import Outbox
from server.net.peer import Peer, require_player
from server.races.followers import RaceFollowers, RaceRoom
from server.races.start import RaceStarts
from server.races.clocks import RaceBoards, RaceClocks
from server.races.ledgers import CODE_DOCUMENT, LEDGER_RETRIES, RACE_DOCUMENT, RaceRooms, history_index
from server.races.progress import Progress
from server.model.race_phases import FINISHED, RUNNING
from server.races.state import RosterChanged
from server.races.views import final_progress, race_info
from server.model.ids import normalize_code
from server.model.refusal import Refusal, from_engine
from server.runtime.scheduler import Scheduler
from server.runtime.entropy import Entropy
from server.deals.book import DailyBook
from server.model.session import Session
from server.runtime.settings import Settings
from server.model.records import SessionHeader
from server.storage.base import StorageError, Store

log = logging.getLogger("arena.races")

REJOIN_SCAN = 10
ORPHAN_AGE_MS = 60_000
"""A race game this old that its race does not list was prepared for a
start that failed (a start takes milliseconds; younger ones may be a
start still in progress on another process)."""


class RaceDesk:
    """Race requests and the game side's questions; see the module docstring."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        clock: Callable[[], int],
        scheduler: Scheduler,
        entropy: Entropy,
        outbox: Outbox,
        metrics: Metrics,
        origin: str,
        book: DailyBook,
        race_deals: RaceDealStock,
        held_games: Container[str],
    ) -> None:
        self._settings = settings
        self._store = store
        self._now = clock
        self._outbox = outbox
        self._metrics = metrics
        self._starts = RaceStarts(settings, store, book, race_deals, entropy)
        self.followers = RaceFollowers(outbox, clock, settings.watch_limit)
        self.ledgers = RaceRooms(settings, store, clock, entropy, origin, outbox, held_games)
        """The ledgers of the races held here; the watching part asks them
        about race games directly (``RaceViews``)."""
        self.clocks = RaceClocks(clock, scheduler, metrics, self.ledgers, self.followers, self._follow_as)
        self.ledgers.tell(self.clocks)

    def attach(self, boards: RaceBoards) -> None:
        """Give the races the game side, which is built after them (the game
        side asks the desk about race games, and the races ask it back)."""
        self.clocks.attach(boards)

    # ------------------------------------------------------------ requests

    async def create(self, peer: Peer, message: ts.CreateRace) -> None:
        await self.host(peer, message)

    async def host(self, peer: Peer, message: ts.CreateRace) -> tuple[str, str]:
        """``create``, giving the race's id and invite code to a caller that
        creates races for players (a challenge)."""
        player = require_player(peer)
        game_cls = known_game(message.game)
        try:
            probe = engine.new_game(
                game_cls.id, message.deal if isinstance(message.deal, int) else game_cls.FIRST_DEAL, **message.options
            )
        except EngineError as error:
            raise from_engine(error) from None
        options = dict(probe.options)
        check_automatic(game_cls, options, "a race")
        if message.deal == "daily":
            daily_variant(game_cls, options)
        host = tc.Owner(player_id=player.player_id, name=player.display_name)
        self.followers.check_limit(peer)
        room = await self.ledgers.create(game_cls.id, options, message.deal, host, [host])
        self._metrics.race_events.labels("created").inc()
        self.followers.add(peer, room)
        self.followers.reply(peer, room, "created", message.id)
        return room.race_id, room.state.code

    async def join(self, peer: Peer, message: ts.JoinRace) -> None:
        player = require_player(peer)
        code = normalize_code(message.code)
        found = await self._store.get_document(CODE_DOCUMENT, code) if code is not None else None
        if found is None:
            raise Refusal(ErrorCode.RACE_NOT_FOUND, f"no race has the invite code {message.code!r}")
        room = await self.ledgers.room(found["race_id"])
        self.followers.check_limit(peer, room)
        player_id = player.player_id
        joined = await self.ledgers.change(
            room, lambda state, now: state.join_entry(player_id, player.display_name, now), peer, message.id
        )
        await self._store.index_document(RACE_DOCUMENT, history_index(player_id), room.race_id, room.state.created_ms)
        if joined is None:
            await self._follow_as(peer, room, message.id)

    async def start(self, peer: Peer, message: ts.StartRace) -> None:
        player_id = require_player(peer).player_id
        room = await self.ledgers.room(message.race_id)
        now = self._now()
        room.state.check_start(player_id, now)
        deal, record = await self._starts.deal_for(room.state, now)
        starts_at = now + room.state.countdown_ms
        prepared: dict[str, tuple[str, bool] | None] = {}
        headers: list[SessionHeader] = []
        try:
            for _ in range(LEDGER_RETRIES):
                for racer_id in [racer for racer in room.state.racers if racer not in prepared]:
                    part = await self._starts.prepare_game(
                        room.state, racer_id, deal, record, starts_at, now, self.clocks.boards.make_room_for
                    )
                    prepared[racer_id] = part.entry
                    headers += [part.header] if part.header is not None else []
                if not headers:
                    raise Refusal(
                        ErrorCode.UNAVAILABLE,
                        "every racer is still playing their ranked attempt at today's daily; start once one has finished",
                        reason="ranked_first",
                    )
                try:
                    await self.ledgers.change(
                        room,
                        lambda state, at: state.start_entry(player_id, at, starts_at=starts_at, deal=deal, games=prepared),
                        peer,
                        message.id,
                    )
                    self._metrics.race_events.labels("started").inc()
                    return
                except RosterChanged:
                    continue
            raise Refusal(ErrorCode.STATE_CONFLICT, "racers kept joining while the race started; start it again")
        except (Refusal, StorageError):
            # Another start of this race that won took the same games: keep those.
            await self._starts.discard_games([header for header in headers if header.game_id not in room.state.games])
            raise

    async def watch(self, peer: Peer, message: ts.WatchRace) -> None:
        room = await self.ledgers.room(message.race_id)
        self.followers.check_limit(peer, room)
        await self._follow_as(peer, room, message.id)

    async def unwatch(self, peer: Peer, message: ts.UnwatchRace) -> None:
        room = self.ledgers.rooms.get(message.race_id)
        if room is not None:
            self._drop_watcher(peer, room)
        self._outbox.send(peer, tc.Ack(id=message.id))

    async def rematch(self, peer: Peer, message: ts.Rematch) -> None:
        player = require_player(peer)
        room = await self.ledgers.room(message.race_id)
        state = room.state
        state.check_rematch(player.player_id, self._now())
        if state.rematch is None:
            asker = tc.Owner(player_id=player.player_id, name=player.display_name)
            others = [tc.Owner(player_id=r.player_id, name=r.name) for r in state.racers.values() if r.player_id != asker.player_id]
            fresh = await self.ledgers.create(state.game, state.options, "winnable", asker, [asker, *others])
            try:
                pointed = await self.ledgers.change(
                    room, lambda current, now: current.rematch_entry(player.player_id, fresh.race_id, now), peer
                )
            except BaseException:
                await self.ledgers.discard_race(fresh)
                raise
            if pointed is not None:
                self._metrics.race_events.labels("created").inc()
                self.followers.add(peer, fresh)
                self.followers.reply(peer, fresh, "created", message.id)
                return
            await self.ledgers.discard_race(fresh)
        assert room.state.rematch is not None
        await self._follow_as(peer, await self.ledgers.room(room.state.rematch), message.id)

    async def history(self, peer: Peer, message: ts.ListRaces) -> None:
        asker = peer.player.player_id if peer.player is not None else None
        player_id = message.player_id or require_player(peer).player_id
        documents = await self._store.list_documents(RACE_DOCUMENT, history_index(player_id), message.limit)
        now = self._now()
        races = []
        for document in documents:
            room = self.ledgers.rooms.get(document["race_id"])
            state = room.state if room is not None else await self.ledgers.read_state(document["race_id"])
            if state is None:
                continue
            progress = room.progress if room is not None else final_progress(state)
            races.append(race_info(state, progress, now, member=asker in state.racers))
        self._outbox.send(peer, tc.Races(id=message.id, player_id=player_id, races=races))

    # ------------------------------------------------------------ the game side's hooks

    async def rejoin(self, peer: Peer, player_id: str) -> None:
        """After ``hello`` with a token: follow the player's unfinished races again."""
        documents = await self._store.list_documents(RACE_DOCUMENT, history_index(player_id), REJOIN_SCAN)
        for document in documents:
            try:
                room = await self.ledgers.room(document["race_id"])
            except Refusal:
                continue
            if room.state.phase(self._now()) != FINISHED and player_id in room.state.racers:
                await self._follow_as(peer, room, None)
            else:
                self.ledgers.release(room)

    async def without_orphans(self, headers: list[SessionHeader]) -> list[SessionHeader]:
        """``headers`` less the race games their race never started with,
        which are discarded: a start whose store failed after preparing
        games and before the race's ledger took the start (the discard at
        that moment fails too when the store is down) leaves them behind."""
        kept: list[SessionHeader] = []
        now = self._now()
        for header in headers:
            if header.race_id is not None and now - header.created_ms > ORPHAN_AGE_MS:
                try:
                    room = await self.ledgers.room(header.race_id)
                except Refusal:
                    room = None
                orphan = room is None or header.game_id not in room.state.games
                if room is not None:
                    self.ledgers.release(room)
                if orphan:
                    await self._starts.discard_games([header])
                    continue
            kept.append(header)
        return kept

    async def check_action(self, session: Session) -> None:
        """Refuse acting on a race game outside the running race."""
        header = session.header
        assert header.race_id is not None
        try:
            room = await self.ledgers.room(header.race_id)
        except Refusal:
            return
        self.ledgers.release(room)
        phase = room.state.phase(self._now())
        if phase == FINISHED:
            raise Refusal(ErrorCode.RACE_STATE, "this race is over; it accepts no more moves", game_id=header.game_id)
        if phase != RUNNING:
            raise Refusal(ErrorCode.RACE_STATE, room.state.wait_sentence(self._now()), game_id=header.game_id)

    async def progressed(self, session: Session) -> None:
        """A racer's game changed here: tell everyone following the race."""
        race_id = session.header.race_id
        assert race_id is not None
        progress = Progress.of(session)
        await self.ledgers.share_progress(race_id, session.header.owner, progress)
        if session.result is not None:
            self.ledgers.spawn(self.clocks.settle(race_id))

    def disconnect(self, peer: Peer) -> None:
        for race_id in self.followers.watching.pop(peer, set()):
            room = self.ledgers.rooms.get(race_id)
            if room is not None:
                self._drop_watcher(peer, room, forget=False)

    def resync(self, peer: Peer) -> None:
        """Queue a fresh race message for each race ``peer`` follows (after
        the outbox dropped its backlog)."""
        for race_id in self.followers.watching.get(peer, ()):
            room = self.ledgers.rooms.get(race_id)
            if room is not None:
                peer.backlog.append(peer.codec.encode(self.followers.message(room, "snapshot", room.member(peer))))

    # ------------------------------------------------------------ watchers

    async def _follow_as(self, peer: Peer, room: RaceRoom, request_id: RequestId | None) -> None:
        """Follow a race: a snapshot now; a racer coming back is connected again."""
        self.followers.add(peer, room)
        self.followers.reply(peer, room, "snapshot", request_id)
        if peer.player is not None:
            player_id = peer.player.player_id
            await self.ledgers.change(room, lambda state, now: state.presence_entry(player_id, True, now))

    def _drop_watcher(self, peer: Peer, room: RaceRoom, forget: bool = True) -> None:
        room.watchers.discard(peer)
        if forget:
            self.followers.watching.get(peer, set()).discard(room.race_id)
        player_id = peer.player.player_id if peer.player is not None else None
        if player_id in room.state.racers and not room.connected_here(player_id):
            self.ledgers.spawn(self._presence(room, player_id, False))
        else:
            self.ledgers.release(room)

    async def _presence(self, room: RaceRoom, player_id: str, connected: bool) -> None:
        try:
            await self.ledgers.change(room, lambda state, now: state.presence_entry(player_id, connected, now))
        except (Refusal, StorageError) as error:
            log.warning("could not record the presence of %s in %s: %s", player_id, room.race_id, error)
        self.ledgers.release(room)
