"""``--all-tools`` on what a newcomer points it at: an unannotated vault (issue 40).

Against tests/servers/mcp_vault.py (the official Python SDK over stdio, no annotations):
notes stored as given and read in text mode (CRLF and CR read back as LF), a read of
a note that does not exist answering "File not found: X" without an error flag, an
edit tool named ``search_text``/``replacement_text``, a whole-content replacement of an
existing note, a move that answers "File not found" when its source does not exist.
The truth is on disk: the notes the run wrote hold the payloads' bytes.
"""

from __future__ import annotations

import base64
import json
import re
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from _support.cli import fidelity_inprocess as fidelity_here
from _support.servers import SERVERS

VAULT = [sys.executable, str(SERVERS / "mcp_vault.py")]
EDIT = "edit_note.search_text+replacement_text"


def _sent(observation: dict) -> str:
    return base64.b64decode(observation["sent"]["data"]).decode("utf-8", "surrogatepass")


@pytest.fixture(scope="module")
def vault_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object, dict, ET.Element]:
    """One newcomer's run over the vault (its notes under ``root``), shared by the tests."""
    folder = tmp_path_factory.mktemp("vault")
    root = folder / "root"
    root.mkdir()
    result = fidelity_here(
        "probe", "--mcp", "--all-tools", "--yes", "--families", "newlines,quotes",
        "--json", str(folder / "r.json"), "--junit", str(folder / "r.xml"),
        "--", *VAULT, str(root), cwd=folder, timeout=300,
    )  # fmt: skip
    document = json.loads((folder / "r.json").read_text())
    return root, result, document, ET.parse(folder / "r.xml").getroot()


def test_the_note_text_is_read_back_through_its_unannotated_reader(vault_run: tuple) -> None:
    root, result, document, _ = vault_run
    assert "Traceback" not in result.stderr
    text = result.stdout
    assert (
        "paired: write_note.content read back with read_note(path) (not annotated read-only: "
        "called with --yes)"
    ) in text
    assert re.search(
        r"^write_note\.content +\. M +newline\.cr_to_lf, newline\.crlf_to_lf$", text, re.M
    )
    cards = {c["name"]: c for c in document["cards"]}
    content = cards["write_note.content"]
    assert content["facts"]["setup"]["read_tool"] == "read_note"
    # Every payload holding a CR came back with LF in its place; the others intact.
    for obs in content["observations"]:
        sent = _sent(obs)
        if "\r" in sent:
            assert obs["status"] == "transformed"
        else:
            assert obs["status"] == "preserved"
    # The truth on disk: the notes hold the payloads' CRs (the store keeps them; the
    # read path rewrites them).
    crs = [f for f in root.iterdir() if f.is_file() and b"\r" in f.read_bytes()]
    assert len(crs) >= 7


def test_the_edits_that_never_apply_are_a_finding_linked_to_the_read_path(
    vault_run: tuple,
) -> None:
    _, result, document, _ = vault_run
    text = result.stdout
    assert f"paired: {EDIT}: seeded with write_note, read back with read_note, apply check" in text
    assert (
        f"{EDIT}: 7 edits whose old text holds a CR never applied; read_note turns CRLF into "
        "LF (newline.crlf_to_lf, measured on write_note.content).\n"
    ) in text
    summary = next(line for line in text.splitlines() if "payloads to" in line)
    assert "; 7 edits never applied;" in summary
    edit = {c["name"]: c for c in document["cards"]}["edit_note.search_text"]
    refused = [o for o in edit["observations"] if o["status"] == "rejected"]
    assert len(refused) == 7
    assert all("\r" in _sent(o) for o in refused)
    # A finding outranks the parameters that measured nothing: exit 1, said on stderr.
    assert result.returncode == 1
    assert result.stderr == (
        "fidelity: 6 of the 10 tool parameters surveyed measured nothing (read_note.path, "
        "replace_note.path, edit_note.path, move_note.src, move_note.dst, search_notes.query); "
        "the lines above say why, and the results of the others are kept.\n"
    )
    assert document["verdict"]["exit_code"] == 1
    assert document["verdict"]["findings"] == [
        "newline.cr_to_lf",
        "newline.crlf_to_lf",
        "7 not applied",
    ]


def test_an_error_like_answer_is_never_a_read_back(vault_run: tuple) -> None:
    _, _, document, _ = vault_run
    reasons = {f"{s['tool']}.{s['param']}": s["reason"] for s in document["not_surveyed"]}
    for name, said in (
        ("read_note.path", "File not found: fidelity-marker-"),
        ("replace_note.path", "Note not found: fidelity-marker-"),
        ("move_note.src", "File not found: fidelity-marker-"),
    ):
        assert reasons[name].startswith(
            f"no read-back: the tool answered with an error ('not found'), not the value: {said}"
        )
    # No payload of any row is lost: the rows that measured came back, the others were
    # not sent.
    statuses = {o["status"] for c in document["cards"] for o in c["observations"]}
    assert statuses == {"preserved", "transformed", "rejected"}


