"""git for the tests that point mcp-server-git at a repository: the executable, a new
repository, and that server's command."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

__all__ = ["git", "git_repository", "git_server"]


def git(*args: str | Path, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    """Run ``git ARGS...`` (the one found on PATH; skips, or fails in CI, without it);
    its output captured as bytes. Raises on a non-zero exit unless ``check`` is false."""
    from _needs import need_executable

    command = [need_executable("git"), *map(str, args)]
    return subprocess.run(command, capture_output=True, check=check)


def git_repository(path: Path) -> Path:
    """A new, empty git repository at ``path``, with a committer set."""
    path.mkdir()
    git("-C", path, "init", "-q")
    git("-C", path, "config", "user.name", "Probe User")
    git("-C", path, "config", "user.email", "probe@example.invalid")
    return path


def git_server() -> str:
    """The ``mcp-server-git`` command (PyPI; the dev extra installs it beside this
    interpreter, else it is looked up on PATH); skips (fails in CI) without it or
    without the MCP SDK."""
    from _needs import need_executable, need_module

    need_module("mcp")
    beside = Path(sys.executable).with_name("mcp-server-git")
    return str(beside) if beside.exists() else need_executable("mcp-server-git")
