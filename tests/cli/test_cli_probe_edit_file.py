"""The seed scenario on the reference server: an identity edit through
@modelcontextprotocol/server-filesystem's ``edit_file``, from the command line.

Before each payload ``write_file`` seeds ``ROOT/f{n}.txt`` with it; ``edit_file``
replaces it with itself (``oldText`` = ``newText`` = the payload); ``read_text_file``
reads the file back. What really happens is checked on disk, independently of the
probe: the server rewrites every CRLF of the file as LF (and answers with an empty
diff), so payloads holding CRLF come back ``newline.crlf_to_lf``, all others intact.

The card is committed as docs/cards/mcp-server-filesystem-edit-file.md; the test fails
when the chain drifts from it. Regenerate it after a deliberate change with
``python tests/cli/test_cli_probe_edit_file.py``.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _needs import need_module
from _support.cli import fidelity_inprocess as fidelity
from _support.mcp import catalogue, npm_server, undated

REPO = Path(__file__).resolve().parents[2]
CARD = REPO / "docs" / "cards" / "mcp-server-filesystem-edit-file.md"
BLOCK = "edit_file.edits.0.oldText+edits.0.newText"


def _options(root: str) -> list[str]:
    file = f"{root}/f{{n}}.txt"
    seed = json.dumps({"path": file, "content": "{payload}"})
    edit = json.dumps({"path": file, "edits": [{"oldText": "{payload}", "newText": "{payload}"}]})
    return [
        "--before", f"write_file={seed}", "--tool", "edit_file", "--args", edit,
        "--read-tool", "read_text_file", "--read-args", json.dumps({"path": file}), "--yes",
    ]  # fmt: skip


def run_edit_file(root: str, out: Path) -> Any:
    """The scenario's command, run from the repository with the installed server."""
    server = npm_server("filesystem")
    return fidelity(
        "probe", "--mcp", *_options(root), "--json", str(out / "r.json"),
        "--card", str(out / "card.md"), "--", server, root,
        cwd=REPO, timeout=600,
    )  # fmt: skip


def _rooted(markdown: str, root: str) -> str:
    """The card with the temporary root written ROOT."""
    return markdown.replace(root, "ROOT")


@pytest.fixture(scope="module")
def edited() -> Any:
    need_module("mcp")
    with tempfile.TemporaryDirectory() as root, tempfile.TemporaryDirectory() as out:
        result = run_edit_file(root, Path(out))
        card = json.loads((Path(out) / "r.json").read_text())
        markdown = (Path(out) / "card.md").read_text(encoding="utf-8")
        files = {p.name: p.read_bytes() for p in Path(root).iterdir()}
        yield result, card, _rooted(markdown, root), files


def test_the_identity_edit_rewrites_crlf_and_nothing_else(edited: Any) -> None:
    result, card, _, files = edited
    assert result.returncode == 1, result.stderr  # a rewrite beyond --allow
    assert "rewrites beyond --allow: newline.crlf_to_lf." in result.stdout
    assert result.stdout.startswith("read back at: text (located by calibration calls")
    by_id = {o["payload_id"]: o for o in card["observations"]}
    assert set(by_id) == {p.id for p in catalogue()}
    for n, payload in enumerate(catalogue(), 1):
        obs = by_id[payload.id]
        name = f"f{n}.txt"
        if "surrogates" in payload.families:
            # The client library cannot encode the seed: nothing was sent, no file.
            assert obs["status"] == "rejected"
            assert obs["error"].startswith("setup step 1 (write_file): the MCP client library")
            assert name not in files
            continue
        # The truth, read from the disk: CRLF became LF in the file, nothing else moved.
        expected = payload.text.replace("\r\n", "\n").encode("utf-8")
        assert files[name] == expected, payload.id
        if "\r\n" in payload.text:
            assert obs["status"] == "transformed", payload.id
            assert obs["kinds"] == ["newline.crlf_to_lf"]
        else:
            assert obs["status"] == "preserved", payload.id
    assert files["f0.txt"].startswith(b"fidelity-marker-")  # the calibration call's file


def test_the_json_result_records_the_whole_plan(edited: Any) -> None:
    _, card, _, _ = edited
    setup = card["facts"]["setup"]
    root_file = setup["read_args"]["path"]
    assert root_file.endswith("/f{n}.txt")
    assert setup["transport"] == "mcp stdio"
    assert setup["tool"] == "edit_file"
    assert "param" not in setup  # the payload's places are in the template
    assert setup["args"]["edits"] == [{"oldText": "{payload}", "newText": "{payload}"}]
    assert setup["before"] == [
        {"tool": "write_file", "args": {"path": root_file, "content": "{payload}"}}
    ]
    assert (setup["read_tool"], setup["read"], setup["read_found"]) == (
        "read_text_file",
        "text",
        True,
    )
    assert setup["allow_destructive"] is True
    assert card["name"] == BLOCK


def test_committed_card_matches(edited: Any) -> None:
    _, _, markdown, _ = edited
    assert CARD.is_file(), f"missing {CARD}: run python {__file__}"
    assert undated(CARD.read_text(encoding="utf-8")) == undated(markdown), (
        f"the chain drifted from {CARD.name}; rerun python {__file__} if that is intended"
    )


def test_the_card_repeats_the_run(edited: Any) -> None:
    _, _, markdown, _ = edited
    command = markdown.split("```sh\n", 1)[1].split("\n```", 1)[0]
    assert command.startswith("fidelity probe --mcp --tool edit_file --args ")
    assert "--before 'write_file=" in command
    assert "--read text --yes -- tests/servers/node_modules/.bin/mcp-server-filesystem ROOT" in (
        command
    )


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as root, tempfile.TemporaryDirectory() as out:
        done = run_edit_file(root, Path(out))
        if done.returncode not in (0, 1):
            raise SystemExit(done.stderr)
        text = (Path(out) / "card.md").read_text(encoding="utf-8")
        CARD.write_text(_rooted(text, root), encoding="utf-8")
    print(f"wrote {CARD}")
