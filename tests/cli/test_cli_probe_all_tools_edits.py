"""``--all-tools`` recognises edit-shaped tools and probes them with the apply check.

Against tests/servers/mcp_silent_edit.py (the official Python SDK over stdio): its
``edit_block(file_path, old_string, new_string)`` normalizes ``old_string`` before
matching and answers "no match" without an error flag; its ``edit_file(path, edits:
[{oldText, newText}])`` applies verbatim; ``write_file`` seeds, ``read_file`` reads
back. The truth is on disk: a file whose edit did not apply still holds the seed.
"""

from __future__ import annotations

import base64
import json
import re
import sys
from pathlib import Path

from _support.cli import fidelity_inprocess as fidelity_here
from _support.servers import SERVERS

SILENT_EDIT = [sys.executable, str(SERVERS / "mcp_silent_edit.py")]
SEEDED = "seeded with write_file, read back with read_file, apply check"


def _sent(observation: dict) -> str:
    return base64.b64decode(observation["sent"]["data"]).decode("utf-8", "surrogatepass")


def test_all_tools_finds_the_edits_that_did_not_apply(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    out = tmp_path / "r.json"
    result = fidelity_here(
        "probe", "--mcp", "--all-tools", "--yes", "--families", "quotes",
        "--json", str(out), "--", *SILENT_EDIT, str(root), cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert "Traceback" not in result.stderr
    # The edit tools' file arguments measured nothing on their own, but edits never
    # applied: a finding outranks what could not be measured (exit 1, not 3).
    assert result.returncode == 1
    assert result.stderr.startswith("fidelity: 3 of the 7 tool parameters surveyed measured")
    text = result.stdout
    assert re.search(r"^edit_block\.old_string\+new_string +M ", text, re.M)
    assert re.search(r"^edit_file\.edits\[0\]\.oldText\+newText +\. ", text, re.M)
    assert f"paired: edit_block.old_string+new_string: {SEEDED}" in text
    assert f"paired: edit_file.edits[0].oldText+newText: {SEEDED}" in text
    assert "edit_block did not apply the edit for " in text
    summary = next(line for line in text.splitlines() if "payloads to" in line)
    assert "not applied, without an error flag" in summary
    # Neither half of an edit is a row of its own.
    assert "edit_block.new_string" not in text
    assert "edit_block.old_string " not in text
    document = json.loads(out.read_text())
    cards = {c["name"]: c for c in document["cards"]}
    edit = cards["edit_block.old_string"]
    assert edit["facts"]["setup"]["expect"] == "{payload}{mark}"
    assert edit["facts"]["setup"]["before"][0]["tool"] == "write_file"
    silent = [o for o in edit["observations"] if o.get("silent")]
    assert silent
    for obs in silent:
        assert obs["status"] == "rejected"
        assert "100% similarity" in obs["error"]
        # On disk: the file named in the answer still holds the seed, without a mark.
        name = re.search(r"found in (fidelity-[0-9a-f]{8}-[0-9]+)", obs["error"])
        assert name is not None
        assert (root / name.group(1)).read_bytes().decode("utf-8") == _sent(obs)
    # The faithful edit applied every payload: preserved, and on disk with its mark.
    faithful = cards["edit_file.edits.0.oldText"]
    statuses = {o["status"] for o in faithful["observations"]}
    assert statuses == {"preserved"}
    marked = [f for f in root.iterdir() if re.search(r"mk[0-9a-f]{8}x[0-9]+k$", f.read_text())]
    assert len(marked) >= len(faithful["observations"])


def test_dry_run_names_the_seed_and_the_read(tmp_path: Path) -> None:
    result = fidelity_here(
        "probe", "--mcp", "--all-tools", "--yes", "--dry-run", "--", *SILENT_EDIT, str(tmp_path),
        cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0
    line = next(x for x in result.stdout.splitlines() if "edit_block.old_string+new_string" in x)
    assert line.split(None, 1)[1] == (
        "apply check: seeded with write_file, read back with the first of: read_file"
    )
    assert list(tmp_path.iterdir()) == []  # nothing was called


def test_an_edit_tool_with_nothing_to_seed_it_keeps_its_two_parameters(tmp_path: Path) -> None:
    # write_file left out: nothing may seed a file, so old_string and new_string are
    # calibrated as any parameter (and, as this tool does not echo them, measure nothing).
    result = fidelity_here(
        "probe", "--mcp", "--all-tools", "--yes", "--only-tool", "edit_block",
        "--only-tool", "read_file", "--families", "quotes", "--", *SILENT_EDIT, str(tmp_path),
        cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert result.returncode == 3
    assert "Traceback" not in result.stderr
    assert "+new_string" not in result.stdout
    for name in ("edit_block.old_string", "edit_block.new_string"):
        assert re.search(rf"^  {re.escape(name)} +no read-back: ", result.stdout, re.M)
    assert list(tmp_path.iterdir()) == []  # write_file was never called
