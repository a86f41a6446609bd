"""``--max-requests`` over an ``--all-tools`` run: each row gets its share of what is left.

A read-back attempt is made only while the row's share pays for its calibration and one
payload at what each step costs there (an edit row's: a seed, the edit and a read back;
a paired read's: the write and the read). A row whose share cannot is not tried and says
so; the run stays within ``--max-requests`` and keeps the other rows' results (exit 3),
where it used to spend past the share, then end as a usage error naming a
``--max-requests`` the user never gave, every result lost.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from _support.cli import fidelity_inprocess as fidelity_here
from _support.servers import SERVERS

SILENT_EDIT = [sys.executable, str(SERVERS / "mcp_silent_edit.py")]


def test_a_row_its_share_cannot_pay_for_is_not_tried_and_the_run_goes_on(
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
    # Rows in turn: write_file.path, write_file.content (no echo; its paired read would
    # cost 2 calls a step), read_file.path, edit_block.file_path, then the edit row with
    # 11 calls left, where its calibration and one payload cost 4 steps of 3 calls.
    assert result.returncode == 3, result.stderr
    lines = result.stdout.splitlines()
    assert (
        "  edit_block.old_string+new_string  no read-back: the apply check found no seed and "
        "read that work (read_file: not tried within --max-requests)"
    ) in lines
    assert any(
        line.startswith("  write_file.content ")
        and line.endswith("no read tool paired (read_file: not tried within --max-requests)")
        for line in lines
    )
    assert "--max-requests 11" not in result.stdout + result.stderr
    assert lines[-1] == (
        "1 payload to 1 tool parameter: 1 preserved; 16 not sent within --max-requests 20; "
        "1 parameter measured, 4 measured nothing."
    )
    assert result.stderr.startswith("fidelity: 4 of the 5 tool parameters surveyed measured")
    document = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert document["complete"] is True
    assert [c["name"] for c in document["cards"]] == ["write_file.path"]
    assert document["paired"] == []
