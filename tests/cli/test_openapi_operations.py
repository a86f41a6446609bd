"""The operations of an OpenAPI document and the valid request of each, on a document
written here: path-level parameters shared by every method (an operation's own
parameter of the same place and name wins), the globs, and the URL made with
``--default``. Expected values written by hand. (The runs against a real server are
tests/cli/test_cli_probe_openapi*.py.)"""

from __future__ import annotations

from typing import Any

from fidelity._sweep.openapi_model import Fill
from fidelity._sweep.openapi_ops import consent, operations, valid_request

DOCUMENT: dict[str, Any] = {
    "openapi": "3.1.0",
    "paths": {
        "/todos/{id}": {
            "parameters": [
                {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}},
                {"name": "lang", "in": "query", "required": True, "schema": {"enum": ["en"]}},
            ],
            "get": {
                "parameters": [{"name": "verbose", "in": "query", "schema": {"type": "boolean"}}]
            },
            "put": {
                "parameters": [
                    {"name": "lang", "in": "query", "required": True, "schema": {"enum": ["fr"]}}
                ],
                "requestBody": {
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "properties": {"title": {"type": "string", "enum": ["t"]}},
                                "required": ["title"],
                            }
                        }
                    }
                },
            },
        },
        "/health": {"get": {}},
        "/broken": "not an object",
    },
}


def _fill(**defaults: Any) -> Fill:
    return Fill(base="http://127.0.0.1:9", defaults=defaults, seed=0, yes=False)


def test_operations_in_document_order_with_path_level_parameters() -> None:
    ops = operations(DOCUMENT)
    assert [op.name for op in ops] == ["GET /todos/{id}", "PUT /todos/{id}", "GET /health"]
    get, put, health = ops
    assert [(p["in"], p["name"]) for p in get.parameters] == [
        ("path", "id"),
        ("query", "lang"),
        ("query", "verbose"),
    ]
    # PUT's own "lang" replaces the shared one (same place and name), after the shared.
    assert [(p["in"], p["name"], p["schema"]) for p in put.parameters] == [
        ("path", "id", {"type": "integer"}),
        ("query", "lang", {"enum": ["fr"]}),
    ]
    assert health.parameters == ()


def test_only_and_skip_globs() -> None:
    assert [op.name for op in operations(DOCUMENT, only=["GET *"])] == [
        "GET /todos/{id}",
        "GET /health",
    ]
    assert [op.name for op in operations(DOCUMENT, skip=["* /todos/*"])] == ["GET /health"]
    assert [op.name for op in operations(DOCUMENT, only=["GET *"], skip=["*health"])] == [
        "GET /todos/{id}"
    ]


def test_a_path_level_parameter_takes_its_default_in_the_url() -> None:
    get, put, health = operations(DOCUMENT)
    request = valid_request(get, _fill(id=7))
    # The optional "verbose" is left out; the required shared "lang" is made from its enum.
    assert request.url == "http://127.0.0.1:9/todos/7?lang=en"
    assert request.media is None
    assert request.body is None
    put_request = valid_request(put, _fill(id=7))
    assert put_request.url == "http://127.0.0.1:9/todos/7?lang=fr"
    assert put_request.media == "application/json"
    assert put_request.body == {"title": "t"}
    assert valid_request(health, _fill()).url == "http://127.0.0.1:9/health"


def test_a_default_for_an_optional_query_parameter_is_sent() -> None:
    get = operations(DOCUMENT)[0]
    request = valid_request(get, _fill(id=7, verbose=True))
    assert request.url == "http://127.0.0.1:9/todos/7?lang=en&verbose=true"


def test_only_safe_methods_without_yes() -> None:
    get, put, _ = operations(DOCUMENT)
    assert consent(get, _fill()) == ""
    assert consent(put, _fill()) == (
        "needs --yes (PUT may change or delete data; only GET, HEAD, OPTIONS run)"
    )
    assert consent(put, Fill(base="http://127.0.0.1:9", defaults={}, seed=0, yes=True)) == ""
