"""Safety round 4, what an OpenAPI document may make the probe send (issue 44 rows
A6-A8, and issue 43's authenticated document): credentials go only to an origin named
on the command line, a made path never normalises to another route, and a method
override to an unsafe method is a write.

The services are tests/servers/openapi_hostile.py, which logs every request it gets
(its headers included), so a test sees what reached which origin.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _support.bounded import fidelity_bounded
from _support.cli import one_sentence
from _support.servers import serving

_TOKEN = "Bearer Or1ginS3cretToken"


def _log(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a6_credentials_never_go_to_another_origin_named_only_by_the_document(
    tmp_path: Path,
) -> None:
    b_log, a_log = tmp_path / "b.log", tmp_path / "a.log"
    with (
        serving("openapi_hostile.py", "record", str(b_log)) as origin_b,
        serving("openapi_hostile.py", "servers", str(a_log), origin_b) as origin_a,
    ):
        result = fidelity_bounded(
            "probe", "--openapi", f"{origin_a}/openapi.json", "--header",
            f"Authorization: {_TOKEN}", "--max-requests", "8",
        )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert one_sentence(result) == (
        f"fidelity: --openapi's document names the server {origin_b} and came from another "
        f"origin than {origin_a}/openapi.json; --header and --auth are sent only to an "
        "origin named on the command line: give the base URL after the options to send "
        f"them there (such as fidelity probe --openapi SPEC {origin_b})."
    )
    assert _log(b_log) == []
    # The document itself was fetched from the origin named, with the credentials.
    assert {(e["path"], e["headers"].get("authorization")) for e in _log(a_log)} == {
        ("/openapi.json", _TOKEN)
    }


def test_a6_the_base_url_named_on_the_command_line_gets_them(tmp_path: Path) -> None:
    b_log, a_log = tmp_path / "b.log", tmp_path / "a.log"
    with (
        serving("openapi_hostile.py", "record", str(b_log)) as origin_b,
        serving("openapi_hostile.py", "servers", str(a_log), origin_b) as origin_a,
    ):
        result = fidelity_bounded(
            "probe", "--openapi", f"{origin_a}/openapi.json", origin_b, "--header",
            f"Authorization: {_TOKEN}", "--max-requests", "6",
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    sent = _log(b_log)
    assert sent, "nothing reached the base URL named"
    assert {e["headers"].get("authorization") for e in sent} == {_TOKEN}
    assert {e["path"].partition("?")[0] for e in sent} == {"/search"}


def test_a6_without_credentials_the_documents_server_is_used(tmp_path: Path) -> None:
    b_log, a_log = tmp_path / "b.log", tmp_path / "a.log"
    with (
        serving("openapi_hostile.py", "record", str(b_log)) as origin_b,
        serving("openapi_hostile.py", "servers", str(a_log), origin_b) as origin_a,
    ):
        result = fidelity_bounded(
            "probe", "--openapi", f"{origin_a}/openapi.json", "--max-requests", "6"
        )
    assert result.returncode == 0, result.stderr
    assert {e["path"].partition("?")[0] for e in _log(b_log)} == {"/search"}


def test_a6_a_spec_file_naming_a_server_needs_the_base_url_with_credentials(
    tmp_path: Path,
) -> None:
    spec = tmp_path / "spec.json"
    spec.write_text(
        json.dumps({"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
                    "servers": [{"url": "http://127.0.0.1:9/api"}],
                    "paths": {"/x": {"get": {"responses": {"200": {"description": "ok"}}}}}})
    )  # fmt: skip
    result = fidelity_bounded("probe", "--openapi", str(spec), "--auth", "u:pw12345", "--dry-run")
    assert result.returncode == 2, result.stderr
    assert one_sentence(result) == (
        "fidelity: --openapi's document names the server http://127.0.0.1:9/api and came "
        "from a file; --header and --auth are sent only to an origin named on the command "
        "line: give the base URL after the options to send them there (such as fidelity "
        "probe --openapi SPEC http://127.0.0.1:9/api)."
    )


def test_43_a_protected_document_is_fetched_with_the_runs_credentials(tmp_path: Path) -> None:
    log = tmp_path / "a.log"
    with serving("openapi_hostile.py", "protected", str(log), "doc-t0ken-1234") as origin:
        given = fidelity_bounded(
            "probe", "--openapi", f"{origin}/openapi.json", "--header",
            "Authorization: Bearer doc-t0ken-1234", "--dry-run",
        )  # fmt: skip
        without = fidelity_bounded("probe", "--openapi", f"{origin}/openapi.json", "--dry-run")
    assert given.returncode == 0, given.stderr
    assert "GET /search query.q" in given.stdout
    assert without.returncode == 2
    assert one_sentence(without) == (
        f"fidelity: --openapi '{origin}/openapi.json' answered HTTP 401; give the URL of the "
        "OpenAPI document (such as http://host/openapi.json), and the credentials it needs "
        "(--header, --auth)."
    )


def test_a6_a_redirect_to_another_origin_is_followed_without_credentials(
    tmp_path: Path,
) -> None:
    b_log, a_log = tmp_path / "b.log", tmp_path / "a.log"
    with (
        serving("openapi_hostile.py", "record", str(b_log)) as origin_b,
        serving("openapi_hostile.py", "redirect", str(a_log), f"{origin_b}/openapi.json") as a,
    ):
        result = fidelity_bounded(
            "probe", "--openapi", f"{a}/openapi.json", a, "--header",
            f"Authorization: {_TOKEN}", "--dry-run",
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    # (The document is read twice: for the base URL, then for the operations.)
    assert {(e["path"], e["headers"].get("authorization")) for e in _log(b_log)} == {
        ("/openapi.json", None)
    }


def _spec(tmp_path: Path, paths: dict[str, Any]) -> str:
    spec = tmp_path / "spec.json"
    doc = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": paths}
    spec.write_text(json.dumps(doc))
    return str(spec)


_OK = {"200": {"description": "ok"}}


def test_a7_a_dot_segment_made_from_the_schema_goes_out_percent_encoded(tmp_path: Path) -> None:
    log = tmp_path / "log"
    name = {"name": "name", "in": "path", "required": True,
            "schema": {"type": "string", "enum": [".."]}}  # fmt: skip
    q = {"name": "q", "in": "query", "required": True, "schema": {"type": "string"}}
    spec = _spec(tmp_path, {"/files/{name}/view": {"get": {"parameters": [name, q],
                                                          "responses": _OK}}})  # fmt: skip
    with serving("openapi_hostile.py", "record", str(log)) as origin:
        result = fidelity_bounded("probe", "--openapi", spec, origin, "--max-requests", "6")
    assert result.returncode == 0, result.stderr
    paths = {e["path"].partition("?")[0] for e in _log(log)}
    assert paths == {"/files/%2E%2E/view"}


def test_a7_an_operation_whose_own_path_climbs_is_skipped(tmp_path: Path) -> None:
    q = {"name": "q", "in": "query", "required": True, "schema": {"type": "string"}}
    spec = _spec(tmp_path, {"/files/../admin": {"get": {"parameters": [q], "responses": _OK}}})
    result = fidelity_bounded("probe", "--openapi", spec, "http://127.0.0.1:9", "--dry-run")
    assert result.returncode == 0, result.stderr
    assert (
        "GET /files/../admin query.q  its path holds a dot segment (. or ..), which would "
        "lead to another route"
    ) in result.stdout


def test_a8_a_method_override_to_an_unsafe_method_is_a_write(tmp_path: Path) -> None:
    log = tmp_path / "log"
    q = {"name": "q", "in": "query", "required": True, "schema": {"type": "string"}}
    header = {"name": "X-HTTP-Method-Override", "in": "header", "required": True,
              "schema": {"type": "string", "enum": ["DELETE"]}}  # fmt: skip
    query = {"name": "_method", "in": "query", "required": True,
             "schema": {"type": "string", "default": "delete"}}  # fmt: skip
    spec = _spec(tmp_path, {
        "/by-header": {"get": {"parameters": [q, header], "responses": _OK}},
        "/by-query": {"get": {"parameters": [q, query], "responses": _OK}},
    })  # fmt: skip
    with serving("openapi_hostile.py", "record", str(log)) as origin:
        result = fidelity_bounded("probe", "--openapi", spec, origin, "--max-requests", "20")
    assert result.returncode == 3, result.stderr  # nothing measured: every field needs --yes
    assert _log(log) == []
    assert "needs --yes (a method override asks the server to take this GET as DELETE" in (
        result.stdout + result.stderr
    )


def test_a8_a_method_override_in_header_makes_every_operation_a_write(tmp_path: Path) -> None:
    q = {"name": "q", "in": "query", "required": True, "schema": {"type": "string"}}
    spec = _spec(tmp_path, {"/search": {"get": {"parameters": [q], "responses": _OK}}})
    result = fidelity_bounded(
        "probe", "--openapi", spec, "http://127.0.0.1:9", "--header",
        "X-HTTP-Method-Override: PUT", "--dry-run",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert (
        "GET /search query.q  needs --yes (a method override asks the server to take this GET "
        "as PUT, which may change or delete data)"
    ) in result.stdout
