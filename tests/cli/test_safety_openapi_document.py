"""Safety round 4, the OpenAPI document (issue 44, rows A1-A5): a hostile document or
service costs bounded time and memory, then one sentence and exit 2.

Every run is fenced (:func:`~_support.bounded.fidelity_bounded`: 400 MiB of address
space, a timeout), so a regression fails here at once instead of hanging the suite.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _support.bounded import fidelity_bounded
from _support.cli import one_sentence
from _support.servers import serving

_HEAD = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}}
_SERVERS = [{"url": "http://127.0.0.1:9"}]


def _dag(levels: int, *, cycle: bool = False) -> dict[str, object]:
    """Each schema references the next twice: 2**levels copies once expanded."""
    schemas: dict[str, object] = {}
    for i in range(levels):
        props = {
            "a": {"$ref": f"#/components/schemas/S{i + 1}"},
            "b": {"$ref": f"#/components/schemas/S{i + 1}"},
        }
        if cycle:
            props["back"] = {"$ref": "#/components/schemas/S0"}
        schemas[f"S{i}"] = {"type": "object", "required": list(props), "properties": props}
    schemas[f"S{levels}"] = {"type": "string"}
    body = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/S0"}}}}
    return {
        **_HEAD,
        "servers": _SERVERS,
        "paths": {
            "/x": {"post": {"requestBody": body, "responses": {"200": {"description": "ok"}}}}
        },
        "components": {"schemas": schemas},
    }


@pytest.mark.parametrize("cycle", [False, True], ids=["dag", "dag-with-cycles"])
def test_a1_a_ref_dag_is_refused_in_bounded_time_and_memory(tmp_path: Path, cycle: bool) -> None:
    spec = tmp_path / "dag.json"
    spec.write_text(json.dumps(_dag(40, cycle=cycle)))
    assert len(spec.read_bytes()) < 10_000
    result = fidelity_bounded("probe", "--openapi", str(spec), "--yes", "--dry-run", timeout=60)
    assert result.returncode == 2, result.stderr
    assert one_sentence(result) == (
        f"fidelity: --openapi {str(spec)!r} is refused: its $refs expand to more than 500000 "
        "schema nodes (a schema referenced many times at many levels); give a document whose "
        "references expand to less."
    )


def test_a1_a_schema_shared_by_many_operations_still_reads(tmp_path: Path) -> None:
    # A real document reuses its schemas: one of 2**6 nodes used by 40 operations.
    doc = _dag(5)
    body = doc["paths"]["/x"]["post"]["requestBody"]  # type: ignore[index]
    doc["paths"] = {
        f"/x{i}": {"post": {"requestBody": body, "responses": {"200": {"description": "ok"}}}}
        for i in range(40)
    }
    spec = tmp_path / "shared.json"
    spec.write_text(json.dumps(doc))
    result = fidelity_bounded("probe", "--openapi", str(spec), "--yes", "--dry-run", timeout=90)
    assert result.returncode == 0, result.stderr
    assert "40 operations" in result.stdout


_ALIAS_BOMB = """\
openapi: 3.0.3
info: {title: t, version: "1"}
a: &a [x, x, x, x, x, x, x, x, x]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]
h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]
i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h]
j: &j [*i, *i, *i, *i, *i, *i, *i, *i, *i]
k: &k [*j, *j, *j, *j, *j, *j, *j, *j, *j]
l: &l [*k, *k, *k, *k, *k, *k, *k, *k, *k]
paths: {/x: {get: {responses: {"200": {description: *l}}}}}
"""


def test_a2_a_yaml_alias_bomb_is_refused(tmp_path: Path) -> None:
    spec = tmp_path / "bomb.yaml"
    spec.write_text(_ALIAS_BOMB)
    assert len(_ALIAS_BOMB) < 1000
    result = fidelity_bounded("probe", "--openapi", str(spec), "--dry-run", timeout=60)
    assert result.returncode == 2, result.stderr
    assert one_sentence(result) == (
        f"fidelity: --openapi {str(spec)!r} is refused: its aliases expand to more than "
        "500000 nodes (a YAML alias bomb?); give a document without such aliases."
    )


def test_a2_a_yaml_alias_that_contains_itself_is_refused(tmp_path: Path) -> None:
    spec = tmp_path / "loop.yaml"
    spec.write_text('openapi: 3.0.3\ninfo: {title: t, version: "1"}\nx: &x [*x]\npaths: {}\n')
    result = fidelity_bounded("probe", "--openapi", str(spec), "--dry-run", timeout=60)
    assert result.returncode == 2, result.stderr
    assert "a node contains itself through an alias" in one_sentence(result)


def test_a2_aliases_within_the_budget_still_read(tmp_path: Path) -> None:
    spec = tmp_path / "aliases.yaml"
    spec.write_text(
        "openapi: 3.0.3\n"
        'info: {title: t, version: "1"}\n'
        "servers: [{url: 'http://127.0.0.1:9'}]\n"
        "paths:\n"
        "  /a: {get: {parameters: &p [{name: q, in: query, required: true, "
        "schema: {type: string}}], responses: {'200': {description: ok}}}}\n"
        "  /b: {get: {parameters: *p, responses: {'200': {description: ok}}}}\n"
    )
    result = fidelity_bounded("probe", "--openapi", str(spec), "--dry-run", timeout=60)
    assert result.returncode == 0, result.stderr
    assert "GET /a query.q" in result.stdout
    assert "GET /b query.q" in result.stdout


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("deep.json", "[" * 200_000),
        ("deep.yaml", "openapi: 3.0.3\nx: " + "[" * 50_000),
        ("deep-map.yaml", "openapi: 3.0.3\nx: " + "{a: " * 50_000),
        ("deep-ok-for-json.json", json.dumps({**_HEAD, "paths": {"/x": {}}, "x": [[[0]]]})[:-1]
         .replace("[[[0]]]", "[" * 900 + "]" * 900) + "}"),
    ],
)  # fmt: skip
def test_a3_a_document_nested_too_deeply_is_one_sentence(
    tmp_path: Path, name: str, text: str
) -> None:
    spec = tmp_path / name
    spec.write_text(text)
    result = fidelity_bounded("probe", "--openapi", str(spec), "--dry-run", timeout=60)
    assert result.returncode == 2, result.stderr
    assert one_sentence(result) == (
        f"fidelity: --openapi {str(spec)!r} is nested more than 300 levels deep, deeper than "
        "an OpenAPI document goes; give the API's document."
    )


@pytest.mark.parametrize(
    ("mode", "said"),
    [
        (
            "gzip-stacked",
            "was not read: Content-Encoding 'gzip, gzip' stacks 2 codings; a response body "
            "is read with one coding at most (gzip, x-gzip or deflate).",
        ),
        ("gzip-big", "is larger than 16777216 bytes once decoded; it was not read further."),
    ],
)
def test_a4_a_compressed_document_is_decoded_by_the_bounded_decoder(
    tmp_path: Path, mode: str, said: str
) -> None:
    with serving("openapi_hostile.py", mode, str(tmp_path / "log")) as url:
        result = fidelity_bounded("probe", "--openapi", f"{url}/openapi.json", "--dry-run")
    assert result.returncode == 2, result.stderr
    assert one_sentence(result) == f"fidelity: --openapi '{url}/openapi.json' {said}"


def test_a5_a_dripped_document_ends_at_the_total_deadline(tmp_path: Path) -> None:
    with serving("openapi_hostile.py", "drip", str(tmp_path / "log")) as url:
        result = fidelity_bounded(
            "probe", "--openapi", f"{url}/openapi.json", "--timeout", "3", "--dry-run", timeout=40
        )
    assert result.returncode == 2, result.stderr
    assert one_sentence(result) == (
        f"fidelity: --openapi '{url}/openapi.json' did not arrive within 3s (the whole "
        "document, --timeout); check the URL, or raise --timeout for a slow service."
    )


def test_a1_bodies_that_fan_out_below_the_reference_budget_are_refused_too(
    tmp_path: Path,
) -> None:
    # 2**11 copies resolve within the budget, but each of the 500 string fields found
    # would carry a made body of 2**12 values.
    spec = tmp_path / "fan.json"
    spec.write_text(json.dumps(_dag(11)))
    result = fidelity_bounded("probe", "--openapi", str(spec), "--yes", "--dry-run", timeout=60)
    assert result.returncode == 2, result.stderr
    assert one_sentence(result) == (
        "fidelity: the OpenAPI document's request bodies would take more than 500000 values "
        "to make (required properties that fan out at every level); select fewer operations "
        "with --only-op, or give the values with --default."
    )
