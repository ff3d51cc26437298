"""Playing games: starting one, acting on it, ending it.

Rules kept here (``docs/architecture.md``, "Sessions are logs"): only a
game's owner acts on it; the engine checks every action; an action is in
the store's log before anyone hears of it; a refused or failed action
changes nothing; the server's clock times everything.

Decisions made here, and why:
- Every request with an ``id`` gets exactly one reply carrying it: an
  action's reply is the actor's own copy of the ``diff`` (the other
  watchers get the same diff without the id); ``hint`` also answers with
  a ``hint`` message after its diff, because a hint is a counted action.
- A player has at most ``max_live_games`` live games; starting one more
  abandons the oldest (result ``abandoned``, logged as a resignation).
- ``new_game`` with ``"daily"`` deals the day's committed secret seed;
  the first non-practice attempt per game, variant and day is ranked,
  practice waits until it has ended (``server.model.fair_play``).

What a race game may do is the race desk's (``RaceActions``).  An action
here performs, persists and commits, and tells nobody: ``apply`` returns
the change, and ``server.games.delivery.Delivery`` is the one step that
tells the actor, the watchers and the race (an assist's reply included).
"""

from __future__ import annotations

import time
from typing import Callable, Protocol

import engine
from engine import EngineError
from protocol import ErrorCode
from protocol import to_client as tc
from protocol import to_server as ts
from server.games.assists import AssistDesk
from server.games.delivery import Delivery
from server.deals.daily import note_ranked_attempt, utc_day
from server.deals.book import DailyBook
from server.deals.numbered import DealChoice, choose_deal
from server.deals.claims import check_practice, ranked_attempt
from server.model.fair_play import automatic_options, check_automatic
from server.games.sessions import SessionStarts, new_header
from server.games.tables import GameRooms
from server.net.outbox import Outbox
from server.net.peer import Peer, require_player
from server.model.refusal import Refusal, from_engine
from server.games.room import Room
from server.model.session import ABANDONED, ActionKind, Change, Session
from server.runtime.entropy import Entropy
from server.runtime.searches import HintFound
from server.runtime.settings import Settings
from server.model.records import Action, SessionHeader
from server.model.visibility import Assist, Facts, check_assist
from server.storage.base import LogConflict, Store
from server.games.watching import Watching

SESSION_SCAN_LIMIT = 100
Playing = Callable[[Peer, SessionHeader, bool], None]
"""Told that a connection started or acted on its game (``True``: the game
has ended), so the parts above that care (presence) learn what a player
is doing without this module knowing them."""


class RaceActions(Protocol):
    """What playing asks the race desk about a race game."""

    async def check_action(self, session: Session) -> None:
        """Refuse acting on a race game outside its running race."""

    async def without_orphans(self, headers: list[SessionHeader]) -> list[SessionHeader]:
        """``headers`` less race games a failed start left behind."""


