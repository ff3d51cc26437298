"""Who the terminal client is on each server: the player it created
there, kept on disk so that the next run is the same player.

A player is a bearer token; a client that forgets it loses the player,
its open games and its records.  So the first ``hello`` that creates a
player (no ``--token``, no ``ARENA_TOKEN``, none kept) keeps its token at
once, before anything else happens, and an interruption later (Ctrl-C,
the end of input, a lost connection) cannot lose it: the client's
message filter keeps it as the ``welcome`` arrives.  The files live in
``$XDG_CONFIG_HOME/solitaire-arena/players/`` (``~/.config/…`` when that is
unset), one per server, the directory of mode 0700 and each file 0600: a
token is a password.

Decisions made here, and why:
- A server is known by its URL and nothing else, so the URL is the key,
  written one way (``server_key``): ``ws://LOCALHOST:80/ws`` and
  ``ws://localhost/ws`` are one server.
- A kept player is never replaced: a file is written whole to a
  temporary file, then linked to its name, which fails if a file is there
  (two first runs at once keep the first player; the other still prints
  its token when it leaves).  ``arena logout`` forgets it first.
- A kept token the server refuses (``bad_token``: the server's data were
  wiped, or the player expired) is an error that says what to do; the
  client never creates a new player over it, since the user may yet have
  the right server URL to give.
- A token given (``--token``, then ``ARENA_TOKEN``) wins over a kept one
  and is not kept: ``arena login --token`` keeps one on purpose.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shlex
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import AsyncIterator, Mapping
from urllib.parse import urlsplit

from protocol import MSGPACK_SUBPROTOCOL, ServerMessage
from protocol import to_client as tc

from .connection import DEFAULT_URL, ArenaClient
from .errors import BadToken, ClientError, TooManyIdentities

log = logging.getLogger("arena.client")

DEFAULT_PORTS = {"ws": 80, "http": 80, "wss": 443, "https": 443}


class KeptUnreadable(ClientError):
    """A file of a kept player exists but is not one."""


class KeptTokenRefused(ClientError):
    """The server does not know the kept player (``bad_token``)."""


def players_dir(environ: Mapping[str, str] | None = None) -> Path:
    source = os.environ if environ is None else environ
    base = source.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "solitaire-arena" / "players"


def server_key(url: str) -> str:
    """``url`` written one way: scheme and host in lower case, the port
    always, the path (``/`` when none); no user, query or fragment."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    port = parts.port if parts.port is not None else DEFAULT_PORTS.get(scheme)
    return f"{scheme}://{host}{'' if port is None else f':{port}'}{parts.path or '/'}"


@dataclass(frozen=True)
class KeptPlayer:
    """The player this client is on one server."""

    server: str
    token: str
    player_id: str
    name: str


