"""``ArenaRequests``: the named requests of ``ArenaClient``, each one
protocol message and the type its reply must have.

They share two helpers rather than each repeating the send-and-check:
``_ask`` sends a request and checks the reply's type, and ``_act`` does
the same for a game action made against the state the caller saw (its
``seq``, see ``move``).  The transport (``_call``) is the client's.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Mapping
from datetime import date
from typing import TypeVar

from protocol import ServerMessage
from protocol import friends_board as pb
from protocol import to_client as tc
from protocol import to_server as ts

from .errors import ClientError, DealSecret, ProtocolMismatch, RequestTimeout
from .mirror import GameMirror
from .race_mirror import RaceMirror

Reply = TypeVar("Reply", bound=tc.Event)
Action = TypeVar("Action", bound=ts.GameAction)
RaceDeal = ts.RaceDealKind
Options = Mapping[str, ts.OptionValue]
PROVEN_DEALS = ("daily", "winnable")
PROVING_SECONDS = 120.0
"""How long ``new_game`` waits for a proven deal (daily, winnable): the
server may prove it first, well past a usual request's timeout."""

DAILY_RETRY_FLOOR_SECONDS = 0.5
DAILY_RETRY_CEILING_SECONDS = 5.0
"""How often ``daily(ready=True)`` asks again at most and at least: a
server's estimate can be in the past while a busy machine is still
proving, and asking at once every millisecond would only be rate-limited."""
DAILY_READY_SECONDS = PROVING_SECONDS
"""How long ``daily(ready=True)`` asks again before it gives up: as long as
``new_game`` waits for one proven deal, since a server that proves none
in that time is stuck, not busy."""


def expect(reply: ServerMessage, kind: type[Reply]) -> Reply:
    """``reply`` if it is a ``kind``; ``ProtocolMismatch`` otherwise."""
    if not isinstance(reply, kind):
        raise ProtocolMismatch(f"expected a {kind.__name__} reply, got {reply.type}")
    return reply


def _iso(day: date | str | None) -> str | None:
    return day.isoformat() if isinstance(day, date) else day


