"""One player, many devices: link codes, the list of devices, revoking a
device and rotating a device's token (docs/protocol.md, "Devices").

Decisions made here, and why:
- A link code is ten characters of Crockford base32 (50 random bits),
  shown ``XXXXX-XXXXX`` and read back whatever its case, dashes or spaces
  (and ``I``/``L`` as 1, ``O`` as 0, as Crockford reads them).  Only its
  hash is stored, taken in one atomic step (``Store.take_link_code``), so
  it works once even if two processes redeem it at once.
- Guessing is bounded by counters in the store, shared by every process:
  each redeem an address tries, right or wrong, counts against
  ``link_redeems_per_hour``, checked before the code is looked at, and a
  player asks for at most ``link_codes_per_hour`` codes.  A wrong, used or
  expired code is one answer, ``bad_link_code``, so a try learns nothing
  beyond "no" (the arithmetic: docs/protocol.md, "Devices").
- Revoking a device or rotating its token is first written to the store,
  which every process reads at ``hello``; then published on the
  ``devices`` channel, which every process follows from its first
  ``hello``, so a connection made with the old token is closed (4001)
  wherever it is.  A process whose subscription was lost checks each of
  its connections' devices against the store when it is back.
"""

from __future__ import annotations

import asyncio
import json
from typing import Callable, Iterable

from protocol import ErrorCode
from protocol import to_client as tc
from protocol import to_server as ts
from server.games.lobby import hash_token
from server.model.records import PlayerRecord
from server.model.refusal import Refusal
from server.net.outbox import Outbox
from server.net.peer import Peer, require_player
from server.runtime.entropy import Entropy
from server.runtime.settings import Settings
from server.storage.base import Store, Subscription
from server.storage.devices_base import Device
from server.model.codes import LINK_CODE

CHANNEL = "devices"
CLOSE_REVOKED = 4001
HOUR = 3600


def _entry(device: Device, peer: Peer) -> tc.DeviceEntry:
    return tc.DeviceEntry(device_id=device.device_id, name=device.name, created=device.created_ms,
                          last_seen=device.last_seen_ms, current=device.device_id == peer.device_id)


