"""The memory store's identities: a player's lifetime, its devices and
their tokens, link codes and attempt counters (``MemoryStore`` inherits
``MemoryIdentities``).

A player's devices are written (``_devices[player_id]``) at their first
change or the first use of a token; until then the player's own token is
its one device (``first_device``), as in the other back ends.
"""

from __future__ import annotations

import copy
import dataclasses

from .devices_base import Device, DeviceStore, first_device
from .memory_deadlines import due_in_front, rewritten
from server.model.records import DayResult, PlayerRecord, Record
from server.runtime.clock import Clock


class MemoryIdentities(DeviceStore):
    """Identities kept in dicts; ``MemoryStore`` holds the rest."""

    def __init__(self, clock: Clock, identity_seconds: int | None) -> None:
        self._clock = clock
        self._identity_seconds = identity_seconds
        self._renewed: dict[str, float] = {}
        self._players: dict[str, PlayerRecord] = {}
        self._by_token: dict[str, str] = {}
        self._devices: dict[str, dict[str, Device]] = {}
        self._link_codes: dict[str, tuple[str, float]] = {}
        self._attempts: dict[str, tuple[int, float]] = {}
        self._records: dict[str, dict[str, Record]] = {}
        self._vegas: dict[str, int] = {}
        self._settled: dict[str, dict[str, float]] = {}
        self._days: dict[str, dict[str, DayResult]] = {}

    def _now(self) -> float:
        """The clock's time in seconds, the unit of every lifetime here."""
        return self._clock() / 1000

    def _renew(self, player_id: str) -> None:
        rewritten(self._renewed, player_id, self._now())

    def _identities_due(self) -> int:
        """Drop every identity unused too long; how many."""
        seconds, now = self._identity_seconds, self._now()
        if seconds is None:
            return 0
        due = due_in_front(self._renewed, lambda renewed: renewed + seconds <= now)
        return sum(not self._identity_alive(player_id) for player_id in due)

    def _identity_alive(self, player_id: str) -> bool:
        """False, having dropped all of it, for an identity unused too long."""
        renewed = self._renewed.get(player_id)
        if renewed is None or self._identity_seconds is None or renewed + self._identity_seconds > self._now():
            return True
        del self._renewed[player_id]
        player = self._players.pop(player_id, None)
        if player is not None:
            self._by_token.pop(player.token_hash, None)
        for device in self._devices.pop(player_id, {}).values():
            self._by_token.pop(device.token_hash, None)
        self._records.pop(player_id, None)
        self._vegas.pop(player_id, None)
        self._settled.pop(player_id, None)
        self._days.pop(player_id, None)
        return False

    def _expire_codes(self) -> int:
        """Drop the link codes and attempt counters whose time is over."""
        now = self._now()
        codes = [code for code, (_, deadline) in self._link_codes.items() if deadline <= now]
        counters = [name for name, (_, deadline) in self._attempts.items() if deadline <= now]
        for code in codes:
            del self._link_codes[code]
        for name in counters:
            del self._attempts[name]
        return len(codes) + len(counters)

    def _written(self, player_id: str) -> dict[str, Device] | None:
        """The player's devices, written now if they were not (None: no such player)."""
        player = self._players.get(player_id) if self._identity_alive(player_id) else None
        if player is None:
            return None
        if player_id not in self._devices:
            first = first_device(player)
            self._devices[player_id] = {first.device_id: first}
        return self._devices[player_id]

    async def device_by_token_hash(self, token_hash: str, seen_ms: int | None) -> tuple[PlayerRecord, Device] | None:
        player_id = self._by_token.get(token_hash)
        devices = None if player_id is None else self._written(player_id)
        if player_id is None or devices is None:
            return None
        device = next((device for device in devices.values() if device.token_hash == token_hash), None)
        if device is None:
            return None
        if seen_ms is not None:
            device.last_seen_ms = seen_ms
        self._renew(player_id)
        return copy.copy(self._players[player_id]), dataclasses.replace(device)

    async def player_by_token_hash(self, token_hash: str) -> PlayerRecord | None:
        found = await self.device_by_token_hash(token_hash, None)
        return None if found is None else found[0]

    async def devices(self, player_id: str) -> list[Device]:
        player = self._players.get(player_id) if self._identity_alive(player_id) else None
        if player is None:
            return []
        kept = self._devices.get(player_id, {"": first_device(player)})
        return sorted((dataclasses.replace(device) for device in kept.values()),
                      key=lambda device: (device.created_ms, device.device_id))

    async def add_device(self, player_id: str, device: Device, limit: int) -> bool:
        devices = self._written(player_id)
        if devices is None or len(devices) >= limit:
            return False
        devices[device.device_id] = dataclasses.replace(device)
        self._by_token[device.token_hash] = player_id
        self._renew(player_id)
        return True

    async def rename_device(self, player_id: str, device_id: str, name: str) -> None:
        device = (self._written(player_id) or {}).get(device_id)
        if device is not None:
            device.name = name

    async def revoke_device(self, player_id: str, device_id: str) -> bool:
        device = (self._written(player_id) or {}).pop(device_id, None)
        if device is None:
            return False
        self._by_token.pop(device.token_hash, None)
        return True

    async def rotate_device_token(self, player_id: str, device_id: str, token_hash: str) -> bool:
        device = (self._written(player_id) or {}).get(device_id)
        if device is None:
            return False
        self._by_token.pop(device.token_hash, None)
        device.token_hash = token_hash
        self._by_token[token_hash] = player_id
        return True

    async def put_link_code(self, code_hash: str, player_id: str, keep_seconds: int) -> None:
        self._link_codes[code_hash] = (player_id, self._now() + keep_seconds)

    async def take_link_code(self, code_hash: str) -> str | None:
        taken = self._link_codes.pop(code_hash, None)
        return None if taken is None or taken[1] <= self._now() else taken[0]

    async def count_attempt(self, counter: str, window_seconds: int) -> int:
        now = self._now()
        count, deadline = self._attempts.get(counter, (0, now + window_seconds))
        if deadline <= now:
            count, deadline = 0, now + window_seconds
        self._attempts[counter] = (count + 1, deadline)
        return count + 1
