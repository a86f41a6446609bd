"""Edit-shaped tools in ``fidelity probe --all-tools``: probed with the apply check.

A tool with two string parameters named like an old text and its replacement
(``old_string``/``new_string``, ``oldText``/``newText``, ``search``/``replace``, also
inside an array of edits: ``edit_file(path, edits: [{oldText, newText}])``) is one row,
``edit_block.old_string+new_string``, instead of two parameters that no calibration
could read back. Each payload is then the README's edit recipe:

1. a write tool of the same server seeds a file with the payload (a tool that is not
   read-only, with a content parameter and the edit's naming arguments: ``path``,
   ``file_path``... the same values);
2. the edit replaces ``old="{payload}"`` with ``new="{payload}{mark}"``;
3. a read-only tool paired with the write (:mod:`fidelity._sweep.pairing`) reads
   the file back, which must equal ``{payload}{mark}`` (``--expect``).

A read-back without the mark is an edit that did not apply: ``rejected``, with
``silent: true`` and the tool's answer quoted when the tool raised no error flag. The
run says how each row was probed ("edit_block.old_string+new_string: seeded with
write_file, read back with read_file, apply check"); a row no write tool can seed, or
no read tool read back, measured nothing and says why.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

from fidelity._core.errors import UsageError
from fidelity._core.render import safe
from probes.frontend import ParamPath, ToolParam

if TYPE_CHECKING:
    from fidelity._sweep.plan import ProbePlan
    from probes import McpTool
    from probes.frontend import Inventory

__all__ = ["EXPECT", "EditRow", "describe", "edit_rows", "plan_line", "survey_edit"]

#: What the read-back must equal after an edit that applied.
EXPECT = "{payload}{mark}"
#: The replacement: the payload and its mark.
_NEW = "{payload}{mark}"

#: Names of an edit's old text and of its replacement (lower case, without ``_``/``-``),
#: in pairs; an old name pairs with any new name of the same container.
_OLD = frozenset(
    {"old", "oldstring", "oldtext", "oldstr", "oldcontent", "search", "searchtext", "find",
     "findtext", "original", "originaltext", "before"}
)  # fmt: skip
_NEW_NAMES = frozenset(
    {"new", "newstring", "newtext", "newstr", "newcontent", "replace", "replacement",
     "replacewith", "replacetext", "after"}
)  # fmt: skip
#: Names of the content a write tool stores.
_CONTENT = frozenset({"content", "contents", "text", "data", "body", "filecontent", "filetext"})
#: Names that all name a file (an edit's ``file_path`` is a write's ``path``).
_FILE = frozenset({"path", "filepath", "file", "filename", "name", "target", "targetfile", "uri"})
#: How many write tools are tried as the seed, at most.
_WRITES = 3


def _norm(name: object) -> str:
    return str(name).lower().replace("_", "").replace("-", "")


def _role(name: str) -> str:
    """What an argument names: ``file`` for any of the file names, else itself."""
    norm = _norm(name)
    return "file" if norm in _FILE else norm


@dataclass(frozen=True, slots=True, kw_only=True)
class EditRow(ToolParam):
    """An edit-shaped tool's old text (``path``) and replacement (``new``), one row."""

    new: ParamPath

    @property
    def name(self) -> str:
        """``edit_block.old_string+new_string`` (``edit_file.edits[0].oldText+newText``)."""
        return f"{self.tool.name}.{self.path}+{self.new.segments[-1]}"


def _edit_pair(params: Sequence[ToolParam]) -> tuple[ToolParam, ToolParam] | None:
    """The first old/new pair among one tool's parameters (the same container)."""
    for old in params:
        if not old.path.segments or _norm(old.path.segments[-1]) not in _OLD:
            continue
        for new in params:
            same = new.path.segments[:-1] == old.path.segments[:-1]
            if same and new.path.segments and _norm(new.path.segments[-1]) in _NEW_NAMES:
                return old, new
    return None


