"""Edits that must apply: ``{mark}`` and ``expect`` on a real MCP edit tool that fails
silently (``tests/servers/mcp_silent_edit.py``): a read-back without the mark is
``rejected`` with ``silent`` set and the tool's answer quoted, checked against the
bytes on disk."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from _support.servers import SERVERS

import fidelity
import probes
from fidelity import Status
from fidelity._core.errors import UsageError
from fidelity._core.payload import Payload
from probes._payload.expect import Expectation
from probes._payload.placeholders import Filled, mark_of

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SILENT_EDIT = [sys.executable, str(SERVERS / "mcp_silent_edit.py")]


def _edit_probe(root: Path, **options: object) -> probes.McpProbe:
    path = "f{n}.txt"
    return probes.mcp(
        [*SILENT_EDIT, str(root)],
        tool="edit_block",
        before=[("write_file", {"path": path, "content": "{payload}"})],
        args={"file_path": path, "old_string": "{payload}", "new_string": "{payload}{mark}"},
        read_tool="read_file",
        read_args={"path": path},
        read=None,
        expect="{payload}{mark}",
        allow_destructive=True,
        **options,  # type: ignore[arg-type]
    )


def test_an_edit_that_did_not_apply_is_a_silent_rejection_with_the_answer(
    tmp_path: Path,
) -> None:
    payloads = (
        Payload(id="q/curly", text="say “hi”", families=("quotes",)),
        Payload(id="n/crlf", text="alpha\r\nbeta", families=("newlines",)),
        Payload(id="w/tab", text="a\tb", families=("whitespace",)),
        Payload(id="s/plain", text="plain text", families=("scripts",)),
    )
    with _edit_probe(tmp_path) as probe:
        survey = fidelity.survey(probe, payloads=payloads)
        run = probe.run_id
        setup = probe.setup
    by_id = {o.payload_id: o for o in survey.observations}
    for pid, n in (("q/curly", 1), ("n/crlf", 2)):
        obs = by_id[pid]
        assert obs.status is Status.REJECTED
        assert obs.silent is True
        assert "did not apply" in obs.error
        assert "found a similar text with 100% similarity" in obs.error
        # the truth on disk: the seed is unchanged, the mark never got there
        data = (tmp_path / f"f{n}.txt").read_bytes().decode()
        assert data == obs.sent
        assert mark_of(run, n) not in data
    tab = by_id["w/tab"]
    assert tab.status is Status.TRANSFORMED
    assert not tab.silent
    assert tab.sent == "a\tb"  # the mark is taken out of both sides
    assert tab.received == "a   b"
    assert (tmp_path / "f3.txt").read_text() == "a   b" + mark_of(run, 3)
    plain = by_id["s/plain"]
    assert plain.status is Status.PRESERVED
    assert (tmp_path / "f4.txt").read_text() == "plain text" + mark_of(run, 4)
    assert setup.expect == "{payload}{mark}"
    assert "--expect" in setup.command()
    card = survey.card(name="edit_block.old_string").with_setup(setup)
    (note,) = card.notes()
    assert note.startswith("edit_block did not apply the edit for 1 quotes payload and 1 ")
    assert "without an error flag" in note
    assert "100% similarity" in note
    assert "edit\\_block did not apply the edit for 1 quotes payload" in card.to_markdown()
    assert "without an error flag" in card.to_html()
    assert "may not apply although the tool reports no error" in card.describe()
    again = type(card).from_json(card.to_json())
    assert again.notes() == card.notes()


def test_without_the_mark_an_identity_edit_cannot_tell(tmp_path: Path) -> None:
    # The old recipe (old = new = payload) sees the unchanged seed and calls it preserved.
    path = "g{n}.txt"
    with probes.mcp(
        [*SILENT_EDIT, str(tmp_path)],
        tool="edit_block",
        before=[("write_file", {"path": path, "content": "{payload}"})],
        args={"file_path": path, "old_string": "{payload}", "new_string": "{payload}"},
        read_tool="read_file",
        read_args={"path": path},
        allow_destructive=True,
    ) as probe:
        obs = probe.observe("say “hi”")
    assert obs.status is Status.PRESERVED


def test_expect_and_embedded_payload_are_checked() -> None:
    with pytest.raises(UsageError, match=r"expect='\{payload\}\{mark\}'"):
        probes.mcp(["x"], args={"new_string": "{payload}{mark}"})
    with pytest.raises(UsageError, match="does not hold"):
        probes.mcp(["x"], expect="{mark}")
    with pytest.raises(UsageError, match="unknown placeholder"):
        probes.mcp(["x"], expect="{payload}{nope}")


def test_expectation_judges_a_value() -> None:
    values = Filled(payload="x’y", n=7, run="abcd1234")
    mark = mark_of("abcd1234", 7)
    assert mark.isascii()
    assert mark.isalnum()
    expect = Expectation.parse("{payload}{mark}")
    assert expect.judge("x’y", "x’y" + mark, values).status is Status.PRESERVED
    changed = expect.judge("x’y", "x'y" + mark, values)
    assert changed.status is Status.TRANSFORMED
    assert "quote.straighten" in changed.kinds
    missing = expect.judge("x’y", "x’y", values, answer="no match", tool="edit")
    assert missing.status is Status.REJECTED
    assert missing.silent
    assert "no match" in missing.error
    assert Expectation.parse(None).is_default


def test_http_expect_compares_with_the_expected_value() -> None:
    from _support.servers import http_server

    with http_server("store") as url:
        with probes.http(
            f"{url}items", read_url=f"{url}items/{{id}}", id_from="json:id", expect="{payload}"
        ) as probe:
            assert probe.observe("say “hi”").status is Status.PRESERVED
        with probes.http(
            f"{url}items", read_url=f"{url}items/{{id}}", id_from="json:id", expect="> {payload}"
        ) as probe:
            obs = probe.observe("say hi")
            assert probe.setup.expect == "> {payload}"
    # The store keeps the payload alone, so the read-back lacks the expected prefix.
    assert obs.status is Status.TRANSFORMED
    assert obs.sent == "> say hi"
    assert obs.received == "say hi"
    with pytest.raises(UsageError, match="nothing carries the mark"):
        probes.http("http://127.0.0.1:9/items", expect="{payload}{mark}")
