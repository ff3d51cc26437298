"""The server's data directory: what a day's deal needs to outlive the
process and the store.

A daily commitment is a promise: once published, that seed is the day's
deal.  The memory store forgets everything at a restart, and a Redis that
loses its data (a ``FLUSHALL``, a restart without persistence, a failover
to an empty replica) forgets the secret and the day's records; proving the
day again would then publish another commitment for the same day.  So a
server with a data directory (``data_dir``: ``arena serve --data DIR`` or
``ARENA_DATA_DIR``; ``arena serve`` and ``arena prepare-dailies`` default
to ``$XDG_DATA_HOME/solitaire-arena/server``, ``~/.local/share/…`` when
that is unset) keeps there, in a directory of mode 0700:

- ``daily-secret``: the key of the secret seeds, made once (mode 0600)
  when ``daily_secret`` is not configured (``server.deals.book.DailyBook.secret``);
- ``arena.db``: the store of ``arena serve`` when no store is named
  (``server.commands.serve``): the SQLite database (``server.storage.sqlite``)
  of every player, token, record, leaderboard and game, so a restart
  loses nothing;
- ``daily/DATE/GAME/VARIANT.json``: every daily record this server fixed
  or read (mode 0600), each written once and never changed, so that a
  record the store no longer has is stored again (first writer wins)
  rather than proven anew, and a past day's reveal survives a restart of
  the memory store.

Decisions made here, and why:
- A file is written once: to a temporary file, then linked to its name,
  which fails if the name exists.  Two processes sharing the directory
  (two servers on one host, or ``prepare-dailies`` beside a server) so
  keep the first file whole, and nobody reads half a file.
- Nothing here expires: a record is a few hundred bytes, ten a day.
- ``ARENA_DATA_DIR=none`` keeps nothing on disk (the in-process servers
  of the tests), as before the directory existed; ``arena serve`` then
  has no place for its database and keeps its store in memory, with a
  warning, rather than pick a file nobody asked for.
- The default store belongs to ``arena serve``, not to ``Settings``: a
  server made in process (the tests, the benchmarks) stays in memory
  unless it names a store, and so never writes beside a real one.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Mapping

from server.runtime.entropy import Entropy
from server.runtime.settings import Settings, env_name

SECRET_FILE = "daily-secret"
RECORDS_DIR = "daily"
DATABASE_FILE = "arena.db"


def default_data_dir(environ: Mapping[str, str]) -> Path:
    """Where ``arena serve`` keeps its data unless told otherwise."""
    base = environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "solitaire-arena" / "server"


def with_default_data_dir(settings: Settings, environ: Mapping[str, str] | None = None) -> Settings:
    """``settings`` with the default data directory when neither a flag nor
    ``ARENA_DATA_DIR`` chose one (``ARENA_DATA_DIR=none`` chooses none)."""
    source = os.environ if environ is None else environ
    if settings.data_dir is not None or env_name("data_dir") in source:
        return settings
    return settings.model_copy(update={"data_dir": default_data_dir(source)})


def _write_once(path: Path, text: str) -> str:
    """Write ``text`` to ``path`` unless it exists; what the file holds."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)  # the parents: the umask's
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".new-")  # mode 0600
    try:
        with os.fdopen(handle, "w") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.link(temporary, path)
    except FileExistsError:
        return path.read_text()
    finally:
        os.unlink(temporary)
    return text


def _private(data_dir: Path) -> Path:
    """``data_dir``, made with mode 0700 if it does not exist."""
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    return data_dir


def secret_in(data_dir: Path, entropy: Entropy) -> str:
    """The secret kept in ``data_dir``, drawn from ``entropy`` on the first
    call ever."""
    path = _private(data_dir) / SECRET_FILE
    return (path.read_text() if path.exists() else _write_once(path, entropy.token_hex(32))).strip()


def open_data_dir(settings: Settings, entropy: Entropy) -> None:
    """Make the data directory, and its secret when none is configured, as
    a command starts: a directory that cannot be written then stops the
    command with its error, instead of failing a player's first daily."""
    if settings.data_dir is None:
        return
    if settings.daily_secret is None:
        secret_in(settings.data_dir, entropy)
    else:
        _private(settings.data_dir)


def _record_path(data_dir: Path, key: str) -> Path:
    game, variant, day = key.split("/")
    return data_dir / RECORDS_DIR / day / game / f"{variant}.json"


def kept_record(data_dir: Path, key: str) -> str | None:
    """The record of ``key`` (``GAME/VARIANT/DATE``) kept here, as JSON."""
    path = _record_path(data_dir, key)
    return path.read_text() if path.exists() else None


def keep_record(data_dir: Path, key: str, text: str) -> str:
    """Keep ``text`` as the record of ``key`` unless one is kept already;
    the one kept."""
    path = _record_path(_private(data_dir), key)
    return path.read_text() if path.exists() else _write_once(path, text)
