"""``docs/settings.md`` lists every ``ARENA_*`` variable, generated from the
settings model, so a new setting cannot go undocumented.

``python -m tests.server.test_settings_doc`` rewrites the table after a
change to ``server/runtime/settings.py``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from server.runtime.settings import OTHER_VARIABLES, DEFAULT_STATIC_DIR, Settings, env_name

DOC = Path(__file__).resolve().parents[2] / "docs" / "settings.md"
MARKERS = ("<!-- settings:begin -->\n", "<!-- settings:end -->")


def _default(name: str, value: Any) -> str:
    if value is None:
        return "none"
    if name == "static_dir" and value == DEFAULT_STATIC_DIR:
        return "the packaged `client/web`"
    if isinstance(value, bool):
        return str(value).lower()
    return f"`{value}`"


def settings_table() -> str:
    rows = ["| variable | default | meaning |", "|---|---|---|"]
    for name, field in Settings.model_fields.items():
        rows.append(f"| `{env_name(name)}` | {_default(name, field.default)} | {field.description} |")
    for name, (reader, meaning) in sorted(OTHER_VARIABLES.items()):
        rows.append(f"| `{name}` | ({reader}) | {meaning} |")
    return "\n".join(rows)


def _with_table(text: str) -> str:
    begin, end = MARKERS
    return re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: begin + settings_table() + "\n" + end, text, flags=re.S)


def test_the_settings_table_is_the_settings_model() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert all(marker in text for marker in MARKERS)
    assert text == _with_table(text), "docs/settings.md is stale: run python -m tests.server.test_settings_doc"


if __name__ == "__main__":
    DOC.write_text(_with_table(DOC.read_text(encoding="utf-8")), encoding="utf-8")
