"""Limits per client address: new identities an hour, open connections,
the connection rate, the cool-down after a close for abuse, and the
trusted forwarded-for header, against a real server with real WebSocket
clients and raw sockets (to see a connection reset before any HTTP).

Time is the hub's injected monotonic clock (``ManualClock``): the tests
move it forward instead of sleeping, so none depends on machine speed.
A second address is 127.0.0.2, a loopback address of its own on Linux:
its connections count apart from 127.0.0.1's.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any, AsyncIterator, Callable, Coroutine

import pytest
from tests.server.arena_servers import make_settings
from tests.server.arena_wire import WireClient, http_exchange
from tests.storage_backends import ManualClock
from websockets.exceptions import InvalidStatus

from client import ArenaClient, CannotConnect, TooManyConnections, TooManyIdentities
from protocol import MSGPACK, ErrorCode
from protocol import to_server as ts
from server.net.admission import client_address, normalize
from server.transport.app import ArenaServer
from server.transport.listener import RECHECK_SECONDS
from server.runtime.settings import Settings
from server.storage.memory import MemoryStore

OTHER_ADDRESS = ("127.0.0.2", 0)
UPGRADE = (
    b"GET /ws HTTP/1.1\r\nHost: arena\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)
HEALTH = b"GET /healthz HTTP/1.1\r\nHost: arena\r\n\r\n"
DROPPED_SECONDS = 0.5
"""How long a connection attempt waits before the test calls it dropped
(on loopback the kernel makes a connection at once, and a dropped SYN is
retried only after a second)."""
SETTLE_SECONDS = 5.0
"""A liveness bound on the server noticing a closed connection (real
latencies are milliseconds)."""


def _on_uvloop(scenario: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """Run ``scenario`` on uvloop, which accepts connections in C, never
    through the listening socket's own ``accept`` that screens them."""
    uvloop = pytest.importorskip("uvloop")
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(scenario())


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


def _server(clock: ManualClock, **changes: Any) -> ArenaServer:
    return ArenaServer(make_settings(**changes), store=MemoryStore(), monotonic=clock)


def _resets(server: ArenaServer) -> float | None:
    """Connections the server reset as it accepted them, from /metrics' registry."""
    return server.hub.metrics.registry.get_sample_value("arena_connections_reset_total")


async def _answer(server: ArenaServer, request: bytes = UPGRADE, local: tuple[str, int] | None = None) -> bytes:
    """What the server writes back to ``request`` on a raw TCP connection
    before it closes: b"" for a connection reset as it was accepted,
    without a byte of HTTP (the reset may even beat the client's own
    notice that it connected)."""
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port, local_addr=local)
    except ConnectionResetError:
        return b""
    writer.write(request)
    try:
        async with asyncio.timeout(SETTLE_SECONDS):
            return await reader.readline()
    except ConnectionResetError:
        return b""
    finally:
        writer.close()
        with contextlib.suppress(ConnectionResetError):
            await writer.wait_closed()


async def _dropped(server: ArenaServer, local: tuple[str, int] | None = None) -> bool:
    """Whether a TCP connection to the server gets no answer at all: the
    kernel drops its SYN, so not even a reset comes back."""
    try:
        _, writer = await asyncio.wait_for(
            asyncio.open_connection("127.0.0.1", server.port, local_addr=local), DROPPED_SECONDS
        )
    except TimeoutError:
        return True
    writer.close()
    return False


@pytest.fixture
async def server(clock: ManualClock) -> AsyncIterator[ArenaServer]:
    """The documented limits per address (only the message rate is the
    tests' usual, so hellos are never rate limited)."""
    async with _server(clock) as running:
        yield running


async def _refused(url: str, **options: Any) -> tuple[int, dict[str, Any], str | None]:
    """Status, JSON body and Retry-After of a handshake the server refuses."""
    with pytest.raises(InvalidStatus) as refused:
        await WireClient.open(url, **options)
    response = refused.value.response
    return response.status_code, json.loads(response.body), response.headers.get("Retry-After")


