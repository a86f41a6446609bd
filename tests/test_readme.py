"""The README's and the docs' promises hold: their examples run, their commands are real."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from _support import transcripts
from _support.mcp import typescript_client

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = sorted((ROOT / "docs").glob("*.md"))
DOCUMENTS = [README, *PAGES]


def _runnable_blocks(document: Path) -> list[str]:
    """The Python blocks marked ``<!-- runs -->`` (the others need the reader's code)."""
    text = document.read_text("utf-8")
    return re.findall(r"^<!-- runs -->\n```python\n(.*?)^```$", text, re.S | re.M)


def _test_files(document: Path) -> list[tuple[str, str, str, str]]:
    """The test files marked ``<!-- pytest-file: NAME -->``, each with the output shown
    after it and the arguments it is run with.

    The blocks of one NAME make one file, in order (a page's examples go on in the same
    file). An output block, marked ``<!-- pytest-output -->`` (or ``<!-- pytest-output:
    ARGS -->``: run as ``pytest NAME ARGS``), is optional; each of its lines is a line of
    what the run prints (so the page shows a real run), except ``...`` where the page
    leaves lines out.
    """
    text = document.read_text("utf-8")
    pattern = (
        r"^<!-- pytest-file: (\S+) -->\n```python\n(.*?)^```$"
        r"(?:(?:(?!<!-- pytest-file).)*?^<!-- pytest-output(?:: (.*?))? -->\n```\n(.*?)^```$)?"
    )
    files: dict[str, tuple[str, str, str]] = {}
    for name, source, args, shown in re.findall(pattern, text, re.S | re.M):
        before = files.get(name, ("", "", ""))
        files[name] = (
            f"{before[0]}\n\n{source}" if before[0] else source,
            f"{before[1]} {args}".strip(),
            before[2] + shown,
        )
    return [(name, source, shown, args) for name, (source, args, shown) in files.items()]


def _support_files(document: Path) -> dict[str, str]:
    """The files marked ``<!-- file: NAME -->`` that a document's test files import."""
    text = document.read_text("utf-8")
    pattern = r"^<!-- file: (\S+) -->\n```python\n(.*?)^```$"
    return dict(re.findall(pattern, text, re.S | re.M))


@pytest.fixture(autouse=True)
def _imports_outlive_pytester(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A module a docs' pytest run imports in this process stays imported afterwards,
    unless it is one of the run's own files (``tool.py``, ``conftest.py``, the test
    file). pytester forgets every module imported during its run and its fixture, so the
    next ``import probes._mcp...`` would make a second copy of classes the first copy's
    objects are checked against (``isinstance`` then fails in later tests). Set up
    before ``pytester``, so its own snapshot keeps them too."""
    from _pytest import pytester

    base = tmp_path_factory.getbasetemp().resolve()

    def outside(name: str) -> bool:
        file = getattr(sys.modules.get(name), "__file__", None)
        return file is None or not Path(file).resolve().is_relative_to(base)

    class Snapshot(pytester.SysModulesSnapshot):
        def __init__(self, preserve: Callable[[str], bool] | None = None) -> None:
            super().__init__(lambda name: outside(name) or bool(preserve and preserve(name)))

    monkeypatch.setattr(pytester, "SysModulesSnapshot", Snapshot)


def _runpytest_here(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """``pytest ARGS`` in this process (no interpreter start, no imports again), as the
    plugin's own tests run it; the Hypothesis profile a page's ``conftest.py`` loads is
    this process's too, so the one in force before is loaded again afterwards."""
    from hypothesis import settings

    before = settings.get_current_profile_name()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("COLUMNS", "80")  # the width of a subprocess's pipe, not a terminal's
        try:
            return pytester.runpytest_inprocess(*args)
        finally:
            settings.load_profile(before)


def _pytest_runner(pytester: pytest.Pytester) -> transcripts.PytestRunner:
    """Run a transcript's ``pytest ARGS`` in this process (:func:`_runpytest_here`)."""

    def run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        with pytest.MonkeyPatch.context() as patch:
            patch.chdir(cwd)
            for name, value in env.items():
                patch.setenv(name, value)
            result = _runpytest_here(pytester, *args)
        out, err = (
            "".join(f"{line}\n" for line in lines.lines) for lines in (result.stdout, result.stderr)
        )
        return subprocess.CompletedProcess(["pytest", *args], int(result.ret), out, err)

    return run


def test_the_docs_have_runnable_examples() -> None:
    assert sum(len(_runnable_blocks(document)) for document in DOCUMENTS) >= 1
    assert _test_files(README), "the README's quickstart test is not marked"
    assert (ROOT / "mkdocs.yml").is_file()


def test_the_built_site_is_navigable_from_files() -> None:
    # Pages built as NAME.html (not NAME/index.html), no web fonts: site/index.html
    # opened from the disk links to the other pages. CI builds the site (.ci/run).
    import yaml

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text("utf-8"))
    assert config["use_directory_urls"] is False
    assert config["theme"]["font"] is False


