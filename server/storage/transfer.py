"""A store's whole content as one NDJSON file, and back into another
store: how a server moves from one back end to another (``arena export``,
``arena import``; the format is documented in docs/storage.md, "Moving
to another store").

Everything goes through the ``Store`` interface, so any back end copies
to any other.  The file is one JSON object per line: a header (``format``,
``version``, ``exported_ms``, ``counts`` of each ``type``), then players
(with their token hash, address, records, Vegas earnings, devices, last seen
and appear-offline setting), settings,
stocks, documents, document indexes, leaderboards and sessions (header,
log, whether the game's end is still to settle).  Each lifetime is kept as
the wall-clock time it ends (``expires_ms``, absent: for ever), so an
import later keeps the same deadlines; an identity's lifetime starts
again at the import, which writes it.

A record is sums and bests, which the interface only builds game by game
(``add_result``), so the import replays a record as the fewest game
results that sum to it exactly (``record_results``).
"""

from __future__ import annotations

import dataclasses
import json
import math
import tempfile
from typing import Any, Callable, Iterable, Iterator, TextIO

from server.model.records import Action, GameResult, PlayerRecord, Record, SessionHeader

from .base import HELD_SPACES, Held, Store
from .devices_base import Device, first_device

FORMAT = "arena-export"
VERSION = 1
TYPES = ("player", "setting", "stock", "document", "index", "board", "session")
"""The line types in the order written and imported: a document before the
index naming it (an index lives as long as its longest-lived document)."""
NO_PROCESS = ""
"""The origin an imported last seen is written under: none holds the player."""
EVERY_ENTRY = 1 << 30
"""``count`` reading a whole leaderboard or list at once."""

Progress = Callable[[int, int, str], None]


class TransferError(ValueError):
    """The file is no export of ours, or of a version we cannot read, or
    cut short, or the target store is not empty: nothing was written."""


def _expires_ms(held: Held, now_ms: int) -> int | None:
    return None if held.keep_seconds is None else now_ms + round(held.keep_seconds * 1000)


def _keep_seconds(expires_ms: int | None, now_ms: int) -> int | None:
    """What is left of a lifetime at ``now_ms``, to the second rounded up;
    0 when it has ended (the thing is skipped)."""
    return None if expires_ms is None else max(0, math.ceil((expires_ms - now_ms) / 1000))


def _line(value: dict[str, Any]) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=True) + "\n"


async def export_store(store: Store, out: TextIO, now_ms: int, progress: Progress) -> dict[str, int]:
    """Write ``store`` whole to ``out``; the count of each type written.
    The lines go to a temporary file first, so the header counts what the
    file holds even if something expired between listing and reading."""
    held = {space: await store.held(space) for space in HELD_SPACES}
    total = sum(len(items) for items in held.values())
    open_ends = set(await store.open_finishes(EVERY_ENTRY))
    counts = dict.fromkeys(TYPES, 0)
    done = 0
    with tempfile.TemporaryFile("w+", encoding="utf-8") as body:
        for kind in TYPES:
            for item in held[kind]:
                line = await _exported(store, item, now_ms, open_ends)
                if line is not None:
                    body.write(_line(line))
                    counts[kind] += 1
                done += 1
                progress(done, total, "exported")
        out.write(_line({"format": FORMAT, "version": VERSION, "exported_ms": now_ms, "counts": counts}))
        body.seek(0)
        for text in body:
            out.write(text)
    return counts


