"""``fidelity probe ... --check DOC.md``: a deployed endpoint against its committed card.

Against real servers (the quote-straightening MCP edit server over stdio, the HTTP
reflector): the card documents accepted behaviour, so a run that shows the documented
rewrites exits 0; a row that changed exits 1 and is named; the document is never
rewritten; a missing document or block stops the run before any payload is sent.
Also the ``hint:`` lines of the probe's output, and ``fidelity card --describe``.
"""

from __future__ import annotations

import hashlib
import json
import platform
from pathlib import Path

import pytest
from _needs import need_module

# In-process: the words, exit codes and files are the same as a subprocess's
# (tests/_support/cli.py says when a subprocess is kept).
from _support.cli import fidelity_inprocess as fidelity
from _support.servers import HOSTILE_MCP, QUOTE_EDIT_MCP, called, listed_tool, listing

EDIT = [
    "--mcp", "--tool", "edit", "--param", "old_string",
    "--args", '{"path": "notes.md", "new_string": "x"}', "--read", "armored:searched", "--yes",
]  # fmt: skip
HINT = (
    "hint: quote.straighten (request path): a layer normalises typographic quotes to ASCII; "
    "compare both sides normalised, or stop normalising."
)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def committed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """TOOLS.md with the edit tool's card, written by a first run (which exits 1: it
    rewrites quotes, and nothing was allowed)."""
    need_module("mcp")
    folder = tmp_path_factory.mktemp("check")
    doc = folder / "TOOLS.md"
    doc.write_text("# Tools\n\nProse the check must not touch.\n", encoding="utf-8")
    result = fidelity(
        "probe", *EDIT, "--families", "quotes,newlines", "--card", str(doc),
        "--json", str(folder / "edit.json"), "--", *QUOTE_EDIT_MCP,
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    # The hint comes after the map, before the summary line.
    assert lines[-2] == HINT
    assert lines[-1].startswith("29 payloads: ")
    assert "`quote.straighten` (request path): a layer normalises" in doc.read_text("utf-8")
    return doc


def test_an_endpoint_that_behaves_as_its_card_says_passes(committed: Path) -> None:
    before = _digest(committed)
    result = fidelity(
        "probe", *EDIT, "--families", "quotes,newlines", "--check", str(committed),
        "--", *QUOTE_EDIT_MCP,
    )  # fmt: skip
    # The card documents the straightened quotes: no drift, exit 0 although they are
    # not in --allow.
    assert result.returncode == 0, result.stdout + result.stderr
    assert HINT in result.stdout
    assert result.stdout.endswith(f"{committed}, block edit.old_string: matches.\n")
    assert _digest(committed) == before


def test_drift_from_the_card_exits_1_and_names_the_rows(committed: Path, tmp_path: Path) -> None:
    # The card committed before the server straightened quotes said they arrived whole.
    doc = tmp_path / "TOOLS.md"
    old = committed.read_text("utf-8")
    row = next(x for x in old.splitlines() if x.startswith("| quotes | request |"))
    doc.write_text(
        old.replace(row, "| quotes | request | preserved (17) | — | — |"), encoding="utf-8"
    )
    before = _digest(doc)
    result = fidelity(
        "probe", *EDIT, "--families", "quotes,newlines", "--check", str(doc), "--", *QUOTE_EDIT_MCP,
    )  # fmt: skip
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"{doc}, block edit.old_string: 2 changed rows:\n" in result.stdout
    assert "  quotes (request): outcome preserved -> mixed\n" in result.stdout
    assert "  quotes (request): kind quote.straighten appeared\n" in result.stdout
    assert _digest(doc) == before


def test_a_family_the_card_never_covered_is_drift(committed: Path) -> None:
    before = _digest(committed)
    result = fidelity(
        "probe", *EDIT, "--families", "quotes,newlines,whitespace", "--check", str(committed),
        "--quiet", "--", *QUOTE_EDIT_MCP,
    )  # fmt: skip
    assert result.returncode == 1
    assert "  whitespace (request): new row, preserved (18)\n" in result.stdout
    assert _digest(committed) == before


def test_json_on_stdout_keeps_the_check_on_stderr(committed: Path) -> None:
    result = fidelity(
        "probe", *EDIT, "--families", "quotes,newlines", "--check", str(committed),
        "--json", "-", "--", *QUOTE_EDIT_MCP,
    )  # fmt: skip
    assert result.returncode == 0
    card = json.loads(result.stdout)
    assert card["name"] == "edit.old_string"
    assert "block edit.old_string: matches." in result.stderr
    assert HINT in result.stderr


def test_a_missing_document_stops_the_run_before_the_target_starts(tmp_path: Path) -> None:
    # The target does not exist either: the document is what the run complains about.
    result = fidelity(
        "probe", *EDIT, "--check", str(tmp_path / "NOPE.md"), "--", str(tmp_path / "no-server"),
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr == (
        f"fidelity: --check document {tmp_path / 'NOPE.md'} does not exist (no such file).\n"
    )


def test_a_document_without_the_block_stops_before_any_payload(
    committed: Path, tmp_path: Path
) -> None:
    """The server counts every tools/call: none was made (with --read given, not even a
    calibration call)."""
    doc = tmp_path / "OTHER.md"
    doc.write_text(committed.read_text("utf-8").replace("edit.old_string", "edit.new_string"))
    calls = tmp_path / "calls.txt"
    schema = {"type": "object", "properties": {"old_string": {"type": "string"}}}
    server = listing([listed_tool("edit", {"readOnlyHint": True}, schema)], calls)
    result = fidelity(
        "probe", "--mcp", "--tool", "edit", "--param", "old_string", "--read", "text",
        "--check", str(doc), "--json", str(tmp_path / "r.json"), "--", *server,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(
        f"fidelity: --check {doc} has no block named 'edit.old_string'; write it first with "
        f"--card {doc}"
    )
    assert called(calls) == []
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--check", "-"], "--check needs a file name"),
        (["--check", "T.md", "--card", "./T.md"], "--card and --check name the same document"),
    ],
)
def test_check_usage_errors(options: list[str], message: str, tmp_path: Path) -> None:
    result = fidelity("probe", *EDIT, *options, "--", *QUOTE_EDIT_MCP, cwd=tmp_path)
    assert result.returncode == 2
    assert message in result.stderr
    assert not (tmp_path / "T.md").exists()


def test_an_http_endpoint_checks_against_its_card(tmp_path: Path) -> None:
    need_module("starlette")
    import probes

    doc = tmp_path / "API.md"
    with probes.http_reflector() as reflector:
        url = reflector.url + "reflect"
        first = fidelity("probe", url, "--families", "quotes,surrogates", "--card", str(doc))
        assert first.returncode == 0, first.stderr
        again = fidelity("probe", url, "--families", "quotes,surrogates", "--check", str(doc))
    assert again.returncode == 0, again.stdout
    assert again.stdout.endswith(f"{doc}, block POST /reflect json:text: matches.\n")


def test_card_describe_prints_the_sentence_for_the_model(committed: Path) -> None:
    result = fidelity("card", str(committed.parent / "edit.json"), "--describe")
    assert result.returncode == 0
    assert result.stdout == (
        "old_string: typographic quotes (U+2018 U+2019 U+201C U+201D) arrive as straight "
        'quotes; copy text with straight quotes, or expect "no match".\n'
    )
    document = json.loads((committed.parent / "edit.json").read_text())
    assert document["describe"] == result.stdout.rstrip("\n")
    # Where it was measured, briefly, on stderr (stdout is what goes to the model).
    assert f"measured on Python {platform.python_version()} (" in result.stderr


def test_card_describe_of_a_faithful_parameter_prints_nothing(tmp_path: Path) -> None:
    import fidelity as library

    result_file = tmp_path / "echo.json"
    result_file.write_text(
        library.survey(lambda s: s, families=["quotes"]).card(name="echo").to_json()
    )
    result = fidelity("card", str(result_file), "--describe")
    assert result.returncode == 0
    assert result.stdout == ""
    assert result.stderr == "fidelity: echo: nothing happens to it on the way; no sentence.\n"

    # A parameter through which nothing came back is not faithful: nothing is known.
    lost_file = tmp_path / "lost.json"
    probed = fidelity(
        "probe", "--mcp", "--read", "json:nope", "--families", "quotes",
        "--json", str(lost_file), "--", *HOSTILE_MCP,
    )  # fmt: skip
    assert probed.returncode == 3  # every value lost: the text content is not JSON
    lost = fidelity("card", str(lost_file), "--describe")
    assert lost.returncode == 0
    assert lost.stdout == ""
    assert lost.stderr == (
        "fidelity: echo.text: nothing was measured (no payload came back), so there is "
        "nothing to tell the model; no sentence.\n"
    )
    both = fidelity("card", str(result_file), "--describe", "--check", "X.md")
    assert both.returncode == 2
    assert "not allowed with argument" in both.stderr
