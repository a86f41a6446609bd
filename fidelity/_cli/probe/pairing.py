"""A write tool paired with the read-only tool that reads its value back (``--all-tools``).

A tool that does not echo its string parameter (``save_note`` answers "saved") may store
it: a read-only tool whose required arguments all have a namesake among the write's
arguments (``path``, ``name``, ``key``, ``id``...) is called with the write's values for
them, and the calibration call proves the pairing (its markers come back). The
candidates are tried in the server's order; the first that proves itself reads the
parameter back, and the run reports it ("save_note.text read back with
read_note(name)"). A parameter without one says why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fidelity._core.render import safe

if TYPE_CHECKING:
    from probes import McpTool

__all__ = ["ReadPair", "read_pairs"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadPair:
    """A read-only tool and its arguments (a template: the write's values by name)."""

    tool: str
    args: dict[str, Any]

    def describe(self, param: str) -> str:
        """``save_note.text read back with read_note(name)``."""
        return f"{safe(param)} read back with {safe(self.tool)}({', '.join(map(safe, self.args))})"


def _required(tool: McpTool) -> list[str]:
    required = tool.input_schema.get("required")
    return [r for r in required if isinstance(r, str)] if isinstance(required, list) else []


def read_pairs(
    write: McpTool, payload_key: str | int | None, args: Mapping[str, Any], tools: Sequence[McpTool]
) -> tuple[list[ReadPair], str]:
    """The read-only ``tools`` that can read back what ``write`` stored with ``args``
    (the payload under ``payload_key``), best first; and, when there is none, why."""
    shared_names = {k for k in args if k != payload_key}
    pairs: list[ReadPair] = []
    for tool in tools:
        if tool.name == write.name or not tool.read_only:
            continue
        required = _required(tool)
        props = set(tool.properties)
        names = [n for n in required if n in shared_names] or sorted(props & shared_names)
        if not names or any(r not in shared_names for r in required):
            continue
        pairs.append(ReadPair(tool=tool.name, args={n: args[n] for n in names}))
    # The ones that take exactly the write's identifying arguments first.
    pairs.sort(key=lambda p: -len(p.args))
    if pairs:
        return pairs, ""
    if not shared_names:
        return [], f"{safe(write.name)} takes no argument a read tool could name the value by"
    shown = ", ".join(sorted(map(safe, shared_names)))
    return [], f"no read-only tool takes {safe(write.name)}'s arguments ({shown})"
