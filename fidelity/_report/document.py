"""Card documents on disk: read bounded, blocks found and replaced, written atomically
under a lock, checked for drift.

Every front end that reads or writes a contract-card document (``fidelity card
--update/--check``, ``fidelity probe --card/--check``, ``--all-tools --card``, the
pytest plugin's card files) goes through this module, so the rules are written once:

* a document is read at most ``limit`` bytes, only from a regular file, and must be
  UTF-8 (:func:`read`);
* a block is found and replaced by :mod:`fidelity._report.block` (every byte outside
  it kept);
* a rewrite reads, edits and replaces the document while holding the document's
  lock (:func:`update`), so writers running at the same time (four ``fidelity card
  --update same.md`` with different block names) each keep their block: the lock is
  an exclusive ``flock`` on the document's directory (no file is left behind), or,
  where the directory cannot be locked, a sidecar file ``.NAME.lock`` created
  exclusively. Waiting for it is bounded (``LOCK_WAIT`` seconds, then one sentence);
* the new bytes go to a temporary file renamed over the document
  (:func:`fidelity._report.results.write_atomic`): a reader never sees half a file;
* drift of the cards against their blocks is :func:`check_blocks`.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from fidelity._core.errors import UsageError
from fidelity._core.render import safe
from fidelity._report.block import Block, find_block, replace_block
from fidelity._report.results import read_limited, writable, write_atomic

if TYPE_CHECKING:
    from fidelity._report.card import Card

__all__ = [
    "LOCK_WAIT",
    "MAX_DOCUMENT",
    "check_blocks",
    "find",
    "locked",
    "read",
    "replace",
    "update",
    "writable",
    "write",
]

#: Largest card document read or rewritten (a card block is a few KiB).
MAX_DOCUMENT = 256 * 1024 * 1024
#: Seconds a writer waits for another writer of the same directory before giving up.
LOCK_WAIT = 30.0
_POLL = 0.02


def read(
    path: str | os.PathLike[str],
    what: str = "document",
    *,
    limit: int = MAX_DOCUMENT,
    missing: bytes | None = None,
    dash_is_stdin: bool = False,
) -> bytes:
    """The document's bytes: a regular file of at most ``limit`` bytes, valid UTF-8.

    A missing file gives ``missing`` when it is not ``None``. Anything else that cannot
    be read is a :class:`UsageError` naming ``what`` and the path.
    """
    data = read_limited(path, what, limit=limit, missing=missing, dash_is_stdin=dash_is_stdin)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"{what} {safe(str(path))} is not valid UTF-8 (byte {exc.start}); contract-card "
            "documents are UTF-8."
        ) from None
    return data


def find(document: bytes, name: str, *, what: str = "") -> Block | None:
    """The block ``name`` of ``document`` (``None`` when absent). Malformed markers are
    a :class:`UsageError`, prefixed with ``what`` (e.g. ``--card DOC.md``) when given."""
    try:
        return find_block(document, name)
    except UsageError as exc:
        if not what:
            raise
        raise UsageError(f"{what}: {exc}") from None


def replace(document: bytes, name: str, content: str) -> bytes:
    """``document`` with block ``name`` holding ``content`` (created at the end when
    absent; every other byte kept)."""
    return replace_block(document, name, content)


def _lock_directory(directory: Path) -> int | None:
    """An open descriptor of ``directory`` for ``flock``, or ``None`` where directories
    cannot be locked (no ``fcntl``, or the directory cannot be opened)."""
    try:
        import fcntl  # noqa: F401  (POSIX only)
    except ImportError:
        return None
    try:
        return os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return None


def _wait(attempt: Callable[[], bool], shown: str, wait: float) -> None:
    deadline = time.monotonic() + wait
    while not attempt():
        if time.monotonic() >= deadline:
            raise UsageError(
                f"another writer has held the lock of {shown} for more than {wait:g} s; "
                "try again when it is done."
            )
        time.sleep(_POLL)


@contextlib.contextmanager
def locked(path: str | os.PathLike[str], *, wait: float = LOCK_WAIT) -> Iterator[None]:
    """Hold the lock of the document at ``path`` (its directory's) while the block runs.

    Waits at most ``wait`` seconds for another holder, then raises :class:`UsageError`.
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    shown = safe(str(path))
    fd = _lock_directory(directory)
    if fd is not None:
        import fcntl

        def take() -> bool:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False
            return True

        try:
            _wait(take, shown, wait)
            yield
        finally:
            os.close(fd)  # closing the descriptor releases the lock
        return
    sidecar = directory / f".{target.name}.lock"

    def create() -> bool:
        try:
            os.close(os.open(sidecar, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        except FileExistsError:
            return False
        except OSError as exc:
            raise UsageError(f"cannot lock {shown}: {exc.strerror or exc}.") from None
        return True

    _wait(create, shown, wait)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(sidecar)


def update(
    path: str | os.PathLike[str],
    edit: Callable[[bytes], bytes | None],
    what: str = "document",
    *,
    limit: int = MAX_DOCUMENT,
    wait: float = LOCK_WAIT,
) -> bool:
    """Read the document at ``path`` (empty when missing), apply ``edit`` and write the
    result, all under the document's lock: a writer running at the same time sees this
    one's result. ``edit`` returns the new bytes, or ``None`` to leave the document as
    it is. Returns whether the document was written (it is when it did not exist).
    """
    writable(path, what)  # before reading: a FIFO, a link out, a read-only file
    with locked(path, wait=wait):
        document = read(path, what, limit=limit, missing=b"")
        updated = edit(document)
        if updated is None or (updated == document and Path(path).exists()):
            return False
        write_atomic(path, updated, what)
        return True


def write(path: str | os.PathLike[str], data: str | bytes, what: str = "") -> None:
    """Replace the whole file at ``path`` with ``data``, atomically and under its lock
    (a card file the plugin writes, a report): see :func:`update`."""
    writable(path, what)
    with locked(path):
        write_atomic(path, data, what)


def check_blocks(path: str, document: bytes, named: Sequence[tuple[str, Card]], out: TextIO) -> int:
    """Compare each card with the block of its name in ``document`` (read from
    ``path``), row by row; print a line per block, and each changed row, to ``out``.
    When a block drifted and the environment it records differs from the card's, a
    line naming the difference comes first. Return 1 when a block is missing, holds no
    card table or drifted, else 0."""
    import dataclasses

    from fidelity._report.card_table import rows_from_markdown
    from fidelity._report.drift import around
    from fidelity._report.environment import from_markdown

    failed = False
    for name, card in named:
        block = find(document, name)
        where = f"{safe(path)}, block {safe(name)}"
        if block is None:
            print(f"{where}: no such block; write it with --update {safe(path)}.", file=out)
            failed = True
            continue
        rows = rows_from_markdown(block.content)
        if rows is None:
            print(
                f"{where}: no card table in the block; rewrite it with --update {safe(path)}.",
                file=out,
            )
            failed = True
            continue
        committed = dataclasses.replace(card, rows=rows, observations=())
        changes = card.drift(committed)
        if not changes:
            print(f"{where}: matches.", file=out)
            continue
        failed = True
        context = around(card.rows, rows, card.facts.environment, from_markdown(block.content))
        if context:
            print(f"{where}: environment changed: {context}", file=out)
        count = f"{len(changes)} changed row{'s' if len(changes) != 1 else ''}"
        print(f"{where}: {count}:", file=out)
        for line in changes:
            print(f"  {safe(line)}", file=out)
    return 1 if failed else 0
