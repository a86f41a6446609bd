"""The ``fidelity`` command: one subcommand per module, dispatched here.

Every subcommand module defines ``register(subparsers)``, which adds its parser and
sets ``run`` (a function ``argparse.Namespace -> int``). Registration imports nothing
heavy; the work happens in ``run``. Errors end as one sentence on stderr and an exit
code, never a traceback:

    0  nothing unexpected        2  usage error
    1  unexpected rewrites       3  target unreachable or protocol failure

SIGTERM and SIGHUP (what CI sends when it cancels a job, what a closed terminal sends)
end a command the way Ctrl-C does: the servers it started are stopped, the results
gathered so far are kept, and the exit code is 128 + the signal number. A signal that
was ignored when the command started (``nohup``) stays ignored. On Linux the command is
a child subreaper while it runs (``probes._process.contained``): a process a server
started that detached itself (a double-forked ``setsid`` daemon) is ended with the
command, by signal or not.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import FrameType
from typing import Any, NoReturn

from fidelity._core.errors import ExitCode, TargetError, UsageError
from fidelity._core.render import safe
from fidelity._core.secrets import forget, mask

__all__ = ["main"]


_COMMANDS = ("survey", "probe", "reflect", "compare", "card")


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one sentence and exit code 2.

    ``add_subparsers`` builds subcommand parsers of the same class, so every
    subcommand's unknown option or missing value ends the same way.
    """

    def error(self, message: str) -> NoReturn:
        command = self.prog
        text = message or "bad arguments"
        print(
            f"fidelity: {safe(text).rstrip('.')}; see '{safe(command)} --help'.",
            file=sys.stderr,
        )
        raise SystemExit(ExitCode.USAGE)


def _parser() -> argparse.ArgumentParser:
    from fidelity._core.version import __version__

    parser = _Parser(
        prog="fidelity",
        description="Find and name the rewrites a transport chain applies to text parameters.",
    )
    parser.add_argument("--version", action="version", version=f"param-fidelity {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMANDS:
        importlib.import_module(f"fidelity._cli.{name}").register(sub)
    return parser


class Ended(KeyboardInterrupt):
    """A signal that ends the command (SIGTERM, SIGHUP), raised where Ctrl-C would be."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _end(signum: int, frame: FrameType | None) -> None:
    # One is enough: while the command cleans up (bounded), more of them are ignored.
    for other in _ENDING:
        signal.signal(other, signal.SIG_IGN)
    raise Ended(signum)


_ENDING = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


@contextmanager
def _ending_signals() -> Iterator[None]:
    """Turn SIGTERM and SIGHUP into :class:`Ended` while the command runs (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.getsignal(signum) for signum in _ENDING}
    for signum, handler in previous.items():
        if handler is signal.SIG_DFL:
            signal.signal(signum, _end)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _run_ended_once(run: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """``run(args)`` with SIGTERM and SIGHUP ending it; a signal or Ctrl-C that reaches
    here inside an exception group (a server's task group: ``fidelity reflect mcp
    --transport http``) comes out alone, so it is reported as itself."""
    from probes.frontend import contained

    try:
        with _ending_signals(), contained(), _masked_streams():
            return run(args)
    except BaseExceptionGroup as group:
        stopped = group.subgroup(lambda exc: isinstance(exc, KeyboardInterrupt))
        if stopped is None:
            raise
        first: BaseException = stopped
        while isinstance(first, BaseExceptionGroup):
            first = first.exceptions[0]
        raise first from None


class _MaskedStream:
    """A text stream whose writes have every known secret masked (everything the
    command prints goes through :func:`fidelity._core.secrets.mask`)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def write(self, text: str) -> int:
        return int(self._inner.write(mask(text)))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


@contextmanager
def _masked_streams() -> Iterator[None]:
    """Mask the run's secrets in everything written to stdout and stderr."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _MaskedStream(out), _MaskedStream(err)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err


def error(message: str) -> None:
    """Print one terminal-safe error sentence on stderr (every known secret masked)."""
    print(f"fidelity: {safe(mask(message))}", file=sys.stderr)


def _hypothesis_out_of_cwd() -> None:
    """Hypothesis keeps its caches (Unicode tables, examples) in ``./.hypothesis``, which
    a command run in a user's project would leave behind: they go to the user's cache
    directory instead, unless ``HYPOTHESIS_STORAGE_DIRECTORY`` already says where. (The
    pytest plugin leaves a suite's own Hypothesis settings alone.)"""
    if os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        return
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = os.path.join(base, "param-fidelity", "hypothesis")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    forget()  # a run knows the secrets its own command line gives, and no others
    try:
        return _main(argv)
    finally:
        forget()  # and leaves none behind (a run in a process that goes on)


def _main(argv: Sequence[str] | None) -> int:
    _hypothesis_out_of_cwd()
    parser = _parser()
    args = parser.parse_args(argv)
    run = getattr(args, "run", None)
    if run is None:
        parser.print_help(sys.stderr)
        return ExitCode.USAGE
    try:
        code: int = _run_ended_once(run, args)
    except UsageError as exc:
        error(str(exc))
        return ExitCode.USAGE
    except TargetError as exc:
        error(str(exc))
        return ExitCode.TARGET
    except Ended as exc:
        name = signal.Signals(exc.signum).name
        error(
            f"stopped by {name}; results gathered so far were kept where an output file was given."
        )
        return ExitCode.for_signal(exc.signum)
    except KeyboardInterrupt:
        error("interrupted; results gathered so far were kept where an output file was given.")
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        return ExitCode.OK
    except Exception as exc:
        if os.environ.get("FIDELITY_DEBUG"):
            raise
        error(
            f"internal error ({type(exc).__name__}: {exc}); "
            "rerun with FIDELITY_DEBUG=1 for the traceback and report it."
        )
        return ExitCode.INTERNAL
    return code
