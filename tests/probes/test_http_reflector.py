"""The HTTP reflector: armored evidence of what arrived, emission, bounds, targets."""

from __future__ import annotations

import http.client
import json
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from _needs import need_module

import fidelity
from fidelity import Direction, Payload, Status
from fidelity._core.armor import armor, unarmor


def raw_request(url: str, method: str, path: str, headers: list[tuple[str, str]]) -> Any:
    """A request through http.client, which lets edge whitespace reach the wire."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
    try:
        conn.putrequest(method, path, skip_accept_encoding=True)
        for name, value in headers:
            conn.putheader(name, value)
        conn.endheaders()
        response = conn.getresponse()
        return json.loads(response.read(1024 * 1024))
    finally:
        conn.close()


def item(items: list[dict[str, Any]], name: str) -> dict[str, Any]:
    (found,) = [i for i in items if unarmor(i["name"]) == name]
    return found


def test_evidence_separates_wire_bytes_from_decoded_values(reflector: Any) -> None:
    response = httpx.post(
        reflector.url + "reflect/a%2Fb",
        params={"q": "a b+"},
        json={"text": "“é”", "n": 1},
        headers={"x-a": "a\tb"},
        timeout=10,
    )
    assert response.headers["x-fidelity-reflector"] == "1"
    evidence = response.json()["_fidelity"]
    assert unarmor(evidence["query"]["raw"]) == "q=a+b%2B"
    assert unarmor(item(evidence["query"]["params"], "q")["value"]) == "a b+"
    assert unarmor(evidence["path"]["raw"]) == "/reflect/a%2Fb"
    assert unarmor(evidence["path"]["decoded"]) == "/reflect/a/b"
    assert unarmor(item(evidence["headers"], "x-a")["raw"]) == "a\tb"
    assert unarmor(evidence["json"]["value"]["text"]) == "“é”"
    assert evidence["json"]["value"]["n"] == 1
    assert unarmor(evidence["body"]["raw"]) == '{"text":"“é”","n":1}'


def test_server_trims_header_values_a_lenient_client_sends(reflector: Any) -> None:
    # httpx (h11) refuses edge whitespace; http.client sends it, and uvicorn's h11 trims it.
    evidence = raw_request(reflector.url, "GET", "/reflect", [("x-pad", "  padded \t")])
    received = unarmor(item(evidence["_fidelity"]["headers"], "x-pad")["decoded"])
    assert received == "padded"
    assert fidelity.compare("  padded \t", received).kinds == {"whitespace.strip"}


def test_form_fields_decode_with_starlette(reflector: Any) -> None:
    body = b"a=x%2By+z&b=%C3%A9"
    response = httpx.post(
        reflector.url + "f",
        content=body,
        headers={"content-type": "application/x-www-form-urlencoded"},
        timeout=10,
    )
    form = response.json()["_fidelity"]["form"]
    assert unarmor(item(form, "a")["value"]) == "x+y z"
    assert unarmor(item(form, "b")["value"]) == "é"


def test_request_size_is_bounded(reflector: Any) -> None:
    from probes._http.app import MAX_REQUEST

    response = httpx.post(reflector.url + "big", content=b"x" * (MAX_REQUEST + 1), timeout=10)
    assert response.status_code == 413


@pytest.mark.parametrize(
    ("order", "status", "content_type"),
    [
        ({"as": "json", "path": "a.b"}, 200, "application/json"),
        ({"as": "text", "charset": "utf-8"}, 200, "text/plain; charset=utf-8"),
        ({"as": "text", "charset": None}, 200, "text/plain"),
        ({"as": "header", "header": "x-out"}, 500, "application/json"),
        ({"as": "nonsense"}, 400, "application/json"),
    ],
)
def test_emit(reflector: Any, order: dict[str, Any], status: int, content_type: str) -> None:
    response = httpx.post(reflector.emit_url, json={"value": armor("“€”"), **order}, timeout=10)
    assert response.status_code == status
    assert response.headers["content-type"] == content_type
    if order["as"] == "json":
        assert response.json() == {"a": {"b": "“€”"}}
    elif order["as"] == "text":
        assert response.content == "“€”".encode()


def test_emit_refuses_malformed_orders(reflector: Any) -> None:
    response = httpx.post(reflector.emit_url, content=b"not json", timeout=10)
    assert response.status_code == 400
    assert "armored 'value'" in response.json()["error"]


def test_builtin_targets_share_one_reflector() -> None:
    need_module("starlette")
    need_module("uvicorn")
    from probes._http.reflector import builtin_targets

    targets = {t.name: t for t in builtin_targets()}
    assert {"http json", "http query", "http header", "http multipart filename"} <= set(targets)
    assert all(not t.unavailable for t in targets.values())
    with targets["http json"].open() as first, targets["http path"].open() as second:
        assert first.emit_url == second.emit_url  # type: ignore[attr-defined]
        survey = fidelity.survey(
            second, payloads=[Payload(id="paths/x", text="a/b\\c d", families=("paths",))]
        )
    (observation,) = survey.observations
    assert observation.status is Status.PRESERVED
    assert {p.direction for p in observation.parts} == {Direction.REQUEST, Direction.RESPONSE}
