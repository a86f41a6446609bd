"""Result files: written atomically, and kept current while a run goes on.

A probe run against a remote target can be interrupted at any moment (Ctrl-C, a
crashed target, a killed process). :class:`ResultWriter` rewrites the result file
from the observations gathered so far, marked incomplete, at most every ``interval``
seconds and once more when the run stops, so an interrupted run keeps every
observation it made. Every write goes to a temporary file in the same directory and
is renamed over the target (:func:`write_atomic`): a reader never sees half a file.

Files are input, and output paths are choices someone else may have prepared: only
regular files are read (:func:`read_limited`: a FIFO would block for ever) and
replaced (:func:`writable`): not a FIFO or a device, not a read-only file, not a file
with other hard links (renaming over it would detach them), and never through a
symbolic link that leads out of the link's own directory. A link that stays in it is
followed: the file it names is replaced and the link kept.
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import suppress
from pathlib import Path

from fidelity._core.errors import UsageError
from fidelity._core.secrets import mask, mask_bytes
from fidelity._probe.observation import Observation

__all__ = ["STDOUT", "ResultWriter", "read_limited", "writable", "write_atomic"]

#: The path that means "standard output" on the command line.
STDOUT = "-"


def _shown(path: str | os.PathLike[str]) -> str:
    from fidelity._core.render import safe

    return safe(str(path))


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _not_regular(mode: int) -> str:
    """What a file of ``mode`` is, when it is not a regular file ('' when it is)."""
    if stat.S_ISREG(mode):
        return ""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def writable(path: str | os.PathLike[str], what: str = "") -> Path:
    """The file that writing ``path`` replaces, once it is clear that it may be replaced.

    ``path`` itself, or the file its symbolic link names when that file is in the
    link's directory (or below). Raises :class:`UsageError` with one sentence, naming
    ``what`` (e.g. ``--card``) and the path, for a link that leads elsewhere, something
    other than a regular file, a read-only file, a file with other hard links, or a
    directory that does not exist. Nothing is written.
    """
    from fidelity._core.render import safe

    target = Path(path)
    shown = f"{what} {safe(str(path))}".strip()
    if target.is_symlink():
        home = os.path.realpath(target.parent if str(target.parent) else ".")
        real = os.path.realpath(target)
        if os.path.commonpath([home, real]) != home:
            raise UsageError(
                f"{shown} is a symbolic link to {safe(real)}, outside its directory; "
                "it is not written through: give the path of the file itself."
            )
        target = Path(real)
    try:
        info = os.stat(target)
    except FileNotFoundError:
        if not target.parent.is_dir():
            raise UsageError(
                f"cannot write {shown}: the directory {safe(str(target.parent))} does not exist."
            ) from None
        return target
    except OSError as exc:
        raise UsageError(f"cannot write {shown}: {exc.strerror or exc}.") from None
    kind = _not_regular(info.st_mode)
    if kind:
        raise UsageError(f"{shown} is {kind}, not a regular file; give the path of a file.")
    if not info.st_mode & 0o222:
        raise UsageError(
            f"{shown} is read-only; it is not rewritten (make it writable if it should be)."
        )
    if info.st_nlink > 1:
        raise UsageError(
            f"{shown} has {info.st_nlink} hard links; rewriting it would detach it from "
            "the others: give it a file of its own."
        )
    return target


def write_atomic(path: str | os.PathLike[str], data: str | bytes, what: str = "") -> None:
    """Replace the file at ``path`` with ``data`` (text is written as UTF-8).

    The data goes to a temporary file in the same directory, is flushed to disk, and is
    renamed over the file with :func:`os.replace`. An existing file keeps its
    permission bits. The file must be one that :func:`writable` lets replace (a
    symbolic link in the same directory is kept, the file it names replaced); a path
    that cannot be written raises :class:`UsageError`, naming ``what``. Every secret
    the run knows is masked in it first (:func:`fidelity._core.secrets.mask`): this is
    where every output file goes through.
    """
    target = writable(path, what)
    data = mask(data) if isinstance(data, str) else mask_bytes(data)  # every output
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    directory = target.parent if str(target.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise UsageError(f"cannot write {_shown(target)}: {exc.strerror or exc}.") from None
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
        raise UsageError(f"cannot write {_shown(target)}: {exc.strerror or exc}.") from None
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
    such file, a directory, a FIFO or anything else that is not a regular file,
    unreadable, more than ``limit`` bytes) raises :class:`UsageError` with one sentence
    naming ``what`` and the path.
    """
    from fidelity._core.render import safe

    shown = f"{what} {safe(str(path))}"
    too_large = f"{shown} is larger than {limit // (1024 * 1024)} MiB."
    try:
        if dash_is_stdin and str(path) == STDOUT:
            data = sys.stdin.buffer.read(limit + 1)
        else:
            # Non-blocking: opening a FIFO must not wait for a writer that never comes.
            nonblocking = getattr(os, "O_NONBLOCK", 0)
            fd = os.open(path, os.O_RDONLY | nonblocking)
            with open(fd, "rb") as handle:
                info = os.fstat(fd)
                kind = _not_regular(info.st_mode)
                if kind == "a directory":
                    raise IsADirectoryError
                if kind:
                    raise UsageError(f"{shown} is {kind}, not a regular file; give a file.")
                if info.st_size > limit:
                    raise UsageError(too_large)
                if nonblocking:
                    os.set_blocking(fd, True)
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
            text = mask(text)
            sys.stdout.write(text if text.endswith("\n") else text + "\n")
            sys.stdout.flush()
        else:
            write_atomic(self.path, text)
        self.finished = True
