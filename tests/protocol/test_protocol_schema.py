"""The JSON Schema is generated from the models and describes real frames."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
from tests.protocol import protocol_doc
from protocol import PROTOCOL_VERSION, ErrorCode
from protocol.schema import protocol_schema


def test_the_schema_names_both_unions_and_every_error_code() -> None:
    schema = protocol_schema(PROTOCOL_VERSION)
    definitions = schema["$defs"]
    assert {"ClientMessage", "ServerMessage"} <= set(definitions)
    assert set(definitions["ErrorCode"]["enum"]) == {code.value for code in ErrorCode}
    jsonschema.Draft202012Validator.check_schema(schema)


def test_every_documented_frame_is_valid_under_the_schema() -> None:
    validator = jsonschema.Draft202012Validator(protocol_schema(PROTOCOL_VERSION))
    doc = protocol_doc.DOC.read_text(encoding="utf-8")
    frames = [json.loads(block) for block in re.findall(r"```json\n(.*?)\n```", doc, re.S)]
    frames += [json.loads(frame.text) for frame in protocol_doc.session_frames(doc)]
    for frame in frames:
        errors = list(validator.iter_errors(frame))
        assert not errors, (frame, errors[0].message)
    assert not validator.is_valid({"type": "teleport"})


def test_arena_schema_writes_the_schema(tmp_path: Path) -> None:
    out = tmp_path / "schema.json"
    done = subprocess.run(
        [sys.executable, "-m", "server.cli", "schema", "--out", str(out)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text(encoding="utf-8")) == json.loads(json.dumps(protocol_schema(PROTOCOL_VERSION)))
    printed = subprocess.run([sys.executable, "-m", "server.cli", "schema"], capture_output=True, text=True, timeout=60)
    assert json.loads(printed.stdout)["title"] == f"Solitaire Arena protocol v{PROTOCOL_VERSION}"
