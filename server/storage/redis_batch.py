"""Automatic pipelining: calls made in the same event-loop turn travel to
Redis together.

Every player action is one log append (which publishes the entry for the
other server processes from inside its script), and every race event
one publish, so those two commands are the store's hot path.
redis-py spends most of a command's cost in Python (taking a connection
from the pool, packing, one round trip); sending the appends (or the
publishes) that many players made at the same moment as one
non-transactional pipeline pays those costs once per batch: about three
times the appends per second with 100 players; batching the publishes
too took the actions per second through the server with 100 players
(``bench/storage.py``, scenario ``server``) from about 0.6 to about 0.9
of the memory store's figure.  A lone call still goes out at once
(one loop turn later), so latency does not grow.

Batching changes no semantics: each command stays atomic on its own, and
the commands of one batch run in the order they were made, so the
messages one process publishes on a channel keep their order.  If the
whole batch fails to reach Redis, every caller gets the error.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from typing import Any, Sequence

from redis.commands.core import AsyncScript
from redis.exceptions import NoScriptError

from .redis_pool import RedisClient

_Call = tuple[Sequence[Any], asyncio.Future[Any]]


class _TurnBatcher(ABC):
    """Collects calls until the loop turn ends, then runs them as one batch."""

    def __init__(self, client: RedisClient) -> None:
        self._client = client
        self._pending: list[_Call] = []
        self._flush_tasks: set[asyncio.Task[None]] = set()

    async def _submit(self, arguments: Sequence[Any]) -> Any:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self._pending.append((arguments, future))
        if len(self._pending) == 1:
            loop.call_soon(self._start_flush)
        return await future

    def _start_flush(self) -> None:
        batch, self._pending = self._pending, []
        task = asyncio.get_running_loop().create_task(self._flush(batch))
        self._flush_tasks.add(task)
        task.add_done_callback(self._flush_tasks.discard)

    async def _flush(self, batch: list[_Call]) -> None:
        try:
            results = await self._execute([arguments for arguments, _ in batch])
        except Exception as exc:
            for _, future in batch:
                if not future.done():
                    future.set_exception(exc)
            return
        except BaseException:
            for _, future in batch:
                future.cancel()
            raise
        for (_, future), result in zip(batch, results):
            if future.done():
                continue
            if isinstance(result, Exception):
                future.set_exception(result)
            else:
                future.set_result(result)

    async def _pipeline(self, commands: list[Sequence[Any]]) -> list[Any]:
        """Each command's reply, or the error it got, in order."""
        async with self._client.pipeline(transaction=False) as pipe:
            for command in commands:
                pipe.execute_command(*command)
            return list(await pipe.execute(raise_on_error=False))

    @abstractmethod
    async def _execute(self, batch: list[Sequence[Any]]) -> list[Any]:
        """The result (or exception) of each call of ``batch``, in order."""


class ScriptBatcher(_TurnBatcher):
    """Runs ``script`` for many callers, one pipeline per loop turn."""

    def __init__(self, client: RedisClient, script: AsyncScript) -> None:
        super().__init__(client)
        self._script = script

    async def __call__(self, keys: Sequence[Any], args: Sequence[Any]) -> Any:
        return await self._submit(["EVALSHA", self._script.sha, len(keys), *keys, *args])

    async def _execute(self, batch: list[Sequence[Any]]) -> list[Any]:
        results = await self._pipeline(batch)
        missing = [i for i, result in enumerate(results) if isinstance(result, NoScriptError)]
        if missing:
            # Redis forgot the script (restart, SCRIPT FLUSH); the calls
            # answered NOSCRIPT did not run, so load it and rerun just those.
            await self._client.script_load(self._script.script)
            for i, result in zip(missing, await self._pipeline([batch[i] for i in missing])):
                results[i] = result
        return results


class PublishBatcher(_TurnBatcher):
    """PUBLISH (or, on a cluster, SPUBLISH) for many callers, one pipeline per loop turn."""

    def __init__(self, client: RedisClient, command: str) -> None:
        super().__init__(client)
        self._command = command

    async def __call__(self, channel: bytes, payload: bytes) -> int:
        return int(await self._submit([self._command, channel, payload]))

    async def _execute(self, batch: list[Sequence[Any]]) -> list[Any]:
        return await self._pipeline(batch)
