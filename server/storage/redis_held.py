"""What the Redis store holds, listed whole for a copy to another store
(``Store.held``): a ``SCAN`` of the namespace's keys of one space (of
every master on a Redis Cluster), then each key's remaining lifetime in
one pipeline.  Only tools ask (``arena export``), never a request, so the
scan's cost (it reads every key name of the database) is theirs.
"""

from __future__ import annotations

import re
from typing import cast

from .base import HELD_SPACES, Held
from .redis_errors import guarded
from .redis_keys import text
from .redis_shared import RedisShared

KEY_PARTS = dict(zip(HELD_SPACES, ("player", "session", "board", "setting", "stock", "doc", "index")))
"""Each space's part of a key name after the namespace (``redis_keys``)."""
TAGGED = ("player", "session", "board")
"""Spaces whose own key is ``{name}`` alone; their other keys add a suffix."""
SCAN_COUNT = 1000


def _named(space: str, rest: str) -> tuple[str, str] | None:
    """(kind, name) of a key of ``space``, given what follows the space's
    prefix; None for another key of the same prefix (a log, a record)."""
    if space in TAGGED:
        if rest.startswith("{") and rest.endswith("}") and "}" not in rest[1:-1]:
            return "", rest[1:-1]
        return None
    if space in ("document", "index"):
        kind, colon, name = rest.partition(":")
        return (kind, name) if colon else None
    return "", rest


class RedisHeld(RedisShared):
    """``held``, ``stock_items`` and ``index_entries`` on Redis."""

    @guarded
    async def held(self, space: str) -> list[Held]:
        if space not in KEY_PARTS:
            raise ValueError(f"no such space: {space}")
        prefix = f"{self._keys.namespace}:{KEY_PARTS[space]}:"
        found: list[tuple[str, str, str]] = []
        async for key in self._redis.scan_iter(match=re.sub(r"([*?\[\]\\])", r"\\\1", prefix) + "*",
                                               count=SCAN_COUNT):
            name = text(key)
            named = _named(space, name[len(prefix):])
            if named is not None:
                found.append((*named, name))
        async with self._redis.pipeline(transaction=False) as pipe:
            for _, _, key in found:
                pipe.pttl(key)
            lifetimes = await pipe.execute() if found else []
        identity = space == "player"
        held = [
            Held(space, name, kind, None if milliseconds == -1 or identity else milliseconds / 1000)
            for (kind, name, _), milliseconds in zip(found, lifetimes)
            if milliseconds != -2
        ]
        return sorted(held, key=lambda item: (item.kind, item.name))

    @guarded
    async def stock_items(self, stock: str) -> list[str]:
        return [text(item) for item in await self._redis.lrange(self._keys.stock(stock), 0, -1)]

    @guarded
    async def index_entries(self, kind: str, index: str) -> list[tuple[str, float]]:
        members = cast(list[tuple[bytes, float]],
                       await self._redis.zrange(self._keys.index(kind, index), 0, -1, withscores=True))
        return sorted(((text(key), float(score)) for key, score in members), key=lambda item: (-item[1], item[0]))
