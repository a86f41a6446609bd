"""The console transcripts of the docs, run as written and compared with what they show.

A ``console`` block marked ``<!-- console -->`` (or ``<!-- console: OPTIONS -->``) holds
commands (``$ COMMAND``) each followed by what it prints: its stdout, then its stderr,
then ``exit N``. :func:`run_transcript` runs each command in the block's directory,
where ``tests`` is the repository's test folder (so ``python tests/servers/...`` works as
it does in a clone) and the interpreter's scripts come first on ``PATH``:

- ``fidelity ...`` runs in this process (:func:`fidelity_inprocess`), with its words
  as bash makes them (quotes, ``${VAR}``, comments);
- ``pytest ...`` runs in this process too when the caller passes a runner (``pytest=``:
  the test's ``pytester`` runs it, as the plugin's own tests do), else as below;
- ``export NAME=VALUE`` sets a variable for the commands after it;
- any other line runs under ``bash -eo pipefail`` (``mkdir``, ``git``, ``od``...).

Before a command runs, :data:`COMMANDS` rewrites what a reader's machine has and CI does
not need (``npx -y`` of a package that ``tests/servers/package.json`` pins), and
``/tmp/walk`` becomes the block's directory. What it printed is compared line by line
with what the block shows, both normalised by :data:`VARYING` (ports, temporary
directories, the calibration marker, times, dates, versions of node). A shown line
``...`` stands for any number of lines.

Options: ``session=NAME`` (the blocks of a page with the same session run in order in
one directory, as one test), ``URL="ARGS"`` (``python ARGS`` is started in the block's
directory first, e.g. ``tests/servers/http_api.py USER:PASS TOKEN`` or ``-m fidelity
reflect mcp --transport http``; ``$URL`` is the URL it prints, stopped at the end),
``files=PAGE`` (the files PAGE's examples write, ``<!-- file -->`` and ``<!-- pytest-file
-->``, are written there first).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from _support.cli import fidelity_inprocess

__all__ = [
    "COMMANDS",
    "VARYING",
    "Transcript",
    "excerpts",
    "expected",
    "in_order",
    "matches",
    "run_transcript",
    "transcripts",
]

ROOT = Path(__file__).resolve().parent.parent.parent
#: Runs ``pytest ARGS`` in a directory with variables added to the environment.
PytestRunner = Callable[[list[str], Path, dict[str, str]], "subprocess.CompletedProcess[str]"]
_NPM_BIN = "tests/servers/node_modules/.bin"
#: What a reader runs -> what the test runs instead (the same package, pinned and
#: installed by ``npm ci --prefix tests/servers``: no download during the tests).
COMMANDS = {
    "npx -y @modelcontextprotocol/server-everything": f"{_NPM_BIN}/mcp-server-everything",
}
#: The parts of an output that vary from run to run, and what they are shown as.
VARYING = [
    (re.compile(r"127\.0\.0\.1:\d+"), "127.0.0.1:PORT"),
    (re.compile(r"fidelity-marker-[0-9a-f]{8}"), "fidelity-marker-XXXXXXXX"),
    (re.compile(r"\bfidelity-[0-9a-f]{8}-(\d+)"), r"fidelity-RUN-\1"),  # {run}-{n} names
    (re.compile(r"mk[0-9a-f]{8}x(\d+)k"), r"mkMARKx\1k"),  # {mark}
    (re.compile(r"\(found in [\d.]+ms\)"), "(found in Nms)"),
    (re.compile(r"\(node \d+\.\d+\.\d+\)"), "(node N)"),
    (re.compile(r"(?<=on )\d{4}-\d{2}-\d{2}"), "YYYY-MM-DD"),
    (re.compile(r" in \d+\.\d+s\b"), " in Ns"),
    (re.compile(r"measured on Python [^;]*;"), "measured on PYTHON;"),
    (re.compile(r"Python [\d.]+; implementation [^;]*; platform [^;]*;"), "PYTHON;"),
]
_MARK = re.compile(r"^<!-- console(?:: (.*?))? -->\n```console\n(.*?)^```$", re.S | re.M)
_EXIT = re.compile(r"^exit (\d+)$")
_EXCERPT = re.compile(
    r"^<!-- file-excerpt: session=(\S+) (\S+) -->\n(`{3,})[a-z]*\n(.*?)^\3$", re.S | re.M
)


@dataclass
class Command:
    """One ``$ COMMAND`` of a transcript: the line, what it shows, its exit code."""

    line: str
    shown: list[str] = field(default_factory=list)
    exit: int | None = None


@dataclass
class Transcript:
    """One marked console block of a page."""

    document: Path
    line: int
    options: dict[str, str]
    commands: list[Command]

    @property
    def session(self) -> str:
        """The session the block belongs to (its own, unless it names one)."""
        return self.options.get("session", f"line {self.line}")


def transcripts(document: Path) -> list[Transcript]:
    """The marked console blocks of ``document``, in order."""
    text = document.read_text("utf-8")
    found = []
    for match in _MARK.finditer(text):
        options = dict(
            word.split("=", 1) for word in shlex.split(match.group(1) or "") if "=" in word
        )
        commands: list[Command] = []
        for line in match.group(2).splitlines():
            if line.startswith("$ "):
                commands.append(Command(line[2:]))
            elif (code := _EXIT.match(line)) and commands:
                commands[-1].exit = int(code.group(1))
            elif commands and not (line == "" and commands[-1].exit is not None):
                commands[-1].shown.append(line)
        assert commands, f"{document.name}: a console block without a command"
        found.append(Transcript(document, text[: match.start()].count("\n") + 1, options, commands))
    return found


def excerpts(document: Path) -> list[tuple[str, str, list[str]]]:
    """The blocks marked ``<!-- file-excerpt: session=NAME FILE -->``: a part of a file
    that session's commands write, as (session, file, its lines)."""
    text = document.read_text("utf-8")
    return [(m[0], m[1], m[3].splitlines()) for m in _EXCERPT.findall(text)]


