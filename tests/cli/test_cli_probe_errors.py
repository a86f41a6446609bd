"""``fidelity probe --errors``: the error contract of every tool, against a server
written by hand (tests/servers/mcp_errors.py) whose tools answer malformed calls in
every way the verdicts tell apart, and which writes down every call it gets.

The expected verdicts are written out by hand from the server's source: a tool that
validates and names the problem is ``structured`` in every case, a traceback, a file
path or 5,000 characters are ``leaky``, ``ok`` is ``accepted``, "Something went
wrong." is ``unnamed``, a JSON-RPC error is ``structured``, a process that exits is
``crashed`` (and the next tool is still called), a tool that never answers is
``timeout``.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest
from _needs import need_module
from _support.cli import fidelity_inprocess as fidelity
from _support.cli import one_sentence
from _support.servers import SERVERS, called

SERVER = [sys.executable, str(SERVERS / "mcp_errors.py")]
TEXT_CASES = ("missing:text", "type:text", "extra", "empty")
VALIDATE = {
    "missing:path": "structured",
    "type:path": "structured",
    "type:mode": "structured",
    "type:name": "structured",
    "type:id": "structured",
    "extra": "structured",
    "enum:mode": "structured",
    "minLength:name": "structured",
    "maxLength:name": "structured",
    "pattern:id": "structured",
    "empty": "structured",
}
EXPECTED: dict[str, dict[str, str]] = {
    "fidelity-no-such-tool": {"unknown-tool": "structured"},
    "validate": VALIDATE,
    "trace": dict.fromkeys(TEXT_CASES, "leaky"),
    "anything": dict.fromkeys(TEXT_CASES, "accepted"),
    "vague": dict.fromkeys(TEXT_CASES, "unnamed"),
    "huge": dict.fromkeys(TEXT_CASES, "leaky"),
    "pathy": dict.fromkeys(TEXT_CASES, "leaky"),
    "rpc": dict.fromkeys(TEXT_CASES, "structured"),
    # Its text names ``text``, which is not what is wrong with the extra argument.
    "noisy": {**dict.fromkeys(TEXT_CASES, "structured"), "extra": "unnamed"},
    "die": dict.fromkeys(TEXT_CASES, "crashed"),
    "slow": dict.fromkeys(TEXT_CASES, "timeout"),
    "wipe": {
        "missing:target": "structured",
        "type:target": "structured",
        "extra": "structured",
        "empty": "structured",
    },
    "note": dict.fromkeys(TEXT_CASES, "structured"),
}


def _errors(tmp_path: Path, *options: str) -> tuple[Any, list[str]]:
    need_module("mcp")
    calls = tmp_path / "calls"
    calls.unlink(missing_ok=True)
    result = fidelity(
        "probe", "--mcp", "--errors", "--timeout", "2", *options,
        "--", *SERVER, "--calls", str(calls),
    )  # fmt: skip
    return result, called(calls)


def _verdicts(data: dict[str, Any]) -> dict[str, dict[str, str]]:
    found: dict[str, dict[str, str]] = {}
    for call in data["calls"]:
        found.setdefault(call["tool"], {})[call["case"]] = call["verdict"]
    return found


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Path, list[str]]:
    """One run over every tool with --yes, every output written."""
    out = tmp_path_factory.mktemp("errors")
    result, calls = _errors(
        out, "--yes", "--json", str(out / "r.json"), "--card", str(out / "card.md"),
        "--html", str(out / "r.html"), "--junit", str(out / "r.xml"),
    )  # fmt: skip
    return result, out, calls


def test_every_tool_gets_its_true_verdict_in_every_case(whole: tuple[Any, Path, list[str]]) -> None:
    result, out, _ = whole
    assert result.returncode == 1, result.stderr
    data = json.loads((out / "r.json").read_text(encoding="utf-8"))
    assert _verdicts(data) == EXPECTED
    assert data["counts"] == {
        "structured": 27,
        "unnamed": 5,
        "leaky": 12,
        "accepted": 4,
        "crashed": 4,
        "timeout": 4,
    }
    assert data["exit_code"] == 1
    assert data["contracts"][0]["skipped"] == []


def test_the_json_holds_why_and_an_excerpt_masked_and_terminal_safe(
    whole: tuple[Any, Path, list[str]],
) -> None:
    _, out, _ = whole
    data = json.loads((out / "r.json").read_text(encoding="utf-8"))
    calls = {(c["tool"], c["case"]): c for c in data["calls"]}
    assert calls["validate", "enum:mode"]["excerpt"] == "argument 'mode' must be one of: r, w"
    assert calls["validate", "enum:mode"]["answer"] == "isError"
    assert calls["rpc", "extra"]["answer"] == "rpc-error -32602"
    assert calls["rpc", "extra"]["why"] == "a JSON-RPC error (-32602)"
    assert calls["trace", "empty"]["why"] == "refused with a stack trace"
    assert calls["pathy", "empty"]["why"] == "refused with a file path"
    assert calls["huge", "empty"]["why"] == "refused with more than 2,000 characters (5,025)"
    assert calls["huge", "empty"]["length"] == 5025
    assert len(calls["huge", "empty"]["excerpt"]) == 300
    assert calls["anything", "extra"]["why"] == "answered as a success"
    assert calls["vague", "extra"]["why"] == "isError, without saying what was wrong"
    noisy = calls["noisy", "type:text"]["excerpt"]
    assert "supersecret99" not in noisy
    assert "token=***" in noisy
    assert "\x1b" not in noisy
    assert "\u202e" not in noisy
    assert "U+001B" in noisy
    assert "U+202E" in noisy


def test_the_terminal_table_names_each_verdict_and_what_is_beyond_allow(
    whole: tuple[Any, Path, list[str]],
) -> None:
    result, _, _ = whole
    out = result.stdout
    assert "\x1b" not in out
    assert "\u202e" not in out
    assert "supersecret99" not in out
    assert re.search(r"^ ! extra +accepted +ok$", out, re.M)
    assert re.search(r"^   enum:mode +structured +argument 'mode' must be one of: r, w$", out, re.M)
    assert "56 malformed calls: 27 structured, 5 unnamed, 12 leaky, 4 accepted, 4 crashed, " in out
    assert (
        "29 calls beyond --allow (error.accepted, error.crashed, error.leaky, error.timeout, "
        "error.unnamed); allow them with --allow ID." in out
    )


def test_the_card_holds_an_error_contract_section_per_tool(
    whole: tuple[Any, Path, list[str]],
) -> None:
    _, out, _ = whole
    card = (out / "card.md").read_text(encoding="utf-8")
    assert card.startswith("<!-- fidelity:begin errors -->\n## Error contract\n")
    assert "\n### validate\n\n| case | verdict | answer |\n|---|---|---|\n" in card
    assert (
        "| `pattern:id` | structured | argument 'id' does not match the pattern ^[a-z]+$ |" in card
    )
    assert "| `extra` | accepted | ok |" in card
    assert "| `missing:text` | crashed | the MCP server closed the connection. |" in card
    assert "supersecret99" not in card
    assert "\x1b" not in card


def test_the_html_and_junit_show_the_contract(whole: tuple[Any, Path, list[str]]) -> None:
    _, out, _ = whole
    page = (out / "r.html").read_text(encoding="utf-8")
    assert "<h1>Error contract</h1>" in page
    assert '<h3 class="tool">validate</h3>' in page
    assert (
        '<tr class="accepted"><td><code>extra</code></td><td>accepted (beyond --allow)</td>' in page
    )
    root = ET.fromstring((out / "r.xml").read_bytes())
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("56", "21", "8")
    cases = {c.get("name"): c for c in root.iter("testcase")}
    failure = cases["anything extra"].find("failure")
    assert failure is not None
    assert failure.get("type") == "fidelity.error-contract"
    assert failure.get("message") == "error.accepted: an invalid call answered as a success"
    assert cases["die empty"].find("error") is not None
    assert cases["validate empty"].find("failure") is None
    assert cases["validate empty"].findtext("system-out") == (
        "structured: isError, naming what was wrong"
    )


def test_the_crash_is_survived_and_every_call_made_once(whole: tuple[Any, Path, list[str]]) -> None:
    _, _, calls = whole
    # Every case once, in order: the unknown tool first, then each tool as listed;
    # the tools after ``die`` (slow, wipe, note) were still called.
    assert calls == [
        "fidelity-no-such-tool",
        *["validate"] * 11,
        *[
            t
            for t in ("trace", "anything", "vague", "huge", "pathy", "rpc", "noisy")
            for _ in "1234"
        ],
        *["die"] * 4,
        *["slow"] * 4,
        *["wipe"] * 4,
        *["note"] * 4,
    ]


def test_without_yes_only_read_only_tools_are_called(tmp_path: Path) -> None:
    result, calls = _errors(
        tmp_path, "--only-tool", "validate", "--only-tool", "wipe", "--only-tool", "note",
        "--json", str(tmp_path / "r.json"),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert calls == ["fidelity-no-such-tool", *["validate"] * 11]
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert data["contracts"][0]["skipped"] == [
        {"tool": "trace", "why": "left out (not matched by --only-tool)"},
        {"tool": "anything", "why": "left out (not matched by --only-tool)"},
        {"tool": "vague", "why": "left out (not matched by --only-tool)"},
        {"tool": "huge", "why": "left out (not matched by --only-tool)"},
        {"tool": "pathy", "why": "left out (not matched by --only-tool)"},
        {"tool": "rpc", "why": "left out (not matched by --only-tool)"},
        {"tool": "noisy", "why": "left out (not matched by --only-tool)"},
        {"tool": "die", "why": "left out (not matched by --only-tool)"},
        {"tool": "slow", "why": "left out (not matched by --only-tool)"},
        {"tool": "wipe", "why": "needs --yes (destructiveHint: true)"},
        {"tool": "note", "why": "needs --yes (no annotations)"},
    ]
    assert "not called: wipe: needs --yes (destructiveHint: true)" in result.stdout


def test_a_destructive_tool_the_user_skipped_is_never_called_even_with_yes(tmp_path: Path) -> None:
    result, calls = _errors(
        tmp_path, "--yes", "--skip-tool", "wipe", "--only-tool", "wipe", "--only-tool", "note"
    )
    assert result.returncode == 0, result.stderr
    assert calls == ["fidelity-no-such-tool", *["note"] * 4]
    assert (
        "left out by --skip-tool/--only-tool: validate, trace, anything, vague, huge, pathy, "
        "rpc, noisy, die, slow, wipe\n" in result.stdout
    )


def test_one_tool_that_needs_yes_is_refused_before_any_call(tmp_path: Path) -> None:
    result, calls = _errors(tmp_path, "--tool", "wipe")
    assert result.returncode == 2
    assert "tool 'wipe' may change or delete data (destructiveHint: true)" in one_sentence(result)
    assert calls == []
    consented, calls = _errors(tmp_path, "--tool", "wipe", "--yes")
    assert consented.returncode == 0, consented.stderr
    assert calls == ["fidelity-no-such-tool", *["wipe"] * 4]


def test_a_crash_does_not_end_the_run(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    result, calls = _errors(
        tmp_path, "--yes", "--only-tool", "die", "--only-tool", "note", "--json", str(out)
    )
    assert result.returncode == 1, result.stderr
    assert calls == ["fidelity-no-such-tool", *["die"] * 4, *["note"] * 4]
    assert _verdicts(json.loads(out.read_text(encoding="utf-8"))) == {
        "fidelity-no-such-tool": {"unknown-tool": "structured"},
        "die": dict.fromkeys(TEXT_CASES, "crashed"),
        "note": dict.fromkeys(TEXT_CASES, "structured"),
    }


@pytest.mark.parametrize(
    ("options", "code"),
    [
        (("--tool", "validate"), 0),
        (("--only-tool", "validate", "--only-tool", "rpc"), 0),
        (("--tool", "anything"), 1),
        (("--tool", "anything", "--allow", "error.accepted"), 0),
        (("--tool", "vague", "--allow", "error.accepted,error.leaky"), 1),
        (("--tool", "vague", "--allow", "error.unnamed"), 0),
        (("--only-tool", "wipe"), 3),  # nothing could be called without --yes
    ],
)
def test_exit_codes(tmp_path: Path, options: tuple[str, ...], code: int) -> None:
    result, _ = _errors(tmp_path, *options)
    assert result.returncode == code, result.stdout + result.stderr


def test_a_server_that_cannot_start_is_exit_3(tmp_path: Path) -> None:
    need_module("mcp")
    result = fidelity(
        "probe", "--mcp", "--errors", "--json", str(tmp_path / "r.json"),
        "--", sys.executable, "-c", "raise SystemExit(1)",
    )  # fmt: skip
    assert result.returncode == 3, result.stderr
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert data["calls"] == []
    assert data["exit_code"] == 3
    assert "failure" in data["contracts"][0]


@pytest.mark.parametrize(
    ("options", "words"),
    [
        (("--allow", "newline.crlf_to_lf"), "is not a verdict of the error contract"),
        (("--args", "{}"), "--args describes a payload's run"),
        (("--tool", "validate", "--all-tools"), "give one of them"),
    ],
)
def test_usage_errors_are_one_sentence_and_call_nothing(
    tmp_path: Path, options: tuple[str, ...], words: str
) -> None:
    result, calls = _errors(tmp_path, *options)
    assert result.returncode == 2
    assert words in one_sentence(result)
    assert calls == []


def test_check_compares_the_run_with_the_cards_contract(tmp_path: Path) -> None:
    card = tmp_path / "card.md"
    only = ("--only-tool", "validate", "--only-tool", "anything")
    written, _ = _errors(tmp_path, *only, "--card", str(card))
    assert written.returncode == 1
    same, _ = _errors(tmp_path, *only, "--check", str(card), "--quiet")
    assert same.returncode == 0, same.stdout
    assert same.stdout == f"{card}, block errors: matches.\n"
    text = card.read_text(encoding="utf-8")
    card.write_text(
        text.replace("| `extra` | accepted | ok |", "| `extra` | structured | ok |"),
        encoding="utf-8",
    )
    drifted, _ = _errors(tmp_path, *only, "--check", str(card), "--quiet")
    assert drifted.returncode == 1
    assert drifted.stdout == (
        f"{card}, block errors: 1 changed call:\n"
        "  anything extra: structured in the card, accepted now\n"
    )


def test_config_checks_each_server_and_masks_its_secrets(tmp_path: Path) -> None:
    need_module("mcp")
    config = tmp_path / "mcp.json"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "fixture": {
                        "command": SERVER[0],
                        "args": [SERVER[1]],
                        "env": {"ERRORS_SECRET": "plain-secret-value-77"},
                    },
                    "broken": {"command": sys.executable, "args": ["-c", "raise SystemExit(1)"]},
                }
            }
        ),
        encoding="utf-8",
    )
    out = tmp_path / "r.json"
    card = tmp_path / "card.md"
    result = fidelity(
        "probe", "--errors", "--config", str(config), "--only-tool", "noisy",
        "--json", str(out), "--card", str(card),
    )  # fmt: skip
    assert result.returncode == 3, result.stderr
    assert "fidelity probe: server broken: could not open an MCP session" in result.stderr
    data = json.loads(out.read_text(encoding="utf-8"))
    assert [(c["server"], c["tool"], c["case"], c["verdict"]) for c in data["calls"]] == [
        ("fixture", "fidelity-no-such-tool", "unknown-tool", "structured"),
        ("fixture", "noisy", "missing:text", "structured"),
        ("fixture", "noisy", "type:text", "structured"),
        ("fixture", "noisy", "extra", "unnamed"),
        ("fixture", "noisy", "empty", "structured"),
    ]
    assert [c["server"] for c in data["contracts"]] == ["fixture", "broken"]
    assert data["contracts"][1]["failure"].startswith("could not open an MCP session")
    text = card.read_text(encoding="utf-8")
    assert "<!-- fidelity:begin fixture.errors -->" in text
    assert "<!-- fidelity:begin broken.errors -->" in text
    for shown in (out.read_text(encoding="utf-8"), text, result.stdout):
        assert "plain-secret-value-77" not in shown
        assert "supersecret99" not in shown
    assert data["calls"][1]["excerpt"].endswith("token=*** ***")


def test_sweep_errors_true_is_the_clis_run(tmp_path: Path) -> None:
    import fidelity as api

    result, _ = _errors(
        tmp_path, "--only-tool", "validate", "--only-tool", "anything",
        "--allow", "error.accepted", "--json", str(tmp_path / "r.json"),
    )  # fmt: skip
    contract = api.sweep(
        mcp=SERVER, errors=True, only_tools=["validate", "anything"], allow=["error.accepted"]
    )
    assert isinstance(contract, api.ErrorContract)
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert [c.to_dict() for c in contract.calls] == data["calls"]
    assert contract.exit_code() == result.returncode == 0
    assert contract.exit_code([]) == 1
    with pytest.raises(api.UsageError, match="families= does not apply to it"):
        api.sweep(mcp=SERVER, errors=True, families=["quotes"])


def test_dry_run_shows_the_calls_and_calls_nothing(tmp_path: Path) -> None:
    result, calls = _errors(tmp_path, "--dry-run", "--only-tool", "note", "--only-tool", "vague")
    assert result.returncode == 0, result.stderr
    assert calls == []
    assert result.stdout.splitlines()[:7] == [
        "dry run: no tool is called (the server was asked for its tools).",
        "fidelity-no-such-tool",
        "   unknown-tool  {}",
        "vague",
        "   missing:text  {}",
        '   type:text     {"text": 12345}',
        '   extra         {"text": "fidelity", "fidelity_unexpected_argument": "fidelity"}',
    ]
    assert "not called: note: needs --yes (no annotations)" in result.stdout
    assert result.stdout.endswith("5 malformed calls.\n")
