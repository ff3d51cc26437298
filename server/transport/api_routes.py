"""What each endpoint of the HTTP API answers (``protocol.http_api``), read
from the store the way the WebSocket's requests read it.

Every answer is one an anonymous WebSocket client could get: the day's
deals as ``daily`` gives them (a commitment until the reveal), a
leaderboard page as ``leaderboard`` gives it to someone without an
entry, a player's records as ``records`` gives them, and a finished game
only where ``replay`` would give it (``visibility.assist_refusal`` for an
analysis: the game over, its daily revealed, its race over).  A game
that may not be given is answered as a game that does not exist, so the
API does not even tell that it does.

How long each answer may be reused (``Cache-Control``) follows what can
still change it: a revealed day's deals never change, a closed board
only by a player's new name, today's board with every win.
"""

from __future__ import annotations

import re
import typing
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, Awaitable, Callable, Sequence

import engine
from engine import Game
from engine.games import DESCRIPTORS
from protocol import to_server as ts
from protocol.http_api import TODAY, ApiErrorCode, DailyDeals, ExportedAction, ExportedGame, Leaderboard, PlayerProfile
from protocol.parts import Owner, Part, Result
from server.deals.daily import TodaysRecord, daily_info, daily_variants, reveals_at, utc_day
from server.deals.proofs import seed_text
from server.deals.variants import variant_label
from server.games.facts import GameFacts, RaceFactsOf
from server.games.leaderboards import Leaderboards
from server.games.owners import owner_of
from server.games.records import records_reply
from server.model.records import PlayerRecord, SessionHeader
from server.model.visibility import Assist, assist_refusal
from server.runtime.settings import Settings
from server.storage.base import Store

