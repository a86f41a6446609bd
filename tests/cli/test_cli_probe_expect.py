"""``fidelity probe --expect '{payload}{mark}'``: the seed scenario through the command,
on an edit tool that answers "no match" without an error flag
(``tests/servers/mcp_silent_edit.py``), checked against the files on disk."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from _support.cli import fidelity_inprocess as fidelity
from _support.cli import one_sentence
from _support.servers import SERVERS

SILENT_EDIT = [sys.executable, str(SERVERS / "mcp_silent_edit.py")]


def _recipe(root: Path, *extra: str, expect: bool = True) -> list[str]:
    path = "f{n}.txt"
    return [
        "probe", "--mcp", "--yes", "--tool", "edit_block",
        "--before", json.dumps({"path": path, "content": "{payload}"}).join(("write_file=", "")),
        "--args", json.dumps(
            {"file_path": path, "old_string": "{payload}", "new_string": "{payload}{mark}"}
        ),
        "--read-tool", "read_file", "--read-args", json.dumps({"path": path}),
        *(["--expect", "{payload}{mark}"] if expect else []),
        *extra,
        "--", *SILENT_EDIT, str(root),
    ]  # fmt: skip


def test_the_command_reports_an_edit_that_did_not_apply(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    result = fidelity(
        *_recipe(root, "--families", "quotes,newlines", "--json", str(tmp_path / "r.json")),
        cwd=tmp_path,
    )
    assert "Traceback" not in result.stderr
    out = result.stdout
    assert "edit_block did not apply the edit for " in out
    assert "without an error flag" in out
    summary = next(
        line for line in out.splitlines() if line.endswith("payloads sent") or " payloads: " in line
    )
    assert "not applied, without an error flag" in summary
    document = json.loads((tmp_path / "r.json").read_text())
    (card,) = document.get("cards", [document])
    silent = [o for o in card["observations"] if o.get("silent")]
    assert silent
    assert card["facts"]["setup"]["expect"] == "{payload}{mark}"
    for obs in silent:
        assert obs["status"] == "rejected"
        assert "100% similarity" in obs["error"]
    # On disk: each silently rejected payload's file still holds the seed, no mark.
    files = sorted(root.iterdir())
    unchanged = [f for f in files if "mk" not in f.read_bytes().decode()]
    assert len(unchanged) == len(silent)
    described = fidelity("card", str(tmp_path / "r.json"), "--describe", cwd=tmp_path)
    assert "may not apply although the tool reports no error" in described.stdout


def test_payload_inside_a_string_needs_expect(tmp_path: Path) -> None:
    result = fidelity(*_recipe(tmp_path, expect=False), cwd=tmp_path)
    assert result.returncode == 2
    sentence = one_sentence(result)
    assert "--expect '{payload}{mark}'" in sentence
    bad = fidelity(*_recipe(tmp_path, "--expect", "{mark}"), cwd=tmp_path)
    assert bad.returncode == 2
    assert "does not hold {payload}" in one_sentence(bad)


def test_silent_rejections_alone_fail_the_run(tmp_path: Path) -> None:
    # Quotes only: each payload is applied verbatim or silently not applied, no rewrite.
    result = fidelity(*_recipe(tmp_path, "--families", "quotes"), cwd=tmp_path)
    out = result.stdout
    assert "rewrites beyond --allow" not in out
    assert "not applied, without an error flag" in out
    assert result.returncode == 1, result.stderr
    # --allow names rewrite kinds; none of them accepts an edit that did not apply.
    allowed = fidelity(
        *_recipe(tmp_path, "--families", "quotes", "--allow", "quote.straighten"), cwd=tmp_path
    )
    assert allowed.returncode == 1, allowed.stderr
