"""Admission per client address: what identities and connections cost.

One policy, kept here and nowhere else, with no I/O and no clock of its
own (``monotonic`` is injected, so tests advance time instead of
sleeping).  The adapter (``server.transport.app``) asks ``screen`` when the kernel
hands over a new TCP connection, ``open`` at the WebSocket handshake and
calls ``close`` when the TCP connection ends; the core (``server.core``)
asks ``new_identity`` before ``hello`` creates a player and calls
``cool_down`` when it closes a connection for abuse.

- **Screening at accept**: before a byte of HTTP is read, a connection
  from an address in its cool-down, or over its TCP flood guard
  (``tcp_connection_burst`` at once, then
  ``tcp_connection_rate_per_second``: a token bucket, far above what a
  browser opens), is reset unanswered.  Each further request on a
  kept-alive connection costs the guard a token too
  (``another_request``): it is what a new connection would have cost.  Refusing is then the cheapest
  thing the server does (a reconnect loop once cost it more in refused
  handshakes than every honest player together).  Only the first refused
  connection of each episode (a cool-down, or a spell over the guard) is
  let through, to be told why with HTTP 429 and ``Retry-After``: an
  honest client learns when to come back, a loop learns nothing more.
- **WebSocket connections**: the WebSocket handshakes of an address
  count against ``connection_burst`` at once, then
  ``connection_rate_per_second`` (a token bucket), and it holds at most
  ``connections_per_address`` at once; one more is refused at the
  handshake (HTTP 429, ``cooling_down`` with ``Retry-After``, or
  ``too_many_connections``) before any WebSocket exists.  Plain HTTP (the
  web client's files, ``/healthz``) counts against neither: reloading a
  page costs its address one WebSocket handshake, however many files it
  loads, so a household behind one NAT address is not refused for
  ordinary use.  ``verdict`` tells a page, over plain HTTP, whether its
  next handshake would be admitted, without spending anything.
- **New identities**: ``hello`` without a token may create
  ``identities_per_hour`` players per address per hour (a token bucket:
  that many at once, then one every ``3600 / identities_per_hour``
  seconds); one more is refused with ``too_many_identities`` and the
  connection stays open.  A ``hello`` with a token is free.
- **Cool-down**: a connection the server closes with 1008 (message rate
  abuse) bars its address for ``abuse_cooldown_seconds`` (``cooling_down``),
  so a reconnect loop cannot reset the rate limit by opening a fresh
  connection with a fresh bucket.  The bar starts when the server
  decides to close, before the client can even see the close frame.
  Running over a connection rate is answered with the same code: both
  mean "wait ``Retry-After`` seconds".  Once told, an address in its
  cool-down is handed to ``on_told_barred``: the listener has the kernel
  drop it until the bar ends (``server.transport.listener``), so the rest of a
  reconnect loop's knocks never reach the server at all.

The address is the socket's peer address, or, when the operator names a
trusted header (``forwarded_for_header``, e.g. ``X-Forwarded-For``), the
last entry of that header: the one the operator's own proxy appended
(entries before it were written by the client and prove nothing).  At
accept only the socket's peer is known, which behind a proxy is the
proxy itself: so with a trusted header, screening resets only addresses
barred by their own socket address (clients that bypass the proxy), the
TCP flood guard is the proxy's job, and the WebSocket rate counts by the
header's address at the handshake as always, each refusal a 429.  An IPv6 address counts by its /64
network, because one host usually holds a whole /64 and could otherwise
take a fresh address per connection.
"""

from __future__ import annotations

import functools
import ipaddress
import math
from dataclasses import dataclass
from typing import Callable, Sequence

from protocol import ErrorCode
from server.net.ratelimit import SWEEP_SECONDS, BucketTable
from server.runtime.settings import Settings

SECONDS_PER_HOUR = 3600.0
UNKNOWN_ADDRESS = "unknown"
"""The address of a connection whose peer is unknown (a Unix socket)."""
IPV6_PREFIX = 64
NORMALIZED_ADDRESSES = 65536
"""Addresses whose key ``normalize`` remembers (a few MB at most)."""
SocketPeer = tuple[str, int]
"""A TCP connection's peer: host and port, which tell its connections apart."""


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