FINAL = "public, max-age=86400"
"""A revealed day's deals, a finished game: nothing changes them any more."""
CLOSED_BOARD = "public, max-age=3600"
"""A board no win joins any more; only a player's new name would show."""
LIVE = "public, max-age=10"
"""Today's board, today's and tomorrow's commitments: short, so a win shows soon."""
PLAYER = "public, max-age=60"
"""A profile and a player's export: a game's end changes them."""
UNFINISHED = "no-cache"
"""Today's deals while some are still being proven: ask again soon."""
EXPORT_SCAN = 200
"""A player's newest games read at most to find those an export may hold."""
RESULTS = frozenset(typing.get_args(Result))
"""The statuses of a finished game."""
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class ApiRefusal(Exception):
    """An answer other than 200: its status, stable code and sentence."""

    def __init__(self, status: int, code: ApiErrorCode, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Answer:
    """A 200's body (one model, or the lines of an NDJSON export) and its ``Cache-Control``."""

    body: Part | Sequence[Part]
    cache_control: str


Handler = Callable[[dict[str, str], dict[str, Any]], Awaitable[Answer]]
"""An endpoint: its path parameters and its query parameters, already checked."""


class ApiRoutes:
    """The endpoints' answers; see the module docstring."""

    def __init__(
        self, settings: Settings, store: Store, clock: Callable[[], int], today_record: TodaysRecord,
        race_facts: RaceFactsOf, leaderboards: Leaderboards,
    ) -> None:
        self._settings = settings
        self._store = store
        self._clock = clock
        self._today_record = today_record
        self._facts = GameFacts(settings, clock, race_facts)
        self._leaderboards = leaderboards

    def handlers(self) -> dict[str, Handler]:
        """Each endpoint's answer, by the endpoint's name."""
        return {
            "daily": self.daily,
            "leaderboard": self.leaderboard,
            "player": self.player,
            "player_games": self.player_games,
            "game": self.game,
        }

    async def daily(self, path: dict[str, str], query: dict[str, Any]) -> Answer:
        now = self._clock()
        day = _day(path["date"], now)
        if day > utc_day(now) + timedelta(days=1):
            raise ApiRefusal(
                404, ApiErrorCode.DAY_NOT_OPEN, f"the daily deals of {day} are not committed yet; tomorrow's are, once prepared"
            )
        game = query.get("game")
        if game is not None and game not in DESCRIPTORS:
            raise ApiRefusal(400, ApiErrorCode.BAD_PARAMETER, f"game: no game {game!r}; games are: {', '.join(DESCRIPTORS)}")
        request = ts.Daily(date=day.isoformat(), game=game)
        info = await daily_info(self._store, self._settings, self._today_record, request, now)
        if now >= reveals_at(day, self._settings):
            cache = FINAL
        else:
            cache = UNFINISHED if info.pending else LIVE
        return Answer(DailyDeals.model_validate(info.model_dump(exclude={"id", "type"})), cache)

    async def leaderboard(self, path: dict[str, str], query: dict[str, Any]) -> Answer:
        now = self._clock()
        game_cls = _game(path["game"])
        options = _variant_options(game_cls, path["variant"])
        day = _day(path["date"], now)
        if day > utc_day(now):
            raise ApiRefusal(404, ApiErrorCode.DAY_NOT_OPEN, f"{day} has not begun: its leaderboards are empty")
        request = ts.Leaderboard(
            game=game_cls.id, options=options, date=day.isoformat(), offset=query["offset"], limit=query["limit"],
            bots=query["board"] == "bots", playing=query["playing"],
        )
        page = await self._leaderboards.page(request, None, now)
        total = page.total or 0
        end = page.offset + len(page.entries)
        closed = now >= reveals_at(day, self._settings)
        board = Leaderboard(
            board=page.board, game=page.game, title=page.title, variant=page.variant, date=page.date, closed=closed,
            offset=page.offset, limit=request.limit, total=total, next_offset=end if end < total else None,
            entries=page.entries, unranked=page.unranked, playing=page.playing,
        )
        return Answer(board, CLOSED_BOARD if closed else LIVE)

    async def player(self, path: dict[str, str], query: dict[str, Any]) -> Answer:
        player = await self._player(path["player_id"])
        records = await records_reply(self._store, player.player_id, player.display_name, None)
        profile = PlayerProfile(
            player_id=player.player_id, name=player.display_name, bot=player.bot, records=records.records,
            vegas_earnings=records.vegas_earnings,
        )
        return Answer(profile, PLAYER)

    async def player_games(self, path: dict[str, str], query: dict[str, Any]) -> Answer:
        player = await self._player(path["player_id"])
        owner = Owner(player_id=player.player_id, name=player.display_name)
        games: list[ExportedGame] = []
        for header in await self._store.sessions_of(player.player_id, EXPORT_SCAN):
            if len(games) == query["limit"]:
                break
            exported = await self._exported(header, owner)
            if exported is not None:
                games.append(exported)
        return Answer(games, PLAYER)

    async def game(self, path: dict[str, str], query: dict[str, Any]) -> Answer:
        game_id = path["game_id"]
        loaded = await self._store.load_session(game_id) if ID.match(game_id) else None
        exported = None
        if loaded is not None:
            header = loaded[0]
            exported = await self._exported(header, await owner_of(self._store, header.owner))
        if exported is None:
            raise ApiRefusal(404, ApiErrorCode.GAME_NOT_FOUND, "no finished game whose deal is public has this id")
        return Answer(exported, FINAL)

    async def _player(self, player_id: str) -> PlayerRecord:
        found = await self._store.get_player(player_id) if ID.match(player_id) else None
        if found is None:
            raise ApiRefusal(404, ApiErrorCode.PLAYER_NOT_FOUND, "no player has this id")
        return found

    async def _exported(self, header: SessionHeader, owner: Owner) -> ExportedGame | None:
        """The game as an export line, or None if it may not be given: still
        played (or its end not settled yet), its deal still secret, or no
        game at all (a race's ledger, which the store keeps as a session)."""
        if header.status not in RESULTS:
            return None
        if assist_refusal(header, Assist.ANALYSIS, await self._facts.of(header, header.status)) is not None:
            return None
        loaded = await self._store.load_session(header.game_id)
        if loaded is None:
            return None
        stored, log = loaded
        game_cls = engine.game_class(stored.game)
        finished = stored.finished_ms
        started = stored.started_ms
        return ExportedGame(
            game_id=stored.game_id, game=game_cls.id, title=game_cls.title, variant=variant_label(game_cls, stored.options),
            options=stored.options, deal=None if stored.seed is not None or stored.position else stored.deal,
            seed=seed_text(stored.seed) if stored.seed is not None else None, position=stored.position, owner=owner,
            bot=stored.bot, practice=stored.practice, ranked=stored.ranked, daily=stored.daily, race_id=stored.race_id,
            result=stored.status, created_ms=stored.created_ms, started_ms=started, finished_ms=finished,
            time_ms=max(0, finished - started) if finished is not None and started is not None else 0,
            actions=[ExportedAction(kind=action.kind, move=action.text, at_ms=action.at_ms) for action in log],
        )


def _day(text: str, now_ms: int) -> date:
    """The day a path names: ``TODAY`` or an ISO date (``bad_date`` otherwise)."""
    if text == TODAY:
        return utc_day(now_ms)
    try:
        if DATE.match(text):
            return date.fromisoformat(text)
    except ValueError:
        pass
    raise ApiRefusal(400, ApiErrorCode.BAD_DATE, f"{text!r} is not a date: YYYY-MM-DD, or {TODAY}")


def _game(game_id: str) -> type[Game]:
    if game_id not in DESCRIPTORS:
        raise ApiRefusal(404, ApiErrorCode.UNKNOWN_GAME, f"no game {game_id!r}; games are: {', '.join(DESCRIPTORS)}")
    return engine.game_class(game_id)


def _variant_options(game_cls: type[Game], variant: str) -> dict[str, Any]:
    """The options of the daily variant ``variant`` names (``unknown_variant`` if none)."""
    offered = {variant_label(game_cls, options): options for game_id, options in daily_variants() if game_id == game_cls.id}
    if variant not in offered:
        raise ApiRefusal(
            404, ApiErrorCode.UNKNOWN_VARIANT,
            f"{game_cls.title} has no daily deal for {variant!r}; daily variants are: {', '.join(offered)}",
        )
    return offered[variant]