class Players:
    """The kept players of this client, one file per server."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    @classmethod
    def default(cls, environ: Mapping[str, str] | None = None) -> Players:
        return cls(players_dir(environ))

    def path(self, url: str) -> Path:
        """The file of one server: readable, and unique by a digest."""
        key = server_key(url)
        readable = re.sub(r"[^A-Za-z0-9.-]+", "_", key.split("://", 1)[-1]).strip("_")[:60]
        return self.directory / f"{readable}-{hashlib.sha256(key.encode()).hexdigest()[:12]}.json"

    def get(self, url: str) -> KeptPlayer | None:
        path = self.path(url)
        try:
            data = json.loads(path.read_text())
            return KeptPlayer(**data)
        except FileNotFoundError:
            return None
        except (OSError, ValueError, TypeError) as error:
            raise KeptUnreadable(f"{path} does not hold a kept player ({error}); move it aside") from None

    def _written(self, player: KeptPlayer) -> Path:
        """A new temporary file beside ``player``'s, holding it whole."""
        path = self.path(player.server)
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary = path.with_name(f".new-{os.getpid()}-{path.name}")
        try:
            with os.fdopen(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as file:
                json.dump(asdict(player), file, indent=1)
                file.flush()
                os.fsync(file.fileno())
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
        return temporary

    def keep(self, player: KeptPlayer) -> bool:
        """Keep ``player`` for its server, unless one is kept there already
        (False)."""
        temporary = self._written(player)
        try:
            os.link(temporary, self.path(player.server))
        except FileExistsError:
            return False
        finally:
            os.unlink(temporary)
        return True

    def replace(self, player: KeptPlayer) -> None:
        """Keep ``player`` in place of the one kept for its server (a rotated token)."""
        os.replace(self._written(player), self.path(player.server))

    def forget(self, url: str) -> KeptPlayer | None:
        """Forget the player kept for ``url``; the one forgotten, if any."""
        kept = self.get(url)
        if kept is not None:
            self.path(url).unlink()
        return kept


@dataclass(frozen=True)
class Identity:
    """Who a command says ``hello`` as: ``given`` (``--token``, else
    ``ARENA_TOKEN``), else the player kept in ``players`` for the server.
    Without ``players`` nothing is read or kept (the library's way)."""

    given: str | None = None
    players: Players | None = None

    def kept(self, url: str) -> KeptPlayer | None:
        return None if self.given is not None or self.players is None else self.players.get(url)

    def token(self, url: str) -> str | None:
        """The token to say ``hello`` with, if any."""
        kept = self.kept(url)
        return self.given if kept is None else kept.token


@asynccontextmanager
async def signed_in(
    url: str,
    identity: Identity,
    *,
    subprotocol: str = MSGPACK_SUBPROTOCOL,
    name: str | None = None,
    create: bool = True,
) -> AsyncIterator[ArenaClient]:
    """A started client that said ``hello`` as ``identity``.  A new player
    (when ``create``) is kept as its ``welcome`` arrives, before ``hello``
    returns: nothing that interrupts the command after that (Ctrl-C while
    the client still opens, too) loses it.  Without ``create`` and with no
    token, the client says no ``hello`` at all."""
    kept = identity.kept(url)
    token = identity.given if kept is None else kept.token
    keeper = NewPlayerKeeper(url, identity.players) if token is None and create and identity.players else None
    client = ArenaClient(
        url, subprotocol=subprotocol, token=token, name=name, identify=create or token is not None, message_filter=keeper
    )
    try:
        await client.start()
    except BadToken as error:
        if kept is None or identity.players is None:
            raise
        raise KeptTokenRefused(refused_text(url, kept, identity.players.path(url), error)) from None
    except TooManyIdentities as error:
        raise TooManyIdentities(error.code, f"{error.message}{none_kept_text(url, identity)}", error.reason) from None
    try:
        yield client
    finally:
        await client.close()


class NewPlayerKeeper:
    """A client's message filter that keeps the player of the first
    ``welcome`` and lets every message through."""

    def __init__(self, url: str, players: Players) -> None:
        self.server = server_key(url)
        self.players: Players | None = players

    def __call__(self, message: ServerMessage) -> bool:
        if isinstance(message, tc.Welcome) and self.players is not None:
            players, self.players = self.players, None
            try:
                if not players.keep(KeptPlayer(self.server, message.token, message.player_id, message.name)):
                    log.warning(
                        "another player was kept for %s meanwhile: the line printed on leaving carries this one's token",
                        self.server,
                    )
            except OSError as error:
                log.warning(
                    "your token could not be kept in %s (%s): the line printed on leaving carries it",
                    players.directory, error,
                )
        return True


def server_flag(url: str) -> str:
    """`` --server URL`` for a command printed to be typed later, unless
    ``url`` is the default one: a come-back command without it would reach
    another server (or none) and fail with ``bad_token``."""
    return "" if url == DEFAULT_URL else f" --server {shlex.quote(url)}"


def refused_text(url: str, kept: KeptPlayer, path: Path, error: BadToken) -> str:
    return (
        f"the server does not know the player kept for it, {kept.name} ({kept.player_id}) in {path} "
        f"[{error.code}]; no new player was made over it. If this is the right server and it has forgotten you, "
        f"arena logout{server_flag(url)} forgets the kept token and the next run starts a new player"
    )


def none_kept_text(url: str, identity: Identity) -> str:
    """What a refused new player may do: the token it has is not kept here."""
    if identity.players is None:
        return ""
    return f" (no token is kept for {server_key(url)} in {identity.players.directory}; arena login --token=TOKEN keeps one)"
