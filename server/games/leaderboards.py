"""A day's leaderboard as ``leaderboard`` answers it: a page of the public
board (or the bots'), the wins shown apart beside it, and the asker's own.

The boards are ``server.model.fair_play``'s (``board_name``, ``board_apart``):
the public board ranks the wins that count publicly; a win from an
address whose public place another attempt took is on the same-network
board, which a public page shows apart, unranked (``unranked``); a new
player's win is on the new players' board, which no page shows; a
flagged win is on the bots' board.  The asker whose win is on none of
the public page's lists learns where it went and why (``me_unranked``).
The asker's own entry comes with its percentile among the board's wins,
however far below the page it is; asked for, the attempts still being
played follow the wins, counts only (``Leaderboards.still_playing``).

Those attempts are read for every asker at once, at most once per
``PLAYING_FRESH_MS`` for each day's board, and replayed only as far as
their logs grew (``ReplayedSessions``).  A ranked daily attempt that
starts or ends on this server drops what was read (``Delivery.on_changed``),
so its own player and everyone here see it at once; one started or ended
on another process shows within that time.  Read and replayed afresh for each
request, a page of a hundred attempts a hundred draws in cost 80 ms of
the server's time, which one connection could ask for twenty times a
second (``python bench/request_costs.py``).
"""

from __future__ import annotations


import engine
from engine import EngineError
from protocol import to_client as tc
from protocol import to_server as ts
from server.deals.daily import ATTEMPT_KIND, daily_key, daily_variant, known_game, requested_day
from server.model.fair_play import CADENCE, NEW_PLAYER, SAME_NETWORK, board_name, counted_actions
from server.model.refusal import from_engine
from server.model.records import LeaderEntry, PlayerRecord
from server.games.listing import OnChanged
from server.games.owners import owners_of
from server.games.replayed import ReplayedSessions
from server.model.session import Session
from server.storage.base import Store


PLAYING_SCAN = 200
"""Attempts read, newest first, to find those still playing: a page of
unfinished attempts never costs more than this many reads of a log."""

PAGE_LIMIT = 100
"""The most entries a page shows (``Leaderboard.limit``'s bound)."""

PLAYING_FRESH_MS = 1000
"""How old the attempts still played may be when a page shows them."""

Playing = tuple[Session, str, str, int, int]
"""An attempt still played as a page shows it: its session (for its time
as of each request), its owner's id and name, its counted actions and
its cards home."""


def _entry(entry: LeaderEntry) -> tc.LeaderboardEntry:
    return tc.LeaderboardEntry(
        rank=entry.rank,
        player_id=entry.player_id,
        name=entry.display_name,
        time_ms=entry.time_ms,
        actions=entry.moves,
        finished_ms=entry.finished_ms,
    )


def _unranked(entry: LeaderEntry, reason: str) -> tc.UnrankedEntry:
    """The entry a ranked one would be, without its rank, so both show a
    win by the same wire names."""
    return tc.UnrankedEntry(**_entry(entry).model_dump(exclude={"rank"}), reason=reason)


async def _own_win_apart(store: Store, day_board: tuple[str, str, str], asker: PlayerRecord) -> tc.UnrankedEntry | None:
    """The asker's win of the day kept off the public board, with why: on
    the same-network or the new players' board, or, for a person, on the
    bots' board (flagged)."""
    places = [(board_name(*day_board, apart=reason), reason) for reason in (SAME_NETWORK, NEW_PLAYER)]
    if not asker.bot:
        places.append((board_name(*day_board, bot=True), CADENCE))
    for board, reason in places:
        found = await store.rank(board, asker.player_id)
        if found is not None:
            return _unranked(found, reason)
    return None