@pytest.mark.parametrize(
    ("document", "name", "source", "shown", "args"),
    [(d, *f) for d in DOCUMENTS for f in _test_files(d)],
    ids=lambda value: value.name if isinstance(value, Path) else None,
)
def test_test_files_print_what_the_docs_show(
    *,
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    document: Path,
    name: str,
    source: str,
    shown: str,
    args: str,
) -> None:
    if '"typescript"' in source:
        typescript_client(monkeypatch)  # the SDK npm ci --prefix tests/servers installed
    for support, text in _support_files(document).items():
        pytester.makepyfile(**{support.removesuffix(".py"): text})
    pytester.makepyfile(**{name.removesuffix(".py"): source})
    result = _runpytest_here(pytester, name, "-p", "no:cacheprovider", *args.split())
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
    for kind in ("main-command", "test-command"):  # the pages' copies are README's
        assert len(set(_marked(kind))) == 1, kind


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
    from fidelity._cli.probe import preview
    from fidelity._report.html import text as html_text
    from fidelity._sweep.plan import DEFAULT_MAX_REPLY as CLI_DEFAULT
    from probes._mcp import session
    from probes._mcp.node import session as node_session
    from probes._mcp.reply_limit import DEFAULT_MAX_REPLY, size_text

    section = (ROOT / "docs" / "safety.md").read_text("utf-8").split("# Safety", 1)[1]
    text = " ".join(section.split())
    assert DEFAULT_MAX_REPLY == CLI_DEFAULT
    assert f"default {size_text(DEFAULT_MAX_REPLY)}" in text
    assert f"at most {session._MAX_TOOLS} tools" in text
    assert f"prints at most {preview._MAX_TOOLS}" in text
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


def _sessions() -> list[tuple[Path, str, list[transcripts.Transcript]]]:
    found: dict[tuple[Path, str], list[transcripts.Transcript]] = {}
    for document in DOCUMENTS:
        for block in transcripts.transcripts(document):
            if "see" in block.options:
                continue  # the same run as a block of another page: checked against it
            found.setdefault((document, block.session), []).append(block)
    return [(document, session, blocks) for (document, session), blocks in found.items()]


@pytest.mark.parametrize(
    ("document", "session", "blocks"),
    _sessions(),
    ids=lambda value: (
        value.name if isinstance(value, Path) else value if isinstance(value, str) else ""
    ),
)
def test_console_transcripts_print_what_the_docs_show(
    document: Path,
    session: str,
    blocks: list[transcripts.Transcript],
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    runner = None
    if any(c.line.startswith("pytest ") for block in blocks for c in block.commands):
        runner = _pytest_runner(request.getfixturevalue("pytester"))
    page = blocks[0].options.get("files")
    files = {}
    if page is not None:  # the files another page's examples write
        files = _support_files(ROOT / page)
        files.update({name: source for name, source, _, _ in _test_files(ROOT / page)})
    for command, printed in transcripts.run_transcript(blocks, tmp_path, files, runner):
        shown = [transcripts.normalised(line) for line in transcripts.expected(command)]
        assert transcripts.matches(shown, printed.splitlines()), (
            f"{document.name}: $ {command.line}\nshows:\n"
            + "\n".join(shown)
            + f"\nprinted:\n{printed}"
        )
    for name, written, lines in transcripts.excerpts(document):
        if name == session:  # a file the session wrote, shown in part
            text = transcripts.normalised((tmp_path / written).read_text("utf-8"))
            shown = [transcripts.normalised(line) for line in lines]
            assert transcripts.in_order(shown, text.splitlines()), f"{written}:\n{text}"


#: How each kind of marked block is run or checked (the test that does it).
CHECKED = {
    "runs": "test_python_examples_run",
    "file": "test_test_files_print_what_the_docs_show (written beside the test file)",
    "pytest-file": "test_test_files_print_what_the_docs_show",
    "pytest-output": "test_test_files_print_what_the_docs_show",
    "console": "test_console_transcripts_print_what_the_docs_show",
    "file-excerpt": "test_console_transcripts_print_what_the_docs_show",
    "install": "test_install_commands_install",
    "main-command": "test_the_two_commands_are_marked",
    "test-command": "test_the_two_commands_are_marked (and .ci/run runs it)",
    "pytest-options": "test_the_plugin_options_are_the_plugins",
    "github-workflow": "tests/test_action.py",
    "gitlab-job": "tests/test_action.py",
    "github-matrix": "test_the_matrix_workflow_runs_real_commands",
    "shown": "not run: the marker says why",
}
_FENCE = re.compile(r"^( *)(`{3,})[a-z]*\n(.*?)^\1\2$", re.S | re.M)
_MARKER = re.compile(r"<!-- ([a-z-]+)(?::? ?(.*?))? -->$")


def blocks_by_kind(document: Path) -> list[tuple[str, str, str]]:
    """Every fenced block of ``document`` (not those inside another) as (kind, the
    marker's words, the block's text); kind "unmarked" when no marker precedes it."""
    text = document.read_text("utf-8")
    found = []
    for match in _FENCE.finditer(text):
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1].strip()
        marker = _MARKER.match(before)
        kind, words = (marker.group(1), marker.group(2) or "") if marker else ("unmarked", "")
        found.append((kind, words, match.group(3)))
    return found


