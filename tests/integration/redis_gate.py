"""A TCP gate between server processes and a real redis-server that can
stop at a chosen write: the deterministic way to kill a server between
two of its Redis writes.

Watching ``MONITOR`` and killing when the n-th write shows is a race (the
server may send the next one before the kill lands); the gate instead
reads the commands on their way (RESP arrays, pipelined or not), counts
the ones that write, and holds the n-th back: nothing from then on
reaches Redis until the test has killed the server and ``cut`` the
connections, so Redis holds exactly the writes before it.  A ``MULTI``
counts as one write (its queued commands and ``EXEC`` go or stay with
it); every script call counts, as scripts here write.
"""

from __future__ import annotations

import asyncio
import contextlib

from tests.redis_server import free_port

WRITES = frozenset({
    b"SET", b"SETNX", b"DEL", b"UNLINK", b"EXPIRE", b"PEXPIRE", b"PERSIST", b"ZADD", b"ZREM", b"ZREMRANGEBYRANK",
    b"ZREMRANGEBYSCORE", b"RPUSH", b"LPUSH", b"LPOP", b"RPOP", b"HSET", b"HDEL", b"HINCRBY", b"SADD", b"SREM",
    b"INCR", b"INCRBY", b"EVAL", b"EVALSHA", b"MULTI", b"FLUSHALL", b"FLUSHDB",
})


def _command(buffer: bytes) -> tuple[int, list[bytes]] | None:
    """The first complete RESP array in ``buffer``: its length in bytes and
    its arguments; None until it is complete."""
    end = buffer.find(b"\r\n")
    if end < 0:
        return None
    assert buffer[:1] == b"*", f"not a RESP command: {buffer[:40]!r}"
    count, at, arguments = int(buffer[1:end]), end + 2, []
    for _ in range(count):
        end = buffer.find(b"\r\n", at)
        if end < 0:
            return None
        size = int(buffer[at + 1:end])
        start = end + 2
        if len(buffer) < start + size + 2:
            return None
        arguments.append(buffer[start:start + size])
        at = start + size + 2
    return at, arguments


class WriteGate:
    """The gate; see the module docstring.  ``url`` is what the server
    connects to; ``count_from_now`` starts a count of writes, ``hold_at``
    arms the hold, ``held`` is set once a write is held."""

    def __init__(self, redis_port: int) -> None:
        self._redis_port = redis_port
        self.port = free_port()
        self.writes = 0
        self.held = asyncio.Event()
        self.held_command: list[bytes] = []
        self._hold_at: int | None = None
        self._frozen = False
        self._server: asyncio.Server | None = None
        self._links: set[tuple[asyncio.StreamWriter, asyncio.StreamWriter, asyncio.Task[None], asyncio.Task[None]]] = set()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", self.port)

    def count_from_now(self, hold_at: int | None = None) -> None:
        self.writes, self._hold_at = 0, hold_at
        self.held.clear()

    async def cut(self) -> None:
        """Drop every connection (after the server's kill) and let new ones through."""
        for client, upstream, *tasks in list(self._links):
            for task in tasks:
                task.cancel()
            for writer in (client, upstream):
                writer.close()
        self._links.clear()
        self._frozen, self._hold_at = False, None

    async def close(self) -> None:
        await self.cut()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def _accept(self, client_reader: asyncio.StreamReader, client: asyncio.StreamWriter) -> None:
        upstream_reader, upstream = await asyncio.open_connection("127.0.0.1", self._redis_port)
        to_redis = asyncio.create_task(self._commands(client_reader, upstream))
        to_client = asyncio.create_task(self._pipe(upstream_reader, client))
        self._links.add((client, upstream, to_redis, to_client))

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.close()

    async def _commands(self, reader: asyncio.StreamReader, upstream: asyncio.StreamWriter) -> None:
        buffer, in_multi = b"", False
        with contextlib.suppress(ConnectionError):
            while data := await reader.read(65536):
                buffer += data
                while (parsed := _command(buffer)) is not None:
                    size, arguments = parsed
                    name = arguments[0].upper()
                    if name in WRITES and not in_multi:
                        self.writes += 1
                        if self.writes == self._hold_at:
                            self._frozen, self.held_command = True, arguments
                            self.held.set()
                    in_multi = (in_multi or name == b"MULTI") and name not in (b"EXEC", b"DISCARD")
                    if self._frozen:
                        await asyncio.Event().wait()
                    upstream.write(buffer[:size])
                    buffer = buffer[size:]
                await upstream.drain()
        upstream.close()