def in_order(shown: list[str], lines: list[str]) -> bool:
    """Whether every shown line is a line of ``lines``, in the same order."""
    rest = iter(lines)
    return all(any(line == other for other in rest) for line in shown if line)


def normalised(text: str) -> str:
    """``text`` with its varying parts replaced by what the docs show for them."""
    for pattern, shown in VARYING:
        text = pattern.sub(shown, text)
    return text


def matches(shown: list[str], printed: list[str]) -> bool:
    """Whether ``printed`` is ``shown`` line for line, a ``...`` standing for any lines."""
    if not shown:
        return not printed
    if shown[0] == "...":
        return any(matches(shown[1:], printed[i:]) for i in range(len(printed) + 1))
    return bool(printed) and shown[0] == printed[0] and matches(shown[1:], printed[1:])


def run_transcript(
    blocks: list[Transcript],
    directory: Path,
    files: dict[str, str] | None = None,
    pytest: PytestRunner | None = None,
) -> Iterator[tuple[Command, str]]:
    """Run the blocks of one session in ``directory``, where ``files`` (name: text) are
    written first (``pytest ...`` by ``pytest`` when given); yield each command with
    what it printed (normalised: stdout, stderr, ``exit N``), for the caller to
    compare."""
    (directory / "tests").symlink_to(ROOT / "tests", target_is_directory=True)
    for name, text in (files or {}).items():
        (directory / name).write_text(text, encoding="utf-8")
    env = {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        # The TypeScript client's SDK as npm ci --prefix tests/servers installed it.
        "FIDELITY_NODE_MODULES": str(ROOT / "tests" / "servers" / "node_modules"),
    }
    with ExitStack() as stack:
        for block in blocks:
            if "URL" in block.options:
                env["URL"] = stack.enter_context(_serving(block.options["URL"], directory))
            for command in block.commands:
                yield command, _run(command.line, directory, env, pytest)


@contextmanager
def _serving(command: str, directory: Path) -> Iterator[str]:
    """Run ``python COMMAND`` in ``directory``; yield the URL it prints first, and stop
    it (its whole process) on exit. Its output goes to a file, so it never blocks on a
    full pipe."""
    from probes._process import stop_process

    log = directory / f"server-{len(list(directory.glob('server-*.log')))}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, *shlex.split(command)],
            cwd=directory, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 20
        while not (url := re.search(r"https?://\S+", log.read_text("utf-8", "replace"))):
            assert time.monotonic() < deadline, f"{command} did not print its URL in time"
            assert proc.poll() is None, f"{command} ended without printing its URL"
            time.sleep(0.05)
        yield url.group(0)
    finally:
        stop_process(proc)


def _run(
    line: str, directory: Path, env: dict[str, str], pytest: PytestRunner | None = None
) -> str:
    for written, run in COMMANDS.items():
        line = line.replace(written, run)
    line = line.replace("/tmp/walk", str(directory))
    if line.startswith("export "):
        name, _, value = line.removeprefix("export ").partition("=")
        env[name] = shlex.split(value)[0]
        return "exit 0\n"
    full_env = {**os.environ, **env}
    if line.startswith("fidelity "):
        words = _words(line, directory, full_env)
        result = fidelity_inprocess(*words[1:], cwd=directory, env=env)
    elif line.startswith("pytest ") and pytest is not None:
        result = pytest(_words(line, directory, full_env)[1:], directory, env)
    else:
        result = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", line],
            cwd=directory, env=full_env, capture_output=True, text=True, timeout=120,
            check=False,
        )  # fmt: skip
    printed = result.stdout + result.stderr + f"exit {result.returncode}\n"
    return normalised(printed.replace(str(directory), "/tmp/walk"))


def expected(command: Command) -> list[str]:
    """What ``command`` must print, as its block shows it: its lines, then ``exit N``
    (a command shown without ``exit`` must exit 0)."""
    return [*command.shown, f"exit {command.exit or 0}"]


def _words(line: str, directory: Path, env: dict[str, str]) -> list[str]:
    """The words bash makes of ``line`` (quotes removed, variables expanded)."""
    made = subprocess.run(
        ["bash", "--noprofile", "--norc", "-c", f"printf '%s\\0' {line}"],
        cwd=directory, env=env, capture_output=True, text=True, timeout=10, check=True,
    )  # fmt: skip
    return made.stdout.split("\0")[:-1]