async def _until(condition: Callable[[], bool]) -> None:
    """Wait for the server to reach ``condition`` (it notices a closed
    connection a moment after the client)."""
    async with asyncio.timeout(SETTLE_SECONDS):
        while not condition():
            await asyncio.sleep(0.01)


def test_the_defaults_are_the_documented_ones() -> None:
    settings = Settings()
    assert settings.identities_per_hour == 30 and settings.connections_per_address == 50
    assert settings.abuse_cooldown_seconds == 30.0 and settings.forwarded_for_header is None
    assert settings.connection_rate_per_second == 5.0 and settings.connection_burst == 50
    assert settings.tcp_connection_rate_per_second == 30.0 and settings.tcp_connection_burst == 500


async def test_the_identity_one_past_the_hourly_limit_is_refused(server: ArenaServer, clock: ManualClock) -> None:
    opened = [await WireClient.open(server.url) for _ in range(31)]
    welcomes = [await client.hello(name=f"p{number}") for number, client in enumerate(opened[:30])]
    assert len({welcome.player_id for welcome in welcomes}) == 30
    refusal: Any = await opened[30].request(ts.Hello, name="one-too-many")
    assert refusal.type == "error" and refusal.code == ErrorCode.TOO_MANY_IDENTITIES
    assert "30 new players this hour" in refusal.message
    assert (await opened[30].request(ts.Ping)).type == "pong", "the connection stays open"
    assert (await opened[30].request(ts.Hello, token=welcomes[0].token)).type == "welcome", "a token is free"
    other = await WireClient.open(server.url, local_addr=OTHER_ADDRESS)
    assert (await other.hello()).type == "welcome", "another address has its own allowance"

    late = await WireClient.open(server.url)
    refusal = await late.request(ts.Hello)
    assert refusal.code == ErrorCode.TOO_MANY_IDENTITIES
    clock.now += 3600 / 30
    assert (await late.request(ts.Hello)).type == "welcome", "one more identity every two minutes"
    for client in [*opened, other, late]:
        await client.close()


async def test_the_python_client_raises_too_many_identities(server: ArenaServer, clock: ManualClock) -> None:
    for _ in range(30):
        async with ArenaClient(server.url):
            pass
    with pytest.raises(TooManyIdentities):
        await ArenaClient(server.url).start()


async def test_the_connection_one_past_the_limit_is_refused_at_the_handshake(server: ArenaServer) -> None:
    opened = [await WireClient.open(server.url) for _ in range(50)]
    status, body, retry_after = await _refused(server.url)
    assert (status, body["type"], body["code"]) == (429, "error", ErrorCode.TOO_MANY_CONNECTIONS)
    assert "50 open connections" in body["message"] and retry_after == "1"
    other = await WireClient.open(server.url, local_addr=OTHER_ADDRESS)
    assert (await other.request(ts.Ping)).type == "pong", "another address is unaffected"
    with pytest.raises(CannotConnect) as refused:
        await ArenaClient(server.url).start()
    assert isinstance(refused.value.refusal, TooManyConnections)

    await opened.pop().close()
    await _until(lambda: server.hub.admission.open_connections["127.0.0.1"] == 49)
    again = await WireClient.open(server.url)
    assert (await again.request(ts.Ping)).type == "pong"
    for client in [*opened, other, again]:
        await client.close()
    await _until(lambda: not server.hub.admission.open_connections)


async def test_plain_http_requests_take_no_connection_slot(server: ArenaServer) -> None:
    opened = [await WireClient.open(server.url) for _ in range(50)]
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: arena\r\n\r\n")
    assert (await reader.readline()).startswith(b"HTTP/1.1 200")
    writer.close()
    assert server.hub.admission.open_connections == {"127.0.0.1": 50}
    for client in opened:
        await client.close()