class ArenaRequests(ABC):
    """Every request of the protocol as a method (see ``ArenaClient``)."""

    games: dict[str, GameMirror]
    races: dict[str, RaceMirror]
    player_id: str | None
    token: str | None
    timeout: float

    @abstractmethod
    async def _call(self, message: ts.Request, *, gated: bool = True, timeout: float | None = None) -> ServerMessage:
        """Send ``message`` and return its reply (``gated``: wait for the
        connection to be open first; ``timeout``: seconds to wait for the
        reply, default the client's)."""

    async def request(self, message: ts.Request) -> ServerMessage:
        """Send any request and return its reply (the message carrying its
        id).  Raises the ``ArenaError`` of a refusal, ``RequestTimeout``,
        ``ConnectionLost`` or ``ClientClosed``.  The named methods below
        are this plus a check of the reply's type."""
        return await self._call(message)

    async def _ask(self, request: ts.Request, kind: type[Reply]) -> Reply:
        return expect(await self._call(request), kind)

    async def _act(self, action: ts.GameAction, kind: type[Reply]) -> Reply:
        return await self._ask(self._against(action), kind)

    def _against(self, action: Action) -> Action:
        """``action`` made against a state: its own ``seq`` when given, else
        the mirror's (the state this client shows), or none for a game it
        does not mirror (the server then acts on whatever state the game
        is in)."""
        mirror = self.games.get(action.game_id)
        if action.seq is None and mirror is not None and mirror.ready:
            return action.model_copy(update={"seq": mirror.seq})
        return action

    # ------------------------------------------------------------ games

    async def new_game(
        self,
        game: str,
        deal: int | ts.DealKind = "random",
        options: Options | None = None,
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
        request = ts.NewGame(game=game, deal=deal, options=dict(options or {}), practice=practice, position=position)
        waits = deal in PROVEN_DEALS and max(self.timeout, PROVING_SECONDS)
        started = expect(await self._call(request, timeout=waits or None), tc.GameStarted)
        mirror = self.games[started.game_id]
        try:
            await mirror.wait_until(lambda m: m.ready, self.timeout)
        except TimeoutError:
            raise RequestTimeout(f"no snapshot of the new game {started.game_id} within {self.timeout:g} s") from None
        return mirror

    async def move(self, game_id: str, move: str, *, seq: int | None = None) -> tc.Diff:
        """Play ``move`` (notation: ``t3-t5``, ``w-f``, ``draw``, ``r3-r1``).

        Every game action is made against a state: ``seq`` defaults to the
        mirror's, so a move decided on an outdated board (another tab moved
        first) is refused with ``StaleState`` and changes nothing.  To retry
        safely after ``ConnectionLost``, pass the ``seq`` of the first try:
        if that try was applied, the retry is refused instead of playing twice.
        """
        return await self._act(ts.Move(game_id=game_id, move=move, seq=seq), tc.Diff)

    async def auto_move(self, game_id: str, src: str, count: int = 1, *, seq: int | None = None) -> tc.Diff | None:
        """Move the top ``count`` cards of ``src`` to their best destination;
        None when there is none (nothing changed).  ``seq`` as in ``move``."""
        reply = await self._call(self._against(ts.AutoMove(game_id=game_id, src=src, count=count, seq=seq)))
        return None if isinstance(reply, tc.Ack) else expect(reply, tc.Diff)

    async def undo(self, game_id: str, *, seq: int | None = None) -> tc.Diff:
        """Take the last move back (``seq`` as in ``move``)."""
        return await self._act(ts.Undo(game_id=game_id, seq=seq), tc.Diff)

    async def redo(self, game_id: str, *, seq: int | None = None) -> tc.Diff:
        """Play the last undone move again (``seq`` as in ``move``)."""
        return await self._act(ts.Redo(game_id=game_id, seq=seq), tc.Diff)

    async def restart(self, game_id: str, *, seq: int | None = None) -> tc.Diff:
        """Back to the deal's first position (``seq`` as in ``move``)."""
        return await self._act(ts.Restart(game_id=game_id, seq=seq), tc.Diff)

    async def resign(self, game_id: str, *, seq: int | None = None) -> tc.Diff:
        """Give the game up (``seq`` as in ``move``)."""
        return await self._act(ts.Resign(game_id=game_id, seq=seq), tc.Diff)

    async def hint(self, game_id: str, *, seq: int | None = None) -> str | None:
        """A suggested move, or None when nothing is left to find
        (``hint_reply`` gives how sure the server is of it too)."""
        return (await self.hint_reply(game_id, seq=seq)).move

    async def hint_reply(self, game_id: str, *, seq: int | None = None) -> tc.HintReply:
        """A suggested ``move`` (None when nothing is left to find) and its
        ``confidence``.  The server counts it as a hint (and charges it where
        the game does); ``seq`` as in ``move``: two tabs asking at once pay once."""
        return await self._act(ts.Hint(game_id=game_id, seq=seq), tc.HintReply)

    async def finish(self, game_id: str, *, seq: int | None = None) -> list[str]:
        """Let the server play its proven path to the foundations (Broken
        Deck, once ``GameMirror.can_finish``); the moves it played, each
        already applied to the mirror.  ``Unavailable`` when there is no
        such path (``reason``: ``no_finish_path``, ``halves_unrepaired`` …);
        ``seq`` as in ``move``."""
        return (await self._act(ts.Finish(game_id=game_id, seq=seq), tc.FinishReply)).moves

    async def analyse(self, game_id: str) -> tc.AnalysisReply:
        """Where a finished game stopped being winnable (any game you may
        watch, once it is over and its deal is no longer secret).  The
        server may search for seconds; the client's timeout applies."""
        return await self._ask(ts.Analyse(game_id=game_id), tc.AnalysisReply)

    async def replay(self, game_id: str, from_seq: int = 0) -> tc.ReplayReply:
        """One page of a finished game as its player saw it (any game you
        may watch, once it is over and its deal is no longer secret): the
        snapshot at ``from_seq``, then each action's diff."""
        return await self._ask(ts.Replay(game_id=game_id, from_seq=from_seq), tc.ReplayReply)

    async def watch(self, game_id: str) -> GameMirror:
        """Follow a game (anyone may); returns its mirror, ready.
        ``DealSecret`` when the game is someone else's on a deal still
        secret: the server then shows progress, never the board."""
        return await self._board(ts.Watch(game_id=game_id))

    async def resync(self, game_id: str) -> GameMirror:
        """Replace a mirror by a fresh snapshot (the client does this by
        itself after a gap; call it to be sure of the state)."""
        return await self._board(ts.Resync(game_id=game_id))

    async def _board(self, request: ts.GameRequest) -> GameMirror:
        reply = await self._call(request)
        if isinstance(reply, tc.GameProgress):
            raise DealSecret(reply)
        expect(reply, tc.Snapshot)
        return self.games[request.game_id]

    async def unwatch(self, game_id: str) -> None:
        """Stop following a game; its mirror closes and leaves ``games``."""
        await self._ask(ts.Unwatch(game_id=game_id), tc.Ack)
        mirror = self.games.pop(game_id, None)
        if mirror is not None:
            mirror.close()

    async def list_games(self, game: str | None = None, limit: int = 50) -> list[tc.GameSummary]:
        """Live games open to watch, newest first."""
        return (await self._ask(ts.ListGames(game=game, limit=limit), tc.Games)).games

    async def catalogue(self) -> list[tc.CatalogueGame]:
        """The games this server offers, in its lobby's order, with their
        options, deal kinds and counters: what a client needs to offer a
        game it has no code for."""
        return (await self._ask(ts.Catalogue(), tc.CatalogueReply)).games

    async def ping(self) -> int:
        """The server's clock (ms since the epoch); a cheap liveness check."""
        return (await self._ask(ts.Ping(), tc.Pong)).server_time

    # ------------------------------------------------------------ races

    async def create_race(self, game: str, options: Options | None = None, deal: int | RaceDeal = "daily") -> RaceMirror:
        """Host a race and return its mirror: ``race.code`` is the invite
        to hand out.  ``deal``: ``"daily"``, ``"winnable"`` or a number."""
        return await self._race(ts.CreateRace(game=game, options=dict(options or {}), deal=deal))

    async def join_race(self, code: str) -> RaceMirror:
        """Join a race by its invite code (case and dashes do not matter);
        joining a race you are in again just follows it."""
        return await self._race(ts.JoinRace(code=code))

    async def start_race(self, race_id: str) -> RaceMirror:
        """Start the countdown (host only); ``race.countdown_ms()`` tells
        how long until the boards come (``race_board``)."""
        return await self._race(ts.StartRace(race_id=race_id))

    async def watch_race(self, race_id: str) -> RaceMirror:
        """Follow a race (anyone may, no ``hello`` needed): its mirror, ready."""
        return await self._race(ts.WatchRace(race_id=race_id))

    async def unwatch_race(self, race_id: str) -> None:
        """Stop following a race; its mirror closes and leaves ``races``."""
        await self._ask(ts.UnwatchRace(race_id=race_id), tc.Ack)
        mirror = self.races.pop(race_id, None)
        if mirror is not None:
            mirror.close()

    async def rematch(self, race_id: str) -> RaceMirror:
        """After a race: the rematch's mirror (a new race in its lobby with
        the same racers, hosted by whoever asked first)."""
        return await self._race(ts.Rematch(race_id=race_id))

    async def _race(self, request: ts.Request) -> RaceMirror:
        return self.races[(await self._ask(request, tc.Race)).race.race_id]

    async def list_races(self, player_id: str | None = None, limit: int = 20) -> list[tc.RaceInfo]:
        """A player's races (yours by default), newest first."""
        return (await self._ask(ts.ListRaces(player_id=player_id, limit=limit), tc.Races)).races

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
            raise RequestTimeout(f"no board in race {race_id} within {timeout:g} s") from None
        if race.board is None:
            raise ClientError(f"no board for you in race {race_id} ({race.phase})")
        return race.board

    # ------------------------------------------------------------ devices

    async def link_device(self) -> tc.LinkCode:
        """A one-time code another device gives as ``link_code`` to become
        this player (``code``, valid until ``expires``)."""
        return await self._ask(ts.LinkDevice(), tc.LinkCode)

    async def devices(self) -> list[tc.DeviceEntry]:
        """Your devices, oldest first (``current``: this connection's)."""
        return (await self._ask(ts.ListDevices(), tc.DeviceList)).devices

    async def revoke_device(self, device_id: str) -> None:
        """Revoke one of your devices (``DeviceNotFound`` if none has this
        id); revoking this connection's own device closes the connection."""
        await self._ask(ts.RevokeDevice(device_id=device_id), tc.DeviceRevoked)

    async def rotate_token(self) -> str:
        """A new token for this device, which this client uses from now on
        (reconnections too); the old one is refused from now on."""
        rotated = await self._ask(ts.RotateToken(), tc.TokenRotated)
        self.token = rotated.token
        return rotated.token

    # ------------------------------------------------------------ records

    async def stats(
        self, game: str | None = None, variant: str | None = None, day: str | None = None, share: bool = False
    ) -> tc.StatsReply:
        """Your daily streaks and stats, with the share text of ``day``'s
        ranked attempt when ``share`` (one game and variant)."""
        return await self._ask(ts.Stats(game=game, variant=variant, date=day, share=share), tc.StatsReply)

    async def records(self, player_id: str | None = None) -> tc.RecordsReply:
        """A player's records per game and variant, and Vegas earnings
        (yours without ``player_id``)."""
        return await self._ask(ts.Records(player_id=player_id), tc.RecordsReply)

    async def daily(
        self, day: date | str | None = None, game: str | None = None, *, ready: bool = False,
        ready_within: float = DAILY_READY_SECONDS,
    ) -> tc.DailyInfo:
        """The daily deals of a UTC day (default today): commitments while
        it lasts, deals and nonces once revealed.  ``game`` filters.  A
        server that has just started may still be proving some of today's
        (``pending``, each with when it should be ready); with ``ready``
        this asks again at those times until none is pending, and raises
        ``RequestTimeout`` naming them if some still are after waiting
        ``ready_within`` seconds between the asks."""
        pause, waited = DAILY_RETRY_FLOOR_SECONDS, 0.0
        while True:
            info = await self._ask(ts.Daily(date=_iso(day), game=game), tc.DailyInfo)
            if not ready or not info.pending:
                return info
            wait = max(pause, max(pending.ready_in_ms for pending in info.pending) / 1000)
            if waited + wait > ready_within:
                names = ", ".join(f"{pending.title} {pending.variant}" for pending in info.pending)
                raise RequestTimeout(f"the server was still proving {names} after {ready_within:g} s")
            await asyncio.sleep(wait)
            waited += wait
            pause = min(2 * pause, DAILY_RETRY_CEILING_SECONDS)

    async def leaderboard(
        self,
        game: str,
        options: Options | None = None,
        day: date | str | None = None,
        *,
        offset: int = 0,
        limit: int = 10,
        around_me: bool = False,
        bots: bool = False,
        playing: bool = False,
    ) -> tc.LeaderboardPage:
        """A day's leaderboard of one game and variant (``options`` pick
        it, e.g. ``{"draw": 3}``); ``page.me`` is your own entry.
        ``bots``: the bots' board (bots declared in ``hello`` rank apart);
        ``playing``: also the attempts still being played, after the wins."""
        request = ts.Leaderboard(
            game=game, options=dict(options or {}), date=_iso(day), offset=offset, limit=limit, around_me=around_me, bots=bots,
            playing=playing,
        )
        return await self._ask(request, tc.LeaderboardPage)

    async def friends_board(
        self, game: str, options: Options | None = None, day: date | str | None = None, *, watch: bool = True
    ) -> pb.FriendsBoardReply:
        """You and your friends on a day's daily variant; with ``watch``,
        each change of a row then arrives as ``friends_board_update``
        (read it with ``message_filter``)."""
        request = pb.FriendsBoard(game=game, options=dict(options or {}), date=_iso(day), watch=watch)
        return await self._ask(request, pb.FriendsBoardReply)
