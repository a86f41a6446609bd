"""``fidelity probe``'s outputs: checked before the first request, written each on its own,
and a run that did not complete never replaces a complete card block.

The server is tests/servers/mcp_hostile.py; ``--calls`` shows whether any tool call
reached it.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from _support.cli import fidelity_inprocess, start, stop
from _support.processes import wait_for
from _support.servers import HOSTILE_MCP

from fidelity._core.errors import UsageError
from fidelity._report.results import ResultWriter
from fidelity._sweep.outputs import write_reports
from fidelity._sweep.plan import ProbePlan, TargetKind

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.usefixtures("mcp_sdk"),
]


def _probe(
    tmp_path: Path, *options: str, server: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    return fidelity_inprocess(
        "probe", "--families", "quotes", "--read", "text",
        "--max-requests", "3", *options, "--mcp", "--",
        *HOSTILE_MCP, "--calls", str(tmp_path / "called"), *server,
    )  # fmt: skip


def test_a_block_name_that_cannot_be_a_marker_stops_the_run_before_any_call(
    tmp_path: Path,
) -> None:
    html, card = tmp_path / "report.html", tmp_path / "TOOLS.md"
    result = _probe(tmp_path, "--tool", "ed>it", "--card", str(card), "--html", str(html))
    assert result.returncode == 2
    assert result.stderr.startswith(f"fidelity: --card {card}: block name 'ed>it'")
    assert result.stderr.count("\n") == 1
    assert not (tmp_path / "called").exists()
    assert not card.exists()


@pytest.mark.parametrize("option", ["--json", "--card", "--html"])
def test_an_output_that_cannot_be_written_stops_the_run_before_any_call(
    tmp_path: Path, option: str
) -> None:
    target = tmp_path / "out"
    target.write_text("# kept\n")
    target.chmod(0o444)
    result = _probe(tmp_path, option, str(target))
    assert result.returncode == 2
    assert result.stderr == (
        f"fidelity: {option} {target} is read-only; it is not rewritten "
        "(make it writable if it should be).\n"
    )
    assert not (tmp_path / "called").exists()
    assert target.read_text() == "# kept\n"


def test_a_fifo_as_card_document_stops_the_run_before_any_call(tmp_path: Path) -> None:
    fifo = tmp_path / "TOOLS.md"
    os.mkfifo(fifo)
    result = _probe(tmp_path, "--card", str(fifo))
    assert result.returncode == 2
    assert "is a FIFO, not a regular file" in result.stderr
    assert not (tmp_path / "called").exists()


def test_a_broken_card_document_stops_the_run_before_any_call(tmp_path: Path) -> None:
    card = tmp_path / "TOOLS.md"
    card.write_text("<!-- fidelity:begin echo.text -->\nno end marker\n")
    result = _probe(tmp_path, "--card", str(card))
    assert result.returncode == 2
    assert "no <!-- fidelity:end echo.text --> marker" in result.stderr
    assert not (tmp_path / "called").exists()


def _complete_block(tmp_path: Path) -> tuple[Path, bytes]:
    card = tmp_path / "TOOLS.md"
    written = _probe(tmp_path, "--card", str(card))
    assert written.returncode == 0, written.stderr
    (tmp_path / "called").unlink()
    before = card.read_bytes()
    assert b"complete run" in before
    return card, before


def test_an_interrupted_run_keeps_the_complete_block_and_says_where_the_result_is(
    tmp_path: Path,
) -> None:
    card, before = _complete_block(tmp_path)
    result_file = tmp_path / "result.json"
    command = start(
        "probe", "--families", "quotes", "--read", "text", "--timeout", "60",
        "--card", str(card), "--json", str(result_file), "--mcp", "--", *HOSTILE_MCP,
        "--hang", "--calls", str(tmp_path / "called"),
    )  # fmt: skip
    assert wait_for((tmp_path / "called").exists), "the server got no call"
    returncode, stderr = stop(command)
    assert returncode == 130, stderr
    assert card.read_bytes() == before
    assert (
        f"the complete block echo.text in {card} was kept as it was; "
        f"the partial result is in {result_file}."
    ) in stderr
    assert json.loads(result_file.read_text())["facts"]["complete"] is False


def test_a_stopped_run_keeps_the_complete_block(tmp_path: Path) -> None:
    card, before = _complete_block(tmp_path)
    result = _probe(tmp_path, "--timeout", "0.5", "--card", str(card), server=("--hang",))
    assert result.returncode == 3  # the target never answered: the breaker stopped the run
    assert card.read_bytes() == before
    assert "the partial result was not kept (pass --json FILE to keep one)" in result.stderr


def test_a_stopped_run_writes_its_block_where_there_was_none(tmp_path: Path) -> None:
    card = tmp_path / "TOOLS.md"
    result = _probe(tmp_path, "--timeout", "0.5", "--card", str(card), server=("--hang",))
    assert result.returncode == 3
    assert "**incomplete run**" in card.read_text()


def test_an_output_that_fails_at_the_end_does_not_keep_the_others_from_being_written(
    tmp_path: Path,
) -> None:
    import fidelity

    card = fidelity.survey(lambda t: t, families=["quotes"]).card(name="echo.text")
    document, html, result_file = tmp_path / "TOOLS.md", tmp_path / "r.html", tmp_path / "r.json"
    document.write_bytes(b"<!-- fidelity:begin echo.text -->\n")  # broken since the check
    plan = ProbePlan(
        kind=TargetKind.MCP_STDIO, target=("server",), tool="echo", param="text", args=None,
        send=None, read=None, read_tool=None, read_args=None, families=None, examples=0,
        max_requests=None, rate=None, concurrency=1, timeout=1.0, seed=None, allow=(),
        card=str(document), json=str(result_file), html=str(html), yes=False,
        list_tools=False, dry_run=False, quiet=True,
    )  # fmt: skip
    writer = ResultWriter(result_file, lambda seen: "")
    with pytest.raises(UsageError, match=r"no <!-- fidelity:end echo\.text --> marker"):
        write_reports(plan, card, writer)
    assert json.loads(result_file.read_text())["name"] == "echo.text"
    assert "Parameter transformations: echo.text" in html.read_text()
    assert document.read_bytes() == b"<!-- fidelity:begin echo.text -->\n"