async def test_a_client_closed_for_abuse_is_told_once_then_dropped_by_the_kernel_until_its_cool_down_ends(
    clock: ManualClock,
) -> None:
    await _dropped_while_cooling_down(clock)


def test_on_uvloop_the_kernel_drops_a_cooling_down_client_all_the_same(clock: ManualClock) -> None:
    _on_uvloop(lambda: _dropped_while_cooling_down(clock))


async def _dropped_while_cooling_down(clock: ManualClock) -> None:
    """A client closed for abuse hears why once; then the kernel drops its
    connections until its cool-down ends."""
    async with _server(clock, rate_per_second=1, rate_burst=2, rate_strikes=2) as server:
        flooder = await WireClient.open(server.url)
        frame = MSGPACK.encode(ts.Ping())
        for _ in range(5):
            await flooder.send_raw(frame)
        assert await flooder.closed() == 1008
        status, body, retry_after = await _refused(server.url)
        assert (status, body["code"], retry_after) == (429, ErrorCode.COOLING_DOWN, "30"), "the first hears why"
        assert server.listener.dropping == {"127.0.0.1"}
        assert await _dropped(server), "the next never becomes a connection: the kernel drops its SYN"
        assert _resets(server) == 0, "nothing reached the server to reset"
        other = await WireClient.open(server.url, local_addr=OTHER_ADDRESS)
        assert (await other.request(ts.Ping)).type == "pong", "another address is unaffected"

        clock.now += 29.5
        await asyncio.sleep(RECHECK_SECONDS)
        assert await _dropped(server), "the bar holds to its last moment"
        clock.now += 0.5
        await _until(lambda: not server.listener.dropping)
        back = await WireClient.open(server.url)
        assert (await back.request(ts.Ping)).type == "pong"
        await back.close()
        await other.close()
        assert server.hub.metrics.registry.get_sample_value("arena_errors_total", {"code": "cooling_down"}) == 1


async def test_a_second_close_for_abuse_is_a_new_cool_down_told_again(clock: ManualClock) -> None:
    async with _server(clock, rate_per_second=1, rate_burst=2, rate_strikes=2) as server:
        for _ in range(2):
            flooder = await WireClient.open(server.url)
            for _ in range(5):
                await flooder.send_raw(MSGPACK.encode(ts.Ping()))
            assert await flooder.closed() == 1008
            assert (await _refused(server.url))[1]["code"] == ErrorCode.COOLING_DOWN
            assert await _dropped(server)
            clock.now += 30
            await _until(lambda: not server.listener.dropping)


async def test_the_connection_told_may_be_plain_http_and_is_refused_all_the_same(clock: ManualClock) -> None:
    async with _server(clock, tcp_connection_burst=1) as server:
        assert (await _answer(server, HEALTH)).startswith(b"HTTP/1.1 200")
        assert (await _answer(server, HEALTH)).startswith(b"HTTP/1.1 429")
        assert await _answer(server, HEALTH) == b""


async def test_an_address_over_its_websocket_rate_is_refused_at_the_handshake_until_its_bucket_refills(
    clock: ManualClock,
) -> None:
    async with _server(clock, connection_burst=3, connection_rate_per_second=0.5) as server:
        opened = [await WireClient.open(server.url) for _ in range(3)]
        for _ in range(2):
            status, body, retry_after = await _refused(server.url)
            assert (status, body["code"], retry_after) == (429, ErrorCode.COOLING_DOWN, "2"), "every refusal says why"
            assert "WebSocket connections faster than the 0.5 a second" in body["message"] and "after 3 at once" in body["message"]
        assert _resets(server) == 0, "a handshake over the rate is answered, never reset"
        assert (await _answer(server, HEALTH)).startswith(b"HTTP/1.1 200"), "plain HTTP is not a WebSocket connection"
        other = await WireClient.open(server.url, local_addr=OTHER_ADDRESS)
        assert (await other.request(ts.Ping)).type == "pong", "another address is unaffected"
        assert (await opened[0].request(ts.Ping)).type == "pong", "connections already open are unaffected"

        clock.now += 1.9
        assert (await _refused(server.url))[0] == 429
        clock.now += 0.1
        again = await WireClient.open(server.url)
        assert (await again.request(ts.Ping)).type == "pong", "one more connection every two seconds"
        for client in [*opened, other, again]:
            await client.close()


