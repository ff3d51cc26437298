"""What each social part is built on: the settings, the store's social
records, the clock, its stream of the entropy and the outbox."""

from __future__ import annotations

from typing import Callable

from server.net.outbox import Outbox
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
