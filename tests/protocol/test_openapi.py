"""``arena schema --openapi``: the HTTP API's OpenAPI 3.1 document,
generated from the models, validated by ``openapi-spec-validator`` (the
OpenAPI Initiative's published 3.1 schema and its rules), with the
checks a validator leaves out: every ``$ref`` resolves, every endpoint
the server routes is a path of the document, and docs/http-api.md lists
every endpoint and error code.  That real answers of a running server
match the document is ``tests/server/test_http_api.py``'s."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest
from openapi_spec_validator import validate
from openapi_spec_validator.validation.exceptions import OpenAPIValidationError

from protocol.http_api import API_PREFIX, ENDPOINTS, ApiErrorCode
from server.commands.schema import default_openapi

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "http-api.md"


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return default_openapi()


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            yield node["$ref"]
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from _refs(item)


def _dangling(document: dict[str, Any]) -> list[str]:
    """The references that point at nothing in ``document``."""
    dangling = []
    for ref in _refs(document):
        node: Any = document
        for part in ref.removeprefix("#/").split("/"):
            node = node.get(part) if isinstance(node, dict) else None
        if not ref.startswith("#/") or node is None:
            dangling.append(ref)
    return dangling


def test_the_document_is_valid_openapi_3_1(document: dict[str, Any]) -> None:
    assert document["openapi"] == "3.1.0"
    validate(document)
    assert _dangling(document) == []


def test_the_checks_catch_a_broken_document(document: dict[str, Any]) -> None:
    operation = API_PREFIX + "/games/{game_id}"
    dangling = copy.deepcopy(document)
    dangling["paths"][operation]["get"]["responses"]["200"]["content"]["application/json"]["schema"] = {
        "$ref": "#/components/schemas/NoSuchModel"
    }
    assert _dangling(dangling) == ["#/components/schemas/NoSuchModel"]
    unparameterised = copy.deepcopy(document)
    unparameterised["paths"][operation]["get"]["parameters"] = []
    not_a_schema = copy.deepcopy(document)
    not_a_schema["components"]["schemas"]["ExportedGame"]["type"] = "nonsense"
    for broken in (unparameterised, not_a_schema):
        with pytest.raises(OpenAPIValidationError):
            validate(broken)


def test_every_endpoint_is_a_path_answering_with_its_model(document: dict[str, Any]) -> None:
    assert set(document["paths"]) == {API_PREFIX + endpoint.path for endpoint in ENDPOINTS}
    schemas = document["components"]["schemas"]
    for endpoint in ENDPOINTS:
        operation = document["paths"][API_PREFIX + endpoint.path]["get"]
        path_names = set(re.findall(r"\{(\w+)\}", endpoint.path))
        assert {p["name"] for p in operation["parameters"] if p["in"] == "path"} == path_names
        ok = operation["responses"]["200"]["content"][endpoint.media_type]["schema"]["$ref"]
        assert ok == f"#/components/schemas/{endpoint.model.__name__}" and endpoint.model.__name__ in schemas
        for status in ("429", "503"):
            assert operation["responses"][status]["content"]["application/json"]["schema"]["$ref"].endswith("/ApiError")
    assert set(schemas["ApiErrorCode"]["enum"]) == set(ApiErrorCode)


def test_the_guide_lists_every_endpoint_and_error_code() -> None:
    guide = GUIDE.read_text(encoding="utf-8")
    for endpoint in ENDPOINTS:
        assert f"`GET {API_PREFIX}{endpoint.path}`" in guide, endpoint.path
    for code in ApiErrorCode:
        assert f"| `{code.value}` | {code.description} |" in guide, code.value


def test_arena_schema_openapi_prints_the_document(tmp_path: Path, document: dict[str, Any]) -> None:
    printed = subprocess.run(
        [sys.executable, "-m", "server.cli", "schema", "--openapi"], capture_output=True, text=True, timeout=60
    )
    assert printed.returncode == 0, printed.stderr
    assert json.loads(printed.stdout) == json.loads(json.dumps(document))
    both = subprocess.run(
        [sys.executable, "-m", "server.cli", "schema", "--openapi", "--asyncapi"], capture_output=True, text=True, timeout=60
    )
    assert both.returncode != 0 and "not allowed with" in both.stderr