async def test_plain_http_never_spends_the_websocket_rate(clock: ManualClock) -> None:
    async with _server(clock, connection_burst=2, connection_rate_per_second=0.001) as server:
        for _ in range(40):
            assert (await _answer(server, HEALTH)).startswith(b"HTTP/1.1 200")
        opened = [await WireClient.open(server.url) for _ in range(2)]
        assert (await _refused(server.url))[0] == 429, "the burst was two WebSocket connections, no more"
        for client in opened:
            await client.close()


async def test_an_address_over_its_tcp_flood_guard_is_reset_at_accept_until_its_bucket_refills(
    clock: ManualClock,
) -> None:
    await _flood_guard_resets(clock)


def test_on_uvloop_which_accepts_in_c_the_flood_guard_resets_each_connection_as_it_is_made(clock: ManualClock) -> None:
    _on_uvloop(lambda: _flood_guard_resets(clock))


async def _flood_guard_resets(clock: ManualClock) -> None:
    """Over the TCP flood guard, the first connection hears why and the next
    are reset unanswered, until the guard's bucket refills."""
    async with _server(clock, tcp_connection_burst=3, tcp_connection_rate_per_second=0.5) as server:
        opened = [await WireClient.open(server.url) for _ in range(2)]
        assert (await _answer(server, HEALTH)).startswith(b"HTTP/1.1 200"), "plain HTTP counts here"
        status, body, retry_after = await _refused(server.url)
        assert (status, body["code"], retry_after) == (429, ErrorCode.COOLING_DOWN, "2"), "the first over it hears why"
        assert "TCP connections faster than the 0.5 a second" in body["message"] and "after 3 at once" in body["message"]
        assert await _answer(server) == b"", "the next is reset unanswered"
        assert await _answer(server, HEALTH) == b""
        assert _resets(server) == 2
        other = await WireClient.open(server.url, local_addr=OTHER_ADDRESS)
        assert (await other.request(ts.Ping)).type == "pong", "another address is unaffected"
        assert (await opened[0].request(ts.Ping)).type == "pong", "connections already open are unaffected"

        clock.now += 1.9
        assert await _answer(server) == b""
        clock.now += 0.1
        again = await WireClient.open(server.url)
        assert (await again.request(ts.Ping)).type == "pong", "one more connection every two seconds"
        assert (await _refused(server.url))[1]["code"] == ErrorCode.COOLING_DOWN, "a new spell over it is told again"
        for client in [*opened, other, again]:
            await client.close()


async def test_admission_tells_over_plain_http_what_a_handshake_would_hear_spending_nothing(
    clock: ManualClock,
) -> None:
    async with _server(clock, connection_burst=1, connection_rate_per_second=0.25, connections_per_address=2) as server:
        for _ in range(3):
            status, _, body = await http_exchange(server.port, "GET /admission HTTP/1.1")
            assert (status, json.loads(body)) == (200, {"type": "admitted"}), "asking spends no token"
        first = await WireClient.open(server.url)
        status, headers, body = await http_exchange(server.port, "GET /admission HTTP/1.1")
        refusal = json.loads(body)
        assert (status, refusal["code"], headers["retry-after"]) == (429, ErrorCode.COOLING_DOWN, "4")
        assert headers["cache-control"] == "no-store"
        assert refusal["message"] == (await _refused(server.url))[1]["message"], "the handshake hears the same"
        clock.now += 4
        second = await WireClient.open(server.url)
        status, _, body = await http_exchange(server.port, "GET /admission HTTP/1.1")
        assert (status, json.loads(body)["code"]) == (429, ErrorCode.TOO_MANY_CONNECTIONS)
        assert server.hub.metrics.registry.get_sample_value("arena_errors_total", {"code": "too_many_connections"}) == 0
        for client in (first, second):
            await client.close()


