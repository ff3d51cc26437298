"""The HTTP API as an OpenAPI 3.1 document, generated from its models
(``protocol.http_api``): each response model's JSON Schema, with its
references under ``components.schemas``, and one path per endpoint.

Every operation answers GET with its model (and HEAD with the same
status and headers, without the body), 304 to a revalidation whose ETag still matches, the error body
(``ApiError``) on 400, 404, 429 and 503, and OPTIONS with a CORS
preflight; the headers each carries are listed with it.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from .http_api import API_PREFIX, ENDPOINTS, JSON_TYPE, NDJSON, ApiError, ApiErrorCode, Endpoint

OPENAPI_VERSION = "3.1.0"
SCHEMAS = "#/components/schemas/"
REF_TEMPLATE = SCHEMAS + "{model}"
ERROR_STATUSES = {
    400: "a malformed path parameter or query parameter",
    404: "no such resource",
    429: "too many requests from this address; Retry-After says when to ask again",
    503: "the store did not answer",
}
HEADERS: dict[str, dict[str, Any]] = {
    "ETag": {"description": "a strong validator of the body: send it back as If-None-Match", "schema": {"type": "string"}},
    "Cache-Control": {"description": "how long the body may be reused (docs/http-api.md)", "schema": {"type": "string"}},
    "Access-Control-Allow-Origin": {"description": "always *: any page may read the API", "schema": {"const": "*"}},
}
RETRY_AFTER = {"Retry-After": {"description": "whole seconds to wait", "schema": {"type": "integer", "minimum": 1}}}


def _add_schema(model: type[BaseModel], schemas: dict[str, Any]) -> dict[str, str]:
    """Put ``model``'s schema (and those it refers to) in ``schemas``; the reference to it."""
    schema = model.model_json_schema(ref_template=REF_TEMPLATE)
    schemas.update(schema.pop("$defs", {}))
    schemas[model.__name__] = schema
    return {"$ref": SCHEMAS + model.__name__}


def _parameters(endpoint: Endpoint) -> list[dict[str, Any]]:
    return [
        {
            "name": parameter.name,
            "in": parameter.where,
            "required": parameter.required,
            "description": parameter.description,
            "schema": parameter.schema,
        }
        for parameter in endpoint.parameters
    ]


def _get(endpoint: Endpoint, schemas: dict[str, Any]) -> dict[str, Any]:
    body = _add_schema(endpoint.model, schemas)
    error = {"$ref": SCHEMAS + ApiError.__name__}
    ndjson = endpoint.media_type == NDJSON
    responses: dict[str, Any] = {
        "200": {
            "description": "one JSON object per line, each an " + endpoint.model.__name__ if ndjson else endpoint.model.__name__,
            "headers": HEADERS,
            "content": {endpoint.media_type: {"schema": body}},
        },
        "304": {"description": "the body has not changed since the ETag sent in If-None-Match", "headers": HEADERS},
    }
    for status, why in ERROR_STATUSES.items():
        if status in endpoint.errors or status in (429, 503):
            responses[str(status)] = {
                "description": why,
                "headers": {**HEADERS, **(RETRY_AFTER if status == 429 else {})},
                "content": {JSON_TYPE: {"schema": error}},
            }
    return {
        "operationId": endpoint.name,
        "summary": endpoint.summary,
        "description": " ".join((endpoint.model.__doc__ or endpoint.summary).split()),
        "parameters": _parameters(endpoint),
        "responses": responses,
    }


def _head(endpoint: Endpoint, get: dict[str, Any]) -> dict[str, Any]:
    """HEAD: the GET's statuses and headers, never a body."""
    responses = {
        status: {key: value for key, value in response.items() if key != "content"}
        for status, response in get["responses"].items()
    }
    return {
        "operationId": endpoint.name + "_head",
        "summary": "the GET's status and headers, without the body",
        "parameters": get["parameters"],
        "responses": responses,
    }


def _preflight(endpoint: Endpoint) -> dict[str, Any]:
    return {
        "operationId": endpoint.name + "_preflight",
        "summary": "CORS preflight",
        "parameters": [parameter for parameter in _parameters(endpoint) if parameter["in"] == "path"],
        "responses": {
            "204": {
                "description": "GET, HEAD and OPTIONS are allowed from any origin",
                "headers": {
                    "Access-Control-Allow-Origin": HEADERS["Access-Control-Allow-Origin"],
                    "Access-Control-Allow-Methods": {"schema": {"type": "string"}},
                    "Access-Control-Max-Age": {"schema": {"type": "integer"}},
                },
            }
        },
    }


def openapi_document(version: str, server_url: str) -> dict[str, Any]:
    """The HTTP API as an OpenAPI 3.1 document (plain JSON data); ``version``
    is the server's release, ``server_url`` where a default server listens."""
    schemas: dict[str, Any] = {}
    _add_schema(ApiError, schemas)
    schemas["ApiErrorCode"]["description"] = "\n".join(f"{code.value}: {code.description}" for code in ApiErrorCode)
    paths = {}
    for endpoint in ENDPOINTS:
        get = _get(endpoint, schemas)
        paths[API_PREFIX + endpoint.path] = {"get": get, "head": _head(endpoint, get), "options": _preflight(endpoint)}
    return {
        "openapi": OPENAPI_VERSION,
        "jsonSchemaDialect": "https://spec.openapis.org/oas/3.1/dialect/base",
        "info": {
            "title": "Solitaire Arena HTTP API",
            "version": version,
            "description": (
                "Read-only: daily leaderboards, the daily deals' commitments and reveals, public player profiles "
                "and the export of finished games whose deals are public, on the WebSocket's port. Nothing here "
                "names a deal still secret. docs/http-api.md is the guide: caching, rate limits, CORS, errors."
            ),
        },
        "servers": [{"url": server_url, "description": "a server run with its default settings"}],
        "paths": paths,
        "components": {"schemas": dict(sorted(schemas.items()))},
    }
