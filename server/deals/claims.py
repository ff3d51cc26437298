"""The fair-play rules that keep their facts in the store: one ranked
attempt per player and daily deal (``claim_ranked``), no practice before
that attempt has ended (``check_practice``), and one public place per
client address (``public_bars``).

Each is a first-writer-wins write, atomic across processes, so two
processes starting the same player's attempt agree on which one ranks.
The policy they belong to, and the pure rules beside them, are
``server.model.fair_play``'s.
"""

from __future__ import annotations

from datetime import date

from protocol import ErrorCode
from server.model.fair_play import NEW_PLAYER, SAME_NETWORK
from server.model.records import PlayerRecord
from server.model.refusal import Refusal
from server.net.admission import normalize
from server.runtime.settings import Settings
from server.storage.base import Store


def _claim_name(key: str, player_id: str) -> str:
    return f"ranked/{key}/{player_id}"


class StaleDeal(Refusal):
    """The store no longer holds the daily record a claim was made on
    (wiped or replaced since this process read it): nothing was claimed,
    and, if nobody catches it to claim again on the record the store
    holds, the request is refused as ``storage_unavailable``, to be tried
    again once the process has noticed (``server.storage.epoch``)."""

    def __init__(self, setting: str) -> None:
        super().__init__(
            ErrorCode.STORAGE_UNAVAILABLE,
            "the store was wiped or replaced since this daily deal was read; nothing was started, try again",
        )
        self.setting = setting


async def claim_ranked(
    store: Store, key: str, player_id: str, game_id: str, keep_seconds: int, record: tuple[str, str]
) -> bool:
    """Claim ``game_id`` as the player's ranked attempt at the daily ``key``;
    True for the first claim only (first writer wins, atomically, across
    processes).  The claim expires when the day's leaderboard closes.
    ``record`` is the setting of the day's record the game is dealt from
    and its nonce (random, so it names one fixing of the record): the
    claim is written only while the stored record holds that nonce
    (``Store.claim``), else ``StaleDeal``, so nothing ranks on a deal the
    store no longer has."""
    setting, nonce = record
    owner = await store.claim(_claim_name(key, player_id), game_id, keep_seconds, while_holding=(setting, nonce))
    if owner is None:
        raise StaleDeal(setting)
    return owner == game_id


async def release_claim(store: Store, key: str, player_id: str, game_id: str) -> None:
    """Give up the claim of ``game_id``, a game that was never played (a
    race game whose start did not happen); a claim of another game stays."""
    await store.replace_setting(_claim_name(key, player_id), game_id, None, 1)


async def ranked_attempt(store: Store, key: str, player_id: str) -> str | None:
    """The game id of the player's ranked attempt at ``key``, if any."""
    return await store.get_setting(_claim_name(key, player_id))


async def ranked_attempts(store: Store, key: str, player_ids: list[str]) -> dict[str, str]:
    """``ranked_attempt`` of each player, in one read: a board's players' attempts, by player."""
    names = {_claim_name(key, player_id): player_id for player_id in player_ids}
    return {names[name]: game_id for name, game_id in (await store.get_settings(names)).items()}


async def check_practice(store: Store, key: str, player_id: str, day: date) -> None:
    """Refuse practice of a daily deal before its ranked attempt has ended."""
    claimed = await ranked_attempt(store, key, player_id)
    loaded = await store.load_session(claimed) if claimed is not None else None
    if loaded is None or loaded[0].status == "playing":
        raise Refusal(
            ErrorCode.UNAVAILABLE,
            f"the daily deal of {day} can be practised once your ranked attempt at it has ended",
            reason="ranked_first",
        )


async def public_bars(
    store: Store, settings: Settings, key: str, day_start_ms: int, player: PlayerRecord, address: str | None,
    game_id: str, keep_seconds: int,
) -> list[str]:
    """Why the ranked attempt ``game_id`` at the daily ``key``, just
    claimed, may not count on the public board (empty: it may).  Every
    ranked attempt takes one of its address's public places while one is
    free (``public_attempts_per_address``), whoever plays it, so the
    identity that looks at a deal uses up the place a second identity from
    the same address would replay it in (a bot's attempt too, though a bot
    ranks on its own board and is told no reason).  The places are first-writer-wins
    settings, atomic across processes, kept as long as the claim; an
    address counts as ``server.net.admission`` counts it (an IPv6 /64 as one)."""
    bars = []
    if address is not None and settings.public_attempts_per_address:
        network = normalize(address)
        for place in range(settings.public_attempts_per_address):
            holder = await store.setting(_place_name(key, network, place), game_id, keep_seconds=keep_seconds)
            if holder == game_id:
                break
        else:
            bars.append(SAME_NETWORK)
    if player.created_ms >= day_start_ms and not settings.public_new_players:
        bars.append(NEW_PLAYER)
    return [] if player.bot else bars


def _place_name(key: str, network: str, place: int) -> str:
    return f"public/{key}/{network}/{place}"


async def release_public_places(store: Store, settings: Settings, key: str, address: str | None, game_id: str) -> None:
    """Give up the public places ``game_id`` took at ``address`` (a race
    game whose start did not happen), as ``release_claim`` gives up its
    claim; a place another game holds stays."""
    if address is None:
        return
    network = normalize(address)
    for place in range(settings.public_attempts_per_address):
        await store.replace_setting(_place_name(key, network, place), game_id, None, 1)
