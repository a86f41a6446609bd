"""Automatic read-back location over HTTP against endpoints that keep every byte but
answer in shapes that misled it (``tests/servers/http_servers.py truth``, Starlette
under uvicorn on 127.0.0.1): every payload is ``preserved`` (or refused by the client
library before anything is sent), never a kind, never ``lost``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from _needs import need_module
from _support.mcp import catalogue, one_per_family
from _support.servers import http_server

import probes
from fidelity import Status

HARD = (
    'say "hi"\\n and \\u00e9 \\\\ done',
    "line one\nline two\r\nline three\n",
    "output=x Job 7 RUNNING: y",
    '{"text": "nested"}',
    " ",
)


def _lone_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


@pytest.fixture(scope="module")
def truth() -> Iterator[str]:
    need_module("starlette")
    with http_server("truth") as url:
        yield url


@pytest.mark.parametrize(
    ("route", "options", "expected"),
    [
        # A JSON echo: read inside the decoded value, never with a pattern over its text.
        ("note", {}, "json:content"),
        ("echo/{value}", {"send": "path", "method": "GET"}, "json:value"),
        # A log that lists every entry so far: this payload's is the last.
        ("log", {}, "json:entries[-1].text"),
        # A status word that changes from call to call: never part of an anchor.
        ("job", {}, r"regex:(?s)output=(.*)\Z"),
    ],
)
def test_a_located_read_back_never_makes_a_finding(
    truth: str, route: str, options: dict[str, Any], expected: str
) -> None:
    payloads = [*HARD, *(p.text for p in one_per_family(catalogue()))]
    if route == "job":
        # A text answer is UTF-8: it has no form for a lone surrogate (sent as its JSON
        # escape), so that endpoint cannot give one back; the JSON answers can.
        payloads = [t for t in payloads if not _lone_surrogate(t)]
    with probes.http(f"{truth}{route}", read=None, **options) as probe:
        assert probe.calibrate() == expected
        seen = [probe.observe(text) for text in payloads]
    wrong = [
        (o.sent, o.status.value, sorted(o.kinds), o.error)
        for o in seen
        if o.status is not Status.PRESERVED and not o.client_side
    ]
    assert not wrong, wrong


def test_lost_says_what_the_response_was(truth: str) -> None:
    with probes.http(f"{truth}note", read="json:missing") as probe:
        seen = probe.observe("x")
    assert seen.status is Status.LOST
    assert seen.error.startswith(
        "the response has no value at json:missing; what came back (HTTP 200): {"
    )
