"""``--all-tools`` under the user's control: tools left out, shared arguments, a sandbox,
and the verdict on parameters that measured nothing.

Against tests/servers/mcp_note_store.py (the official Python SDK over stdio): a note
store whose ``wipe`` tool writes a sentinel file when called, and whose tools all need
a ``workspace`` argument in ``--workspace`` mode. The truth is on disk: the sentinel,
the notes the server wrote, the temporary directories before and after.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from _support.cli import fidelity
from _support.cli import fidelity_inprocess as fidelity_here
from _support.servers import SERVERS

from probes.frontend import CALIBRATION_CALLS

STORE = [sys.executable, str(SERVERS / "mcp_note_store.py")]


def _run(tmp_path: Path, *options: str, server: tuple[str, ...] = ()) -> tuple[object, dict]:
    out = tmp_path / "r.json"
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    result = fidelity_here(
        "probe", "--mcp", "--all-tools", "--yes", "--families", "quotes", "--json", str(out),
        *options, "--", *STORE, *server, cwd=work, timeout=300,
    )  # fmt: skip
    return result, json.loads(out.read_text()) if out.exists() else {}


def _not_surveyed(document: dict) -> dict[str, str]:
    return {f"{s['tool']}.{s['param']}": s["reason"] for s in document["not_surveyed"]}


@pytest.fixture(scope="module")
def wipe_skipped(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object, dict]:
    """One run with ``--skip-tool wip*`` (wipe writes a sentinel if called), shared by
    the tests below that assert different things about it: the folder it ran in (its
    notes under work/notes), its result and its JSON document."""
    folder = tmp_path_factory.mktemp("skipped")
    sentinel = folder / "sentinel"
    result, document = _run(folder, "--skip-tool", "wip*", server=("--sentinel", str(sentinel)))
    return folder, result, document


@pytest.mark.parametrize("left_out", ["--skip-tool", "--only-tool"])
def test_a_tool_left_out_is_never_called(
    tmp_path: Path, left_out: str, request: pytest.FixtureRequest
) -> None:
    if left_out == "--skip-tool":
        tmp_path, result, document = request.getfixturevalue("wipe_skipped")
    else:
        # Two globs, their tools' union surveyed: search.query, read_note.name.
        options = ("--only-tool", "se*", "--only-tool", "read_note")
        sentinel = tmp_path / "sentinel"
        result, document = _run(tmp_path, *options, server=("--sentinel", str(sentinel)))
    assert not (tmp_path / "sentinel").exists()  # wipe was never called
    reasons = _not_surveyed(document)
    glob = "--skip-tool wip*" if left_out == "--skip-tool" else "not matched by --only-tool"
    assert reasons["wipe.reason"] == f"left out ({glob})"
    # The left-out parameter is not counted among those that measured nothing.
    assert "wipe.reason" not in result.stderr
    assert "search.query" in {c["facts"]["setup"]["tool"] + ".query" for c in document["cards"]}


def test_without_the_glob_the_sentinel_tool_is_called(tmp_path: Path) -> None:
    # The control (so the test above can fail): the same server and sentinel, wipe
    # selected: it is called and writes the sentinel. (A --skip-tool that leaves wipe in
    # calls it too: the sandboxed run below reads its answer.)
    sentinel = tmp_path / "sentinel"
    _run(tmp_path, "--only-tool", "wipe", server=("--sentinel", str(sentinel)))
    assert sentinel.read_text().startswith("wipe was called: 'fidelity-marker-")


def test_a_glob_that_matches_no_tool_is_a_usage_error(tmp_path: Path) -> None:
    result, _ = _run(tmp_path, "--skip-tool", "nothing*")
    assert result.returncode == 2
    assert result.stderr == (
        "fidelity: --skip-tool 'nothing*' matches none of this MCP server's tools: "
        "read_note, save_note, search, wipe.\n"
    )


def test_default_gives_every_tool_its_common_argument(tmp_path: Path) -> None:
    server = ("--workspace", "W1")
    # Without --default, search.query (preserved below) measures nothing: every call
    # failed (unknown workspace).
    without, document = _run(tmp_path, "--only-tool", "search", server=server)
    assert without.returncode == 3
    assert document["cards"] == []
    result, document = _run(
        tmp_path, "--skip-tool", "wipe", "--default", 'workspace="W1"', server=server
    )
    reasons = _not_surveyed(document)
    # The parameter --default gives is the user's, not surveyed and not counted.
    for tool in ("save_note", "read_note", "search"):
        assert reasons[f"{tool}.workspace"] == "left out (given by --default workspace)"
    cards = {c["name"]: c for c in document["cards"]}
    assert {o["status"] for o in cards["search.query"]["observations"]} == {"preserved"}
    assert "workspace.workspace" not in result.stdout


def test_a_parameter_that_measured_nothing_is_exit_3_with_the_results_kept(
    tmp_path: Path,
) -> None:
    result, document = _run(tmp_path, "--skip-tool", "wipe", "--skip-tool", "save_note")
    # read_note.name finds no note: nothing measured; search.query measured.
    assert result.returncode == 3
    assert result.stderr == (
        "fidelity: 1 of the 2 tool parameters surveyed measured nothing (read_note.name); the "
        "lines above say why, and the results of the others are kept.\n"
    )
    assert result.stdout.endswith("; 1 parameter measured, 1 measured nothing.\n")
    assert [c["name"] for c in document["cards"]] == ["search.query"]


def test_usage_errors_of_the_control_options(tmp_path: Path) -> None:
    said = fidelity_here("probe", "--mcp", "--skip-tool", "x", "--", *STORE)
    assert said.returncode == 2
    assert said.stderr.startswith("fidelity: --skip-tool applies to an --all-tools run")
    said = fidelity_here("probe", "--mcp", "--all-tools", "--default", "x={payload}", "--", *STORE)
    assert said.returncode == 2
    assert "--default x=... is not valid JSON" in said.stderr
    said = fidelity_here(
        "probe", "--mcp", "--all-tools", "--default", 'x="{payload}"', "--", *STORE
    )
    assert said.returncode == 2
    assert "--default x=... holds {payload}" in said.stderr
    said = fidelity_here("probe", "--sandbox", "mcp+http://127.0.0.1:9/mcp")
    assert said.returncode == 2
    assert "--sandbox starts a stdio MCP server" in said.stderr


@pytest.fixture
def temp() -> Iterator[Path]:
    """A temporary directory with a short name (the tool's answer is quoted shortened)."""
    short = Path(tempfile.mkdtemp(prefix="fs", dir="/tmp"))
    yield short
    shutil.rmtree(short, ignore_errors=True)


def test_a_sandboxed_run_leaves_nothing_behind(tmp_path: Path, temp: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    out = tmp_path / "r.json"
    # (search is left out: it writes nothing; the notes, read back, and wipe remain)
    result = fidelity(
        "probe", "--mcp", "--all-tools", "--yes", "--sandbox", "--families", "quotes",
        "--examples", "2", "--skip-tool", "search", "--json", str(out),
        "--", *STORE, "--sentinel", "{sandbox}/sentinel",
        cwd=work, timeout=300, env={"TMPDIR": str(temp), "HOME": str(tmp_path / "home")},
    )  # fmt: skip
    assert "Traceback" not in result.stderr
    # The server ran in the sandbox: its working directory, HOME and TMPDIR, as wipe said.
    reasons = _not_surveyed(json.loads(out.read_text()))
    answer = reasons["wipe.reason"]
    sandbox = answer.split("wiped in ", 1)[1].split(" ", 1)[0]
    assert sandbox.startswith(f"{os.path.realpath(temp)}/fidelity-sandbox-")
    assert sandbox.endswith("/work")
    root = sandbox[: -len("/work")]
    # (the answer is quoted shortened: what is shown must be the start of the truth)
    shown = answer.split(f"{sandbox} ", 1)[1].split("...", 1)[0]
    assert shown.startswith(f"(HOME {root}/home, TMPDIR {temp}")
    assert f"(HOME {root}/home, TMPDIR {root}/tmp)".startswith(shown)
    # ...and it is gone, with the notes and the sentinel written there; nothing was
    # left in the working directory (no .hypothesis either) or the temporary directory.
    assert not Path(root).exists()
    assert list(work.iterdir()) == []
    assert list(temp.iterdir()) == []


def test_a_write_tool_is_read_back_through_its_paired_read_tool(
    wipe_skipped: tuple[Path, object, dict],
) -> None:
    # save_note answers "saved" only: read_note(name) reads the note back, and the
    # stored rewrite (quotes straightened on save) is named.
    tmp_path, result, document = wipe_skipped
    assert "paired: save_note.text read back with read_note(name)" in result.stdout
    assert document["paired"] == ["save_note.text read back with read_note(name)"]
    cards = {c["name"]: c for c in document["cards"]}
    card = cards["save_note.text"]
    assert card["facts"]["setup"]["read_tool"] == "read_note"
    kinds = {k for o in card["observations"] for k in o.get("kinds", [])}
    assert "quote.straighten" in kinds
    # The truth on disk: each payload in a note of its own name, its quotes straightened.
    notes = sorted((tmp_path / "work" / "notes").iterdir())
    runs = Counter(n.name.split("-")[1] for n in notes if n.name.startswith("fidelity-"))
    # The paired run: the calibration's notes (one per marker) and one per payload,
    # under its own run id.
    assert CALIBRATION_CALLS + len(card["observations"]) in runs.values()
    texts = [n.read_text(encoding="utf-8", errors="surrogatepass") for n in notes]
    assert not any("\u201c" in t or "\u2019" in t for t in texts)
    # save_note.name has no read tool taking save_note's other argument: said why.
    reasons = _not_surveyed(document)
    # save_note.name: search(query) finds the note by its text, but answers a count.
    assert re.search(
        r"; no read tool paired \(search: the calibration value did not come back; read tool "
        r"'search' answered: searched the note names for fidelity-[0-9a-f]{8}-0-q: 0\)\Z",
        reasons["save_note.name"],
    )


@pytest.mark.parametrize(
    ("server", "options", "code"),
    [
        # the reflector keeps every quote: exit 0
        (("-m", "probes._mcp"), (), 0),
        # the quote-edit server straightens them: rewrites found, exit 1
        ((str(SERVERS / "mcp_quote_edit.py"),), (
            "--yes", "--tool", "edit", "--param", "old_string",
            "--args", '{"path": "d", "old_string": "{payload}", "new_string": "x"}',
            "--read", "armored:searched",
        ), 1),
    ],
)  # fmt: skip
def test_a_sandbox_is_removed_whatever_the_exit_code(
    tmp_path: Path, temp: Path, server: tuple[str, ...], options: tuple[str, ...], code: int
) -> None:
    """The sandbox goes at the end of every run, not only of one that failed: a run that
    found nothing (0) and one that found rewrites (1) leave no directory behind."""
    work = tmp_path / "work"
    work.mkdir()
    # (a process of its own: TMPDIR is read once per process)
    result = fidelity(
        "probe", "--mcp", "--sandbox", "--families", "quotes", "--quiet", *options,
        "--", sys.executable, *server,
        cwd=work, env={"TMPDIR": str(temp)}, timeout=300,
    )  # fmt: skip
    assert result.returncode == code, result.stderr
    assert list(temp.iterdir()) == []
    assert list(work.iterdir()) == []
