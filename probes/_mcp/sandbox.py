"""A sandbox for a stdio server: its own ``HOME``, ``TMPDIR`` and working directory.

One temporary directory holds ``home``, ``tmp`` and ``work`` (the server's working
directory); it is created (exclusively, mode 0700) when the server is about to start
and removed, with everything the server wrote there, when the run or the probe ends.
``fidelity probe --sandbox`` and ``probes.mcp(..., sandbox=True)`` both use it. It keeps
a run's files apart; it is not a security boundary (the server runs as the user).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator, Mapping

from fidelity._core.errors import UsageError
from fidelity._core.render import safe

__all__ = ["new_sandbox", "sandbox_env", "sandboxed", "work_dir"]

#: The variables a sandboxed server keeps from a minimal environment (the CLI's).
_KEPT = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "SYSTEMROOT")
#: Base directories that would send a server's files back to the real home: dropped
#: from an inherited environment, so they default under the sandbox's ``HOME``.
_HOMELY = (
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    "XDG_RUNTIME_DIR",
    "APPDATA",
    "LOCALAPPDATA",
    "USERPROFILE",
)


def new_sandbox() -> str:
    """A fresh path for a sandbox (not created yet) in the system's temporary directory."""
    return os.path.join(
        os.path.realpath(tempfile.gettempdir()), f"fidelity-sandbox-{secrets.token_hex(6)}"
    )


def work_dir(root: str | None) -> str | None:
    """The sandbox's working directory, which ``{sandbox}`` names (``None`` without one)."""
    return None if root is None else os.path.join(root, "work")


def sandbox_env(
    directory: str, environ: Mapping[str, str] | None = None, *, inherit: bool = False
) -> dict[str, str]:
    """The environment of a server in the sandbox ``directory``: ``HOME`` and ``TMPDIR``
    (``TMP``, ``TEMP``) in the sandbox, on top of either a minimal environment (the
    kept variables of ``environ``, by default ``os.environ``) or, with ``inherit``, the
    whole of ``environ`` less the base directories that point into the real home."""
    source = os.environ if environ is None else environ
    if inherit:
        env = {k: v for k, v in source.items() if k not in _HOMELY}
    else:
        env = {k: source[k] for k in _KEPT if k in source}
        env.setdefault("LANG", "C.UTF-8")
    home, tmp = os.path.join(directory, "home"), os.path.join(directory, "tmp")
    env.update(HOME=home, TMPDIR=tmp, TMP=tmp, TEMP=tmp)
    return env


def make_sandbox(directory: str) -> None:
    """Create the sandbox ``directory`` and its ``home``, ``tmp`` and ``work``.

    ``UsageError`` when it cannot be created (it exists already, or the temporary
    directory is not writable).
    """
    try:
        os.mkdir(directory, 0o700)
    except OSError as exc:
        raise UsageError(
            f"the sandbox could not create its directory {safe(directory)!r} ({exc.strerror})."
        ) from None
    try:
        for sub in ("home", "tmp", "work"):
            os.mkdir(os.path.join(directory, sub), 0o700)
    except OSError:
        remove_sandbox(directory)
        raise


def remove_sandbox(directory: str) -> None:
    """Remove the sandbox ``directory`` and everything in it (what cannot go is left)."""
    shutil.rmtree(directory, ignore_errors=True)


@contextlib.contextmanager
def sandboxed(directory: str | None) -> Iterator[None]:
    """Create the sandbox ``directory`` (if any) for the run and remove it afterwards."""
    if directory is None:
        yield
        return
    from probes._process import contained

    make_sandbox(directory)
    try:
        with contained():  # what the servers left running ends before its directory goes
            yield
    finally:
        remove_sandbox(directory)
