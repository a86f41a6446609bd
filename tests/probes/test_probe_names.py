"""Probe names: a name set by the caller sticks; default names differ when plans differ."""

from __future__ import annotations

import pytest
from _support.servers import QUOTE_EDIT_MCP, SERVERS

import fidelity
import probes

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.usefixtures("mcp_sdk"),
]

EDIT = {"tool": "edit", "param": "old_string", "allow_destructive": True}


def test_a_name_set_before_opening_is_kept() -> None:
    p = probes.mcp(QUOTE_EDIT_MCP, args={"path": "a", "new_string": "x"}, **EDIT)
    p.name = "edit.old_string"
    with p:
        p.observe("plain")
        assert p.name == "edit.old_string"
    assert p.name == "edit.old_string"


def test_a_name_set_on_a_calibrating_http_probe_is_kept() -> None:
    with probes.http_reflector() as reflector:
        p = probes.http(reflector.url, read=None)
        p.name = "notes.body"
        with p:
            assert p.observe("caf\u00e9").status is fidelity.Status.PRESERVED
        assert p.name == "notes.body"
        q = probes.http(reflector.url, read=None)
        with q:
            q.observe("x")
        assert q.name.startswith("http POST ")  # the default follows what calibration found


def test_default_names_differ_when_the_plan_differs(tmp_path: object) -> None:
    def name(**options: object) -> str:
        return probes.mcp(QUOTE_EDIT_MCP, **{**EDIT, **options}).name

    base = name(args={"path": "a", "new_string": "x"})
    assert base.startswith("mcp stdio mcp_quote_edit.py edit.old_string (args#")
    names = {
        base,
        name(args={"path": "b", "new_string": "x"}),
        name(args={"path": "a", "new_string": "x"}, read="structured:searched"),
        name(args={"path": "a", "new_string": "x"}, read_tool="edit", read_args={"path": "a"}),
        name(args={"path": "a", "new_string": "x"}, before=[("edit", {"path": "a"})]),
    }
    assert len(names) == 5
    # The same plan has the same name; absolute paths count by their last part only, so
    # a temporary directory does not change the name from run to run.
    assert name(args={"path": "a", "new_string": "x"}) == base
    here = name(args={"path": str(SERVERS / "doc.txt"), "new_string": "x"})
    there = name(args={"path": "/elsewhere/doc.txt", "new_string": "x"})
    assert here == there
    assert str(SERVERS) not in here
