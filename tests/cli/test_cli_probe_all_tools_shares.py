"""``--max-requests`` over an ``--all-tools`` run: each row gets its share of what is left.

A row whose share its calibration spent (an edit row's calibration costs three calls a
step: seed, edit, read back) is not measured and says so in the share's words; the run
goes on and keeps the other rows' results (exit 3), where it used to end as a usage
error naming a ``--max-requests`` the user never gave, every result lost.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from _support.cli import fidelity_inprocess as fidelity_here
from _support.servers import SERVERS

SILENT_EDIT = [sys.executable, str(SERVERS / "mcp_silent_edit.py")]


def test_a_row_whose_share_its_calibration_spent_is_not_measured_and_the_run_goes_on(
    tmp_path: Path,
) -> None:
    edits = tmp_path / "edits"
    edits.mkdir()
    result = fidelity_here(
        "probe", "--mcp", "--all-tools", "--yes", "--families", "quotes",
        "--only-tool", "write_file", "--only-tool", "read_file", "--only-tool", "edit_block",
        "--max-requests", "20", "--json", str(tmp_path / "r.json"),
        "--", *SILENT_EDIT, str(edits),
    )  # fmt: skip
    # Rows in turn: write_file.path, write_file.content, read_file.path,
    # edit_block.file_path, then the edit row with the 11 calls left; its calibration
    # (three seed-edit-read steps) takes 9 and one payload costs 3.
    reason = (
        "not surveyed: its share of --max-requests (11 calls; 9 spent locating the "
        "read-back) leaves too few for one payload (3 calls); raise --max-requests"
    )
    assert result.returncode == 3, result.stderr
    assert f"  edit_block.old_string+new_string  {reason}\n" in result.stdout
    assert "--max-requests 11" not in result.stdout + result.stderr
    assert result.stdout.splitlines()[-1] == (
        "1 payload to 1 tool parameter: 1 preserved; 16 not sent within --max-requests 20; "
        "1 parameter measured, 4 measured nothing."
    )
    assert result.stderr.startswith("fidelity: 4 of the 5 tool parameters surveyed measured")
    document = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert document["complete"] is True
    assert [c["name"] for c in document["cards"]] == ["write_file.path"]
    [row] = [
        r
        for r in document["not_surveyed"]
        if r["tool"] == "edit_block" and r["param"] == "old_string"
    ]
    assert row["reason"] == reason
    # Its calibration proved the pairing: the run says how the row was read back.
    assert document["paired"] == [
        "edit_block.old_string+new_string: seeded with write_file, read back with read_file, "
        "apply check"
    ]
