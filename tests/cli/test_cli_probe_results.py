"""Result files: atomic replacement and incremental checkpoints."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Sequence
from pathlib import Path

import pytest

from fidelity import Observation, Status
from fidelity._core.errors import UsageError
from fidelity._report.results import ResultWriter, write_atomic


def _snapshot(observations: Sequence[Observation]) -> str:
    return json.dumps({"complete": False, "sent": [o.sent for o in observations]})


def test_write_atomic_replaces_and_keeps_mode(tmp_path: Path) -> None:
    target = tmp_path / "r.json"
    target.write_text("old")
    os.chmod(target, 0o640)
    write_atomic(target, "new \u201cq\u201d \ud800")
    assert target.read_bytes() == "new \u201cq\u201d ".encode() + b"\xed\xa0\x80"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


def test_write_atomic_new_file_and_bytes(tmp_path: Path) -> None:
    target = tmp_path / "r.bin"
    write_atomic(target, b"\x00\xff")
    assert target.read_bytes() == b"\x00\xff"


def test_write_atomic_unwritable_is_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot write"):
        write_atomic(tmp_path / "missing" / "r.json", "x")


def test_writer_keeps_every_observation_at_each_checkpoint(tmp_path: Path) -> None:
    target = tmp_path / "r.json"
    writer = ResultWriter(target, _snapshot, interval=0.0)
    writer.start()
    assert json.loads(target.read_text()) == {"complete": False, "sent": []}
    for text in ("a", "b\u202e", "c"):
        writer.add(Observation(sent=text, status=Status.PRESERVED, received=text))
        assert json.loads(target.read_text())["sent"][-1] == text
    writer.finish(json.dumps({"complete": True}))
    assert json.loads(target.read_text()) == {"complete": True}
    writer.checkpoint()  # ignored once finished
    assert json.loads(target.read_text()) == {"complete": True}


def test_writer_throttles_between_checkpoints(tmp_path: Path) -> None:
    target = tmp_path / "r.json"
    writer = ResultWriter(target, _snapshot, interval=3600.0)
    writer.start()
    writer.add(Observation(sent="a", status=Status.PRESERVED, received="a"))
    assert json.loads(target.read_text())["sent"] == []
    writer.checkpoint()
    assert json.loads(target.read_text())["sent"] == ["a"]


def test_writer_to_stdout_prints_only_at_finish(capsys: pytest.CaptureFixture[str]) -> None:
    writer = ResultWriter("-", _snapshot, interval=0.0)
    writer.start()
    writer.add(Observation(sent="a", status=Status.PRESERVED, received="a"))
    assert capsys.readouterr().out == ""
    writer.finish('{"complete": true}')
    assert capsys.readouterr().out == '{"complete": true}\n'