def test_every_code_block_is_run_or_checked() -> None:
    for document in DOCUMENTS:
        for kind, words, block in blocks_by_kind(document):
            assert kind in CHECKED, f"{document.name}: a block neither run nor checked:\n{block}"
            if kind == "shown":
                assert words.strip(), f"{document.name}: say why this block is not run:\n{block}"


def _marked(kind: str) -> list[str]:
    return [b for d in DOCUMENTS for k, _, b in blocks_by_kind(d) if k == kind]


def test_install_commands_install(tmp_path: Path) -> None:
    # Each install command as shown, from a checkout beside the project (../param-fidelity,
    # /path/to/param-fidelity), nothing downloaded: --dry-run and the build backend of
    # the test environment.
    (tmp_path / "project").mkdir()
    (tmp_path / "param-fidelity").symlink_to(ROOT, target_is_directory=True)
    lines = [line.split("#", 1)[0] for block in _marked("install") for line in block.splitlines()]
    assert len(lines) >= 4
    for line in lines:
        beside = str(tmp_path / "param-fidelity")
        words = shlex.split(line.replace("/path/to/param-fidelity", beside))
        assert words[0] == "pip", line
        extra = ["--no-build-isolation", "--no-deps"]
        if words[1] == "install":
            extra.append("--dry-run")
        made = subprocess.run(
            [sys.executable, "-m", "pip", *words[1:], *extra, "-q"],
            cwd=tmp_path / "project", capture_output=True, text=True, timeout=120, check=False,
            env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},  # no index asked
        )  # fmt: skip
        assert made.returncode == 0, f"{line}\n{made.stdout}{made.stderr}"


def test_the_plugin_options_are_the_plugins(pytester: pytest.Pytester) -> None:
    (block,) = _marked("pytest-options")
    shown = [line.split()[0].split("=")[0] for line in block.splitlines()]
    helped = pytester.runpytest_inprocess("--help").stdout.str()
    assert len(shown) >= 6
    for option in shown:
        assert f"{option}=" in helped, option


def test_the_matrix_workflow_runs_real_commands() -> None:
    import yaml

    from fidelity._cli import _parser

    (block,) = _marked("github-matrix")
    workflow = yaml.safe_load(block)
    runs = [s["run"] for job in workflow["jobs"].values() for s in job["steps"] if "run" in s]
    commands = [run for run in runs if run.startswith("fidelity ")]
    assert len(commands) == 2
    for command in commands:
        words = shlex.split(re.sub(r"\$\{\{ matrix\.server \}\}", "everything", command))
        _parser().parse_args(words[1:])  # a usage error exits 2 naming the option
    assert any(r.startswith("python -m pip install -e './third_party/param-fidelity") for r in runs)


def test_a_transcript_shown_again_is_the_one_run() -> None:
    # A block marked ``<!-- console: see=PAGE -->`` shows (in part) a run that PAGE's
    # executed block shows: same command, its lines among those.
    again = [b for d in DOCUMENTS for b in transcripts.transcripts(d) if "see" in b.options]
    assert again
    for block in again:
        page = ROOT / block.options["see"]
        run = {c.line: c for b in transcripts.transcripts(page) for c in b.commands}
        for command in block.commands:
            assert command.line in run, f"{page.name} runs no {command.line}"
            shown = transcripts.expected(command)
            assert transcripts.matches(shown, transcripts.expected(run[command.line])), shown
