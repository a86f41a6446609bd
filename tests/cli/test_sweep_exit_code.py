"""The exit of a run over many rows (``--all-tools``, ``--openapi``, a ``--config``
part), rule by rule, on hand-made rows: 0, 1 (a rewrite beyond --allow, or an edit
silently not applied in any row), or exit 3 with its one sentence. The runs against
real servers are tests/cli/test_cli_probe_verdicts.py and test_cli_probe_all_tools*.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from fidelity import survey
from fidelity._core.errors import TargetError
from fidelity._core.kinds import Status
from fidelity._probe.contract import FunctionProbe
from fidelity._probe.observation import Observation
from fidelity._sweep.rows_model import ParamRun
from fidelity._sweep.rows_verdict import exit_code


@dataclass(frozen=True)
class _Tool:
    name: str


@dataclass(frozen=True)
class _Row:
    name: str
    tool: _Tool
    path: object = "text"
    skipped: str = ""


@dataclass(frozen=True)
class _Rows:
    params: tuple[_Row, ...]
    skipped: tuple[_Row, ...] = ()
    without_strings: tuple[_Tool, ...] = ()
    surveyed: tuple[_Row, ...] = field(default=())


A = _Row("t.a", _Tool("t"))
B = _Row("t.b", _Tool("t"))
C = _Row("u.c", _Tool("u"))
CARD = survey(FunctionProbe(lambda text: text), families=["bom"]).card(name="t.a")
CLEAN = Observation(sent="x", status=Status.PRESERVED, received="x")
SILENT = Observation(sent="x", status=Status.REJECTED, silent=True)
REJECTED = Observation(sent="x", status=Status.REJECTED)


def _rows(*rows: _Row) -> _Rows:
    return _Rows(params=rows, surveyed=rows)


def _ran(row: _Row, *observations: Observation, **more: object) -> ParamRun:
    return ParamRun(param=row, card=CARD, observations=observations, **more)  # type: ignore[arg-type]


def test_clean_rows_exit_0() -> None:
    assert exit_code(_rows(A, B), [_ran(A, CLEAN), _ran(B, CLEAN)]) == 0


def test_an_edit_silently_not_applied_in_one_row_exits_1_beside_a_clean_row() -> None:
    assert exit_code(_rows(A, B), [_ran(A, CLEAN), _ran(B, SILENT)]) == 1
    assert exit_code(_rows(A, B), [_ran(A, SILENT), _ran(B, CLEAN)]) == 1
    # Rejected with an error flag is the server's answer, not a silent failure.
    assert exit_code(_rows(A, B), [_ran(A, CLEAN), _ran(B, REJECTED)]) == 0


def test_a_rewrite_beyond_allow_in_one_row_exits_1() -> None:
    runs = [_ran(A, CLEAN), _ran(B, CLEAN, unexpected=frozenset({"quote.straighten"}))]
    assert exit_code(_rows(A, B), runs) == 1


def test_a_row_that_broke_exits_3_naming_it() -> None:
    runs = [_ran(A, CLEAN), _ran(B, CLEAN, failure="the server closed the stream")]
    with pytest.raises(TargetError) as caught:
        exit_code(_rows(A, B), runs)
    assert str(caught.value) == (
        "1 of the 2 tool parameters run broke (t.b); the lines starting 'failed:' say "
        "why, and the results are kept."
    )


def test_an_unreachable_server_is_its_own_sentence() -> None:
    runs = [_ran(A, CLEAN), ParamRun(param=B, failure="cannot connect to x", fatal=True)]
    with pytest.raises(TargetError, match=r"^cannot connect to x$"):
        exit_code(_rows(A, B), runs)


def test_every_row_measuring_nothing_exits_3() -> None:
    runs = [_ran(A, nothing="all lost"), _ran(B, nothing="all lost")]
    with pytest.raises(TargetError) as caught:
        exit_code(_rows(A, B), runs)
    assert str(caught.value) == (
        "nothing was measured: no payload sent to any of the 2 tool parameters surveyed "
        "came back (the lines starting 'warning:' say why)."
    )


def test_one_row_measuring_nothing_beside_a_clean_one_exits_3_naming_it() -> None:
    runs = [_ran(A, CLEAN), _ran(B, nothing="all lost"), _ran(C, CLEAN)]
    with pytest.raises(TargetError) as caught:
        exit_code(_rows(A, B, C), runs, noun="operation field")
    assert str(caught.value) == (
        "1 of the 3 operation fields surveyed measured nothing (t.b); the lines above "
        "say why, and the results of the others are kept."
    )


def test_nothing_surveyed_says_how_many_rows_and_tools() -> None:
    one = _Rows(params=(A,), skipped=(A,))
    with pytest.raises(TargetError) as caught:
        exit_code(one, [])
    assert str(caught.value) == (
        "nothing was measured: the one string parameter (t.a) could not be surveyed "
        "(see 'not surveyed' above for why)."
    )
    three = _Rows(params=(A, B, C), skipped=(A, B, C))
    with pytest.raises(TargetError) as caught:
        exit_code(three, [])
    assert str(caught.value) == (
        "nothing was measured: none of the 3 string parameters (of 2 tools) could be "
        "surveyed (see 'not surveyed' above for why)."
    )
    one_tool = _Rows(params=(A, B), skipped=(A, B))
    with pytest.raises(TargetError, match=r"none of the 2 string parameters \(of 1 tool\) "):
        exit_code(one_tool, [])
