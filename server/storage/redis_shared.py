"""The Redis store's state that server processes share besides games and
players: settings (and claims on them), stocks of prepared items, and
JSON documents with their indexes.  Kept apart from ``redis`` so the
game log and the player records, the hot path, read on their own; the
decisions behind both are in ``server.storage.redis``'s docstring.
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any, Iterable

from .redis_base import RedisBase
from .redis_errors import guarded
from .redis_keys import dumps, text


class RedisShared(RedisBase):
    """Settings, stocks and documents on Redis, each a single command, a
    MULTI transaction or a short script."""

    # ------------------------------------------------------------ settings

    @guarded
    async def setting(self, name: str, default: str, keep_seconds: int | None = None) -> str:
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.set(self._keys.setting(name), default, nx=True, ex=keep_seconds)
            pipe.get(self._keys.setting(name))
            _, value = await pipe.execute()
        return text(value)

    @guarded
    async def claim(self, name: str, value: str, keep_seconds: int, *, while_holding: tuple[str, str]) -> str | None:
        held_name, text_held = while_holding
        key, held_key = self._keys.setting(name), self._keys.setting(held_name)
        if not self._cluster:
            stored = await self._claim(keys=[key, held_key], args=[value, keep_seconds, text_held])
            return None if stored is None else text(stored)
        if not await self._holds(held_key, text_held):
            return None
        stored_text = await self.setting(name, value, keep_seconds)
        if not await self._holds(held_key, text_held):
            await self.replace_setting(name, value, None, 0)
            return None
        return stored_text

    async def _holds(self, key: str, wanted: str) -> bool:
        held = await self._redis.get(key)
        return held is not None and wanted in text(held)

    @guarded
    async def get_setting(self, name: str) -> str | None:
        value = await self._redis.get(self._keys.setting(name))
        return None if value is None else text(value)

    @guarded
    async def get_settings(self, names: Iterable[str]) -> dict[str, str]:
        wanted = list(dict.fromkeys(names))
        values = await self._each("GET", [self._keys.setting(name) for name in wanted])
        return {name: text(value) for name, value in zip(wanted, values) if value is not None}

    @guarded
    async def replace_setting(self, name: str, expected: str, value: str | None, keep_seconds: int) -> bool:
        replaced = await self._replace_setting(keys=[self._keys.setting(name)], args=[expected, value or "", keep_seconds])
        return bool(replaced)

    # ------------------------------------------------------------ stocks

    @guarded
    async def stock_push(self, stock: str, item: str) -> int:
        return int(await self._redis.rpush(self._keys.stock(stock), item))

    @guarded
    async def stock_pop(self, stock: str) -> str | None:
        value = await self._redis.lpop(self._keys.stock(stock))
        return None if value is None else text(value)

    @guarded
    async def stock_size(self, stock: str) -> int:
        return int(await self._redis.llen(self._keys.stock(stock)))

    # ------------------------------------------------------------ documents

    @guarded
    async def put_document(self, kind: str, key: str, value: dict[str, Any], keep_seconds: int | None = None) -> None:
        document_key = self._keys.document(kind, key)
        if keep_seconds is not None and keep_seconds <= 0:
            await self._redis.delete(document_key)
        else:
            await self._redis.set(document_key, dumps(value), ex=keep_seconds)

    @guarded
    async def get_document(self, kind: str, key: str) -> dict[str, Any] | None:
        value = await self._redis.get(self._keys.document(kind, key))
        return None if value is None else json.loads(value)

    @guarded
    async def get_documents(self, kind: str, keys: Iterable[str]) -> dict[str, dict[str, Any]]:
        wanted = list(dict.fromkeys(keys))
        values = await self._each("GET", [self._keys.document(kind, key) for key in wanted])
        return {key: json.loads(value) for key, value in zip(wanted, values) if value is not None}

    @guarded
    async def index_document(self, kind: str, index: str, key: str, score: float) -> None:
        document_ttl = await self._redis.pttl(self._keys.document(kind, key))
        await self._index(keys=[self._keys.index(kind, index)], args=[key, score, document_ttl])

    @guarded
    async def list_documents(self, kind: str, index: str, limit: int = 50) -> list[dict[str, Any]]:
        return await self._newest(self._keys.index(kind, index), partial(self._keys.document, kind), limit)
