"""``fidelity probe`` against misbehaving HTTP servers on loopback.

Every case must end (the subprocess timeout is the hang guard), exit 3 with one
sentence and no traceback, and keep the observations made before the fault in the
JSON result, marked incomplete. The read-back is pinned (``--read json:text``) where a
calibration call would otherwise meet the fault first.
"""

from __future__ import annotations

import contextlib
import json
import resource
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from _support.cli import FIDELITY, fidelity, fidelity_inprocess, one_sentence, start, stop
from _support.processes import wait_for
from _support.servers import http_server

#: The request timeout where a timeout is the behaviour under test (the server never
#: answers in full): short, as the wait is all it costs.
TIMEOUT = 1.5
#: Where the server does answer (badly): generous, so that a loaded machine cannot turn
#: a broken reply into a timeout.
GENEROUS = 30.0


@pytest.fixture
def server() -> Iterator[Callable[[str], str]]:
    """Start a mode of the HTTP test server; every one started stops with the test."""
    with contextlib.ExitStack() as running:
        yield lambda mode: running.enter_context(http_server(mode))


@pytest.mark.parametrize(
    ("mode", "status", "words"),
    [
        ("silent", "timeout", f"did not answer within {TIMEOUT:g}s"),
        ("drip", "timeout", f"did not answer within {TIMEOUT:g}s"),
        ("huge", "broken", "larger than"),
        ("drop", "broken", "failed"),
    ],
)
def test_hostile_server_ends_with_exit_3_and_keeps_results(
    server: Callable[[str], str], tmp_path: Path, mode: str, status: str, words: str
) -> None:
    url = server(mode)
    result_file = tmp_path / "result.json"
    bound = TIMEOUT if status == "timeout" else GENEROUS
    result = fidelity_inprocess(
        "probe", url, "--families", "quotes", "--max-requests", "4", "--read", "json:text",
        "--timeout", f"{bound:g}", "--json", str(result_file), "--html", str(tmp_path / "r.html"),
        timeout=bound + 60,
    )  # fmt: skip
    assert result.returncode == 3, result.stderr
    line = one_sentence(result)
    assert words in line
    assert "nothing more was sent" in line
    card = json.loads(result_file.read_text())
    assert card["facts"]["complete"] is False
    assert [o["status"] for o in card["observations"]] == [status]
    assert "This run was interrupted" in (tmp_path / "r.html").read_text()


def test_interrupted_run_keeps_every_observation(
    server: Callable[[str], str], tmp_path: Path
) -> None:
    url = server("slow-echo")  # 0.15 s per answer at least: the catalogue takes 45 s or more
    result_file = tmp_path / "result.json"
    proc = start("probe", url, "--json", str(result_file))

    def kept() -> int:
        return len(json.loads(result_file.read_text())["observations"])

    # A loaded machine only makes the run slower: the wait is generous, and what is
    # checked after the stop is a count, never a duration.
    assert wait_for(lambda: result_file.exists() and kept() >= 3, bound=180)
    seen = kept()
    returncode, err = stop(proc)
    assert returncode == 130
    assert "Traceback" not in err
    assert "interrupted" in err
    card = json.loads(result_file.read_text())
    assert card["facts"]["complete"] is False
    kept = card["observations"]
    assert len(kept) >= seen >= 3
    assert {o["status"] for o in kept} == {"preserved"}
    assert len(kept) < 100  # it really was cut short


def test_replies_that_are_not_json_are_a_protocol_failure(
    server: Callable[[str], str], tmp_path: Path
) -> None:
    # The endpoint answers, so the run is not cut short; but every reply is unparsable:
    # the rule, not the exception, so the run fails (exit 3) as a protocol failure.
    url = server("garbage")
    result_file = tmp_path / "result.json"
    result = fidelity_inprocess(
        "probe", url, "--families", "quotes", "--max-requests", "4", "--read", "json:text",
        "--timeout", f"{GENEROUS:g}", "--json", str(result_file), timeout=GENEROUS + 60,
    )  # fmt: skip
    assert result.returncode == 3, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(
        "fidelity: The target's reply to 4 of the 4 payloads sent could not be parsed "
        "(a protocol failure of the chain, counted as broken; the most common error: "
        "UnparsableReply: the response is not JSON"
    ), line
    card = json.loads(result_file.read_text())
    assert card["facts"]["complete"] is True
    assert [o["status"] for o in card["observations"]] == ["broken"] * 4
    assert {o["error_type"] for o in card["observations"]} == {"UnparsableReply"}


def test_garbage_json_to_stdout_stays_pure(server: Callable[[str], str]) -> None:
    url = server("garbage")
    # In a subprocess: whatever reaches the process's stdout descriptor counts.
    result = fidelity(
        "probe", url, "--families", "quotes", "--timeout", f"{GENEROUS:g}", "--json", "-",
        "--read", "json:text", timeout=GENEROUS + 60,
    )  # fmt: skip
    assert result.returncode == 3
    card = json.loads(result.stdout)  # nothing but the JSON on stdout
    assert {o["status"] for o in card["observations"]} == {"broken"}


def _measured(*args: str, timeout: float) -> tuple[int, str, int]:
    """Run ``fidelity ARGS``: its exit code, stderr and peak memory (KiB on Linux: the
    largest ``ru_maxrss`` of the test run's child processes so far, this one included,
    so a bound on it bounds this run). A run still going after ``timeout`` seconds
    fails the test, saying so (the bound is the point: a bomb being unpacked hangs)."""
    process = subprocess.Popen(
        [*FIDELITY, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    try:
        _, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"fidelity {' '.join(args[:2])} was still running after {timeout} s")
    finally:
        process.kill()
    return (
        process.returncode,
        stderr,
        resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
    )


@pytest.mark.parametrize(
    ("mode", "words"),
    [
        ("gzip-bomb", "Content-Encoding 'gzip, gzip, gzip' stacks 3 codings"),
        ("gzip-big", "larger than max_body=8388608 bytes once decoded"),
    ],
)
def test_a_gzip_bomb_is_not_unpacked(
    server: Callable[[str], str], tmp_path: Path, mode: str, words: str
) -> None:
    """Three stacked gzip layers (282 bytes unpacking to 2 GiB) are refused before any
    decoding; one layer of 2 GiB is decoded no further than max_body. Either ends within
    the timeout with one sentence, exit 3, in bounded memory (it took 4.2 GB and 24 s)."""
    url = server(mode)
    # (--timeout 5 a request, at most 6 requests: 45 s is far beyond an honest run,
    # far below the minutes a bomb being unpacked takes)
    code, stderr, peak_kib = _measured(
        "probe", url, "--families", "quotes", "--max-requests", "6", "--read", "json:text",
        "--timeout", "5", "--json", str(tmp_path / "result.json"), timeout=45,
    )  # fmt: skip
    assert code == 3, stderr
    assert "Traceback" not in stderr
    (line,) = stderr.strip().splitlines()
    assert words in line
    assert peak_kib < 1024 * 1024  # under 1 GiB, with every process of the test run so far
    card = json.loads((tmp_path / "result.json").read_text())
    assert [o["status"] for o in card["observations"]] == ["broken"]


def test_one_gzip_layer_is_read_as_before(server: Callable[[str], str]) -> None:
    url = server("gzip-echo")
    result = fidelity_inprocess(
        "probe", url, "--families", "quotes", "--max-requests", "4", "--read", "json:text",
        "--timeout", str(TIMEOUT), "--json", "-", timeout=TIMEOUT + 30,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    card = json.loads(result.stdout)
    assert {o["status"] for o in card["observations"]} == {"preserved"}