@functools.lru_cache(maxsize=NORMALIZED_ADDRESSES)
def normalize(address: str) -> str:
    """The key an address counts under: an IPv4 address as is, an IPv6
    address by its /64 (an IPv4-mapped one as its IPv4 address), anything
    that does not parse as an address as its stripped text.  Memoised:
    screening normalizes the peer of every connection accepted, a flood's
    included, and parsing is most of what screening would cost."""
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
        self.connection_rate = settings.connection_rate_per_second
        self.connection_burst = settings.connection_burst
        self.tcp_rate = settings.tcp_connection_rate_per_second
        self.tcp_burst = settings.tcp_connection_burst
        self.cooldown_seconds = settings.abuse_cooldown_seconds
        self.trusted_header = settings.forwarded_for_header
        self.monotonic = monotonic
        now = monotonic()
        self.open_connections: dict[str, int] = {}
        self._identities = BucketTable(self.identity_limit, self.identity_limit / SECONDS_PER_HOUR, now)
        self._connections = BucketTable(self.connection_burst, self.connection_rate, now)
        """WebSocket handshakes, per address."""
        self._tcp_connections = BucketTable(self.tcp_burst, self.tcp_rate, now)
        """TCP connections of any kind, per socket address (the flood guard at accept)."""
        self._barred_until: dict[str, float] = {}
        self._told_barred: set[str] = set()
        """Addresses already sent their 429 for the cool-down they are in."""
        self._told_over_rate: set[str] = set()
        """Addresses already sent their 429 for their spell over the TCP flood guard."""
        self._notices: dict[SocketPeer, tuple[Denial, float]] = {}
        """Connections let through screening only to be told, with a 429 to
        their request, why their address is refused (and for how long)."""
        self._swept = now
        self.on_told_barred: Callable[[str], None] = lambda host: None
        """Given the socket address of a connection let through to hear its
        cool-down: from then on its address need not reach the server."""

    def barred_seconds(self, host: str) -> float:
        """Seconds left of the cool-down of the address of socket peer
        ``host`` (0: none), by this admission's clock."""
        return max(0.0, self._barred_until.get(normalize(host), 0.0) - self.monotonic())

    def address(self, peer_host: str | None, forwarded: Sequence[str]) -> str:
        """``client_address`` under this server's trusted header."""
        return client_address(peer_host, forwarded, self.trusted_header)

    def screen(self, peer: SocketPeer) -> bool:
        """Whether a new TCP connection from ``peer`` may be read at all
        (False: reset it unanswered).  Called for every connection, honest
        or not, so it stays a few dictionary look-ups."""
        now = self.monotonic()
        self._sweep(now)
        address = normalize(peer[0])
        barred_until = self._barred_until.get(address, now)
        if barred_until > now:
            told = self._tell_once(self._told_barred, address, peer, self._cooling_down(barred_until - now), now)
            if told:
                self.on_told_barred(peer[0])
            return told
        if self.trusted_header is not None:
            return True
        wait = self._tcp_connections.take(address, now)
        if wait is None:
            self._told_over_rate.discard(address)
            return True
        return self._tell_once(self._told_over_rate, address, peer, self._over_tcp_rate(wait), now)

    def another_request(self, host: str) -> Denial | None:
        """A further request on a kept-alive connection from socket address
        ``host``: it costs the TCP flood guard a token, as the connection
        it saves would have, so keeping connections alive lets no loop ask
        faster than connecting would.  Refused (the connection's last
        answer is then this 429), its address counts as told."""
        now = self.monotonic()
        address = normalize(host)
        barred_until = self._barred_until.get(address, now)
        if barred_until > now:
            self._told_barred.add(address)
            return self._cooling_down(barred_until - now)
        if self.trusted_header is not None:
            return None
        wait = self._tcp_connections.take(address, now)
        if wait is None:
            return None
        self._told_over_rate.add(address)
        return self._over_tcp_rate(wait)

    def notice(self, peer: SocketPeer) -> Denial | None:
        """The refusal ``screen`` let ``peer``'s connection through to hear,
        whatever it asks for (then forgotten)."""
        notice = self._notices.pop(peer, None)
        return notice[0] if notice is not None else None

    def open(self, address: str) -> Denial | None:
        """Admit one more WebSocket connection from ``address`` (it then
        holds a slot until ``close``), or say why not."""
        now = self.monotonic()
        self._sweep(now)
        denial = self._refusal(address, now)
        if denial is None:
            self._connections.take(address, now)
            self.open_connections[address] = self.open_connections.get(address, 0) + 1
        elif self._barred_until.get(address, now) > now:
            self._told_barred.add(address)
        return denial

    def verdict(self, address: str) -> Denial | None:
        """What ``open`` would answer ``address`` now, spending nothing: a
        page refused its WebSocket (whose failure a browser hides) asks
        over plain HTTP what it is waiting for."""
        return self._refusal(address, self.monotonic())

    def _refusal(self, address: str, now: float) -> Denial | None:
        barred_until = self._barred_until.get(address, now)
        if barred_until > now:
            return self._cooling_down(barred_until - now)
        held = self.open_connections.get(address, 0)
        if held >= self.connection_limit:
            return self._too_many(held)
        wait = self._connections.wait(address, now)
        return None if wait is None else self._over_websocket_rate(wait)

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
        closed for abuse (1008).  A new bar is a new episode: its first
        refused connection is told why."""
        self._barred_until[address] = self.monotonic() + self.cooldown_seconds
        self._told_barred.discard(address)

    def _tell_once(self, told: set[str], address: str, peer: SocketPeer, denial: Denial, now: float) -> bool:
        """Let the first refused connection of an episode through to hear
        ``denial`` (``told`` then holds its address); reset the rest at
        accept (False)."""
        if address in told:
            return False
        told.add(address)
        self._notices[peer] = (denial, now)
        return True

    def _cooling_down(self, left: float) -> Denial:
        return Denial(
            ErrorCode.COOLING_DOWN,
            f"a connection from your address was closed for abuse; connect again in {math.ceil(left)} s",
            left,
        )

    def _too_many(self, held: int) -> Denial:
        return Denial(
            ErrorCode.TOO_MANY_CONNECTIONS,
            f"your address already holds {held} open connections, the most this server allows; close one first",
            0,
        )

    def _over_websocket_rate(self, wait: float) -> Denial:
        return self._over_rate(wait, "WebSocket connections", self.connection_rate, self.connection_burst)

    def _over_tcp_rate(self, wait: float) -> Denial:
        return self._over_rate(wait, "TCP connections", self.tcp_rate, self.tcp_burst)

    @staticmethod
    def _over_rate(wait: float, kind: str, rate: float, burst: int) -> Denial:
        return Denial(
            ErrorCode.COOLING_DOWN,
            f"your address opens {kind} faster than the {rate:g} a second this server allows "
            f"(after {burst} at once); connect again in {math.ceil(wait)} s",
            wait,
        )

    def _sweep(self, now: float) -> None:
        """Forget expired bars, notices no handshake came for and buckets
        that have filled up again (a full bucket is what a fresh address
        gets anyway), so the tables hold only addresses active lately."""
        if now - self._swept < SWEEP_SECONDS:
            return
        self._swept = now
        self._barred_until = {address: until for address, until in self._barred_until.items() if until > now}
        self._notices = {peer: notice for peer, notice in self._notices.items() if now - notice[1] < SWEEP_SECONDS}
        self._identities.sweep(now)
        self._connections.sweep(now)
        self._tcp_connections.sweep(now)
        self._told_barred = {address for address in self._told_barred if address in self._barred_until}
        self._told_over_rate = {address for address in self._told_over_rate if address in self._tcp_connections}