async def _exported(store: Store, item: Held, now_ms: int, open_ends: set[str]) -> dict[str, Any] | None:
    """One line for ``item``, or None if it went since it was listed."""
    line: dict[str, Any] = {"type": item.space}
    expires = _expires_ms(item, now_ms)
    if expires is not None:
        line["expires_ms"] = expires
    if item.space == "player":
        player = await store.get_player(item.name)
        if player is None:
            return None
        records = await store.records(item.name)
        line |= dataclasses.asdict(player) | {"vegas": await store.vegas(item.name)}
        line["records"] = {key: dataclasses.asdict(record) for key, record in sorted(records.items())}
        line["devices"] = [dataclasses.asdict(device) for device in await store.devices(item.name)]
        stored = (await store.presence([item.name], now_ms))[item.name]
        if stored.last_seen_ms is not None or stored.hidden_seen_ms is not None:
            line["presence"] = {"last_seen_ms": stored.last_seen_ms, "hidden_seen_ms": stored.hidden_seen_ms}
    elif item.space == "setting":
        value = await store.get_setting(item.name)
        if value is None:
            return None
        line |= {"name": item.name, "value": value}
    elif item.space == "stock":
        line |= {"stock": item.name, "items": await store.stock_items(item.name)}
    elif item.space == "document":
        document = await store.get_document(item.kind, item.name)
        if document is None:
            return None
        line |= {"kind": item.kind, "key": item.name, "value": document}
    elif item.space == "index":
        line |= {"kind": item.kind, "index": item.name,
                 "entries": [list(entry) for entry in await store.index_entries(item.kind, item.name)]}
    elif item.space == "board":
        entries = await store.leaderboard(item.name, 0, EVERY_ENTRY)
        line |= {"board": item.name, "entries": [
            {"player_id": e.player_id, "time_ms": e.time_ms, "moves": e.moves, "finished_ms": e.finished_ms}
            for e in entries
        ]}
    else:
        loaded = await store.load_session(item.name)
        if loaded is None:
            return None
        header, log = loaded
        line |= {"header": header.to_dict(), "log": [action.to_list() for action in log],
                 "open_finish": item.name in open_ends}
    return line


