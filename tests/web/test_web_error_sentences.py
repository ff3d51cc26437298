"""The web client has a sentence for every error code the server can send.

A code without an entry would still show the server's own sentence, but
that is written for developers; this keeps the table in
``client/web/js/errors.js`` complete as codes are added to
``protocol/errors.py``.
"""

from __future__ import annotations

import re
from pathlib import Path

from protocol import ErrorCode

ERRORS_JS = Path(__file__).resolve().parents[2] / "client" / "web" / "js" / "errors.js"


def _table_keys() -> set[str]:
    text = ERRORS_JS.read_text(encoding="utf-8")
    table = re.search(r"export const ERROR_SENTENCES = \{(.*?)\n\};", text, re.S)
    assert table, "errors.js has no ERROR_SENTENCES table"
    return set(re.findall(r"^\s{2}(\w+):", table.group(1), re.M))


def test_every_server_error_code_has_a_sentence_in_the_web_client() -> None:
    missing = {code.value for code in ErrorCode} - _table_keys()
    assert not missing, f"errors.js has no sentence for: {sorted(missing)}"