def edit_rows(inv: Inventory) -> Inventory:
    """``inv`` with each edit-shaped tool's old and new parameters made one
    :class:`EditRow` (in the old one's place; the tool's other parameters stay), when a
    tool surveyed beside it can seed its file; without one they stay two parameters,
    each calibrated as any other (an edit tool that echoes its arguments, say)."""
    params = list(inv.params)
    tools = _surveyed_tools(inv.params)
    for tool in dict.fromkeys(p.tool.name for p in inv.surveyed):
        pair = _edit_pair([p for p in inv.surveyed if p.tool.name == tool])
        if pair is None or not _writes(pair[0].tool, tools):
            continue
        old, new = pair
        at = params.index(old)
        params[at] = EditRow(tool=old.tool, path=old.path, new=new.path)
        params.remove(new)
    return dataclasses.replace(inv, params=tuple(params))


# -- the seed and the read-back -------------------------------------------------------


def _surveyed_tools(rows: Sequence[object]) -> list[McpTool]:
    """The tools with a parameter to survey (neither left out nor refused), in order."""
    params = [p for p in rows if isinstance(p, ToolParam) and not p.skipped]
    return list({p.tool.name: p.tool for p in params}.values())


def _content_key(tool: McpTool) -> str | None:
    """The top-level string parameter of ``tool`` that holds a file's content."""
    props = tool.input_schema.get("properties")
    for key, schema in props.items() if isinstance(props, Mapping) else ():
        text = isinstance(schema, Mapping) and schema.get("type") in ("string", None)
        if _norm(key) in _CONTENT and text and isinstance(key, str):
            return key
    return None


def _writes(edit: McpTool, tools: Sequence[McpTool]) -> list[tuple[McpTool, str]]:
    """The tools that may seed ``edit``'s file: not read-only, not the edit itself, with
    a content parameter and an argument naming what one of the edit's names (a file)."""
    names = {_role(k) for k in edit.properties}
    found = []
    for tool in tools:
        key = _content_key(tool)
        if tool.name == edit.name or tool.read_only or key is None:
            continue
        if any(_role(k) in names for k in tool.properties if k != key):
            found.append((tool, key))
    # A tool named for writing first (write_file before append_file, say).
    found.sort(key=lambda w: 0 if "write" in w[0].name.lower() else 1)
    return found[:_WRITES]


def _set(args: dict[str, Any], path: ParamPath, value: str) -> dict[str, Any]:
    """``args`` with ``value`` at ``path`` (the containers along it made as needed)."""
    out: Any = args
    segments = path.segments
    for i, segment in enumerate(segments[:-1]):
        nxt = segments[i + 1]
        if isinstance(out, dict):
            if not isinstance(out.get(segment), (dict, list)):
                out[segment] = [] if isinstance(nxt, int) else {}
            out = out[segment]
        elif isinstance(out, list) and isinstance(segment, int):
            while len(out) <= segment:
                out.append([] if isinstance(nxt, int) else {})
            out = out[segment]
    last = segments[-1]
    if isinstance(out, list) and isinstance(last, int):
        while len(out) <= last:
            out.append("")
    out[last] = value
    return args


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


class _Run(Protocol):
    """What the apply check reads of a row's run (alltools' ``ParamRun``)."""

    @property
    def card(self) -> object: ...
    @property
    def fatal(self) -> bool: ...
    @property
    def requests(self) -> int: ...
    @property
    def skipped(self) -> str: ...


Run = TypeVar("Run", bound=_Run)

#: Makes a tool's arguments as the other parameters get theirs (alltools' ``_arguments``).
Arguments = Callable[[ToolParam, "Mapping[str, Any] | None", Mapping[str, Any]], dict[str, Any]]


def _seed_args(
    write: McpTool, key: str, edit_args: Mapping[str, Any], arguments: Arguments, defaults: Any
) -> dict[str, Any]:
    """The write's arguments: the payload as content, the edit's file names' values."""
    made = arguments(ToolParam(tool=write, path=ParamPath((key,))), None, defaults)
    by_role = {_role(k): v for k, v in edit_args.items() if isinstance(v, str)}
    out = {k: by_role.get(_role(k), v) for k, v in made.items() if k != key}
    for k in write.properties:
        if k != key and k not in out and _role(k) in by_role and _role(k) == "file":
            out[k] = by_role[_role(k)]
    return {**out, key: "{payload}"}


