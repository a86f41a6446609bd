"""probes.http write-then-read: the id from the write response (JSON, header or pattern),
placeholders in read_url, and the read-back located by a calibration request.

The endpoint is tests/servers/http_servers.py ``store`` (Starlette): ``POST /items``
answers ``{"id": N}`` with the id in ``x-item-id`` too, ``GET /items/N.txt`` answers
``item N: TEXT``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from _needs import need_module
from _support.servers import http_server, serving

import probes
from fidelity import Status, UsageError

VALUE = "a\r\n“b” \u2028 c: (d)"


@pytest.fixture(scope="module")
def store() -> Iterator[str]:
    need_module("starlette")
    with http_server("store") as url:
        yield url


@pytest.mark.parametrize("id_from", ["json:id", "header:x-item-id", 'regex:"id":\\s*(\\d+)'])
def test_the_id_comes_from_where_id_from_says(store: str, id_from: str) -> None:
    with probes.http(
        f"{store}items", read=None, read_url=f"{store}items/{{id}}.txt", id_from=id_from
    ) as probe:
        assert probe.needs_calibration
        spec = probe.calibrate()
        # The item's number varies: the anchor is a pattern for it, not its digits.
        assert spec == r"regex:(?s)\w*\d\w*: (.*)\Z"
        assert probe.requests == 6  # the write and read of each of the three markers
        observation = probe.observe(VALUE)
        assert probe.requests == 8
    assert observation.status is Status.PRESERVED, observation.error
    setup = probe.setup
    assert (setup.read, setup.read_found, setup.id_from) == (spec, True, id_from)


def test_a_missing_id_is_lost(store: str) -> None:
    with probes.http(
        f"{store}items", read_url=f"{store}items/{{id}}", id_from="header:x-nothing"
    ) as probe:
        observation = probe.observe("x")
    assert observation.status is Status.LOST
    assert "no id at header:x-nothing" in observation.error


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"read_url": "http://h/{nope}"}, "unknown placeholder"),
        ({"read_url": "http://h/{id}"}, "needs id_from"),
        ({"read_url": "http://h/x", "id_from": "body"}, "json:PATH, header:NAME or regex"),
        ({"id_from": "json:id"}, "only used with read_url"),
    ],
)
def test_bad_read_back_options_are_usage_errors(kwargs: dict[str, str], message: str) -> None:
    with pytest.raises(UsageError, match=message.replace("{", "\\{").replace("}", "\\}")):
        probes.http("http://127.0.0.1:9/items", **kwargs)


def test_an_id_that_is_a_dot_segment_reads_that_item_not_another_path() -> None:
    # The write answers {"id": ".."} (then "."): filled in raw, /items/../view is
    # /view, another resource. The dots go out as %2E, one path segment that is the id.
    need_module("starlette")
    with (
        http_server("dots") as url,
        probes.http(
            f"{url}items", read="json:text", read_url=f"{url}items/{{id}}/view", id_from="json:id"
        ) as probe,
    ):
        observations = [probe.observe(value) for value in ("up “one”", "here “two”")]
    for observation, value in zip(observations, ("up “one”", "here “two”"), strict=True):
        assert observation.status is Status.PRESERVED, observation.error
        assert observation.received == value


def test_a_dot_segment_is_encoded_in_a_path_segment() -> None:
    from probes._payload.placeholders import path_segment

    assert path_segment("..") == "%2E%2E"
    assert path_segment(".") == "%2E"
    assert path_segment("...") == "..."  # not a dot segment: kept
    assert path_segment("a/../b") == "a%2F..%2Fb"  # one segment: its slashes encoded


def test_an_id_from_a_location_header_is_the_path_it_names(tmp_path: Path) -> None:
    """``POST /things`` of tests/servers/openapi_app.py answers 201 and
    ``Location: /things/N``; ``GET /things/N`` holds the label with CRLF as LF."""
    need_module("fastapi")
    with serving("openapi_app.py", str(tmp_path / "calls.txt")) as url:
        with probes.http(
            f"{url}/things", body={"label": "{payload}"}, send="json:label", read="json:label",
            read_url=url + "{id}", id_from="header:Location",
        ) as probe:  # fmt: skip
            kept, rewritten = probe.observe("a “b” c"), probe.observe("a\r\nb")
        calls = (tmp_path / "calls.txt").read_text(encoding="utf-8").splitlines()
    assert kept.status is Status.PRESERVED, kept.error
    assert rewritten.status is Status.TRANSFORMED, rewritten.error
    assert "newline.crlf_to_lf" in rewritten.kinds
    assert calls == ["POST /things", "GET /things/1", "POST /things", "GET /things/2"]