class Devices:
    """The device requests and the revocations between processes; the
    lobby's ``hello`` asks ``redeem`` and ``follow_revocations``.
    ``peers`` are this process's connections; ``origin`` names it."""

    def __init__(
        self, settings: Settings, store: Store, clock: Callable[[], int], entropy: Entropy, outbox: Outbox,
        peers: Callable[[], Iterable[Peer]], origin: str,
    ) -> None:
        self._settings = settings
        self._store = store
        self._clock = clock
        self._entropy = entropy
        self._outbox = outbox
        self._peers = peers
        self._origin = origin
        self._subscribing = asyncio.Lock()
        self._subscription: Subscription | None = None
        self._task: asyncio.Task[None] | None = None

    # ------------------------------------------------------------ hello

    async def redeem(self, peer: Peer, text: str, name: str | None) -> tuple[PlayerRecord, str]:
        """The player a link code names and the new device's token; the
        connection becomes that device."""
        address_tries = await self._store.count_attempt(f"link-redeem:{peer.address}", HOUR)
        if address_tries > self._settings.link_redeems_per_hour:
            raise Refusal(ErrorCode.TOO_MANY_ATTEMPTS,
                          "too many link codes tried from this address within the hour; try again later")
        code = LINK_CODE.normalize(text)
        player_id = None if code is None else await self._store.take_link_code(hash_token(code))
        player = None if player_id is None else await self._store.get_player(player_id)
        if player is None:
            raise Refusal(ErrorCode.BAD_LINK_CODE, "this link code is wrong, used or expired; ask for a new one")
        token = self._entropy.token_urlsafe(32)
        now = self._clock()
        device = Device(self._entropy.new_id("d_"), name or "", now, now, hash_token(token))
        if not await self._store.add_device(player.player_id, device, self._settings.max_devices):
            raise Refusal(ErrorCode.TOO_MANY_DEVICES, "that player has as many devices as it may; revoke one first")
        peer.device_id = device.device_id
        return player, token

    async def follow_revocations(self) -> None:
        """Follow the ``devices`` channel from now on (once per process):
        awaited before ``hello`` reads a token, so no revocation written
        after the read goes unheard."""
        async with self._subscribing:
            if self._subscription is None:
                self._subscription = await self._store.subscribe(CHANNEL, self.check_open_devices)
                self._task = asyncio.create_task(self._follow(self._subscription), name="device revocations")

    async def _follow(self, subscription: Subscription) -> None:
        async for payload in subscription:
            news = json.loads(payload)
            self._close(news["player_id"], news["device_id"], news.get("spare"))

    async def check_open_devices(self) -> None:
        """After a lost subscription: close the connections whose device is gone."""
        for peer in list(self._peers()):
            if peer.player is not None and peer.device_id is not None:
                kept = {device.device_id for device in await self._store.devices(peer.player.player_id)}
                if peer.device_id not in kept:
                    peer.close(CLOSE_REVOKED, "this device was revoked")

    def _close(self, player_id: str, device_id: str, spare: str | None) -> None:
        for peer in list(self._peers()):
            if (peer.player is not None and peer.player.player_id == player_id and peer.device_id == device_id
                    and self._name(peer) != spare):
                peer.close(CLOSE_REVOKED, "this device's token was revoked or rotated")

    def _name(self, peer: Peer) -> str:
        return f"{self._origin}/{peer.number}"

    async def _announce(self, player_id: str, device_id: str, spare: Peer | None = None) -> None:
        """Close the device's connections here at once, and on every other process."""
        spared = None if spare is None else self._name(spare)
        self._close(player_id, device_id, spared)
        news = {"player_id": player_id, "device_id": device_id, "spare": spared}
        await self._store.publish(CHANNEL, json.dumps(news).encode())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        if self._subscription is not None:
            await self._subscription.close()

    # ------------------------------------------------------------ requests

    async def link_device(self, peer: Peer, message: ts.LinkDevice) -> None:
        player = require_player(peer)
        settings = self._settings
        if len(await self._store.devices(player.player_id)) >= settings.max_devices:
            raise Refusal(ErrorCode.TOO_MANY_DEVICES,
                          f"you have {settings.max_devices} devices, as many as you may; revoke one first")
        if await self._store.count_attempt(f"link-codes:{player.player_id}", HOUR) > settings.link_codes_per_hour:
            raise Refusal(ErrorCode.TOO_MANY_ATTEMPTS,
                          f"at most {settings.link_codes_per_hour} link codes an hour; try again later")
        code = LINK_CODE.code_from(self._entropy.token_bytes(LINK_CODE.random_bytes))
        await self._store.put_link_code(hash_token(code), player.player_id, settings.link_code_seconds)
        expires = self._clock() + settings.link_code_seconds * 1000
        self._outbox.send(peer, tc.LinkCode(id=message.id, code=LINK_CODE.shown(code), expires=expires))

    async def list_devices(self, peer: Peer, message: ts.ListDevices) -> None:
        player = require_player(peer)
        devices = await self._store.devices(player.player_id)
        self._outbox.send(peer, tc.DeviceList(id=message.id, devices=[_entry(device, peer) for device in devices]))

    async def revoke_device(self, peer: Peer, message: ts.RevokeDevice) -> None:
        player = require_player(peer)
        if not await self._store.revoke_device(player.player_id, message.device_id):
            raise Refusal(ErrorCode.DEVICE_NOT_FOUND, f"you have no device {message.device_id!r}")
        self._outbox.send(peer, tc.DeviceRevoked(id=message.id, device_id=message.device_id))
        await self._announce(player.player_id, message.device_id)

    async def rotate_token(self, peer: Peer, message: ts.RotateToken) -> None:
        player = require_player(peer)
        token = self._entropy.token_urlsafe(32)
        device_id = peer.device_id or ""
        if not await self._store.rotate_device_token(player.player_id, device_id, hash_token(token)):
            raise Refusal(ErrorCode.DEVICE_NOT_FOUND, "this connection's device was revoked; say hello again")
        self._outbox.send(peer, tc.TokenRotated(id=message.id, device_id=device_id, token=token))
        await self._announce(player.player_id, device_id, spare=peer)
