"""``fidelity.sweep(...)`` against ``fidelity probe``: the same options, the same
outputs, byte for byte.

The options: :data:`fidelity._sweep.api.OPTION_NAMES` are the option values the CLI's
parser gives, every one of them. The outputs: a Python notes server (written here, the
reader annotated read-only, the writer turning CRLF into LF) swept by the command with
--json, --card, --html and --junit, and by the library with its writers; and an OpenAPI
app (tests/servers/openapi_app.py) swept both ways. A bad option is the CLI's sentence.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from _needs import need_module
from _support.cli import fidelity_inprocess as fidelity
from _support.servers import serving

import fidelity as api
from fidelity._sweep.api import OPTION_NAMES

SERVER = '''
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

app = MCPServer("notes")
notes = {}


@app.tool()
def save_note(key: str, body: str) -> str:
    """Save a note (and "tidy" its line endings)."""
    notes[key] = body.replace("\\r\\n", "\\n")
    return f"saved {key}"


@app.tool(annotations=ToolAnnotations(readOnlyHint=True))
def read_note(key: str) -> str:
    """Read a note back."""
    return notes.get(key, f"no note {key}")
'''


def test_the_option_names_are_the_ones_the_cli_parses() -> None:
    from fidelity._cli import _parser

    sub = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    parsed = vars(sub.choices["probe"].parse_args(["http://127.0.0.1:9/"]))
    assert set(parsed) - {"run"} == set(OPTION_NAMES)
    assert len(OPTION_NAMES) == len(set(OPTION_NAMES))


@pytest.fixture
def notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    need_module("mcp")
    (tmp_path / "tidy_notes.py").write_text(SERVER, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return [sys.executable, "-m", "probes._mcp.serve_object", "tidy_notes:app"]


def test_the_writers_write_what_the_cli_writes(notes: list[str], tmp_path: Path) -> None:
    cli = fidelity(
        "probe", "--mcp", "--all-tools", "--yes", "--families", "newlines",
        "--json", "cli.json", "--card", "cli.md", "--html", "cli.html", "--junit", "cli.xml",
        "--", *notes, cwd=tmp_path,
    )  # fmt: skip
    assert cli.returncode == 1, cli.stderr
    swept = api.sweep(mcp=notes, yes=True, families=["newlines"])
    assert swept.exit_code == 1
    assert swept.message == ""
    swept.write_json("lib.json")
    swept.write_card("lib.md")
    swept.write_html("lib.html")
    swept.write_junit("lib.xml")
    for suffix in ("json", "md", "html", "xml"):
        made = (tmp_path / f"lib.{suffix}").read_text("utf-8")
        assert made == (tmp_path / f"cli.{suffix}").read_text("utf-8"), suffix
    assert json.loads(swept.to_json()) == json.loads((tmp_path / "cli.json").read_text("utf-8"))
    # The row beyond the allowed kinds, and the same sweep with the kind allowed.
    assert [(r.name, sorted(r.unexpected)) for r in swept.beyond_allow] == [
        ("save_note.body", ["newline.crlf_to_lf"])
    ]
    allowed = api.sweep(mcp=notes, yes=True, families=["newlines"], allow=["newline.crlf_to_lf"])
    assert allowed.exit_code == 0
    assert not allowed.beyond_allow


def test_a_card_block_is_added_to_a_document_and_the_rest_kept(
    notes: list[str], tmp_path: Path
) -> None:
    swept = api.sweep(mcp=notes, families="newlines", only_tools="read_*")  # one name each
    assert swept.exit_code == 0
    assert [(r.name, r.card is not None, r.skipped) for r in swept.rows] == [
        ("read_note.key", True, ""),
        ("save_note.key", False, "left out (not matched by --only-tool)"),
        ("save_note.body", False, "left out (not matched by --only-tool)"),
    ]
    document = tmp_path / "TOOLS.md"
    document.write_text("# Notes\n\nkept as written\n", encoding="utf-8")
    swept.write_card(str(document))
    text = document.read_text("utf-8")
    assert text.startswith("# Notes\n\nkept as written\n")
    assert text.count("<!-- fidelity:begin ") == 1
    assert "<!-- fidelity:begin read_note.key -->" in text


def test_a_bad_option_is_the_clis_sentence(notes: list[str]) -> None:
    with pytest.raises(api.UsageError) as raised:
        api.sweep(mcp=notes, families=["no-such-family"])
    cli = fidelity("probe", "--mcp", "--all-tools", "--families", "no-such-family", "--", *notes)
    assert cli.returncode == 2
    assert cli.stderr == f"fidelity: {raised.value}\n"
    with pytest.raises(api.UsageError, match=r"^--clients runs one tool's plan through "):
        api.sweep(mcp=notes, clients=["python"])
    with pytest.raises(api.UsageError, match=r"^give sweep\(\) one target: mcp="):
        api.sweep()
    with pytest.raises(api.UsageError, match=r"^sweep\(config=\.\.\.\) is not supported yet"):
        api.sweep(config="mcp.json")


@pytest.fixture(scope="module")
def openapi(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    need_module("fastapi")
    calls = tmp_path_factory.mktemp("openapi") / "calls.txt"
    with serving("openapi_app.py", str(calls)) as url:
        yield url


def test_an_openapi_sweep_is_the_clis(openapi: str, tmp_path: Path) -> None:
    out = tmp_path / "cli.json"
    cli = fidelity(
        "probe", "--openapi", f"{openapi}/openapi.json", "--yes", "--families", "case",
        "--only-op", "POST /items", "--json", str(out),
    )  # fmt: skip
    swept = api.sweep(
        openapi=f"{openapi}/openapi.json", yes=True, families=["case"], only_ops=["POST /items"]
    )
    assert swept.exit_code == cli.returncode == 1
    assert json.loads(swept.to_json()) == json.loads(out.read_text("utf-8"))
    assert [r.name for r in swept.rows if r.card is not None] == ["POST /items body.name"]
