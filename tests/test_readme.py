"""The README's promises hold: its Python examples run, its commands are the real ones."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


def _runnable_blocks() -> list[str]:
    """The Python blocks marked ``<!-- runs -->`` (the others need the reader's code)."""
    text = README.read_text("utf-8")
    return re.findall(r"^<!-- runs -->\n```python\n(.*?)^```$", text, re.S | re.M)


def test_python_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = _runnable_blocks()
    assert blocks, "the README has no Python example"
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "readme"}
    for block in blocks:
        exec(compile(block, str(README), "exec"), namespace)


def test_the_two_commands_are_marked() -> None:
    text = README.read_text("utf-8")
    for marker in ("<!-- main-command -->", "<!-- test-command -->"):
        after = text.split(marker, 1)[1]
        command = after.split("```\n", 2)[1]
        assert command.startswith("python3 -m venv .venv && .venv/bin/pip install")
    assert "fidelity survey" in text.split("<!-- main-command -->", 1)[1].split("```\n", 2)[1]


def test_every_install_command_shown_works_without_a_package_index() -> None:
    # param-fidelity is not on a package index: `pip install param-fidelity` fails. Every
    # install in a code block installs from a checkout or a wheel built from one; the
    # index form appears only in prose that says it does not work yet.
    text = README.read_text("utf-8")
    blocks = re.findall(r"^```[a-z]*\n(.*?)^```$", text, re.S | re.M)
    installs = [
        line.split("pip install", 1)[1]
        for block in blocks
        for line in block.splitlines()
        if "pip install" in line
    ]
    assert len(installs) >= 4
    for words in installs:
        assert " -e " in f" {words} " or ".whl" in words, words
    marked = text.split("`pip install 'param-fidelity[mcp]'`", 1)[1][:80]
    assert "today it" in marked
    assert "fails" in marked


def test_the_safety_section_states_the_limits_the_code_applies() -> None:
    from fidelity._cli.probe import listing
    from fidelity._cli.probe.plan import DEFAULT_MAX_REPLY as CLI_DEFAULT
    from fidelity._report.html import text as html_text
    from probes._mcp import session
    from probes._mcp.reply_limit import DEFAULT_MAX_REPLY, size_text

    section = README.read_text("utf-8").split("## Safety", 1)[1].split("\n## ", 1)[0]
    text = " ".join(section.split())
    assert DEFAULT_MAX_REPLY == CLI_DEFAULT
    assert f"default {size_text(DEFAULT_MAX_REPLY)}" in text
    assert f"at most {session._MAX_TOOLS} tools" in text
    assert f"prints at most {listing._MAX_TOOLS}" in text
    assert f"{html_text.MAX_UNITS} code points of a value" in text
    assert "only tools annotated `readOnlyHint: true`" in text


def test_install_hints_name_what_pyproject_installs() -> None:
    """Messages about a missing extra name its packages as pyproject.toml lists them."""
    import tomllib

    from fidelity._core.extras import EXTRAS, install_hint

    extras = tomllib.loads((README.parent / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    for extra, packages in EXTRAS.items():
        assert tuple(extras[extra]) == packages
        assert install_hint(extra).startswith(f"pip install '{packages[0]}'")
    assert "param-fidelity[" not in install_hint("mcp")  # no package index has it
