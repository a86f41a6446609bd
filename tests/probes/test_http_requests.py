"""probes.http: the request counter, the per-exchange deadline, concurrency, budgets.

Real servers on loopback (the reference reflector, the test servers of
``http_servers.py``) and the installed ``fidelity`` command; the counts asserted are
the server's own where it matters.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from _needs import need_module
from _support.cli import fidelity_inprocess as fidelity
from _support.servers import http_server

from fidelity import Status

if TYPE_CHECKING:
    from probes import HttpProbe

TIMEOUT = 1.0


def http(url: str, **options: Any) -> HttpProbe:
    import probes

    probe: HttpProbe = probes.http(url, **options)
    return probe


# --- the counter --------------------------------------------------------------------


def test_requests_counts_every_request_sent_to_the_reflector(reflector: Any) -> None:
    url = reflector.url + "reflect"
    with http(url) as probe:
        assert probe.requests == 0
        # Before any answer, the reflector's worst case: the request and two emits.
        assert probe.max_requests_per_observation == 3
        first = probe.observe("plain")
        assert first.status is Status.PRESERVED
        # Not yet known as the reflector: the round trip was read from an emit.
        assert probe.requests == 2
        assert probe.max_requests_per_observation == 2
        probe.observe("again")
        assert probe.requests == 3  # echoed in one answer
        refused = probe.observe("a\ud800b")
        # Sent as a JSON escape; the reflector's answer says it cannot echo it back.
        assert not refused.client_side
        assert refused.status is Status.REJECTED
        assert probe.requests == 4


def test_one_request_per_observation_once_the_target_is_not_the_reflector() -> None:
    need_module("starlette")
    with http_server("store") as url:
        with http(url + "items", read="json:id") as probe:
            assert probe.max_requests_per_observation == 3
            list(probe.observe_many(["a", "b", "c"]))
            assert probe.requests == 3
            assert probe.max_requests_per_observation == 1
        with http(url + "items", read_url=url + "items/{id}", id_from="json:id") as probe:
            assert probe.max_requests_per_observation == 2
            list(probe.observe_many(["a", "b"]))
            assert probe.requests == 4


# --- concurrency --------------------------------------------------------------------


def test_concurrent_observations_come_back_in_order(reflector: Any) -> None:
    texts = [f"“{i}” {'é' * (i % 7)}" for i in range(40)]
    url = reflector.url + "reflect"
    with http(url, concurrency=4) as probe:
        seen = list(probe.observe_many(texts))
        sent = probe.requests
    assert [o.sent for o in seen] == texts
    assert [o.received for o in seen] == texts
    assert {o.status for o in seen} == {Status.PRESERVED}
    assert sent == len(texts) + 1  # one emit, for the first answer


# --- the deadline -------------------------------------------------------------------


def test_dripping_servers_time_out_under_concurrency() -> None:
    # One byte every 0.2 s never trips a 1 s per-read timeout: only a total deadline
    # ends these exchanges.
    with http_server("drip") as url, http(url, timeout=TIMEOUT, concurrency=3) as probe:
        seen = list(probe.observe_many(["a", "b", "c"]))
        assert probe.requests == 3
    assert [o.status for o in seen] == [Status.TIMEOUT] * 3
    assert {o.error_type for o in seen} == {"ReadTimeout"}


def test_a_server_that_never_reads_times_out_the_write() -> None:
    # 32 MiB fill the loopback socket buffers of a server that reads only the head.
    with http_server("silent") as url, http(url, send="body", timeout=TIMEOUT) as probe:
        observation = probe.observe("x" * (32 * 1024 * 1024))
    assert observation.status is Status.TIMEOUT
    assert observation.error_type == "WriteTimeout"
    assert "not sent again" in observation.error


def test_a_large_request_arrives_whole(reflector: Any) -> None:
    # Larger than what the probe's stream holds back before sending (64 KiB).
    text = "“quoted” " * 6_000
    url = reflector.url + "reflect"
    with http(url) as probe:
        observation = probe.observe(text)
    assert observation.status is Status.PRESERVED
    assert observation.received == text


def test_a_host_name_is_resolved_within_the_deadline(reflector: Any) -> None:
    url = reflector.url.replace("127.0.0.1", "localhost") + "reflect"
    with http(url, timeout=5.0) as probe:
        observation = probe.observe("“name”")
    assert observation.status is Status.PRESERVED, observation.error


# --- a dropped connection -----------------------------------------------------------


def test_a_dropped_connection_is_one_sentence_without_empty_parentheses() -> None:
    from probes._http.exchange import _dropped

    origin = "http://127.0.0.1:9"
    bare = _dropped(origin, httpx.ReadError(""))
    assert "()" not in bare
    assert bare == (
        "the connection to http://127.0.0.1:9 failed mid-exchange: it was closed before a "
        "complete answer arrived (ReadError)."
    )
    said = _dropped(origin, httpx.RemoteProtocolError("Server disconnected."))
    assert said == "the connection to http://127.0.0.1:9 failed mid-exchange (Server disconnected)."
    with http_server("drop") as url, http(url, timeout=TIMEOUT) as probe:
        real = probe.observe("x")
    assert real.status is Status.BROKEN
    assert real.error.endswith(".")
    assert real.error.count(". ") == 0  # one sentence
    assert "()" not in real.error


# --- fidelity probe --max-requests --------------------------------------------------


@pytest.mark.parametrize("concurrency", [1, 4])
def test_max_requests_is_never_exceeded(concurrency: int, tmp_path: Path) -> None:
    need_module("starlette")
    limit = 20
    result_file = tmp_path / "r.json"
    with http_server("counted") as url:
        result = fidelity(
            "probe", url, "--families", "quotes,whitespace", "--max-requests", str(limit),
            "--concurrency", str(concurrency), "--quiet", "--json", str(result_file),
        )  # fmt: skip
        count = httpx.get(url + "_count", timeout=10).json()["count"]
    assert result.returncode == 1, result.stderr  # the server straightens quotes
    assert count <= limit
    # It stops only when the next payloads could need more than what is left: at
    # most two requests each once the reflector is known, `concurrency` at once.
    assert count > limit - 2 * concurrency
    observations = json.loads(result_file.read_text())["observations"]
    assert limit // 2 - 2 * concurrency < len(observations) <= count


def test_max_requests_below_the_reflectors_worst_case_measures_what_the_target_costs() -> None:
    # --max-requests 5 cannot pay for the reflector's measurement of two payloads in
    # both directions, nor a plain endpoint's three calibration requests and more than
    # two payloads: the run measures what fits and stays within the budget.
    need_module("starlette")
    with http_server("counted") as url:
        result = fidelity("probe", url, "--max-requests", "5", "--quiet")
        count = httpx.get(url + "_count", timeout=10).json()["count"]
    assert result.returncode == 1, result.stderr
    assert "reflector" not in result.stderr + result.stdout
    assert "2 payloads: 1 preserved, 1 transformed" in result.stdout
    assert count <= 5