def test_a_whole_content_replacement_is_seeded_first(vault_run: tuple) -> None:
    _, result, document, _ = vault_run
    assert "paired: replace_note.content: seeded with write_note, read back with read_note\n" in (
        result.stdout
    )
    card = {c["name"]: c for c in document["cards"]}["replace_note.content"]
    assert card["facts"]["setup"]["before"][0]["tool"] == "write_note"
    kinds = {k for o in card["observations"] for k in o.get("kinds", [])}
    assert kinds == {"newline.cr_to_lf", "newline.crlf_to_lf"}


def test_the_junit_file_agrees_with_the_exit_code(vault_run: tuple) -> None:
    _, _, _, xml = vault_run
    suite = xml.find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("10", "3", "6")
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    failure = cases["edit_note.search_text"].find("failure")
    assert failure is not None
    assert failure.get("message") == "7 not applied"
    error = cases["move_note.src"].find("error")
    assert error is not None
    assert error.get("message", "").startswith("no read-back: the tool answered with an error")
    assert cases["write_note.path"].find("failure") is None


def test_rows_never_see_each_others_notes(tmp_path: Path) -> None:
    # The made names are unique to each row's run and payload: move_note never found a
    # note another row wrote (every move answered "File not found"), and every note on
    # disk holds what its write sent.
    root = tmp_path / "root"
    root.mkdir()
    out = tmp_path / "r.json"
    result = fidelity_here(
        "probe", "--mcp", "--all-tools", "--yes", "--families", "quotes",
        "--only-tool", "write_note", "--only-tool", "read_note", "--only-tool", "move_note",
        "--json", str(out), "--", *VAULT, str(root), cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert result.returncode == 3
    document = json.loads(out.read_text())
    content = {c["name"]: c for c in document["cards"]}["write_note.content"]
    assert {o["status"] for o in content["observations"]} == {"preserved"}
    notes = {f.name: f.read_bytes() for f in root.iterdir() if f.name.startswith("fidelity-")}
    sent = {_sent(o).encode("utf-8", "surrogatepass") for o in content["observations"]}
    assert sent <= set(notes.values())


def test_a_common_argument_no_schema_can_make_suggests_default(tmp_path: Path) -> None:
    # Every tool of the note store run with --workspace requires the workspace: nothing
    # made from the schema names it, and the run says once which --default gives it.
    store = [sys.executable, str(SERVERS / "mcp_note_store.py"), "--workspace", "W1"]
    result = fidelity_here(
        "probe", "--mcp", "--all-tools", "--yes", "--families", "quotes",
        "--skip-tool", "wipe", "--", *store, cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert result.returncode == 3
    hint = (
        "hint: every tool requires 'workspace', which names where everything lives and "
        "cannot be made from a schema; give it once for every tool: "
        "--default 'workspace=\"NAME\"'\n"
    )
    assert result.stdout.endswith(hint)
    given = fidelity_here(
        "probe", "--mcp", "--all-tools", "--yes", "--families", "quotes",
        "--skip-tool", "wipe", "--default", 'workspace="W1"', "--", *store,
        cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert "hint: every tool requires" not in given.stdout
    assert given.returncode == 1  # the stored quotes are straightened: found


def test_a_search_reader_finds_this_payloads_entry_alone(tmp_path: Path) -> None:
    # Without read_note, the notes are read back through search_notes(query), which
    # answers every note whose name holds the query, newest first: searched for
    # "fidelity-RUN-1", it also answers notes -10 to -17. The name searched for ends so
    # that no other name goes on after it: each payload reads its own entry.
    root = tmp_path / "root"
    root.mkdir()
    out = tmp_path / "r.json"
    result = fidelity_here(
        "probe", "--mcp", "--all-tools", "--yes", "--families", "newlines,quotes",
        "--only-tool", "write_note", "--only-tool", "search_notes",
        "--json", str(out), "--", *VAULT, str(root), cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert "paired: write_note.content read back with search_notes(query)" in result.stdout
    document = json.loads(out.read_text())
    card = {c["name"]: c for c in document["cards"]}["write_note.content"]
    assert card["facts"]["setup"]["read_args"] == {"query": "fidelity-{run}-{n}-q"}
    kinds = {k for o in card["observations"] for k in o.get("kinds", [])}
    assert kinds == {"newline.cr_to_lf", "newline.crlf_to_lf"}
    for obs in card["observations"]:
        assert obs["status"] == ("transformed" if "\r" in _sent(obs) else "preserved")


def test_param_with_a_template_keeps_the_template(tmp_path: Path) -> None:
    # --param content with "{payload}{mark}" at content: the payload goes into the
    # template, so each note holds the payload and its mark (before, the bare payload
    # was sent, the mark never was, and every payload was called not applied).
    root = tmp_path / "root"
    root.mkdir()
    result = fidelity_here(
        "probe", "--mcp", "--yes", "--tool", "write_note", "--param", "content",
        "--args", '{"path": "n{n}", "content": "{payload}{mark}"}',
        "--read-tool", "read_note", "--read-args", '{"path": "n{n}"}',
        "--expect", "{payload}{mark}", "--families", "quotes",
        "--", *VAULT, str(root), cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.endswith("17 payloads: 17 preserved.\n")
    assert re.fullmatch(r"\u201c betamk[0-9a-f]{8}x1k", (root / "n1").read_text("utf-8"))
