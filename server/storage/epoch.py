"""Noticing a wiped or replaced store.

Every process caches what it read from the store: the day's daily records,
the rooms of games and races it serves.  If Redis loses its data (a
``FLUSHALL``, a restart without persistence, a failover to an empty
replica), those caches describe a store that no longer exists: one process
would keep the old daily deal while another fixed a new one, and rooms
would keep answering ``watch`` with games nobody can load.

So the store holds an epoch: a random token under the setting ``epoch``,
first writer wins.  Each process remembers the token it saw and reads it
again every ``store_epoch_check_seconds``.  A wiped store has no token;
the first process to look writes a new one, and every process then sees a
token other than its own: the store was replaced, and it drops its caches
(``Hub.store_replaced``).  All of them agree on the new token, so they all
notice, once.

Between a wipe and that check a process still holds the old daily
records; what keeps it from ranking anyone on them is the ranked claim,
which names its record and is written only while the store holds it
(``Store.claim``, ``server.deals.claims.claim_ranked``): a stale process
learns at its first claim, and drops its records there and then.
"""

from __future__ import annotations

from server.runtime.entropy import Entropy
from server.storage.base import Store

EPOCH_SETTING = "epoch"


class StoreEpoch:
    """The epoch this process last saw; a new one is drawn from ``entropy``."""

    def __init__(self, entropy: Entropy) -> None:
        self._entropy = entropy
        self.seen: str | None = None
        self.changes = 0

    async def check(self, store: Store) -> bool:
        """Read the store's epoch (writing one if it has none: a read
        first, so a store that takes no writes is still checked); True
        when it differs from the one seen before, that is, the store was
        replaced."""
        current = await store.get_setting(EPOCH_SETTING)
        if current is None:
            current = await store.setting(EPOCH_SETTING, self._entropy.token_hex(16))
        replaced = self.seen is not None and current != self.seen
        self.seen = current
        if replaced:
            self.changes += 1
        return replaced
