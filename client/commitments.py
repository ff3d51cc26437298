"""The daily commitments this client has seen, kept on disk per server.

A reveal proves that a day's deal was fixed before the day only to
someone who saw its commitment before the day and kept it: the server's
own ``committed_ms`` is a claim like any other, and a commitment computed
at the reveal from the revealed seed checks out perfectly.  ``arena
daily`` is that someone.  Each commitment it is shown is kept with the
time this machine first saw it, in one file per server URL:
``$XDG_DATA_HOME/solitaire-arena/commitments/`` (``~/.local/share/…``
when that is unset), the directory of mode 0700 and each file 0600 (it
tells which servers you use).  A kept commitment is never replaced: a
server that later shows another one for the same deal is caught, and
``arena daily --verify`` checks each reveal against what was kept
(``client.reveal.history_problems``).  Kept per URL, since a client
knows a server by nothing else: verify through the URL you kept the
commitments from.

The file is rewritten whole (a temporary file, then renamed), so an
interrupted run leaves the old one.  A file that cannot be read as a
record of commitments is an error to show, never silently replaced:
replacing it would forget what proves a later forgery.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Mapping

from protocol import to_client as tc


class CommitmentsUnreadable(Exception):
    """The file of kept commitments exists but is not one."""


@dataclass(frozen=True)
class Seen:
    """A commitment as this client first saw it."""

    commitment: str
    committed_ms: int
    first_seen_ms: int


def deal_key(deal: tc.DailyDeal) -> str:
    """What a commitment is kept under: the game, variant and date it names."""
    return f"{deal.game}/{deal.variant}/{deal.date}"


def commitments_dir(environ: Mapping[str, str] | None = None) -> Path:
    source = os.environ if environ is None else environ
    base = source.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "solitaire-arena" / "commitments"


def file_for(url: str, environ: Mapping[str, str] | None = None) -> Path:
    """The file of one server URL: readable, and unique by a digest."""
    readable = re.sub(r"[^A-Za-z0-9.-]+", "_", url.split("://", 1)[-1]).strip("_")[:60]
    return commitments_dir(environ) / f"{readable}-{hashlib.sha256(url.encode()).hexdigest()[:12]}.json"


class Commitments:
    """The commitments kept for one server."""

    def __init__(self, url: str, path: Path) -> None:
        self.url = url
        self.path = path
        self.kept: dict[str, Seen] = {}
        if path.exists():
            try:
                data = json.loads(path.read_text())
                self.kept = {key: Seen(**seen) for key, seen in data["commitments"].items()}
            except (ValueError, KeyError, TypeError, AttributeError) as error:
                raise CommitmentsUnreadable(f"{path} is not a file of kept commitments ({error}); move it aside") from None

    @classmethod
    def of_server(cls, url: str, environ: Mapping[str, str] | None = None) -> Commitments:
        return cls(url, file_for(url, environ))

    def get(self, deal: tc.DailyDeal) -> Seen | None:
        return self.kept.get(deal_key(deal))

    def see(self, deals: list[tc.DailyDeal], now_ms: int) -> bool:
        """Keep the commitments not kept yet; whether any was new."""
        new = {deal_key(deal): Seen(deal.commitment, deal.committed_ms, now_ms) for deal in deals if self.get(deal) is None}
        self.kept.update(new)
        return bool(new)

    def save(self) -> None:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        text = json.dumps(
            {"server": self.url, "commitments": {key: asdict(seen) for key, seen in sorted(self.kept.items())}}, indent=1
        )
        handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".new-")  # mode 0600
        try:
            with os.fdopen(handle, "w") as file:
                file.write(text)
            os.replace(temporary, self.path)
        except BaseException:
            os.unlink(temporary)
            raise
