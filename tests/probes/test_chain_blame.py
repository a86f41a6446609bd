"""Chains record the value after each hop and blame the first hop that changed it."""

from __future__ import annotations

import subprocess
import sys

import pytest

import probes
from fidelity import Status, UsageError
from probes._chains.chain import ChainBroken, ValueLost


def test_function_probe_reports_arrivals_and_refusals() -> None:
    probe = probes.function(str.upper, name="upper")
    assert probe.name == "upper"
    assert probe.observe("ABC").status is Status.PRESERVED
    changed = probe.observe("abc")
    assert changed.status is Status.TRANSFORMED
    assert changed.received == "ABC"

    def refuse(text: str) -> str:
        raise ValueError(f"no {len(text)}")

    refused = probes.function(refuse).observe("abc")
    assert refused.status is Status.REJECTED
    assert (refused.error_type, refused.error) == ("ValueError", "no 3")


def test_blame_names_the_second_hop_when_only_it_rewrites() -> None:
    # The CSV writer quotes the field and keeps CRLF; the text-mode reopen rewrites it.
    probe = probes.chain(probes.csv(), probes.text_file())
    assert probe.name == "csv -> text_file"
    obs = probe.observe("a\r\nb")
    assert obs.status is Status.TRANSFORMED
    assert [h.name for h in obs.hops] == ["csv", "text_file"]
    assert obs.hops[0].value == "a\r\nb"
    assert obs.hops[1].value == "a\nb"
    assert obs.blame == "text_file"
    assert obs.received == "a\nb"


def test_no_blame_when_nothing_changed() -> None:
    obs = probes.chain(probes.json(), probes.csv()).observe("plain “text”")
    assert obs.status is Status.PRESERVED
    assert obs.blame is None
    assert [h.value for h in obs.hops] == ["plain “text”", "plain “text”"]


def test_blame_is_the_first_change_even_if_a_later_hop_changes_again() -> None:
    probe = probes.chain(str.lower, str.upper, name="case")
    obs = probe.observe("Ab")
    assert probe.name == "case"
    assert obs.blame == "lower"
    assert obs.received == "AB"


def test_a_raising_hop_rejects_and_is_named() -> None:
    def explode(value: object) -> object:
        raise KeyError("boom")

    probe = probes.chain(probes.json(), probes.hop("explode", explode), probes.csv())
    obs = probe.observe("x")
    assert obs.status is Status.REJECTED
    assert obs.blame == "explode"
    assert obs.error_type == "KeyError"
    assert [h.name for h in obs.hops] == ["json", "explode"]
    assert obs.hops[-1].value is None
    assert "boom" in obs.hops[-1].error


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (ValueLost("gone"), Status.LOST),
        (ChainBroken("dead"), Status.BROKEN),
        (TimeoutError("slow"), Status.TIMEOUT),
    ],
)
def test_hop_failures_map_to_statuses(error: Exception, status: Status) -> None:
    def fail(value: object) -> object:
        raise error

    obs = probes.chain(probes.hop("fail", fail)).observe("x")
    assert obs.status is status
    assert obs.blame == "fail"


def test_a_subprocess_timeout_is_a_timeout() -> None:
    def slow(value: object) -> object:
        code = "import time; time.sleep(60)"
        return subprocess.run([sys.executable, "-c", code], timeout=0.3, check=False)

    obs = probes.chain(probes.hop("slow", slow)).observe("x")
    assert obs.status is Status.TIMEOUT
    assert "0.3" in obs.error


def test_encode_decode_pair_and_callable_hops() -> None:
    pair = probes.hop("rot", lambda v: v[::-1], lambda v: v[::-1])
    assert pair("abc") == "abc"
    one = probes.hop("strip", str.strip)
    assert one("  a ") == "a"
    obs = probes.chain(pair, lambda v: v + "!").observe("a")
    assert [h.name for h in obs.hops] == ["rot", "hop2"]
    assert obs.blame == "hop2"


def test_repeated_hop_names_are_numbered() -> None:
    probe = probes.chain(probes.json(), probes.json())
    assert probe.hop_names == ("json", "json#2")
    assert probe.name == "json -> json#2"


@pytest.mark.parametrize(
    "call",
    [
        probes.chain,
        lambda: probes.chain(42),
        lambda: probes.hop("", str.strip),
        lambda: probes.hop("x", "not callable"),
        lambda: probes.hop("x", str.strip, 3),
        lambda: probes.function(None),
    ],
)
def test_bad_arguments_are_usage_errors(call: object) -> None:
    with pytest.raises(UsageError):
        call()  # type: ignore[operator]


def test_concurrent_chains_keep_input_order() -> None:
    texts = [f"value {i}" for i in range(12)] + ["a\x00b"]
    probe = probes.chain(probes.argv())
    assert probe.concurrent
    observed = list(probe.observe_many(texts))
    assert [o.sent for o in observed] == texts
    assert [o.received for o in observed[:-1]] == texts[:-1]
    assert observed[-1].status is Status.REJECTED