async def test_behind_a_proxy_the_connection_rate_counts_the_header_address_at_the_handshake(
    clock: ManualClock,
) -> None:
    def via(address: str) -> dict[str, Any]:
        return {"additional_headers": {"X-Forwarded-For": address}}

    async with _server(clock, connection_burst=2, forwarded_for_header="X-Forwarded-For") as server:
        opened = [await WireClient.open(server.url, **via("198.51.100.7")) for _ in range(2)]
        for _ in range(2):
            status, body, _ = await _refused(server.url, **via("198.51.100.7"))
            assert (status, body["code"]) == (429, ErrorCode.COOLING_DOWN), "told every time: the proxy is not reset"
        assert _resets(server) == 0
        opened.append(await WireClient.open(server.url, **via("198.51.100.8")))
        opened.append(await WireClient.open(server.url, **via("198.51.100.8")))
        assert (await opened[-1].request(ts.Ping)).type == "pong", "the proxy's other clients are unaffected"
        for client in opened:
            await client.close()


async def test_the_forwarded_for_header_counts_only_when_configured(clock: ManualClock) -> None:
    proxied: dict[str, Any] = {"additional_headers": {"X-Forwarded-For": "10.9.9.9, 198.51.100.7"}}
    spoofed: dict[str, Any] = {"additional_headers": {"X-Forwarded-For": "203.0.113.1, 198.51.100.7"}}
    elsewhere: dict[str, Any] = {"additional_headers": {"X-Forwarded-For": "198.51.100.8"}}
    async with _server(clock, connections_per_address=1, forwarded_for_header="X-Forwarded-For") as server:
        first = await WireClient.open(server.url, **proxied)
        status, body, _ = await _refused(server.url, **spoofed)
        assert (status, body["code"]) == (429, ErrorCode.TOO_MANY_CONNECTIONS), "the proxy's entry counts, not the client's"
        second = await WireClient.open(server.url, **elsewhere)
        direct = await WireClient.open(server.url)
        assert server.hub.admission.open_connections == {"198.51.100.7": 1, "198.51.100.8": 1, "127.0.0.1": 1}
        for client in (first, second, direct):
            await client.close()
    async with _server(clock, connections_per_address=1) as server:
        first = await WireClient.open(server.url, **proxied)
        status, body, _ = await _refused(server.url, **elsewhere)
        assert (status, body["code"]) == (429, ErrorCode.TOO_MANY_CONNECTIONS), "an unconfigured header is ignored"
        await first.close()


@pytest.mark.parametrize(
    ("address", "key"),
    [
        ("192.0.2.7", "192.0.2.7"),
        (" 192.0.2.7 ", "192.0.2.7"),
        ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"),
        ("[2001:db8:1:2:bbbb::9]", "2001:db8:1:2::/64"),
        ("::ffff:192.0.2.7", "192.0.2.7"),
        ("proxy-said-this", "proxy-said-this"),
    ],
)
def test_an_address_counts_by_its_ipv4_address_or_ipv6_network(address: str, key: str) -> None:
    assert normalize(address) == key


def test_the_forwarded_header_is_read_only_when_trusted_and_its_last_entry_wins() -> None:
    assert client_address("127.0.0.1", ["10.0.0.1, 192.0.2.7"], None) == "127.0.0.1"
    assert client_address("127.0.0.1", ["10.0.0.1, 192.0.2.7"], "X-Forwarded-For") == "192.0.2.7"
    assert client_address("127.0.0.1", ["10.0.0.1", "192.0.2.8"], "X-Forwarded-For") == "192.0.2.8"
    assert client_address("127.0.0.1", [], "X-Forwarded-For") == "127.0.0.1"
    assert client_address(None, [], None) == "unknown"
