"""Admission per client address: what identities and connections cost.

One policy, kept here and nowhere else, with no I/O and no clock of its
own (``monotonic`` is injected, so tests advance time instead of
sleeping).  The adapter (``server.app``) asks ``open`` at the WebSocket
handshake and calls ``close`` when the TCP connection ends; the core
(``server.core``) asks ``new_identity`` before ``hello`` creates a
player and calls ``cool_down`` when it closes a connection for abuse.

- **Open connections**: an address holds at most
  ``connections_per_address`` at once; one more is refused at the
  handshake (HTTP 429, ``too_many_connections``) before any WebSocket
  exists, the cheapest refusal there is.
- **New identities**: ``hello`` without a token may create
  ``identities_per_hour`` players per address per hour (a token bucket:
  that many at once, then one every ``3600 / identities_per_hour``
  seconds); one more is refused with ``too_many_identities`` and the
  connection stays open.  A ``hello`` with a token is free.
- **Cool-down**: a connection the server closes with 1008 (message rate
  abuse) bars its address for ``abuse_cooldown_seconds``: every
  handshake meanwhile is refused (HTTP 429, ``cooling_down``), so a
  reconnect loop cannot reset the rate limit by opening a fresh
  connection with a fresh bucket.  The bar starts when the server
  decides to close, before the client can even see the close frame.

The address is the socket's peer address, or, when the operator names a
trusted header (``forwarded_for_header``, e.g. ``X-Forwarded-For``), the
last entry of that header: the one the operator's own proxy appended
(entries before it were written by the client and prove nothing).  An
IPv6 address counts by its /64 network, because one host usually holds a
whole /64 and could otherwise take a fresh address per connection.
"""

from __future__ import annotations

import ipaddress
import math
from dataclasses import dataclass
from typing import Callable, Sequence

from protocol import ErrorCode
from server.ratelimit import SWEEP_SECONDS, BucketTable
from server.settings import Settings

SECONDS_PER_HOUR = 3600.0
UNKNOWN_ADDRESS = "unknown"
"""The address of a connection whose peer is unknown (a Unix socket)."""
IPV6_PREFIX = 64


@dataclass(frozen=True)
class Denial:
    """Why an address is turned away, and in how many seconds asking
    again can succeed (0: as soon as one of its connections closes)."""

    code: ErrorCode
    message: str
    retry_after: float

    @property
    def retry_after_header(self) -> str:
        """``Retry-After`` in whole seconds, rounded up (HTTP has no fractions)."""
        return str(max(1, math.ceil(self.retry_after)))


def normalize(address: str) -> str:
    """The key an address counts under: an IPv4 address as is, an IPv6
    address by its /64 (an IPv4-mapped one as its IPv4 address), anything
    that does not parse as an address as its stripped text."""
    text = address.strip()
    try:
        parsed = ipaddress.ip_address(text.removeprefix("[").removesuffix("]"))
    except ValueError:
        return text or UNKNOWN_ADDRESS
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network((parsed, IPV6_PREFIX), strict=False))
    return str(parsed)


def client_address(peer_host: str | None, forwarded: Sequence[str], trusted_header: str | None) -> str:
    """The address a connection counts under.  ``forwarded`` holds the
    values of ``trusted_header`` in the request (a list, since a header may
    repeat); it is read only when the operator configured that header, and
    its last comma-separated entry wins.  Without the header (or without
    a value in it) the socket's peer address counts."""
    if trusted_header is not None:
        entries = [entry for value in forwarded for entry in value.split(",") if entry.strip()]
        if entries:
            return normalize(entries[-1])
    return normalize(peer_host) if peer_host else UNKNOWN_ADDRESS


class Admission:
    """The admission state of every address this process has seen lately."""

    def __init__(self, settings: Settings, monotonic: Callable[[], float]) -> None:
        self.connection_limit = settings.connections_per_address
        self.identity_limit = settings.identities_per_hour
        self.cooldown_seconds = settings.abuse_cooldown_seconds
        self.trusted_header = settings.forwarded_for_header
        self.monotonic = monotonic
        now = monotonic()
        self.open_connections: dict[str, int] = {}
        self._identities = BucketTable(self.identity_limit, self.identity_limit / SECONDS_PER_HOUR, now)
        self._barred_until: dict[str, float] = {}
        self._swept = now

    def address(self, peer_host: str | None, forwarded: Sequence[str]) -> str:
        """``client_address`` under this server's trusted header."""
        return client_address(peer_host, forwarded, self.trusted_header)

    def open(self, address: str) -> Denial | None:
        """Admit one more connection from ``address`` (it then holds a slot
        until ``close``), or say why not."""
        now = self.monotonic()
        self._sweep(now)
        barred_until = self._barred_until.get(address, now)
        if barred_until > now:
            return Denial(
                ErrorCode.COOLING_DOWN,
                f"a connection from your address was closed for abuse; connect again in {math.ceil(barred_until - now)} s",
                barred_until - now,
            )
        held = self.open_connections.get(address, 0)
        if held >= self.connection_limit:
            return Denial(
                ErrorCode.TOO_MANY_CONNECTIONS,
                f"your address already holds {held} open connections, the most this server allows; close one first",
                0,
            )
        self.open_connections[address] = held + 1
        return None

    def close(self, address: str) -> None:
        """A connection ``open`` admitted has ended: its slot is free."""
        held = self.open_connections.pop(address) - 1
        if held:
            self.open_connections[address] = held

    def new_identity(self, address: str) -> Denial | None:
        """Spend one of ``address``'s new identities, or say when the next is due."""
        now = self.monotonic()
        self._sweep(now)
        wait = self._identities.take(address, now)
        if wait is None:
            return None
        return Denial(
            ErrorCode.TOO_MANY_IDENTITIES,
            f"your address has created {self.identity_limit} new players this hour, the most this server allows; "
            f"come back with your token, or try again in {math.ceil(wait)} s",
            wait,
        )

    def cool_down(self, address: str) -> None:
        """Bar ``address`` for the cool-down: one of its connections is being
        closed for abuse (1008)."""
        self._barred_until[address] = self.monotonic() + self.cooldown_seconds

    def _sweep(self, now: float) -> None:
        """Forget expired bars and identity buckets that have filled up
        again (a full bucket is what a fresh address gets anyway), so the
        tables hold only addresses active within the last hour."""
        if now - self._swept < SWEEP_SECONDS:
            return
        self._swept = now
        self._barred_until = {address: until for address, until in self._barred_until.items() if until > now}
        self._identities.sweep(now)
