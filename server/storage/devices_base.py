"""The part of the store interface about a player's devices, one-time
link codes and the counters of attempts that rate-limit them; ``Store``
inherits it, so every back end implements it and the contract suite runs
it on each.

A player has devices, each with its own token, kept only as a hash (as
``PlayerRecord.token_hash``), and the token of any device is the player
(``device_by_token_hash``; ``Store.player_by_token_hash`` answers for
every device's token too).  A player stored before devices existed has
none written: its one token is its first device (``first_device``), which
is written as a device at the first change of its devices or the first
use of its token, so no player needs a migration and none is lost.

A device's token stops resolving when it is revoked or rotated, at once
and in every process, since every process reads the store.  Devices are
part of the identity: they are renewed with it and go with it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

from server.model.records import PlayerRecord

FIRST_DEVICE_PREFIX = "d_"
FIRST_DEVICE_ID_LENGTH = 12
"""The first device's id is its prefix and this many hex digits of its
first token's hash: every back end derives the same id, without a write."""


@dataclass
class Device:
    """One of a player's devices.  ``name`` is what the device called
    itself (``hello``'s ``device``; empty until it says); ``last_seen_ms``
    the time of the latest ``hello`` with its token (None: never since it
    was written)."""

    device_id: str
    name: str
    created_ms: int
    last_seen_ms: int | None
    token_hash: str


def first_device(player: PlayerRecord) -> Device:
    """The device a player's own token (``PlayerRecord.token_hash``) is
    until its devices are written."""
    device_id = FIRST_DEVICE_PREFIX + player.token_hash[:FIRST_DEVICE_ID_LENGTH]
    return Device(device_id, "", player.created_ms, None, player.token_hash)


class DeviceStore(ABC):
    """Devices, link codes and attempt counters; see the module docstring."""

    @abstractmethod
    async def device_by_token_hash(self, token_hash: str, seen_ms: int | None) -> tuple[PlayerRecord, Device] | None:
        """The player and device of a token, renewing the identity's
        lifetime as ``player_by_token_hash`` does, and noting ``seen_ms``
        as the device's last sight (None: not a sighting); None for a
        token no live device has."""

    @abstractmethod
    async def devices(self, player_id: str) -> list[Device]:
        """The player's devices, oldest first ([] for no such player)."""

    @abstractmethod
    async def add_device(self, player_id: str, device: Device, limit: int) -> bool:
        """Give the player ``device``, whose token resolves from now on;
        False (nothing written) if the player is gone or has ``limit``
        devices already."""

    @abstractmethod
    async def rename_device(self, player_id: str, device_id: str, name: str) -> None:
        """Change a device's name (of no such device, nothing)."""

    @abstractmethod
    async def revoke_device(self, player_id: str, device_id: str) -> bool:
        """Remove a device; its token no longer resolves.  False: no such device."""

    @abstractmethod
    async def rotate_device_token(self, player_id: str, device_id: str, token_hash: str) -> bool:
        """Give a device a new token in place of its old one, in one step:
        no moment where both resolve.  False: no such device."""

    @abstractmethod
    async def put_link_code(self, code_hash: str, player_id: str, keep_seconds: int) -> None:
        """Keep a link code (its hash) for ``keep_seconds``: redeeming it
        makes a new device of ``player_id``."""

    @abstractmethod
    async def take_link_code(self, code_hash: str) -> str | None:
        """The player of a live link code, removing it in the same atomic
        step, so of two processes redeeming one code at once only one gets
        it; None for an unknown, used or expired code."""

    @abstractmethod
    async def count_attempt(self, counter: str, window_seconds: int) -> int:
        """Count one attempt under ``counter``; how many it has counted in
        its current window, which starts at its first attempt and lasts
        ``window_seconds`` (a fixed window shared by every process)."""
