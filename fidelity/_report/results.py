"""Result files: written atomically, and kept current while a run goes on.

A probe run against a remote target can be interrupted at any moment (Ctrl-C, a
crashed target, a killed process). :class:`ResultWriter` rewrites the result file
from the observations gathered so far, marked incomplete, at most every ``interval``
seconds and once more when the run stops, so an interrupted run keeps every
observation it made. Every write goes to a temporary file in the same directory and
is renamed over the target (:func:`write_atomic`): a reader never sees half a file.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import suppress
from pathlib import Path

from fidelity._core.errors import UsageError
from fidelity._probe.observation import Observation

__all__ = ["STDOUT", "ResultWriter", "read_limited", "write_atomic"]

#: The path that means "standard output" on the command line.
STDOUT = "-"


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Replace the file at ``path`` with ``data`` (text is written as UTF-8).

    The data goes to a temporary file next to ``path``, is flushed to disk, and is
    renamed over ``path`` with :func:`os.replace`. An existing file keeps its
    permission bits. A path that cannot be written raises :class:`UsageError`.
    """
    target = Path(path)
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    directory = target.parent if str(target.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise UsageError(f"cannot write {target}: {exc.strerror or exc}.") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(raw)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            mode = target.stat().st_mode & 0o7777
        except OSError:
            mode = 0o666 & ~_umask()
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except OSError as exc:
        with suppress(OSError):
            os.unlink(tmp)
        raise UsageError(f"cannot write {target}: {exc.strerror or exc}.") from None
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise


def read_limited(
    path: str | os.PathLike[str],
    what: str,
    *,
    limit: int,
    missing: bytes | None = None,
    dash_is_stdin: bool = False,
) -> bytes:
    """The bytes of the file at ``path``, at most ``limit``.

    With ``dash_is_stdin``, ``"-"`` reads standard input. A missing file gives
    ``missing`` when it is not ``None``. Every other failure (no
    such file, a directory, unreadable, more than ``limit`` bytes) raises
    :class:`UsageError` with one sentence naming ``what`` and the path.
    """
    from fidelity._core.render import safe

    shown = f"{what} {safe(str(path))}"
    too_large = f"{shown} is larger than {limit // (1024 * 1024)} MiB."
    try:
        if dash_is_stdin and str(path) == STDOUT:
            data = sys.stdin.buffer.read(limit + 1)
        else:
            with open(path, "rb") as handle:
                if os.fstat(handle.fileno()).st_size > limit:
                    raise UsageError(too_large)
                data = handle.read(limit + 1)
    except FileNotFoundError:
        if missing is not None:
            return missing
        raise UsageError(f"{shown} does not exist (no such file).") from None
    except IsADirectoryError:
        raise UsageError(f"{shown} is a directory; give a file.") from None
    except OSError as exc:
        raise UsageError(f"cannot read {shown}: {exc.strerror or exc}.") from None
    if len(data) > limit:
        raise UsageError(too_large)
    return data


class ResultWriter:
    """Keep a result file current with the observations of a run in progress.

    ``snapshot(observations)`` renders the partial result of the observations so far
    (the caller marks it incomplete); :meth:`add` records one observation and rewrites
    the file when ``interval`` seconds have passed since the last write;
    :meth:`checkpoint` writes now; :meth:`finish` writes the final, complete result.
    With ``path`` ``"-"`` nothing is written until :meth:`finish`, which prints the
    result on standard output (and nothing else goes there).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        snapshot: Callable[[Sequence[Observation]], str],
        *,
        interval: float = 0.25,
    ) -> None:
        self.path = str(path)
        self.snapshot = snapshot
        self.interval = interval
        self.observations: list[Observation] = []
        self.finished = False
        self._last = 0.0

    @property
    def to_stdout(self) -> bool:
        """True when the result goes to standard output (``-``)."""
        return self.path == STDOUT

    def start(self) -> None:
        """Write an empty, incomplete result now: fails early if the path is unwritable."""
        self.checkpoint()

    def add(self, observation: Observation) -> None:
        """Record one observation; rewrite the file if the interval has passed."""
        self.observations.append(observation)
        if time.monotonic() - self._last >= self.interval:
            self.checkpoint()

    def checkpoint(self) -> None:
        """Write the partial result of the observations so far (not for ``-``)."""
        if self.to_stdout or self.finished:
            return
        write_atomic(self.path, self.snapshot(tuple(self.observations)))
        self._last = time.monotonic()

    def finish(self, text: str) -> None:
        """Write the final result ``text``; later checkpoints are ignored."""
        if self.to_stdout:
            sys.stdout.write(text if text.endswith("\n") else text + "\n")
            sys.stdout.flush()
        else:
            write_atomic(self.path, text)
        self.finished = True
