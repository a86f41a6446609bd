"""``fidelity compare FILE_A FILE_B``: classify the difference of two files' bytes."""

from __future__ import annotations

import argparse
from typing import Any

from fidelity._core.errors import ExitCode

__all__ = ["MAX_BYTES", "register", "run"]

#: Largest file read (bytes). The comparison stays linear in the files' size: two files
#: of 50 MB with 1% of their characters rewritten compare in well under a minute.
MAX_BYTES = 64 * 1024 * 1024


def register(sub: Any) -> None:
    """Add the ``compare`` subcommand."""
    p: argparse.ArgumentParser = sub.add_parser(
        "compare",
        help="name every rewrite between two files (sent, received)",
        description=(
            "Compare the bytes of FILE_A (what was sent) with FILE_B (what arrived) and "
            "name every difference as a transformation kind, verified by replay. "
            f"Each file may hold up to {MAX_BYTES // (1024 * 1024)} MiB; a larger one is "
            "refused. Exit 0 when identical, 1 when they differ, 2 on a usage error."
        ),
    )
    p.add_argument("file_a", metavar="FILE_A", help="the sent value")
    p.add_argument("file_b", metavar="FILE_B", help="the received value")
    p.set_defaults(run=run)


def _read(path: str) -> bytes:
    from fidelity._report.results import read_limited

    return read_limited(path, "file", limit=MAX_BYTES)


def run(args: argparse.Namespace) -> int:
    """Print the rendering; 0 when identical, 1 when the files differ."""
    from fidelity._compare.api import compare
    from fidelity._core.render import safe

    sent = _read(args.file_a)
    received = _read(args.file_b)
    comparison = compare(sent, received)
    if comparison.faithful:
        print(f"identical: {safe(args.file_a)} and {safe(args.file_b)} hold the same bytes")
        return ExitCode.OK
    print(comparison.render())
    return ExitCode.DIFFERENT