def read_export(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    """The header, then each line of an export, checked: its format and
    version, JSON objects of known types in order, and as many of each
    as the header counts (``TransferError`` otherwise)."""
    iterator = iter(lines)
    header = _parsed(next(iterator, ""), 1)
    if header.get("format") != FORMAT:
        raise TransferError("not an arena export (its first line names no format arena-export)")
    if header.get("version") != VERSION:
        raise TransferError(f"an arena export of version {header.get('version')}; this arena reads version {VERSION}")
    counts = header.get("counts")
    if not isinstance(counts, dict) or set(counts) != set(TYPES):
        raise TransferError("the export's header has no counts of every type")
    yield header
    seen = dict.fromkeys(TYPES, 0)
    order = 0
    for number, text in enumerate(iterator, start=2):
        line = _parsed(text, number)
        kind = line.get("type")
        if kind not in seen or TYPES.index(kind) < order:
            raise TransferError(f"line {number}: type {kind!r} unknown or out of order")
        order = TYPES.index(kind)
        seen[kind] += 1
        yield line
    if seen != counts:
        raise TransferError(f"the export is incomplete: it holds {seen}, its header counts {counts}")


def _parsed(text: str, number: int) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise TransferError(f"line {number} is not JSON: {error}") from None
    if not isinstance(value, dict):
        raise TransferError(f"line {number} is not a JSON object")
    return value


async def check_empty(store: Store) -> None:
    """``TransferError`` unless ``store`` holds nothing at all: an import
    adds to records and boards, so into a used store it would mix two."""
    for space in HELD_SPACES:
        if await store.held(space):
            raise TransferError(f"the target store is not empty (it holds a {space}); import into an empty store")


async def import_store(
    store: Store, lines: Iterable[dict[str, Any]], now_ms: int, progress: Progress
) -> dict[str, int]:
    """Write an export's ``lines`` (as ``read_export`` yields them, header
    first) into ``store``; the count of each type written (an item whose
    lifetime ended since the export is left out)."""
    iterator = iter(lines)
    header = next(iterator)
    total = sum(header["counts"].values())
    written = dict.fromkeys(TYPES, 0)
    for done, line in enumerate(iterator, start=1):
        keep = _keep_seconds(line.get("expires_ms"), now_ms)
        if keep != 0:
            await _imported(store, line, keep)
            written[line["type"]] += 1
        progress(done, total, "imported")
    return written


async def _imported(store: Store, line: dict[str, Any], keep: int | None) -> None:
    kind = line["type"]
    if kind == "player":
        player = PlayerRecord(**{field.name: line[field.name] for field in dataclasses.fields(PlayerRecord)})
        await store.create_player(player)
        await _imported_devices(store, player, [Device(**fields) for fields in line.get("devices", ())])
        for key, fields in line["records"].items():
            for result in record_results(Record(**fields)):
                await store.add_result(line["player_id"], key, result)
        if line["vegas"]:
            await store.add_vegas(line["player_id"], line["vegas"])
        await _imported_presence(store, line["player_id"], line.get("presence"))
    elif kind == "setting":
        await store.setting(line["name"], line["value"], keep)
    elif kind == "stock":
        for item in line["items"]:
            await store.stock_push(line["stock"], item)
    elif kind == "document":
        await store.put_document(line["kind"], line["key"], line["value"], keep)
    elif kind == "index":
        for key, score in line["entries"]:
            await store.index_document(line["kind"], line["index"], key, score)
    elif kind == "board":
        for entry in line["entries"]:
            await store.submit(line["board"], entry["player_id"], entry["time_ms"], entry["moves"],
                               entry["finished_ms"], keep or EVERY_ENTRY)
    else:
        await _imported_session(store, line, keep)


async def _imported_devices(store: Store, player: PlayerRecord, devices: list[Device]) -> None:
    """Make the new player's devices the exported ones: its own token's
    device (``first_device``) kept, renamed, rotated or revoked as it was,
    the others added.  An export written before devices has none listed:
    the player's own token is its one device, as it was."""
    if not devices:
        return
    first = first_device(player)
    exported = {device.device_id: device for device in devices}
    kept = exported.pop(first.device_id, None)
    if kept is None:
        await store.revoke_device(player.player_id, first.device_id)
    else:
        if kept.token_hash != first.token_hash:
            await store.rotate_device_token(player.player_id, first.device_id, kept.token_hash)
        await store.rename_device(player.player_id, first.device_id, kept.name)
        if kept.last_seen_ms is not None:
            await store.device_by_token_hash(kept.token_hash, kept.last_seen_ms)
    for device in exported.values():
        await store.add_device(player.player_id, device, len(devices) + 1)


async def _imported_presence(store: Store, player_id: str, presence: dict[str, Any] | None) -> None:
    """A player's last seen and appear-offline setting; no process holds
    it in the new store (its leases are the running servers', not data)."""
    if presence is None:
        return
    if presence["last_seen_ms"] is not None:
        await store.put_presence(NO_PROCESS, player_id, None, presence["last_seen_ms"])
    if presence["hidden_seen_ms"] is not None:
        await store.hide_presence(player_id, presence["hidden_seen_ms"])


async def _imported_session(store: Store, line: dict[str, Any], keep: int | None) -> None:
    header = SessionHeader.from_dict(line["header"])
    log = [Action.from_list(entry) for entry in line["log"]]
    await store.create_session(header)
    for length, action in enumerate(log):
        await store.append(header.game_id, length, action, ends=line["open_finish"] and length == len(log) - 1)
    if keep is not None:
        await store.finish_session(header, keep)


def record_results(record: Record) -> list[GameResult]:
    """Game results that ``add_result`` folds into exactly ``record``: one
    per game, the wins first, each at the record's bests (so the bests come
    out right), the first carrying the hints, undos, counters and best
    score, the last the rest of the moves and time."""
    results = [GameResult(won=n < record.wins,
                          moves=record.best_moves or 0 if n < record.wins else 0,
                          time_ms=record.best_time_ms or 0 if n < record.wins else 0)
               for n in range(record.games)]
    if not results:
        return []
    first, last = results[0], results[-1]
    first.hints, first.undos, first.counters = record.hints, record.undos, dict(record.counters)
    first.score = record.extra.get("best_score")
    last.moves += record.moves - sum(result.moves for result in results)
    last.time_ms += record.time_ms - sum(result.time_ms for result in results)
    return results
