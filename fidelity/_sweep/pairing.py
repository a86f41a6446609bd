"""A write tool paired with the read-only tool that reads its value back (``--all-tools``).

A tool that does not echo its string parameter (``save_note`` answers "saved") may store
it: a read-only tool whose required arguments all have a namesake among the write's
arguments (``path``, ``name``, ``key``, ``id``...) is called with the write's values for
them, and the calibration call proves the pairing (its markers come back). The
candidates are tried in the server's order; the first that proves itself reads the
parameter back, and the run reports it ("save_note.text read back with
read_note(name)"). A parameter without one says why: :func:`read_paired` tries the
candidates within the parameter's share of ``--max-requests``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fidelity._core.render import safe
from probes.frontend import CALIBRATION_CALLS

if TYPE_CHECKING:
    from fidelity._sweep.plan import ProbePlan
    from fidelity._sweep.rows_model import ParamRun
    from probes import McpTool
    from probes.frontend import ToolParam

__all__ = ["ReadPair", "read_paired", "read_pairs"]

#: What one attempt costs at least, in payload-sized steps: its calibration calls and one
#: payload (each step as many calls as the attempt's plan makes per payload).
_LEAST = CALIBRATION_CALLS + 1


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


def read_paired(
    run: ParamRun,
    sub: ProbePlan,
    param: ToolParam,
    *,
    args: Mapping[str, Any],
    readers: Sequence[McpTool],
    share: int | None,
    survey: Callable[[ProbePlan], ParamRun],
) -> ParamRun:
    """``param``'s run (``run`` found no read-back) again through each read-only tool
    among ``readers`` that can read it back, within ``share`` less what was spent: the
    first run that proves the pairing (``survey`` runs ``sub`` as paired), or ``run``
    with why none did."""
    top = param.path.segments[0] if param.path.segments else None
    pairs, why = read_pairs(param.tool, top, args, readers)
    tried: list[str] = []
    spent = run.requests
    for pair in pairs:
        left = None if share is None else share - spent
        paired = dataclasses.replace(
            sub, read_tool=pair.tool, read_args=pair.args, max_requests=left
        )
        # Each calibration call and payload costs a write and a read here.
        if left is not None and left < _LEAST * paired.calls_per_payload:
            tried.append(f"{pair.tool}: not tried within --max-requests")
            break
        attempt = survey(paired)
        spent += attempt.requests
        if attempt.card is not None or attempt.fatal:
            return dataclasses.replace(attempt, paired=pair.describe(param.name), requests=spent)
        tried.append(f"{pair.tool}: {attempt.skipped.removeprefix('no read-back: ')}")
    reason = "; ".join(tried) if tried else why
    return dataclasses.replace(
        run, skipped=f"{run.skipped}; no read tool paired ({reason})", requests=spent
    )
