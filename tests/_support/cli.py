"""Run the ``fidelity`` command: as a user would (the installed script in a subprocess,
to its end or until a signal stops it), or in this process (:func:`fidelity_inprocess`,
its ``main(argv)`` with its streams captured: no interpreter start, no imports again).

In-process is for what a subprocess proves nothing about: the words, the exit code
``main`` returns, the files written. A subprocess stays for signals, the exit code the
process ends with, a real terminal, the stderr of servers the command starts (they
write to the process's own descriptor, not to ``sys.stderr``), and anything that must
not share this process's state.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import os
import signal
import subprocess
import sys
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path

__all__ = ["FIDELITY", "fidelity", "fidelity_inprocess", "one_sentence", "start", "stop"]

_SCRIPT = Path(sys.executable).with_name("fidelity")
#: The installed command, or ``python -m fidelity`` where no script was installed.
FIDELITY = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "fidelity"]


def fidelity(
    *args: str,
    timeout: float = 120,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``fidelity ARGS...`` (in ``cwd``, with ``env`` added to the environment); its
    output decoded as UTF-8 (odd bytes kept as escapes, so a test can assert that
    nothing raw reached the terminal)."""
    return subprocess.run(
        [*FIDELITY, *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="surrogateescape",
        timeout=timeout,
        check=False,
        cwd=cwd,
        env=None if env is None else {**os.environ, **env},
    )


def fidelity_inprocess(
    *args: str,
    timeout: float = 120,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``fidelity ARGS...`` in this process, as :func:`fidelity` runs it in a
    subprocess, and return the same record: ``main(argv)``'s exit code (or the code of
    a ``SystemExit`` it raised: ``--help``, ``--version``), what it wrote to stdout and
    stderr (UTF-8, odd bytes kept as escapes), after it ran in ``cwd`` with ``env``
    added to the environment; all of them are restored afterwards, as are the signal
    handlers and the asyncio event loop policy. No stdin (an empty one); not a terminal.
    As in a fresh process, the warnings Python shows by default and the log records of
    WARNING and above that no handler takes reach its stderr (pytest would keep them).

    ``timeout`` is accepted for the same signature; pytest-timeout bounds the run.
    """
    del timeout
    from fidelity._cli import main

    with _isolated(cwd, env) as (out, err):
        with _as_in_a_fresh_process(err):
            try:
                code = main(list(args))
            except SystemExit as exc:
                code = _exit_code(exc, err)
        out.flush()
        err.flush()
        stdout, stderr = (_text(stream) for stream in (out, err))
    return subprocess.CompletedProcess(["fidelity", *args], code, stdout, stderr)


#: Python's warning filters when no ``-W`` option or ``PYTHONWARNINGS`` says otherwise.
_DEFAULT_FILTERS: tuple[tuple[warnings._ActionKind, type[Warning], str], ...] = (
    ("default", DeprecationWarning, "__main__"),
    ("ignore", DeprecationWarning, ""),
    ("ignore", PendingDeprecationWarning, ""),
    ("ignore", ImportWarning, ""),
    ("ignore", ResourceWarning, ""),
)


@contextlib.contextmanager
def _as_in_a_fresh_process(err: io.TextIOWrapper) -> Iterator[None]:
    """Warnings and unhandled log records as a fresh process shows them, in ``err``:
    Python's default filters, and no handler on the root logger (so ``logging``'s last
    resort prints WARNING and above to ``sys.stderr``), instead of pytest's capture."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    root.handlers = []
    root.setLevel(logging.WARNING)
    try:
        with warnings.catch_warnings(record=True) as shown:
            warnings.resetwarnings()
            for action, category, module in reversed(_DEFAULT_FILTERS):
                warnings.filterwarnings(action, category=category, module=module)
            yield
    finally:
        root.handlers = handlers
        root.setLevel(level)
    for w in shown:
        err.write(warnings.formatwarning(w.message, w.category, w.filename, w.lineno, w.line))


def _exit_code(exc: SystemExit, err: io.TextIOWrapper) -> int:
    """The exit code a process ending with ``exc`` would have (a message is printed)."""
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code
    print(exc.code, file=err)
    return 1


def _text(stream: io.TextIOWrapper) -> str:
    kept = stream.buffer
    assert isinstance(kept, io.BytesIO)
    return kept.getvalue().decode("utf-8", "surrogateescape")


def _stream() -> io.TextIOWrapper:
    # As a pipe: UTF-8, strict (a lone surrogate written raw fails as it would on a
    # real stdout), line-buffered text over bytes that are kept.
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", newline="\n")


@contextlib.contextmanager
def _isolated(
    cwd: str | os.PathLike[str] | None, env: Mapping[str, str] | None
) -> Iterator[tuple[io.TextIOWrapper, io.TextIOWrapper]]:
    saved_streams = (sys.stdin, sys.stdout, sys.stderr)
    saved_argv = sys.argv
    saved_environ = dict(os.environ)
    saved_cwd = os.getcwd()
    handled = [s for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP) if s is not None]
    saved_handlers = {s: signal.getsignal(s) for s in handled}
    saved_policy = asyncio.get_event_loop_policy()
    out, err = _stream(), _stream()
    try:
        sys.stdin = io.TextIOWrapper(io.BytesIO(b""), encoding="utf-8")
        sys.stdout, sys.stderr = out, err
        sys.argv = ["fidelity"]
        # As through a pipe: no terminal, so help text wraps at 80 columns.
        os.environ.setdefault("COLUMNS", "80")
        os.environ.setdefault("LINES", "24")
        if env is not None:
            os.environ.update(env)
        if cwd is not None:
            os.chdir(cwd)
        yield out, err
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        sys.argv = saved_argv
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_environ)
        for signum, handler in saved_handlers.items():
            if handler is not None:
                signal.signal(signum, handler)
        asyncio.set_event_loop_policy(saved_policy)


def one_sentence(result: subprocess.CompletedProcess[str]) -> str:
    """The one line ``fidelity`` wrote to stderr, ``fidelity: ...``; fails when it wrote
    more or fewer lines, or a traceback."""
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("fidelity: "), result.stderr
    return lines[0]


def _ctrl_c_as_on_a_terminal() -> None:
    """In the child, before it runs the command: Ctrl-C (SIGINT) back to its default."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(*args: str) -> subprocess.Popen[str]:
    """Start ``fidelity ARGS...`` and leave it running: no stdin, its stdout thrown
    away, its stderr kept (decoded as :func:`fidelity` decodes it); end it with
    :func:`stop`.

    The command gets Ctrl-C as a command started from a terminal does, however this
    suite was started: a shell runs a background job (``pytest ... &``) with SIGINT
    ignored, children inherit that, and Python then never raises KeyboardInterrupt."""
    ignored = signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    return subprocess.Popen(
        [*FIDELITY, *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        errors="surrogateescape",
        preexec_fn=_ctrl_c_as_on_a_terminal if ignored else None,  # noqa: PLW1509
    )


def stop(command: subprocess.Popen[str], signum: int = signal.SIGINT) -> tuple[int, str]:
    """Send ``signum`` (Ctrl-C by default) to a command :func:`start` started; its exit
    code and stderr once it has ended (within a minute)."""
    command.send_signal(signum)
    _, stderr = command.communicate(timeout=60)
    return command.returncode, stderr
