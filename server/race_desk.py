"""Races as one server process serves them: the requests, the hub's hooks,
the race's clocks and what its followers are sent.

Built on ``server.race_rooms`` (the ledgers, the channel); here:

- Requests: create, join (by code), start (prepares one game per racer,
  claiming daily ranked attempts, then appends ``start``; a start that
  fails discards its games, and games a failed discard left behind are
  dropped when their racer next says hello), watch, rematch,
  history; and for the hub: whether a race game may be watched live,
  delayed or not at all, whether it may be acted on, and the progress to
  publish after each action.
- Clocks: at ``starts_at`` each process gives its connected racers their
  boards; at ``ends_at`` it settles the race (abandoning games still
  playing, then appending ``finish``; the log decides who appends it).
  A race nobody follows is settled when someone next loads it.
- Presence: a racer with no connection following the race here is
  ``disconnected`` (a ledger entry, so every process agrees).
- Documents: ``race_code`` (code -> race id) and ``race`` (one per race,
  indexed under ``player/<id>`` for each racer: the race history), both
  kept as long as the ledger.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections import Counter
from typing import TYPE_CHECKING, Any, Callable

import engine
from engine import EngineError
from protocol import ErrorCode
from protocol import to_client as tc
from protocol import to_server as ts
from protocol.codec import Codec
from protocol.to_server import RequestId
from server.daily import DailyRecord, claim_lifetime, daily_variant, known_game, todays_record, utc_day
from server.deals import choose_deal
from server.fair_play import check_practice, claim_ranked
from server.peer import Peer
from server.secret_deals import race_commitment
from server.race_rooms import LEDGER_RETRIES, Milestones, RaceRoom, RaceRooms
from server.races import (
    EVENT_OF_ENTRY,
    FINISHED,
    RUNNING,
    Progress,
    RaceDeal,
    RaceState,
    RosterChanged,
    create_entry,
    ledger_header,
    new_code,
    new_id,
    normalize_code,
)
from server.refusal import Refusal, from_engine
from server.session import ABANDONED, Session
from server.storage.base import Action, SessionHeader, StorageError

if TYPE_CHECKING:
    from server.core import Hub

log = logging.getLogger("arena.races")

RACE_DOCUMENT = "race"
CODE_DOCUMENT = "race_code"
CODE_ATTEMPTS = 5
REJOIN_SCAN = 10
ORPHAN_AGE_MS = 60_000
"""A race game this old that its race does not list was prepared for a
start that failed (a start takes milliseconds; younger ones may be a
start still in progress on another process)."""


def history_index(player_id: str) -> str:
    return f"player/{player_id}"


class RaceDesk(RaceRooms):
    """Race requests and the hub's hooks; see the module docstring."""

    def __init__(self, hub: Hub) -> None:
        super().__init__(hub)
        self.watching: dict[Peer, set[str]] = {}

    # ------------------------------------------------------------ requests

    async def create(self, peer: Peer, message: ts.CreateRace) -> None:
        player = self.hub.identity(peer)
        game_cls = known_game(message.game)
        try:
            probe = engine.new_game(
                game_cls.id, message.deal if isinstance(message.deal, int) else game_cls.FIRST_DEAL, **message.options
            )
        except EngineError as error:
            raise from_engine(error) from None
        options = dict(probe.options)
        if message.deal == "daily":
            daily_variant(game_cls, options)
        host = tc.Owner(player_id=player.player_id, name=player.display_name)
        self._check_watch_limit(peer)
        room = await self._create(game_cls.id, options, message.deal, host, [host])
        self.hub.metrics.race_events.labels("created").inc()
        self._add_watcher(peer, room)
        self._reply(peer, room, "created", message.id)

    async def join(self, peer: Peer, message: ts.JoinRace) -> None:
        player = self.hub.identity(peer)
        code = normalize_code(message.code)
        found = await self._store.get_document(CODE_DOCUMENT, code) if code is not None else None
        if found is None:
            raise Refusal(ErrorCode.RACE_NOT_FOUND, f"no race has the invite code {message.code!r}")
        room = await self.room(found["race_id"])
        self._check_watch_limit(peer, room)
        player_id = player.player_id
        joined = await self._change(
            room, lambda state, now: state.join_entry(player_id, player.display_name, now), peer, message.id
        )
        await self._store.index_document(RACE_DOCUMENT, history_index(player_id), room.race_id, room.state.created_ms)
        if joined is None:
            await self._follow_as(peer, room, message.id)

    async def start(self, peer: Peer, message: ts.StartRace) -> None:
        player_id = self.hub.identity(peer).player_id
        room = await self.room(message.race_id)
        now = self._now()
        room.state.check_start(player_id, now)
        deal, record = await self._deal_for(room.state, now)
        starts_at = now + room.state.countdown_ms
        prepared: dict[str, tuple[str, bool]] = {}
        headers: list[SessionHeader] = []
        try:
            for _ in range(LEDGER_RETRIES):
                for racer_id in [racer for racer in room.state.racers if racer not in prepared]:
                    header = await self._prepare_game(room.state, racer_id, deal, record, starts_at, now)
                    prepared[racer_id] = (header.game_id, header.ranked)
                    headers.append(header)
                try:
                    await self._change(
                        room,
                        lambda state, at: state.start_entry(player_id, at, starts_at=starts_at, deal=deal, games=prepared),
                        peer,
                        message.id,
                    )
                    self.hub.metrics.race_events.labels("started").inc()
                    return
                except RosterChanged:
                    continue
            raise Refusal(ErrorCode.STATE_CONFLICT, "racers kept joining while the race started; start it again")
        except (Refusal, StorageError):
            await self._discard_games(headers)
            raise

    async def watch(self, peer: Peer, message: ts.WatchRace) -> None:
        room = await self.room(message.race_id)
        self._check_watch_limit(peer, room)
        await self._follow_as(peer, room, message.id)

    async def unwatch(self, peer: Peer, message: ts.UnwatchRace) -> None:
        room = self.rooms.get(message.race_id)
        if room is not None:
            self._drop_watcher(peer, room)
        self.hub.send(peer, tc.Ack(id=message.id))

    async def rematch(self, peer: Peer, message: ts.Rematch) -> None:
        player = self.hub.identity(peer)
        room = await self.room(message.race_id)
        state = room.state
        state.check_rematch(player.player_id, self._now())
        if state.rematch is None:
            asker = tc.Owner(player_id=player.player_id, name=player.display_name)
            others = [tc.Owner(player_id=r.player_id, name=r.name) for r in state.racers.values() if r.player_id != asker.player_id]
            fresh = await self._create(state.game, state.options, "winnable", asker, [asker, *others])
            try:
                pointed = await self._change(
                    room, lambda current, now: current.rematch_entry(player.player_id, fresh.race_id, now), peer
                )
            except BaseException:
                await self._discard_race(fresh)
                raise
            if pointed is not None:
                self.hub.metrics.race_events.labels("created").inc()
                self._add_watcher(peer, fresh)
                self._reply(peer, fresh, "created", message.id)
                return
            await self._discard_race(fresh)
        assert room.state.rematch is not None
        await self._follow_as(peer, await self.room(room.state.rematch), message.id)

    async def history(self, peer: Peer, message: ts.ListRaces) -> None:
        asker = peer.player.player_id if peer.player is not None else None
        player_id = message.player_id or self.hub.identity(peer).player_id
        documents = await self._store.list_documents(RACE_DOCUMENT, history_index(player_id), message.limit)
        now = self._now()
        races = []
        for document in documents:
            room = self.rooms.get(document["race_id"])
            state = room.state if room is not None else await self._read(document["race_id"])
            if state is None:
                continue
            progress = room.progress if room is not None else state.final_progress()
            races.append(state.info(progress, now, member=asker in state.racers))
        self.hub.send(peer, tc.Races(id=message.id, player_id=player_id, races=races))

    # ------------------------------------------------------------ hub hooks

    async def rejoin(self, peer: Peer, player_id: str) -> None:
        """After ``hello`` with a token: follow the player's unfinished races again."""
        documents = await self._store.list_documents(RACE_DOCUMENT, history_index(player_id), REJOIN_SCAN)
        for document in documents:
            try:
                room = await self.room(document["race_id"])
            except Refusal:
                continue
            if room.state.phase(self._now()) != FINISHED and player_id in room.state.racers:
                await self._follow_as(peer, room, None)
            else:
                self._release_if_idle(room)

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
                    room = await self.room(header.race_id)
                except Refusal:
                    room = None
                orphan = room is None or header.game_id not in room.state.games
                if room is not None:
                    self._release_if_idle(room)
                if orphan:
                    await self._discard_games([header])
                    continue
            kept.append(header)
        return kept

    async def watch_mode(self, peer: Peer, session: Session) -> bool:
        """Whether ``peer`` may watch this race game live (False: delayed);
        raises ``Refusal`` when it may not watch it at all."""
        header = session.header
        assert header.race_id is not None
        viewer = peer.player.player_id if peer.player is not None else None
        try:
            room = await self.room(header.race_id)
        except Refusal:
            return viewer == header.owner or session.result is not None
        state = room.state
        phase = state.phase(self._now())
        self._release_if_idle(room)
        if phase == FINISHED:
            return True
        if viewer != header.owner and viewer in state.racers:
            raise Refusal(
                ErrorCode.FORBIDDEN,
                "you are in this race: rivals' boards stay hidden until it ends; race_progress tells how they do",
                game_id=header.game_id,
            )
        if phase != RUNNING:
            raise Refusal(ErrorCode.RACE_STATE, self._wait_sentence(state), game_id=header.game_id)
        return viewer == header.owner

    async def check_action(self, session: Session) -> None:
        """Refuse acting on a race game outside the running race."""
        header = session.header
        assert header.race_id is not None
        try:
            room = await self.room(header.race_id)
        except Refusal:
            return
        self._release_if_idle(room)
        phase = room.state.phase(self._now())
        if phase == FINISHED:
            raise Refusal(ErrorCode.RACE_STATE, "this race is over; it accepts no more moves", game_id=header.game_id)
        if phase != RUNNING:
            raise Refusal(ErrorCode.RACE_STATE, self._wait_sentence(room.state), game_id=header.game_id)

    def _wait_sentence(self, state: RaceState) -> str:
        if state.starts_at is None:
            return "this race has not started yet"
        seconds = max(0.0, (state.starts_at - self._now()) / 1000)
        return f"the race starts in {seconds:.1f} s (starts_at {state.starts_at}); boards arrive then"

    def hides_deal(self, race_id: str) -> bool:
        """Whether a race game's ``game_over`` must not tell the deal yet
        (its rivals may still be playing it)."""
        room = self.rooms.get(race_id)
        return room is None or room.state.finished_ms is None

    async def deal_public(self, race_id: str) -> bool:
        """Whether a race's deal may be shown (its race is over, or gone
        from the store), loading the race if this process does not hold it."""
        try:
            room = await self.room(race_id)
        except Refusal:
            return True
        self._release_if_idle(room)
        return room.state.finished_ms is not None

    async def progressed(self, session: Session) -> None:
        """A racer's game changed here: tell everyone following the race."""
        race_id = session.header.race_id
        assert race_id is not None
        progress = Progress.of(session)
        await self._share_progress(race_id, session.header.owner, progress)
        if session.result is not None:
            self._spawn(self.settle(race_id))

    def disconnect(self, peer: Peer) -> None:
        for race_id in self.watching.pop(peer, set()):
            room = self.rooms.get(race_id)
            if room is not None:
                self._drop_watcher(peer, room, forget=False)

    def overflowed(self, peer: Peer) -> None:
        """Queue a fresh race message for each race ``peer`` follows (after
        the hub dropped its backlog)."""
        for race_id in self.watching.get(peer, ()):
            room = self.rooms.get(race_id)
            if room is not None:
                peer.backlog.append(peer.codec.encode(self._message(room, "snapshot", room.member(peer))))

    def phases(self) -> Counter[str]:
        """How many races this process holds in each phase (for ``/metrics``)."""
        now = self._now()
        return Counter(room.state.phase(now) for room in self.rooms.values())

    def release_if_idle(self, race_id: str | None) -> None:
        room = self.rooms.get(race_id) if race_id is not None else None
        if room is not None:
            self._release_if_idle(room)

    # ------------------------------------------------------------ settling

    async def settle(self, race_id: str) -> None:
        """End the race if every game is over or its time is up (any
        process may try; the ledger takes one ``finish``)."""
        try:
            room = await self.room(race_id)
            async with room.settling:
                state = room.state
                if state.starts_at is None or state.finished_ms is not None:
                    return
                sessions = await self._sessions(state)
                playing = [game_id for game_id, session in sessions.items() if session and session.result is None]
                if playing and self._now() < (state.ends_at or 0):
                    return
                for game_id in playing:
                    await self._abandon(game_id)
                if playing:
                    sessions = await self._sessions(state)
                by_racer = {state.games[game_id]: session for game_id, session in sessions.items()}
                results = state.results_of(by_racer)
                if await self._change(room, lambda current, now: current.finish_entry(now, results)) is not None:
                    self.hub.metrics.race_events.labels("finished").inc()
            self._release_if_idle(room)
        except (Refusal, StorageError) as error:
            log.warning("could not settle race %s: %s", race_id, getattr(error, "message", error))

    async def _abandon(self, game_id: str) -> None:
        for _ in range(LEDGER_RETRIES):
            try:
                await self.hub.abandon(game_id)
                return
            except Refusal as refusal:
                if refusal.code is not ErrorCode.STATE_CONFLICT:
                    raise

    # ------------------------------------------------------------ rooms

    async def _create(
        self, game: str, options: dict[str, Any], deal: int | str, host: tc.Owner, racers: list[tc.Owner]
    ) -> RaceRoom:
        settings = self.hub.settings
        now = self._now()
        race_id = new_id("r_")
        keep = settings.race_invite_seconds + settings.race_time_limit_seconds + settings.finished_retention_seconds
        code = await self._free_code()
        header = ledger_header(race_id, game, options, host.player_id, now)
        entry = create_entry(
            code=code, host=host, deal=deal, limit=settings.race_limit,
            countdown_ms=round(settings.race_countdown_seconds * 1000),
            time_limit_ms=settings.race_time_limit_seconds * 1000,
            invite_expires_ms=now + settings.race_invite_seconds * 1000, racers=racers, now_ms=now,
        )
        subscription = await self._subscribe(race_id)
        try:
            await self._store.create_session(header)
            await self._store.finish_session(header, keep)
            await self._store.append(race_id, 0, entry)
            await self._store.put_document(CODE_DOCUMENT, code, {"race_id": race_id}, keep)
            await self._store.put_document(RACE_DOCUMENT, race_id, {"race_id": race_id, "created_ms": now}, keep)
            for racer in racers:
                await self._store.index_document(RACE_DOCUMENT, history_index(racer.player_id), race_id, now)
        except BaseException:
            await subscription.close()
            raise
        room = RaceRoom(RaceState.replay(header, [entry]))
        self._hold(room, subscription)
        return room

    async def _free_code(self) -> str:
        for _ in range(CODE_ATTEMPTS):
            code = new_code()
            if await self._store.get_document(CODE_DOCUMENT, code) is None:
                return code
        raise RuntimeError("could not find an unused invite code")

    async def _discard_race(self, room: RaceRoom) -> None:
        """Remove a race that lost to another (a duplicate rematch)."""
        header = ledger_header(room.race_id, room.state.game, room.state.options, room.state.host, room.state.created_ms)
        await self._store.finish_session(header, 0)
        self._forget(room)

    # ------------------------------------------------------------ starting

    async def _deal_for(self, state: RaceState, now: int) -> tuple[RaceDeal, DailyRecord | None]:
        """The race's deal: the day's secret one, a freshly proven secret
        one (``winnable``), or the number the host typed (unranked)."""
        game_cls = engine.game_class(state.game)
        hub = self.hub
        if state.deal_request == "daily":
            record = await todays_record(self._store, hub.settings, hub.prover, game_cls, state.options, now)
            deal = RaceDeal(0, record.seed, record.line, record.nonce, record.commitment, True, record.date)
            return deal, record
        if state.deal_request == "winnable":
            proven = await hub.race_deals.take(game_cls.id, state.options)
            nonce = secrets.token_hex(16)
            commitment = race_commitment(state.race_id, proven.seed, nonce)
            return RaceDeal(0, proven.seed, proven.line, nonce, commitment, True, None), None
        choice = choose_deal(game_cls, state.deal_request, state.options)
        return RaceDeal(choice.number, None, (), None, None, choice.verified, None), None

    async def _prepare_game(
        self, state: RaceState, racer_id: str, deal: RaceDeal, record: DailyRecord | None, starts_at: int, now: int
    ) -> SessionHeader:
        """A racer's game of the race, stored (claiming the daily ranked
        attempt for a daily race), not yet playable."""
        game_id = new_id("g_")
        ranked = record is not None and await claim_ranked(
            self._store, record.key, racer_id, game_id, claim_lifetime(record, self.hub.settings, now)
        )
        if record is not None and not ranked:
            await check_practice(self._store, record.key, racer_id, utc_day(now))
        await self.hub.abandon_beyond_limit(racer_id)
        player = await self._store.get_player(racer_id)
        header = SessionHeader(
            game_id=game_id, game=state.game, deal=deal.number, options=dict(state.options), owner=racer_id,
            created_ms=now, practice=record is not None and not ranked, race_id=state.race_id,
            daily=record.date if record is not None else None, ranked=ranked, started_ms=starts_at,
            seed=deal.seed, bot=player is not None and player.bot,
        )
        await self._store.create_session(header)
        return header

    async def _discard_games(self, headers: list[SessionHeader]) -> None:
        """Remove games prepared for a start that did not happen."""
        for header in headers:
            header.status = ABANDONED
            try:
                await self._store.finish_session(header, 0)
            except StorageError as error:
                log.warning("could not discard %s: %s", header.game_id, error)

    # ------------------------------------------------------------ changes

    def _after(
        self, room: RaceRoom, before: Milestones, entry: Action | None, actor: Peer | None,
        request_id: RequestId | None,
    ) -> None:
        """Side effects of the state's change (by ``entry``, or by a reload),
        then the news to every watcher."""
        started, finished, rematched = before
        state = room.state
        if state.starts_at is not None and not started:
            room.progress = {player_id: room.progress.get(player_id, Progress()) for player_id in state.racers}
            self._schedule(room)
        if state.finished_ms is not None and not finished:
            room.progress = state.final_progress()
            for timer in room.timers:
                timer.cancel()
            self.hub.race_over(list(state.games))
        if state.rematch is not None and not rematched:
            for peer in list(room.watchers):
                if room.member(peer) and peer is not actor:
                    self._spawn(self._follow_rematch(peer, state.rematch))
        if entry is not None and entry.kind == "presence":
            self._broadcast_progress(room, json.loads(entry.text)["player_id"])
            return
        if actor is not None:
            self._add_watcher(actor, room)
        self._broadcast(room, self._event_of(state, before, entry), actor, request_id)

    @staticmethod
    def _event_of(state: RaceState, before: Milestones, entry: Action | None) -> str:
        """The event to announce: the entry's, or for a reload the latest
        milestone it crossed.  A process that lost an append (two settling
        one race at once), missed entries or came back from an outage takes
        the entry in by reloading, and its relayed copy is then dropped as
        already seen: without this its followers would hear "snapshot"
        instead of "finished" (or "started", "rematch")."""
        if entry is not None:
            return EVENT_OF_ENTRY.get(entry.kind, "snapshot")
        started, finished, rematched = before
        if state.rematch is not None and not rematched:
            return "rematch"
        if state.finished_ms is not None and not finished:
            return "finished"
        if state.starts_at is not None and not started:
            return "started"
        return "snapshot"

    async def _follow_rematch(self, peer: Peer, race_id: str) -> None:
        try:
            await self._follow_as(peer, await self.room(race_id), None)
        except (Refusal, StorageError) as error:
            log.warning("could not follow rematch %s: %s", race_id, error)

    # ------------------------------------------------------------ timers

    def _arm(self, room: RaceRoom) -> None:
        """A race followed from now on: its clocks, and a settling in case
        its end passed while nobody followed it (every game over, or the
        time limit gone by).  A race still under way is settled by its
        clock or its last game's end, so loading it reads no log twice."""
        self._schedule(room)
        state = room.state
        if state.starts_at is None or state.finished_ms is not None:
            return
        every_game_over = all(
            (progress := room.progress.get(racer)) is not None and progress.result is not None
            for racer in state.games.values()
        )
        if every_game_over or self._now() >= (state.ends_at or 0):
            self._spawn(self.settle(room.race_id))

    def _schedule(self, room: RaceRoom) -> None:
        """Arm the race's clocks: the boards at ``starts_at``, the settling at ``ends_at``."""
        for timer in room.timers:
            timer.cancel()
        room.timers = []
        state = room.state
        if state.starts_at is None or state.ends_at is None or state.finished_ms is not None:
            return
        self._at(room, state.starts_at, lambda: self._go(room))
        self._at(room, state.ends_at, lambda: self._spawn(self.settle(room.race_id)))

    def _at(self, room: RaceRoom, when_ms: int, action: Callable[[], None]) -> None:
        """Run ``action`` once the server's clock reads ``when_ms`` (the
        event loop's timer may fire a little early: then wait again)."""

        def fire() -> None:
            if self._now() < when_ms:
                self._at(room, when_ms, action)
            else:
                action()

        delay = max(0, when_ms - self._now()) / 1000
        room.timers.append(asyncio.get_running_loop().call_later(delay, fire))

    def _go(self, room: RaceRoom) -> None:
        """The countdown is over: each racer following here gets their board."""
        for peer in list(room.watchers):
            racer = room.state.racers.get(peer.player.player_id) if peer.player is not None else None
            if racer is not None and racer.game_id is not None:
                self._spawn(self._watch_game(peer, racer.game_id))

    async def _watch_game(self, peer: Peer, game_id: str) -> None:
        try:
            await self.hub.watch_game(peer, game_id)
        except (Refusal, StorageError) as error:
            log.info("could not hand %r its board %s: %s", peer, game_id, error)

    # ------------------------------------------------------------ watchers

    def _check_watch_limit(self, peer: Peer, room: RaceRoom | None = None) -> None:
        watched = self.watching.get(peer, set())
        limit = self.hub.settings.watch_limit
        if (room is None or room.race_id not in watched) and len(watched) >= limit:
            raise Refusal(ErrorCode.FORBIDDEN, f"a connection follows at most {limit} races; unwatch one first")

    def _add_watcher(self, peer: Peer, room: RaceRoom) -> None:
        room.watchers.add(peer)
        self.watching.setdefault(peer, set()).add(room.race_id)

    async def _follow_as(self, peer: Peer, room: RaceRoom, request_id: RequestId | None) -> None:
        """Follow a race: a snapshot now; a racer coming back is connected again."""
        self._add_watcher(peer, room)
        self._reply(peer, room, "snapshot", request_id)
        if peer.player is not None:
            player_id = peer.player.player_id
            await self._change(room, lambda state, now: state.presence_entry(player_id, True, now))

    def _drop_watcher(self, peer: Peer, room: RaceRoom, forget: bool = True) -> None:
        room.watchers.discard(peer)
        if forget:
            self.watching.get(peer, set()).discard(room.race_id)
        player_id = peer.player.player_id if peer.player is not None else None
        if player_id in room.state.racers and not room.connected_here(player_id):
            self._spawn(self._presence(room, player_id, False))
        else:
            self._release_if_idle(room)

    async def _presence(self, room: RaceRoom, player_id: str, connected: bool) -> None:
        try:
            await self._change(room, lambda state, now: state.presence_entry(player_id, connected, now))
        except (Refusal, StorageError) as error:
            log.info("could not record the presence of %s in %s: %s", player_id, room.race_id, error)
        self._release_if_idle(room)

    # ------------------------------------------------------------ sending

    def _message(self, room: RaceRoom, event: str, member: bool, request_id: RequestId | None = None) -> tc.Race:
        now = self._now()
        return tc.Race(
            id=request_id, event=event, server_time=now, race=room.state.info(room.progress, now, member)
        )

    def _reply(self, peer: Peer, room: RaceRoom, event: str, request_id: RequestId | None) -> None:
        self.hub.send(peer, self._message(room, event, room.member(peer), request_id))

    def _broadcast(self, room: RaceRoom, event: str, actor: Peer | None, request_id: RequestId | None) -> None:
        """The race message to every watcher: one encoding per codec and
        membership (racers see the code), the actor's with its request id."""
        frames: dict[tuple[Codec, bool], bytes] = {}
        for peer in list(room.watchers):
            member = room.member(peer)
            if peer is actor:
                self._reply(peer, room, event, request_id)
                continue
            key = (peer.codec, member)
            if key not in frames:
                frames[key] = peer.codec.encode(self._message(room, event, member))
            self.hub.send_frame(peer, frames[key])

    def _broadcast_progress(self, room: RaceRoom, player_id: str) -> None:
        racer = room.state.racers[player_id]
        now = self._now()
        message = tc.RaceProgress(
            race_id=room.race_id, server_time=now,
            racer=room.state.racer_view(racer, room.progress.get(player_id), now),
        )
        frames: dict[Codec, bytes] = {}
        for peer in list(room.watchers):
            if peer.codec not in frames:
                frames[peer.codec] = peer.codec.encode(message)
            self.hub.send_frame(peer, frames[peer.codec])


