"""The replay screen cuts a winning line at the protocol's own bound.

``client/web/js/replay.js`` sends at most ``MAX_LINE`` moves of an
analysis's solution in a ``replay`` request, and the server refuses a
longer ``line`` as a bad message (``protocol.to_server.MAX_REPLAY_LINE``):
the two numbers are one bound written in two languages.
"""

from __future__ import annotations

import re
from pathlib import Path

from protocol import to_server as ts

REPLAY_JS = Path(__file__).resolve().parents[2] / "client" / "web" / "js" / "replay.js"


def test_the_replay_screen_sends_no_longer_line_than_the_server_accepts() -> None:
    found = re.search(r"^const MAX_LINE = (\d+);", REPLAY_JS.read_text(encoding="utf-8"), re.MULTILINE)
    assert found, "replay.js has no MAX_LINE"
    assert int(found.group(1)) == ts.MAX_REPLAY_LINE
