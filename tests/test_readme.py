"""The README's and the docs' promises hold: their examples run, their commands are real."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = sorted((ROOT / "docs").glob("*.md"))
DOCUMENTS = [README, *PAGES]


def _runnable_blocks(document: Path) -> list[str]:
    """The Python blocks marked ``<!-- runs -->`` (the others need the reader's code)."""
    text = document.read_text("utf-8")
    return re.findall(r"^<!-- runs -->\n```python\n(.*?)^```$", text, re.S | re.M)


def _test_files(document: Path) -> list[tuple[str, str, str]]:
    """The test files marked ``<!-- pytest-file: NAME -->``, each with the output shown after it.

    The output block, marked ``<!-- pytest-output -->``, is optional; when present, each of
    its lines is a line of what ``pytest NAME`` prints (so the page shows a real run),
    except ``...`` where the page leaves lines out.
    """
    text = document.read_text("utf-8")
    pattern = (
        r"^<!-- pytest-file: (\S+) -->\n```python\n(.*?)^```$"
        r"(?:(?:(?!<!-- pytest-file).)*?^<!-- pytest-output -->\n```\n(.*?)^```$)?"
    )
    return re.findall(pattern, text, re.S | re.M)


def _support_files(document: Path) -> dict[str, str]:
    """The files marked ``<!-- file: NAME -->`` that a document's test files import."""
    text = document.read_text("utf-8")
    pattern = r"^<!-- file: (\S+) -->\n```python\n(.*?)^```$"
    return dict(re.findall(pattern, text, re.S | re.M))


def test_the_docs_have_runnable_examples() -> None:
    assert sum(len(_runnable_blocks(document)) for document in DOCUMENTS) >= 1
    assert _test_files(README), "the README's quickstart test is not marked"
    assert (ROOT / "mkdocs.yml").is_file()


@pytest.mark.parametrize(
    ("document", "name", "source", "shown"),
    [(d, *f) for d in DOCUMENTS for f in _test_files(d)],
    ids=lambda value: value.name if isinstance(value, Path) else None,
)
def test_test_files_print_what_the_docs_show(
    pytester: pytest.Pytester, document: Path, name: str, source: str, shown: str
) -> None:
    for support, text in _support_files(document).items():
        pytester.makepyfile(**{support.removesuffix(".py"): text})
    pytester.makepyfile(**{name.removesuffix(".py"): source})
    result = pytester.runpytest_subprocess(name, "-p", "no:cacheprovider")
    printed = result.stdout.lines
    for line in shown.splitlines():
        if line.removeprefix("E").strip() == "...":
            continue  # the page leaves lines out here
        assert line in printed, f"{document.name} shows a line {name} does not print: {line}"


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.name)
def test_python_examples_run(
    document: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One namespace per document: a page's examples build on each other, in order.
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "readme"}
    for block in _runnable_blocks(document):
        exec(compile(block, str(document), "exec"), namespace)


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
    text = "\n".join(document.read_text("utf-8") for document in DOCUMENTS)
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
    from probes._mcp.node import session as node_session
    from probes._mcp.reply_limit import DEFAULT_MAX_REPLY, size_text

    section = (ROOT / "docs" / "safety.md").read_text("utf-8").split("# Safety", 1)[1]
    text = " ".join(section.split())
    assert DEFAULT_MAX_REPLY == CLI_DEFAULT
    assert f"default {size_text(DEFAULT_MAX_REPLY)}" in text
    assert f"at most {session._MAX_TOOLS} tools" in text
    assert f"prints at most {listing._MAX_TOOLS}" in text
    assert f"{html_text.MAX_UNITS} code points of a value" in text
    assert f"nested more than about {node_session._MAX_DEPTH} levels" in text
    assert "only tools annotated `readOnlyHint: true`" in text


def test_install_hints_name_what_pyproject_installs() -> None:
    """Messages about a missing extra name its packages as pyproject.toml lists them."""
    import tomllib

    from fidelity._core.extras import EXTRAS, install_hint

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    for extra, packages in EXTRAS.items():
        assert tuple(extras[extra]) == packages
        assert install_hint(extra).startswith(f"pip install '{packages[0]}'")
    assert "param-fidelity[" not in install_hint("mcp")  # no package index has it
