"""``fidelity probe --openapi SPEC --errors``: the error contract of an HTTP API, against
a real API on loopback (tests/servers/http_errors.py) whose operations answer
malformed requests in each way, and which writes down every request it gets.

Expected verdicts, from the server's source: 422 naming the field is ``structured``, a
500 (an HTML traceback) and a 400 holding a traceback are ``leaky``, a 200 to anything
is ``accepted``, a 400 ``bad request`` is ``unnamed``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _support.cli import fidelity_inprocess as fidelity
from _support.servers import serving

NOTE_CASES = ("missing:body.title", "type:body.title", "type:body.count", "extra", "empty")


@pytest.fixture
def api(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    calls = tmp_path / "calls"
    with serving("http_errors.py", str(calls)) as url:
        yield url, calls


def _requests(calls: Path) -> list[str]:
    lines = calls.read_text(encoding="utf-8").splitlines() if calls.exists() else []
    return [line for line in lines if line != "GET /openapi.json"]


def _run(url: str, *options: str) -> Any:
    return fidelity("probe", "--openapi", f"{url}/openapi.json", "--errors", *options, url)


def test_each_operation_gets_its_true_verdicts(api: tuple[str, Path], tmp_path: Path) -> None:
    url, calls = api
    out = tmp_path / "r.json"
    result = _run(url, "--yes", "--skip-op", "DELETE *", "--json", str(out), "--quiet")
    assert result.returncode == 1, result.stderr
    data = json.loads(out.read_text(encoding="utf-8"))
    found: dict[str, dict[str, str]] = {}
    for call in data["calls"]:
        found.setdefault(call["tool"], {})[call["case"]] = call["verdict"]
    assert found == {
        "POST /notes": dict.fromkeys(NOTE_CASES, "structured"),
        "POST /crash": dict.fromkeys(NOTE_CASES, "leaky"),
        "POST /lenient": dict.fromkeys(NOTE_CASES, "accepted"),
        "GET /vague": {"missing:query.q": "unnamed", "type:query.n": "unnamed"},
        "GET /trace": {"missing:query.n": "leaky", "type:query.n": "leaky"},
    }
    by_case = {(c["tool"], c["case"]): c for c in data["calls"]}
    assert by_case["POST /notes", "extra"]["excerpt"] == (
        '{"error":"unknown field \'fidelity_unexpected_argument\'"}'
    )
    assert by_case["POST /notes", "extra"]["answer"] == "HTTP 422"
    assert by_case["POST /crash", "empty"]["why"] == "answered 500: a server error"
    assert by_case["GET /trace", "type:query.n"]["why"] == "400 with a stack trace"
    assert by_case["POST /lenient", "extra"]["why"] == "answered 200"
    assert "DELETE /notes/x" not in " ".join(_requests(calls))
    assert len(_requests(calls)) == 19


def test_without_yes_only_get_head_and_options_are_called(
    api: tuple[str, Path], tmp_path: Path
) -> None:
    url, calls = api
    out = tmp_path / "r.json"
    result = _run(url, "--json", str(out), "--quiet")
    assert result.returncode == 1, result.stderr
    assert sorted(set(_requests(calls))) == ["GET /trace", "GET /vague"]
    skipped = json.loads(out.read_text(encoding="utf-8"))["contracts"][0]["skipped"]
    assert [s["tool"] for s in skipped] == [
        "POST /notes",
        "POST /crash",
        "POST /lenient",
        "DELETE /notes/{id}",
    ]


@pytest.mark.parametrize(
    ("options", "code"),
    [
        (("--yes", "--only-op", "POST /notes"), 0),
        (("--yes", "--only-op", "POST /lenient"), 1),
        (("--yes", "--only-op", "POST /lenient", "--allow", "error.accepted"), 0),
        (("--only-op", "POST /notes"), 3),  # nothing could be called without --yes
    ],
)
def test_exit_codes(api: tuple[str, Path], options: tuple[str, ...], code: int) -> None:
    url, _ = api
    result = _run(url, *options, "--quiet")
    assert result.returncode == code, result.stdout + result.stderr
