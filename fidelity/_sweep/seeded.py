"""A whole-content replacement read back after a seed (``--all-tools``).

A tool that replaces the content of something that must exist first
(``replace_note(path, content)``, ``update_file(path, content)``) answers its calibration
with "Note not found: X" when nothing was written at ``X``: that answer is an error,
not a read-back (:func:`probes._payload.calibration.error_like`), and a read tool finds
nothing there either. When its payload parameter is its content, a write tool of the
same server seeds the thing first (the same naming arguments, a content of its own),
then the replacement writes the payload, and a read tool paired with the write reads
it back: the run says how ("replace_note.content: seeded with write_note, read back
with read_note"). A row no write tool can seed stays as its own run said.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from fidelity._core.errors import UsageError
from fidelity._core.render import safe

if TYPE_CHECKING:
    from fidelity._sweep.edits import Arguments
    from fidelity._sweep.plan import ProbePlan
    from fidelity._sweep.rows_model import ParamRun
    from probes import McpTool
    from probes.frontend import ToolParam

__all__ = ["SEED", "survey_seeded"]

#: The content a seed writes before the replacement (never a payload).
SEED = "fidelity seed {n}"


def survey_seeded(
    run: ParamRun,
    sub: ProbePlan,
    param: ToolParam,
    *,
    args: Mapping[str, Any],
    tools: Sequence[McpTool],
    readers: Sequence[McpTool],
    arguments: Arguments,
    defaults: Mapping[str, Any],
    share: int | None,
    least: int,
    survey: Callable[[ProbePlan], ParamRun],
) -> ParamRun:
    """``param``'s run again with a seed before each call, when ``param`` is the content
    of its tool and a write tool can seed what it names; ``run`` as it was otherwise."""
    from fidelity._sweep.edits import _content_key, _seed_args, _writes
    from fidelity._sweep.pairing import read_pairs

    top = param.path.segments[0] if len(param.path.segments) == 1 else None
    if top is None or _content_key(param.tool) != top or run.card is not None or run.fatal:
        return run
    spent = run.requests
    for write, key in _writes(param.tool, tools):
        try:
            seed = {**_seed_args(write, key, args, arguments, defaults), key: SEED}
        except UsageError:
            continue
        pairs, _ = read_pairs(write, key, seed, readers)
        for pair in pairs[:1]:
            left = None if share is None else share - spent
            seeded = dataclasses.replace(
                sub,
                before=((write.name, seed),),
                read_tool=pair.tool,
                read_args=pair.args,
                max_requests=left,
            )
            if left is not None and left < least * seeded.calls_per_payload:
                return dataclasses.replace(run, requests=spent)
            attempt = survey(seeded)
            spent += attempt.requests
            if attempt.card is not None or attempt.fatal:
                how = (
                    f"{safe(param.name)}: seeded with {safe(write.name)}, read back with "
                    f"{safe(pair.tool)}"
                )
                return dataclasses.replace(attempt, paired=how, requests=spent)
    return dataclasses.replace(run, requests=spent)
