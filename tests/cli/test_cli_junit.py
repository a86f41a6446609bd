"""``--junit FILE``: JUnit XML a CI system reads, from every form of the command.

Real servers (an edit server that straightens quotes, a server that refuses every
call, server-everything over stdio), the file read back by junitparser (a JUnit
consumer from PyPI) and checked against the structure of the common JUnit schema.
The JUnit of a run and of its ``--json`` result joined by ``fidelity card`` are the
same bytes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from _support.cli import fidelity_inprocess as fidelity
from _support.junit import cases, check_schema
from _support.mcp import npm_server
from _support.servers import SERVERS

QUOTE_EDIT = [sys.executable, str(SERVERS / "mcp_quote_edit.py")]
HOSTILE = [sys.executable, str(SERVERS / "mcp_hostile.py")]
_EDIT = (
    "--yes", "--tool", "edit", "--param", "old_string",
    "--args", '{"path": "d", "old_string": "{payload}", "new_string": "x"}',
    "--read", "armored:searched",
)  # fmt: skip


def test_a_rewrite_is_a_failure_naming_its_kinds_with_examples_as_code_points(
    tmp_path: Path,
) -> None:
    out = tmp_path / "r.xml"
    result = fidelity(
        "probe", "--mcp", *_EDIT, "--families", "quotes", "--quiet", "--junit", str(out),
        "--", *QUOTE_EDIT,
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    root = check_schema(out.read_text(encoding="utf-8"))
    assert root.get("tests") == "1"
    assert root.get("failures") == "1"
    [(suite, name)] = cases(out)
    assert name == "edit.old_string"
    assert "mcp_quote_edit.py" in suite
    case = cases(out)[(suite, name)]
    [failure] = case.result  # type: ignore[attr-defined]
    assert failure.message == "rewrites beyond --allow: quote.straighten"
    # The smallest example, as code points: a left double quote came back straight.
    assert "sent:     U+201C U+0020" in failure.text
    assert "received: U+0022 U+0020" in failure.text
    assert case.system_out == "17 payloads: 6 preserved, 11 transformed"  # type: ignore[attr-defined]


def test_an_allowed_rewrite_passes(tmp_path: Path) -> None:
    out = tmp_path / "r.xml"
    result = fidelity(
        "probe", "--mcp", *_EDIT, "--families", "quotes", "--allow", "quote.straighten",
        "--quiet", "--junit", str(out), "--", *QUOTE_EDIT,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    root = check_schema(out.read_text(encoding="utf-8"))
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("1", "0", "0")


def test_nothing_measured_is_an_error_with_the_runs_sentence(tmp_path: Path) -> None:
    out = tmp_path / "r.xml"
    result = fidelity(
        "probe", "--mcp", "--families", "quotes", "--read", "text", "--quiet",
        "--junit", str(out), "--", *HOSTILE, "--reject",
    )  # fmt: skip
    assert result.returncode == 3
    check_schema(out.read_text(encoding="utf-8"))
    [case] = cases(out).values()
    [error] = case.result  # type: ignore[attr-defined]
    assert error._tag == "error"
    assert error.message.startswith("nothing was measured: none of the 17 payloads")
    assert "refused: <payload>" in error.text


def test_all_tools_a_case_per_parameter_and_the_joined_result_gives_the_same_bytes(
    tmp_path: Path,
) -> None:
    out, joined, result_json = tmp_path / "r.xml", tmp_path / "j.xml", tmp_path / "r.json"
    # echo and two prompts: echo.message and args-prompt's two arguments are surveyed;
    # resource-prompt's two measure nothing (the calibration value is refused).
    only = ("echo", "prompt:args-prompt", "prompt:resource-prompt")
    result = fidelity(
        "probe", "--mcp", "--all-tools", "--families", "newlines", "--quiet",
        *(f"--only-tool={name}" for name in only),
        "--junit", str(out), "--json", str(result_json), "--", npm_server("everything"),
        timeout=300,
    )  # fmt: skip
    # server-everything's resource-prompt arguments measure nothing (not read back):
    # the run is exit 3, and the others' cases are kept.
    assert result.returncode == 3, result.stderr
    assert "measured nothing" in result.stderr
    check_schema(out.read_text(encoding="utf-8"))
    found = cases(out)
    names = [name for _, name in found]
    # A case per parameter surveyed: echo's message, and the prompt's arguments; the two
    # that measured nothing are <error> cases, so the file agrees with exit 3.
    assert "echo.message" in names
    assert len(names) == len(set(names)) == len(json.loads(result_json.read_text())["cards"]) + 2
    unmeasured = ("prompt:resource-prompt.resourceId", "prompt:resource-prompt.resourceType")
    from junitparser import Error

    for key, case in found.items():
        errors = [r for r in case.result if isinstance(r, Error)]  # type: ignore[attr-defined]
        assert len(errors) == (1 if key[1] in unmeasured else 0), key
    again = fidelity("card", str(result_json), "--junit", str(joined))
    assert again.returncode == 0, again.stderr
    assert joined.read_bytes() == out.read_bytes()


def test_survey_a_case_per_chain_and_family(tmp_path: Path) -> None:
    # text_file (text-mode I/O) rewrites line endings on every supported Python; the
    # email header's newline behaviour differs between 3.11 and 3.13, so it is not used.
    out = tmp_path / "s.xml"
    result = fidelity(
        "survey", "--chains", "text_file,json", "--families", "newlines,quotes",
        "--quiet", "--junit", str(out),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    check_schema(out.read_text(encoding="utf-8"))
    found = cases(out)
    assert set(found) == {
        (chain, family) for chain in ("text_file", "json") for family in ("newlines", "quotes")
    }
    assert not found[("json", "newlines")].result  # type: ignore[attr-defined]
    assert not found[("text_file", "quotes")].result  # type: ignore[attr-defined]
    [failure] = found[("text_file", "newlines")].result  # type: ignore[attr-defined]
    assert "newline.crlf_to_lf" in failure.message
    assert "newline.cr_to_lf" in failure.message
    assert "U+000D" in failure.text


def test_junit_to_stdout_is_refused_in_one_sentence(tmp_path: Path) -> None:
    result = fidelity("survey", "--chains", "json", "--junit", "-")
    assert result.returncode == 2
    assert (
        result.stderr.strip() == "fidelity: --junit needs a file name, e.g. --junit fidelity.xml."
    )


def test_clients_a_case_per_client(tmp_path: Path) -> None:
    out = tmp_path / "c.xml"
    result = fidelity(
        "probe", "--mcp", "--clients", "python,python-2026", "--families", "quotes", "--quiet",
        "--junit", str(out), "--", sys.executable, "-m", "probes._mcp",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    check_schema(out.read_text(encoding="utf-8"))
    found = cases(out)
    assert [name for _, name in found] == ["echo.text [python]", "echo.text [python-2026]"]
    assert all(not case.result for case in found.values())  # type: ignore[attr-defined]


def test_client_side_refusals_are_not_errors(tmp_path: Path) -> None:
    """Lone surrogates cannot be encoded by the MCP client (or put in an HTTP header by
    httpx): those payloads were never sent, so they are counted as rejected and never
    make a case an error, in a probe's case and in a survey's family cases alike."""
    out = tmp_path / "p.xml"
    result = fidelity(
        "probe", "--mcp", "--families", "quotes,surrogates", "--quiet", "--junit", str(out),
        "--", sys.executable, "-m", "probes._mcp",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    root = check_schema(out.read_text(encoding="utf-8"))
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("1", "0", "0")
    [case] = cases(out).values()
    assert not case.result  # type: ignore[attr-defined]
    assert case.system_out == "25 payloads: 17 preserved, 8 rejected"  # type: ignore[attr-defined]

    out = tmp_path / "s.xml"
    result = fidelity(
        "survey", "--chains", "mcp.stdio,http header", "--families", "surrogates,quotes",
        "--quiet", "--junit", str(out),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    root = check_schema(out.read_text(encoding="utf-8"))
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("4", "0", "0")
    found = cases(out)
    outs = {key: case.system_out for key, case in found.items()}  # type: ignore[attr-defined]
    assert outs == {
        ("mcp.stdio", "quotes"): "17 payloads: 17 preserved",
        ("mcp.stdio", "surrogates"): "8 payloads: 8 rejected",
        ("http header", "quotes"): "17 payloads: 5 preserved, 12 rejected",
        ("http header", "surrogates"): "8 payloads: 8 rejected",
    }
    assert all(not case.result for case in found.values())  # type: ignore[attr-defined]

    # Every payload refused by the client: nothing reached the target, which is neither
    # a failure of the target nor an error of the run.
    out = tmp_path / "only.xml"
    result = fidelity(
        "probe", "--mcp", "--families", "surrogates", "--quiet", "--junit", str(out),
        "--", sys.executable, "-m", "probes._mcp",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    root = check_schema(out.read_text(encoding="utf-8"))
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("1", "0", "0")
    [case] = cases(out).values()
    assert case.system_out == "8 payloads: 8 rejected"  # type: ignore[attr-defined]