def percentile(rank: int, total: int) -> int:
    """The share of a board's wins a win at ``rank`` is at least as good as,
    in whole percent rounded down, never below 1: the first of any board is
    100, the last of a hundred is 1."""
    return max(1, 100 * (total - rank + 1) // max(total, rank))


class Leaderboards:
    """Pages of the days' boards, for ``leaderboard`` and the HTTP API."""

    def __init__(self, store: Store, replayed: ReplayedSessions, on_changed: OnChanged, fresh_ms: int = PLAYING_FRESH_MS) -> None:
        self._store = store
        self._replayed = replayed
        self._fresh_ms = fresh_ms
        self._playing: dict[tuple[str, str, str], tuple[int, list[Playing]]] = {}
        on_changed(self.changed)

    def changed(self, session: Session) -> None:
        """Told of every game started or acted on here: a ranked daily
        attempt's start or end changes who is still playing."""
        header = session.header
        if header.ranked and header.daily is not None and (not session.log or session.result is not None):
            self._playing.clear()

    async def page(self, message: ts.Leaderboard, asker: PlayerRecord | None, now_ms: int) -> tc.LeaderboardPage:
        """A page of a day's board; ``around_me`` centres it on the asker."""
        store = self._store
        game_cls = known_game(message.game)
        try:
            options = engine.game_options(game_cls.id, **message.options)
        except EngineError as error:
            raise from_engine(error) from None
        day_board = (game_cls.id, daily_variant(game_cls, options), requested_day(message.date, now_ms).isoformat())
        board = board_name(*day_board, bot=message.bots)
        mine = await store.rank(board, asker.player_id) if asker is not None else None
        offset = message.offset
        if message.around_me and mine is not None:
            offset = max(0, mine.rank - 1 - message.limit // 2)
        entries = await store.leaderboard(board, offset, message.limit)
        total = await store.board_size(board)
        unranked: list[tc.UnrankedEntry] = []
        mine_apart = None
        if not message.bots:
            apart = await store.leaderboard(board_name(*day_board, apart=SAME_NETWORK), 0, message.limit)
            unranked = [_unranked(entry, SAME_NETWORK) for entry in apart]
            if asker is not None and mine is None:
                mine_apart = await _own_win_apart(store, day_board, asker)
        return tc.LeaderboardPage(
            id=message.id,
            board=board,
            game=game_cls.id,
            title=game_cls.title,
            variant=day_board[1],
            date=day_board[2],
            offset=offset,
            entries=[_entry(entry) for entry in entries],
            me=_entry(mine) if mine is not None else None,
            total=total or None,
            me_percentile=percentile(mine.rank, total) if mine is not None else None,
            playing=await self.still_playing(day_board, message.limit, now_ms) if message.playing and not message.bots else [],
            unranked=unranked,
            me_unranked=mine_apart,
        )

    async def still_playing(self, day_board: tuple[str, str, str], limit: int, now_ms: int) -> list[tc.PlayingEntry]:
        """The day's ranked attempts (people's) still being played, newest
        first, at most ``limit``: counts only, their times as of ``now_ms``."""
        read = self._playing.get(day_board)
        if read is None or not 0 <= now_ms - read[0] < self._fresh_ms:
            self._playing = {board: kept for board, kept in self._playing.items() if 0 <= now_ms - kept[0] < self._fresh_ms}
            read = self._playing[day_board] = (now_ms, await self._read_playing(day_board))
        return [
            tc.PlayingEntry(player_id=owner, name=name, time_ms=session.elapsed_ms(now_ms), actions=actions, cards_home=home)
            for session, owner, name, actions, home in read[1][:limit]
        ]

    async def _read_playing(self, day_board: tuple[str, str, str]) -> list[Playing]:
        """The attempts still played, newest first, as many as a page may show.  An attempt found ended leaves the
        index, so the next read reads past fewer of them."""
        store = self._store
        game_ids = [str(document["game_id"]) for document in await store.list_documents(ATTEMPT_KIND, daily_key(*day_board), PLAYING_SCAN)]
        sessions = await self._replayed.sessions(game_ids)
        playing: list[Session] = []
        for game_id in game_ids:
            session = sessions.get(game_id)
            if session is None or session.result is not None or session.header.status != "playing":
                await store.put_document(ATTEMPT_KIND, game_id, {}, 0)
            elif not session.header.bot and len(playing) < PAGE_LIMIT:
                playing.append(session)
        owners = await owners_of(store, [session.header.owner for session in playing])
        return [
            (session, owner.player_id, owner.name, counted_actions(session), session.counters.get("foundation", 0))
            for session, owner in zip(playing, owners)
        ]
