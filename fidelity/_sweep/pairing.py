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
import re
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

__all__ = ["ReadPair", "is_reader", "read_paired", "read_pairs"]

#: What one attempt costs at least, in payload-sized steps: its calibration calls and one
#: payload (each step as many calls as the attempt's plan makes per payload).
_LEAST = CALIBRATION_CALLS + 1
#: How many read tools a parameter tries at most (each attempt costs its calibration).
_TRIED = 3


#: Words of a tool's name (or of its description's first words) that say it reads.
_READ_WORDS = frozenset(
    {"read", "get", "view", "show", "fetch", "search", "list", "find", "query", "cat", "open",
     "lookup", "load", "retrieve", "describe", "inspect", "browse"}
)  # fmt: skip
#: Words that say a tool writes, whatever else its name says (``get_or_create``).
_WRITE_WORDS = frozenset(
    {"write", "create", "update", "delete", "remove", "set", "put", "edit", "move", "rename",
     "append", "insert", "save", "add", "replace", "patch", "post", "upload", "clear", "wipe",
     "drop", "reset", "modify", "store", "copy", "archive", "purge", "destroy", "send"}
)  # fmt: skip


def _words(text: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w]


def is_reader(tool: McpTool, *, consent: bool) -> bool:
    """True when ``tool`` may read a value back: annotated ``readOnlyHint: true``, or,
    with the caller's consent (it might write: nothing says it does not), named as a
    read (``read_note``, ``searchNodes``, ``get``; its description's first word when
    the name says nothing) and not as a write, and not annotated ``readOnlyHint: false``."""
    if tool.read_only:
        return True
    if not consent or tool.annotations.get("readOnlyHint") is False:
        return False
    words = _words(tool.name)
    if any(w in _WRITE_WORDS for w in words):
        return False
    if any(w in _READ_WORDS for w in words):
        return True
    said = _words(tool.description)[:1]
    return bool(said) and said[0] in _READ_WORDS | {"reads", "gets", "shows", "lists", "returns"}


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadPair:
    """A read tool and its arguments (a template: the write's values by name);
    ``unannotated`` when it is not annotated read-only (called with ``--yes``)."""

    tool: str
    args: dict[str, Any]
    unannotated: bool = False
    #: The write's arguments renamed for a search: ``{name: value}``, the value ending
    #: so that no other entry's name holds it (``-1`` is in ``-10``; ``-1~`` is not).
    renamed: dict[str, Any] = dataclasses.field(default_factory=dict)

    def describe(self, param: str) -> str:
        """``save_note.text read back with read_note(name)``."""
        how = " (not annotated read-only: called with --yes)" if self.unannotated else ""
        return (
            f"{safe(param)} read back with {safe(self.tool)}({', '.join(map(safe, self.args))})"
            + how
        )


def _required(tool: McpTool) -> list[str]:
    required = tool.input_schema.get("required")
    return [r for r in required if isinstance(r, str)] if isinstance(required, list) else []


def read_pairs(
    write: McpTool, payload_key: str | int | None, args: Mapping[str, Any], tools: Sequence[McpTool]
) -> tuple[list[ReadPair], str]:
    """The read tools among ``tools`` (:func:`is_reader`, the caller's choice) that can
    read back what ``write`` stored with ``args`` (the payload under ``payload_key``),
    best first; and, when there is none, why. A reader's required arguments must all
    have a namesake among the write's; a reader that takes one argument the write does
    not name (``query``, ``q``, ``search``) is given the write's first name-like value
    (what a search finds the entry by); a reader that takes no argument lists them all."""
    shared_names = {k for k in args if k != payload_key}
    pairs: list[ReadPair] = []
    for tool in tools:
        if tool.name == write.name:
            continue
        pair = _pair(tool, args, shared_names)
        if pair is not None:
            pairs.append(pair)
    # The ones that take exactly the write's identifying arguments first, the annotated
    # read-only before the ones only named so, a search or a listing last.
    pairs.sort(key=lambda p: (-len(p.args) if _named(p, shared_names) else 1, p.unannotated))
    if pairs:
        return pairs, ""
    if not shared_names:
        return [], f"{safe(write.name)} takes no argument a read tool could name the value by"
    shown = ", ".join(sorted(map(safe, shared_names)))
    return [], f"no read tool takes {safe(write.name)}'s arguments ({shown})"


#: Words of a reader without arguments that lists what was stored (``read_graph``).
_LISTING = frozenset({"list", "read", "dump", "export", "all", "graph", "browse", "index"})
#: Arguments a search reader takes its query in.
_QUERY = frozenset({"query", "q", "search", "searchquery", "term", "keyword", "keywords", "text"})


def _named(pair: ReadPair, shared: set[str]) -> bool:
    return bool(pair.args) and all(k in shared for k in pair.args)


def _pair(tool: McpTool, args: Mapping[str, Any], shared: set[str]) -> ReadPair | None:
    required = _required(tool)
    props = set(tool.properties)
    unannotated = not tool.read_only
    names = [n for n in required if n in shared] or sorted(props & shared)
    if names and all(r in shared for r in required):
        return ReadPair(tool=tool.name, args={n: args[n] for n in names}, unannotated=unannotated)
    if not required and not props and _LISTING & set(_words(tool.name)):
        return ReadPair(tool=tool.name, args={}, unannotated=unannotated)
    query = [r for r in required if r.lower().replace("_", "") in _QUERY]
    key = next((k for k in sorted(shared) if isinstance(args[k], str) and args[k]), None)
    if len(required) == 1 and query and key is not None:
        # The search finds this payload's entry alone: its name ends where no other
        # entry's name goes on.
        value = f"{args[key]}{_END}"
        return ReadPair(
            tool=tool.name, args={query[0]: value}, unannotated=unannotated, renamed={key: value}
        )
    return None


#: What a name searched for ends with (no made name goes on after it).
_END = "-q"


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
    for pair in pairs[:_TRIED]:
        left = None if share is None else share - spent
        paired = dataclasses.replace(
            sub,
            read_tool=pair.tool,
            read_args=pair.args,
            max_requests=left,
            args={**(sub.args or {}), **pair.renamed} if pair.renamed else sub.args,
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
