"""Server messages about a player's devices: the link code another device
redeems, the list of devices, a revocation done and a rotated token.
``to_client`` re-exports them, so a client reads every server message
from one module and one union."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .parts import Event, Part


class LinkCode(Event):
    """Reply to ``link_device``: type ``code`` on the other device (its
    ``hello``'s ``link_code``) before ``expires``; it works once."""

    type: Literal["link_code"] = "link_code"
    code: str = Field(description="ten characters shown as XXXXX-XXXXX (Crockford base32: no I, L, O or U)")
    expires: int = Field(description="when the code stops working (ms since the epoch, server time)")


class DeviceEntry(Part):
    """One of your devices.  ``name`` is what the device called itself in
    ``hello`` (empty until it does); ``last_seen`` the time of its latest
    ``hello`` (null: none since it was linked); ``current``: this connection."""

    device_id: str
    name: str
    created: int
    last_seen: int | None
    current: bool


class DeviceList(Event):
    """Reply to ``devices``: your devices, oldest first."""

    type: Literal["device_list"] = "device_list"
    devices: list[DeviceEntry]


class DeviceRevoked(Event):
    """Reply to ``revoke_device``: that device's token is ``bad_token`` from
    now on.  Revoking this connection's own device closes it next (4001)."""

    type: Literal["device_revoked"] = "device_revoked"
    device_id: str


class TokenRotated(Event):
    """Reply to ``rotate_token``: this device's new token (keep it secret;
    the old one is ``bad_token`` from now on)."""

    type: Literal["token_rotated"] = "token_rotated"
    device_id: str
    token: str