def describe(row: EditRow, write: str, read: str) -> str:
    """``edit_block.old_string+new_string: seeded with write_file, read back with
    read_file, apply check``."""
    return f"{safe(row.name)}: seeded with {safe(write)}, read back with {safe(read)}, apply check"


def survey_edit(
    plan: ProbePlan,
    row: EditRow,
    pinned: Mapping[str, Any] | None,
    share: int | None,
    *,
    tools: Sequence[McpTool],
    readers: Sequence[McpTool],
    arguments: Arguments,
    subplan: Callable[[ProbePlan, ToolParam, dict[str, Any], int | None], ProbePlan],
    survey: Callable[[ProbePlan], Run],
    skip: Callable[[str, int], Run],
    least: int,
) -> Run:
    """Probe ``row`` with the apply check (seed, edit, read back), trying the write
    tools and their read tools in turn until one calibrates; never raises for the
    row's own failures (they are its run: ``survey``'s, or ``skip(why, requests)``).
    An attempt is made only while ``share`` holds ``least`` of its steps (the calibration
    calls and one payload, each a seed, the edit and a read)."""
    from fidelity._sweep.pairing import read_pairs

    defaults = dict(plan.defaults)
    try:
        base = arguments(row, pinned, defaults)
    except UsageError as exc:
        return skip(f"not planned: {safe(str(exc))}", 0)
    edit_args = _set(_set(_copy(base), row.path, "{payload}"), row.new, _NEW)
    writes = _writes(row.tool, tools)
    if not writes:
        return skip(
            f"not probed: {safe(row.tool.name)} is edit-shaped, but no tool of this server "
            "writes a file it could edit (a write tool with a content parameter and the "
            "same file argument) to seed it",
            0,
        )
    tried: list[str] = []
    spent = 0
    for write, key in writes:
        try:
            seed = _seed_args(write, key, edit_args, arguments, defaults)
        except UsageError as exc:
            tried.append(f"{safe(write.name)}: {safe(str(exc))}")
            continue
        pairs, why = read_pairs(write, key, seed, readers)
        if not pairs:
            tried.append(f"{safe(write.name)}: {why}")
        for pair in pairs:
            left = None if share is None else share - spent
            sub = dataclasses.replace(
                subplan(plan, row, edit_args, left),
                before=((write.name, seed),),
                read_tool=pair.tool,
                read_args=pair.args,
                expect=EXPECT,
            )
            # Each calibration call and payload costs a seed, the edit and a read here.
            if left is not None and left < least * sub.calls_per_payload:
                tried.append(f"{safe(pair.tool)}: not tried within --max-requests")
                break
            attempt = survey(sub)
            spent += attempt.requests
            if attempt.card is not None or attempt.fatal:
                done: Run = dataclasses.replace(
                    cast("Any", attempt),
                    paired=describe(row, write.name, pair.tool),
                    requests=spent,
                )
                return done
            reason = attempt.skipped.removeprefix("no read-back: ")
            tried.append(f"seeded with {safe(write.name)}, read with {safe(pair.tool)}: {reason}")
    why = "; ".join(tried)
    return skip(f"no read-back: the apply check found no seed and read that work ({why})", spent)


def plan_line(row: EditRow, rows: Sequence[object]) -> str:
    """How ``row`` will be probed, for ``--dry-run`` (no call made: the read tools are
    the candidates, the first that proves itself is kept)."""
    from fidelity._sweep.pairing import read_pairs

    tools = _surveyed_tools(rows)
    writes = _writes(row.tool, tools)
    if not writes:
        return "apply check: no write tool to seed its file (not probed)"
    write, key = writes[0]
    names = {k: "" for k in write.properties if k != key}
    pairs, _ = read_pairs(write, key, names, [t for t in tools if t.read_only])
    reads = ", ".join(safe(p.tool) for p in pairs) or "none found"
    return f"apply check: seeded with {safe(write.name)}, read back with the first of: {reads}"
