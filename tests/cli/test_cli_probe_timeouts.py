"""Timeouts follow the operation, as a tool contract should.

A tool annotated ``readOnlyHint`` or ``idempotentHint`` true: a timeout is recorded, the
session is checked (it still answers), and the run goes on; the payload is never sent
again. Any other tool: the run stops at the first timeout, and with a read tool it
reads back once to learn whether the write landed (``effect``: landed, absent,
unknown), which the summary line, the sentence and the JSON result say.

The server (tests/servers/mcp_hostile.py as a key-value store, ``--store``) carries out
a call whose value holds a word, then never answers it (``--hang-on``; or drops it:
``--lose-on``), and keeps answering the rest; it writes down every call it gets
(``--calls``), so the calls are counted apart from the probe.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _support.cli import fidelity_inprocess as fidelity
from _support.servers import calls_made, key_value_store

TIMEOUT = "1"
#: The payloads of the quotes family that hold it: 3 of 17 (checked below).
WORD = "alpha \u201c"


def _quotes() -> list[str]:
    from fidelity._core.siblings import load

    return [p.text for p in load("strategies").catalogue(["quotes"])]


def _first_hung() -> str:
    return next(t for t in _quotes() if WORD in t)


def _run(tmp_path: Path, *options: str, flag: str = "--hang-on") -> tuple[Any, Path, Path]:
    out, calls = tmp_path / "r.json", tmp_path / "calls.txt"
    result = fidelity(
        "probe", "--mcp", "--families", "quotes", "--timeout", TIMEOUT, "--json", str(out),
        *options, "--", *key_value_store(calls, flag, WORD),
        timeout=120,
    )  # fmt: skip
    assert "Traceback" not in result.stderr
    return result, out, calls


def test_a_read_only_tool_records_the_timeout_and_goes_on(tmp_path: Path) -> None:
    hung = [t for t in _quotes() if WORD in t]
    assert len(hung) == 3
    result, out, calls = _run(tmp_path, "--tool", "echo")
    assert result.returncode == 0, result.stderr
    card = json.loads(out.read_text())
    statuses = [o["status"] for o in card["observations"]]
    assert statuses.count("timeout") == 3
    assert statuses.count("preserved") == 14
    assert card["facts"]["complete"] is True
    assert "17 payloads: 14 preserved, 3 timeout." in result.stdout
    # Each payload was sent exactly once (the three calibration values first): never resent.
    sent = [value for name, value in calls_made(calls) if name == "echo"]
    assert all(value.startswith("fidelity-marker-") for value in sent[:3])
    assert sent[3:] == _quotes()
    assert len(set(sent)) == len(sent)


def test_an_idempotent_tool_goes_on_too(tmp_path: Path) -> None:
    result, out, calls = _run(
        tmp_path, "--yes", "--tool", "put_idempotent", "--param", "value",
        "--args", '{"key": "k{n}"}', "--read-tool", "get", "--read-args", '{"key": "k{n}"}',
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    statuses = [o["status"] for o in json.loads(out.read_text())["observations"]]
    assert statuses.count("timeout") == 3
    assert len(statuses) == 17
    puts = [value for name, value in calls_made(calls) if name == "put_idempotent"]
    assert all(value.startswith("fidelity-marker-") for value in puts[:3])  # calibration
    assert puts[3:] == _quotes()  # every payload once; no read-back after a timeout
    gets = [value for name, value in calls_made(calls) if name == "get"]
    assert len(gets) == 3 + 17 - 3
    # The calibration reads its own keys (0 and numbers no payload takes); payloads keep 1...
    assert gets[:4] == ["k0", "k1000001", "k1000002", "k1"]


def _stopped(result: Any, out: Path, calls: Path, effect: str) -> dict[str, Any]:
    assert result.returncode == 3, result.stderr
    card = json.loads(out.read_text())
    assert card["facts"]["complete"] is False
    # (The result lists observations in catalogue order, not in the order sent.)
    (last,) = [o for o in card["observations"] if o["status"] == "timeout"]
    assert {o["status"] for o in card["observations"]} == {"preserved", "timeout"}
    assert last.get("effect", "") == effect
    # Nothing after the timed-out call but, with a read tool, one read-back.
    made = calls_made(calls)
    at = next(i for i, (name, value) in enumerate(made) if name == "put" and WORD in value)
    assert all(name == "get" for name, _ in made[at + 1 :])
    return last


def test_a_tool_that_may_write_stops_and_reads_back_once_landed(tmp_path: Path) -> None:
    result, out, calls = _run(
        tmp_path, "--yes", "--tool", "put", "--param", "value", "--args", '{"key": "k"}',
        "--read-tool", "get", "--read-args", '{"key": "k"}',
    )  # fmt: skip
    last = _stopped(result, out, calls, "landed")
    assert last["error"] == (
        f"no answer within {TIMEOUT}s; read back once afterwards: the value is there "
        "(effect: landed)"
    )
    made = calls_made(calls)
    assert made[-2:] == [("put", _first_hung()), ("get", "k")]
    assert "incomplete: stopped at a timeout (the write's effect: landed)." in result.stdout
    assert result.stderr == (
        "fidelity: payload quotes/left-double-mid got no answer within 1s; reading back once "
        "found the value: the write landed; tool 'put' is not annotated readOnlyHint or "
        "idempotentHint true, so the run stops here: nothing more was sent.\n"
    )


def test_a_write_that_did_not_land_is_absent(tmp_path: Path) -> None:
    # One key for every payload: after a write that was dropped, get answers the
    # previous payload, not this one.
    result, out, calls = _run(
        tmp_path, "--yes", "--tool", "put", "--param", "value", "--args", '{"key": "k"}',
        "--read-tool", "get", "--read-args", '{"key": "k"}', flag="--lose-on",
    )  # fmt: skip
    _stopped(result, out, calls, "absent")
    assert "the write had not landed" in result.stderr
    assert "(the write's effect: absent)." in result.stdout


def test_a_read_back_that_fails_leaves_the_effect_unknown(tmp_path: Path) -> None:
    # A key per payload: the write that hung was dropped, so reading its key answers an
    # error ("no key"). Nobody knows whether the write landed: unknown, not absent.
    result, out, calls = _run(
        tmp_path, "--yes", "--tool", "put", "--param", "value", "--args", '{"key": "k{n}"}',
        "--read-tool", "get", "--read-args", '{"key": "k{n}"}', flag="--lose-on",
    )  # fmt: skip
    last = _stopped(result, out, calls, "unknown")
    assert last["error"].startswith(
        f"no answer within {TIMEOUT}s; read back once afterwards: the read tool answered an error"
    )
    assert last["error"].endswith("(effect: unknown)")
    assert "(the write's effect: unknown)." in result.stdout
    assert "absent" not in result.stdout


def test_without_a_read_tool_the_effect_is_unknown(tmp_path: Path) -> None:
    # put answers "stored: VALUE": read as text, each value arrives with that prefix;
    # what matters here is the stop.
    result, out, calls = _run(
        tmp_path, "--yes", "--tool", "put", "--param", "value", "--args", '{"key": "k"}',
        "--read", "text",
    )  # fmt: skip
    assert result.returncode == 3, result.stderr
    (last,) = [o for o in json.loads(out.read_text())["observations"] if o["status"] == "timeout"]
    assert "effect" not in last
    assert "; its effect on the server is unknown; tool 'put' is not annotated" in result.stderr
    made = calls_made(calls)
    assert made[-1] == ("put", _first_hung())
    assert [name for name, _ in made] == ["put"] * len(made)


def test_all_tools_applies_each_tools_rule(tmp_path: Path) -> None:
    # Every tool's parameters, each with its own session: the read-only echo and the
    # idempotent put go on after their timeouts, put stops at its first; the run goes
    # on to the next parameters, and exits 3 because one parameter's run broke.
    out, calls = tmp_path / "r.json", tmp_path / "calls.txt"
    result = fidelity(
        "probe", "--mcp", "--all-tools", "--yes", "--families", "quotes", "--timeout", TIMEOUT,
        "--json", str(out), "--", *key_value_store(calls, "--hang-on", WORD),
        timeout=300,
    )  # fmt: skip
    assert result.returncode == 3, result.stderr
    document = json.loads(out.read_text())
    statuses = {
        card["name"]: [o["status"] for o in card["observations"]] for card in document["cards"]
    }
    assert set(statuses) == {"put.value", "put_idempotent.value", "echo.text"}
    assert statuses["echo.text"].count("timeout") == 3
    assert len(statuses["echo.text"]) == 17
    assert statuses["put_idempotent.value"].count("timeout") == 3
    assert len(statuses["put_idempotent.value"]) == 17
    # put: the payloads before the first that hung, then that one; nothing after it.
    first = _quotes().index(_first_hung())
    assert sorted(statuses["put.value"]) == sorted(["preserved"] * first + ["timeout"])
    puts = [value for name, value in calls_made(calls) if name == "put"]
    assert _first_hung() in puts
    assert puts.index(_first_hung()) == len(puts) - 1
    (failed,) = [line for line in result.stdout.splitlines() if line.startswith("failed:")]
    assert failed.startswith(
        "failed: put.value: payload quotes/left-double-mid got no answer within 1s; its "
        "effect on the server is unknown; tool 'put' is not annotated readOnlyHint or "
        "idempotentHint true, so the run stops here"
    )
    assert result.stderr.startswith(
        "fidelity: 1 of the 6 tool parameters run broke (put.value); the lines starting "
        "'failed:' say why"
    )


def test_a_read_only_tool_that_answers_nothing_stops_after_five(tmp_path: Path) -> None:
    # Every call hangs (the empty word is in every value), the session still answers:
    # each timeout is recorded and the run goes on, but not for ever.
    out, calls = tmp_path / "r.json", tmp_path / "calls.txt"
    result = fidelity(
        "probe", "--mcp", "--tool", "echo", "--read", "text", "--families", "quotes",
        "--timeout", TIMEOUT, "--json", str(out), "--", *key_value_store(calls, "--hang-on", ""),
        timeout=120,
    )  # fmt: skip
    assert result.returncode == 3, result.stderr
    assert result.stderr == (
        "fidelity: the tool answered none of 5 payloads in a row within 1s (each timeout was "
        "recorded and the payload not sent again, as the tool is read-only or idempotent); "
        "nothing more was sent.\n"
    )
    assert [o["status"] for o in json.loads(out.read_text())["observations"]] == ["timeout"] * 5
    assert [value for _, value in calls_made(calls)] == _quotes()[:5]


def test_clients_stop_a_write_tool_at_its_first_timeout_as_one_client_does(
    tmp_path: Path,
) -> None:
    # --clients goes through the same breaker as one client's run: a tool that may
    # write (put, no annotations, run with --yes) stops each client's run at its first
    # timeout, even though the session still answers its health check (it used to go
    # on, timeout after timeout, through every client).
    out, calls = tmp_path / "r.json", tmp_path / "calls.txt"
    result = fidelity(
        "probe", "--mcp", "--clients", "python,python-2026", "--yes", "--tool", "put",
        "--param", "value", "--args", '{"key": "k{run}"}', "--read", "text",
        "--families", "quotes", "--timeout", TIMEOUT, "--json", str(out),
        "--", *key_value_store(calls, "--hang-on", ""),
        timeout=120,
    )  # fmt: skip
    assert "Traceback" not in result.stderr
    assert result.returncode == 3, result.stderr
    # Every call hangs: each client sent one payload, and stopped.
    puts = [value for name, value in calls_made(calls) if name == "put"]
    assert puts == [_quotes()[0]] * 2
    runs = {r["client"]: r for r in json.loads(out.read_text())["clients"]["runs"]}
    for client in ("python", "python-2026"):
        assert [o["status"] for o in runs[client]["observations"]] == ["timeout"]
        assert (
            "tool 'put' is not annotated readOnlyHint or idempotentHint true"
            in (runs[client]["error"])
        )
    assert result.stderr.startswith(
        "fidelity: the run through python, python-2026 did not finish (python: payload quotes/"
    )