class Play:
    """Game requests and the action pipeline; see the module docstring."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        clock: Callable[[], int],
        book: DailyBook,
        entropy: Entropy,
        outbox: Outbox,
        rooms: GameRooms,
        watching: Watching,
        assists: AssistDesk,
        races: RaceActions,
        delivery: Delivery,
    ) -> None:
        self._settings = settings
        self._store = store
        self._clock = clock
        self._book = book
        self._entropy = entropy
        self._outbox = outbox
        self._rooms = rooms
        self._watching = watching
        self._assists = assists
        self._races = races
        self._delivery = delivery
        self._starts = SessionStarts(settings, store, book, entropy)
        self._last_created = 0
        self._playing: list[Playing] = []

    def on_playing(self, listener: Playing) -> None:
        self._playing.append(listener)

    def _played(self, peer: Peer, room: Room) -> None:
        for listener in self._playing:
            listener(peer, room.session.header, room.session.result is not None)

    async def live_headers(self, player_id: str) -> list[SessionHeader]:
        """The player's unfinished games, newest first (race games prepared
        for a start that failed are discarded on the way)."""
        headers = await self._store.sessions_of(player_id, limit=SESSION_SCAN_LIMIT)
        return await self._races.without_orphans([header for header in headers if header.status == "playing"])

    # ------------------------------------------------------------ starting

    async def new_game(self, peer: Peer, message: ts.NewGame) -> None:
        player = require_player(peer)
        # Strictly increasing creation times, so "the oldest live game" is
        # never a tie between games started in the same millisecond.
        now = self._last_created = max(self._clock(), self._last_created + 1)
        game_id = self._entropy.new_id("g_")
        record = None
        try:
            game_cls = engine.game_class(message.game)
            if message.position is not None:
                if not self._settings.allow_positions:
                    raise Refusal(ErrorCode.FORBIDDEN, "this server does not accept practice positions")
                if message.options:
                    raise Refusal(ErrorCode.BAD_OPTION, "a practice position carries its own options; send none")
                game = engine.from_text(message.game, message.position)
                choice = DealChoice(game.deal, "position", False)
            elif message.deal == "daily":
                record = await self._book.today(game_cls, message.options, now)
                choice = DealChoice(0, "daily", True)
                game = engine.seeded_game(message.game, record.seed, **message.options)
            else:
                choice = choose_deal(game_cls, message.deal, message.options, self._entropy)
                game = engine.new_game(message.game, choice.number, **message.options)
        except EngineError as error:
            raise from_engine(error) from None
        practice = message.practice or message.position is not None or bool(game.options.get("practice"))
        ranked = False
        unlisted: list[str] = []
        if record is not None:
            automatic = automatic_options(game_cls, game.options)
            if automatic and not practice and await ranked_attempt(self._store, record.key, player.player_id) is None:
                check_automatic(game_cls, game.options, "a ranked daily attempt")
            if not practice and not automatic:
                claimed, ranked = await self._starts.claim_daily(game_cls, message.options, record, player.player_id, now)
                if ranked:
                    game_id = claimed.attempt_id(player.player_id)
                if claimed is not record:
                    record, game = claimed, engine.seeded_game(message.game, claimed.seed, **message.options)
            if not ranked:
                await check_practice(self._store, record.key, player.player_id, utc_day(now))
            else:
                unlisted = await self._starts.bars(record, player, peer.address, game_id, now)
        await self.make_room_for(player.player_id)
        self._watching.free_slot(peer)
        header = new_header(
            game_id, game_cls.id, choice.number, game.options, player.player_id, now, self._clock(), bot=player.bot,
            record=record, ranked=ranked, practice=practice, position=message.position,
            seed=record.seed if record is not None else None, unlisted=unlisted,
        )
        subscription = await self._rooms.relay.subscribe(header.game_id)
        try:
            await self._store.create_session(header)
            if ranked and record is not None:
                await note_ranked_attempt(self._store, self._settings, record, game_id, now)
        except BaseException:
            await subscription.close()
            raise
        room = Room(Session(header, game), tc.Owner(player_id=player.player_id, name=player.display_name))
        self._rooms.hold(room, subscription)
        self._delivery.changed(room.session)
        self._outbox.send(
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
                unlisted=unlisted,
            ),
        )
        await self._watching.watch(peer, room, None)
        self._played(peer, room)

    async def make_room_for(self, player_id: str) -> None:
        """Make room for one more live game by abandoning the oldest ones."""
        live = await self.live_headers(player_id)
        for header in live[self._settings.max_live_games - 1 :]:
            await self.abandon(header.game_id)

    async def abandon(self, game_id: str) -> None:
        """End a game without its owner (result ``abandoned``), if it is live."""
        room = await self._rooms.room(game_id)
        try:
            async with room.lock:
                if room.session.result is None:
                    begun = time.perf_counter()
                    change, _ = await self.apply(room, ActionKind.RESIGN, ABANDONED)
                    await self._delivery.deliver(room, change, begun)
        finally:
            self._rooms.release(room)

    # ------------------------------------------------------------ acting

    async def act(self, peer: Peer, message: ts.GameAction) -> None:
        """Perform one game action for its owner.  An action carrying a
        ``seq`` other than the game's is refused (``stale_state``) under
        the room's lock, before anything runs, so of two identical
        requests made against one state (two tabs, a retry) one applies."""
        require_player(peer)
        room = await self._rooms.room(message.game_id)
        if not room.is_owner(peer):
            self._rooms.release(room)
            raise Refusal(ErrorCode.FORBIDDEN, "only the game's owner can play it; you can watch", game_id=room.game_id)
        try:
            if room.session.header.race_id is not None and room.session.result is None:
                await self._races.check_action(room.session)
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
                if isinstance(message, ts.Finish):
                    await self._finish(room, peer, message)
                    return
                if isinstance(message, ts.AutoMove):
                    self._check_live(room)
                    try:
                        found = room.session.game.auto_move(message.src, message.count)
                    except EngineError as error:
                        raise from_engine(error, room.game_id) from None
                    if found is None:
                        self._outbox.send(peer, tc.Ack(id=message.id, game_id=room.game_id))
                        return
                    kind, text = ActionKind.MOVE, str(found)
                else:
                    kind = ActionKind(getattr(message, "type"))
                    text = message.move if isinstance(message, ts.Move) else ""
                confidence = None
                if kind == ActionKind.HINT:
                    check_assist(room.session.header, Assist.HINT, Facts(self._clock(), room.session.result))
                    text, confidence = await self._find_hint(room, peer.address)
                begun = time.perf_counter()
                change, suggestion = await self.apply(room, kind, text)
                if kind == ActionKind.HINT:
                    hint = tc.HintReply(id=message.id, game_id=room.game_id, move=suggestion, confidence=confidence if suggestion else None)
                    await self._delivery.deliver(room, change, begun, peer, reply=hint)
                else:
                    await self._delivery.deliver(room, change, begun, peer, message.id)
        finally:
            self._assists.refresh_offer(room)
            self._played(peer, room)
            self._rooms.release(room)

    async def _finish(self, room: Room, peer: Peer, message: ts.Finish) -> None:
        """Play the proven path to the foundations, one logged move each
        (the caller holds ``room.lock``)."""
        check_assist(room.session.header, Assist.FINISH, Facts(self._clock(), room.session.result))
        moves = await self._assists.finish_path(room)
        finished = tc.FinishReply(id=message.id, game_id=room.game_id, moves=list(moves))
        for index, move in enumerate(moves):
            begun = time.perf_counter()
            change, _ = await self.apply(room, ActionKind.MOVE, move)
            await self._delivery.deliver(room, change, begun, peer, reply=finished if index == len(moves) - 1 else None)

    async def _find_hint(self, room: Room, address: str) -> HintFound:
        """The hint (its move "" for none), searched in a worker
        process (``AssistDesk.hint``): the solver spends its node budget
        (about 200 ms) there instead of on the interpreter every other
        connection shares.  The caller holds ``room.lock`` and has checked
        that a hint may be given (``visibility.check_assist``), so the game
        cannot change meanwhile and the worker searches it as it is now."""
        try:
            room.session.game.check_hint()
        except EngineError as error:
            raise from_engine(error, room.game_id) from None
        return await self._assists.hint(room, address)

    @staticmethod
    def _check_live(room: Room) -> None:
        result = room.session.result
        if result is not None:
            raise Refusal(ErrorCode.GAME_FINISHED, f"this game is over ({result})", game_id=room.game_id)

    async def apply(self, room: Room, kind: ActionKind, text: str) -> tuple[Change, str | None]:
        """Perform, persist and commit one action (the caller holds
        ``room.lock``): the change the store took, announced to the other
        processes by the append itself, and a hint's suggestion.  Nobody
        here is told yet: the caller hands the change to ``Delivery``."""
        self._check_live(room)
        session = room.session
        try:
            logged, suggestion = session.perform(kind, text)
        except EngineError as error:
            raise from_engine(error, room.game_id) from None
        action = Action(kind, logged, self._clock())
        try:
            await self._rooms.append(room, action, ends=session.ends(action))
        except LogConflict:
            await self._rooms.reload(room)
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
        return session.commit(action), suggestion
