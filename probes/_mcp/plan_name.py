"""The part of an MCP probe's default name that tells its plan apart.

Two probes of one tool that read back differently (another read tool, a pinned read
spec) or send other arguments are different chains: their default names differ, so
their cards do not collide. Arguments are named by a short digest of their JSON with
absolute paths cut to their last part, so the name stays the same across machines and
temporary directories.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any

from fidelity._core.render import safe

__all__ = ["plan_suffix"]

#: The read spec that needs no mention (the default of ``probes.mcp``).
_DEFAULT_READ = "text"


def _stable(value: Any) -> Any:
    """``value`` with absolute paths cut to their last part (machine-independent)."""
    if isinstance(value, str):
        for flavour in (PurePosixPath, PureWindowsPath):
            path = flavour(value)
            if path.is_absolute() and (flavour is PurePosixPath or path.drive):
                return f"<abs>/{path.name}"
        return value
    if isinstance(value, Mapping):
        return {str(k): _stable(v) for k, v in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, bytes):
        return [_stable(v) for v in value]
    return value


def _digest(arguments: Any) -> str:
    text = json.dumps(_stable(arguments), sort_keys=True, ensure_ascii=True, default=str)
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:8]


def plan_suffix(
    *,
    args: Any,
    before: Sequence[tuple[str, Any]],
    read: str | None,
    read_tool: str | None,
    read_args: Any,
) -> str:
    """`` (after T, read by R, read SPEC, args#HASH)`` for a plan of ``probes.mcp``
    (empty for a probe of the tool alone with the default read-back)."""
    parts = []
    if before:
        parts.append("after " + "+".join(safe(tool) for tool, _ in before))
    if read_tool:
        parts.append(f"read by {safe(read_tool)}")
    if read is not None and read != _DEFAULT_READ:
        parts.append(f"read {safe(read)}")
    if args is not None or before or read_args is not None:
        parts.append(f"args#{_digest([args, [list(step) for step in before], read_args])}")
    return f" ({', '.join(parts)})" if parts else ""
