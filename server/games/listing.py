"""The live games a lobby lists (``list_games``), read once for every asker.

Listing the newest live games needs the store's newest headers, each
owner's name and, for each asker, whether an owner blocked them.  Read
afresh for each request, that was 2–6 ms of the server's time at a few
hundred live games (more with more, and more on SQLite, whose every read
crosses to its thread): twenty to ninety moves' worth, which any
connection may ask for twenty times a second.  A listing is therefore
read at most once per ``fresh_seconds`` for the whole process, and each
request only filters it:

- The newest ``SESSION_SCAN_LIMIT`` live games with their summaries are read
  once, by whichever request finds the listing stale; requests that
  arrive meanwhile wait for that same read.
- Whether an owner blocked an asker is asked of the store once per pair
  and listing (``HiddenFrom``), for the owners an asker's page reaches,
  so one connection asking again and again costs one set of lookups a
  window, however often it asks.
- A game started (``new_game``) or ended in this process makes the
  listing stale at once (``changed``), so its own player sees it come
  and go; a race's games, games of other processes, and a block made
  anywhere, show within ``fresh_seconds``.  Watching a game checks the block anew, so a list a
  second old never lets a blocked player in.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Callable

from protocol import to_client as tc
from server.games.owners import owners_of
from server.games.play import SESSION_SCAN_LIMIT
from server.games.room import summarize
from server.games.watching import HiddenFrom
from server.model.records import SessionHeader
from server.model.session import Session
from server.storage.base import Store

FRESH_SECONDS = 1.0
"""How old a listing may be before a request reads it again."""

OnChanged = Callable[[Callable[[Session], None]], None]
"""Registers a listener for every game started or acted on in this process
(``Delivery.on_changed``)."""


@dataclass(frozen=True)
class Listed:
    """A live game as every asker's list shows it."""

    game: str
    owner: str
    shown: dict[str, Any]
    """Its ``GameSummary`` as plain data, dumped once for every reply."""


@dataclass
class _Read:
    """One reading of the listing, and the answers about blocks asked against it."""

    generation: int
    at: float
    entries: list[Listed]
    hidden: dict[tuple[str, str], bool] = field(default_factory=dict)


class LiveListing:
    """The process's listing of live games; see the module docstring."""

    def __init__(
        self, store: Store, monotonic: Callable[[], float], on_changed: OnChanged,
        fresh_seconds: float = FRESH_SECONDS,
    ) -> None:
        self._store = store
        self._monotonic = monotonic
        self._fresh_seconds = fresh_seconds
        self._generation = 0
        self._last: _Read | None = None
        self._reading: tuple[int, asyncio.Future[_Read]] | None = None
        on_changed(self.changed)

    def changed(self, session: Session) -> None:
        """Told of every game started or acted on here: a start or an end
        makes the listing stale."""
        if not session.log or session.result is not None:
            self._generation += 1

    async def page(self, viewer: str | None, game: str | None, limit: int, hidden_from: HiddenFrom) -> list[dict[str, Any]]:
        """The newest ``limit`` live games (of ``game`` only, if given) that
        ``viewer`` may see, newest first, as ``GameSummary`` data."""
        read = await self._current()
        chosen = [entry for entry in read.entries if game in (None, entry.game)]
        if viewer is not None:
            chosen = await self._visible(read, chosen, viewer, limit, hidden_from)
        return [entry.shown for entry in chosen[:limit]]

    async def _current(self) -> _Read:
        last = self._last
        if last is not None and last.generation == self._generation and self._monotonic() - last.at < self._fresh_seconds:
            return last
        reading = self._reading
        if reading is None or reading[0] != self._generation or reading[1].done():
            reading = self._reading = (self._generation, asyncio.ensure_future(self._read(self._generation)))
        return await asyncio.shield(reading[1])

    async def _read(self, generation: int) -> _Read:
        at = self._monotonic()
        headers = await self._store.live_sessions(limit=SESSION_SCAN_LIMIT)
        owner_ids = list({header.owner for header in headers})
        owners = dict(zip(owner_ids, await owners_of(self._store, owner_ids)))
        read = _Read(generation, at, [_listed(header, owners[header.owner]) for header in headers])
        if self._last is None or self._last.generation <= generation:
            self._last = read
        return read

    @staticmethod
    async def _visible(read: _Read, chosen: list[Listed], viewer: str, limit: int, hidden_from: HiddenFrom) -> list[Listed]:
        """``chosen`` without the games of owners who blocked ``viewer``,
        asking about only as many owners as ``limit`` games need."""
        hidden = read.hidden
        kept: list[Listed] = []
        start = 0
        while len(kept) < limit and start < len(chosen):
            batch = chosen[start : start + limit - len(kept)]
            start += len(batch)
            unknown = list({(entry.owner, viewer) for entry in batch if entry.owner != viewer} - hidden.keys())
            hidden.update(zip(unknown, await asyncio.gather(*(hidden_from(owner, viewer) for owner, _ in unknown))))
            kept += [entry for entry in batch if not hidden.get((entry.owner, viewer), False)]
        return kept


def _listed(header: SessionHeader, owner: tc.Owner) -> Listed:
    return Listed(header.game, header.owner, summarize(header, owner).model_dump(mode="json"))
