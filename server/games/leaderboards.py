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
played follow the wins, counts only (``_still_playing``).
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
from server.model.session import Session
from server.storage.base import Store


PLAYING_SCAN = 200
"""Attempts read, newest first, to find those still playing: a page of
unfinished attempts never costs more than this many reads of a log."""


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


async def _still_playing(store: Store, day_board: tuple[str, str, str], limit: int, now_ms: int) -> list[tc.PlayingEntry]:
    """The day's ranked attempts (people's) still being played, newest
    first, at most ``limit``: counts only.  An attempt found ended leaves
    the index, so the next page reads past fewer of them."""
    playing: list[tc.PlayingEntry] = []
    for document in await store.list_documents(ATTEMPT_KIND, daily_key(*day_board), PLAYING_SCAN):
        game_id = str(document["game_id"])
        loaded = await store.load_session(game_id)
        if loaded is None or loaded[0].status != "playing":
            await store.put_document(ATTEMPT_KIND, game_id, {}, 0)
            continue
        if loaded[0].bot:
            continue
        session = Session.replay(*loaded)
        player = await store.get_player(session.header.owner)
        playing.append(tc.PlayingEntry(
            player_id=session.header.owner, name=player.display_name if player else session.header.owner,
            time_ms=session.elapsed_ms(now_ms), actions=counted_actions(session),
            cards_home=session.counters.get("foundation", 0),
        ))
        if len(playing) == limit:
            break
    return playing


def percentile(rank: int, total: int) -> int:
    """The share of a board's wins a win at ``rank`` is at least as good as,
    in whole percent rounded down, never below 1: the first of any board is
    100, the last of a hundred is 1."""
    return max(1, 100 * (total - rank + 1) // max(total, rank))


async def leaderboard_page(
    store: Store, message: ts.Leaderboard, asker: PlayerRecord | None, now_ms: int
) -> tc.LeaderboardPage:
    """A page of a day's board; ``around_me`` centres it on the asker."""
    game_cls = known_game(message.game)
    try:
        options = engine.new_game(game_cls.id, game_cls.FIRST_DEAL, **message.options).options
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
        playing=await _still_playing(store, day_board, message.limit, now_ms) if message.playing and not message.bots else [],
        unranked=unranked,
        me_unranked=mine_apart,
    )
