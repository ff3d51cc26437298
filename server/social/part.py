"""What each social part is built on: the settings, the store's social
records, the clock, its stream of the entropy and the outbox; and the
limit on typed codes that name nothing, which friend codes and league
invite codes share."""

from __future__ import annotations

from typing import Callable

from protocol import ErrorCode
from server.model.refusal import Refusal
from server.net.outbox import Outbox
from server.net.peer import Peer, require_player
from server.runtime.entropy import Entropy
from server.runtime.settings import Settings
from server.storage.base import Store
from server.storage.social import SocialRecords


class SocialPart:
    """The inputs the social parts share."""

    def __init__(self, settings: Settings, store: Store, clock: Callable[[], int], entropy: Entropy, outbox: Outbox) -> None:
        self._settings = settings
        self._store = store
        self._records = SocialRecords(store)
        self._now = clock
        self._entropy = entropy
        self._outbox = outbox


HOUR = 3600


class FailedLookups:
    """Typed codes that named nothing, counted per player and per client
    address within the last hour.  Past either limit every lookup is
    refused, right or wrong, so neither one player nor many players at one
    address can enumerate codes; a right code is never counted."""

    def __init__(self, records: SocialRecords, clock: Callable[[], int], entropy: Entropy, window: str,
                 per_player: int, per_address: int, refused: ErrorCode, message: str) -> None:
        """``window``: the name the counting windows start with, one per kind
        of code; ``refused`` and ``message``: what a lookup over a limit is told."""
        self._records = records
        self._now = clock
        self._entropy = entropy
        self._window = window
        self._limits = (per_player, per_address)
        self._refused = refused
        self._message = message

    async def check(self, peer: Peer) -> None:
        """Raise the refusal while the player or its address is over its limit."""
        for window, limit in zip(self._windows(peer), self._limits):
            if await self._records.recent(window, limit) >= limit:
                raise Refusal(self._refused, self._message)

    async def count(self, peer: Peer) -> None:
        """A code from ``peer`` named nothing."""
        now, event = self._now(), self._entropy.token_hex(8)
        for window in self._windows(peer):
            await self._records.count(window, event, now, HOUR)

    def _windows(self, peer: Peer) -> tuple[str, str]:
        return f"{self._window}/{require_player(peer).player_id}", f"{self._window}@{peer.address}"
