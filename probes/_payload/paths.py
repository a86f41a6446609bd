"""Paths into a tool's arguments or a JSON document, one syntax for MCP and HTTP:
``message``, ``note.body``, ``edits[0].oldText``, ``items.0.body``,
``files["/srv/notes/a.txt"].content``, ``entries[-1].text``, ``*.content``,
``notes["f{n}.txt"].body``.

A path is a sequence of steps:

- an object key: ``name`` (letters, digits and any character but ``. [ ] " *``), or
  quoted as a JSON string, ``["a key.with/dots and spaces"]``;
- a list index: ``[0]``, or a dotted number ``items.0`` (which also reads the key
  ``"0"`` of an object); reads also take negative indexes, ``[-1]`` the last item;
- reads only: one wildcard step ``*`` (or ``[*]``): the first item or member, in
  document order, for which the rest of the path leads somewhere (for replies keyed by
  something the user cannot know);
- reads only: a key holding placeholders, ``["f{n}.txt"]`` or ``note_{run}``, filled
  per payload (``{n}``, ``{run}``, ``{id}``; ``{{`` is a literal brace).

:func:`put` writes a value at a path, creating the containers that are missing;
:func:`get` reads one (``values`` fills the placeholders).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from fidelity._core.errors import UsageError
from fidelity._core.render import safe
from probes._payload.placeholders import Filled, TextTemplate

__all__ = ["NOT_FOUND", "WILD", "KeyTemplate", "ParamPath", "get", "put"]

_KEY = re.compile(r"[^.\[\]\"*]+")
_INDEX = re.compile(r"\[(-?\d{1,6})\]")
_QUOTED = re.compile(r'\[("(?:[^"\\]|\\.)*")\]')
_WILD = re.compile(r"\*|\[\*\]")
_BLOCK_UNSAFE = re.compile(r"[^A-Za-z0-9_.:/@+ -]")
_PLACEHOLDERS = ("n", "run", "id")
_FORMS = (
    "write keys with dots and list indexes in brackets, such as 'note.body' or "
    "'edits[0].oldText' (a key holding dots, slashes or spaces as [\"the key\"], "
    "the last item as [-1], any member as *)"
)

#: What :func:`get` returns when the path leads nowhere.
NOT_FOUND: Any = object()


class _Wild:
    """The wildcard step: the first member for which the rest of the path leads somewhere."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "WILD"


#: The wildcard step of a read path (``*``).
WILD: Any = _Wild()


@dataclass(frozen=True, slots=True)
class KeyTemplate:
    """An object key holding placeholders (``f{n}.txt``), filled per payload."""

    template: TextTemplate
    text: str

    def fill(self, values: Filled | Mapping[str, str]) -> str:
        """The key for one payload."""
        return self.template.fill(values)


Step = str | int | KeyTemplate | _Wild


def _key(text: str, what: str) -> str | KeyTemplate:
    if "{" not in text and "}" not in text:
        return text
    template = TextTemplate.parse(text, allowed=_PLACEHOLDERS, where=what)
    literal = template.literal
    return literal if literal is not None else KeyTemplate(template, text)


@dataclass(frozen=True, slots=True)
class ParamPath:
    """A parsed path: object keys (``str``), list indexes (``int``), keys holding
    placeholders (:class:`KeyTemplate`) and the wildcard (:data:`WILD`)."""

    segments: tuple[Any, ...]

    @classmethod
    def parse(cls, text: str, *, what: str = "param") -> ParamPath:
        """Parse ``text``; a malformed path is a ``UsageError`` that shows the forms."""
        if not isinstance(text, str) or not text:
            raise UsageError(
                f"{what}={text!r} must be a path such as 'message' or 'edits[0].oldText'."
            )
        segments: list[Step] = []
        pos = 0
        while pos < len(text):
            dotted = pos > 0 and text[pos] == "."
            at = pos + 1 if dotted else pos
            wild = _WILD.match(text, at)
            if wild is not None and (
                (wild.group(0) == "*" and (dotted or pos == 0))
                or (wild.group(0) == "[*]" and not dotted)
            ):
                segments.append(WILD)
                pos = wild.end()
                continue
            key = _KEY.match(text, at) if (dotted or pos == 0) else None
            if key is not None:
                segments.append(_key(key.group(0), what))
                pos = key.end()
                continue
            index = _INDEX.match(text, pos)
            if index is not None and not dotted:
                segments.append(int(index.group(1)))
                pos = index.end()
                continue
            quoted = _QUOTED.match(text, pos)
            if quoted is not None and not dotted:
                segments.append(_key(json.loads(quoted.group(1)), what))
                pos = quoted.end()
                continue
            raise UsageError(f"{what}={safe(text)!r} is not a path: {_FORMS}.")
        return cls(tuple(segments))

    def __str__(self) -> str:
        out = []
        for i, segment in enumerate(self.segments):
            if isinstance(segment, int):
                out.append(f"[{segment}]")
            elif segment is WILD:
                out.append("*" if i == 0 else ".*")
            else:
                key = segment.text if isinstance(segment, KeyTemplate) else segment
                if _KEY.fullmatch(key) and (isinstance(segment, KeyTemplate) or "{" not in key):
                    out.append(key if i == 0 else f".{key}")
                else:
                    if isinstance(segment, str):
                        key = key.replace("{", "{{").replace("}", "}}")
                    out.append(f"[{json.dumps(key, ensure_ascii=False)}]")
        return "".join(out)

    @property
    def top(self) -> Any:
        """The first segment (for a tool's arguments, the argument's name)."""
        return self.segments[0]

    @property
    def block_name(self) -> str:
        """The path in the characters a card block name allows (``edits.0.oldText``)."""
        dotted = ".".join(
            s.text if isinstance(s, KeyTemplate) else "*" if s is WILD else str(s)
            for s in self.segments
        )
        return _BLOCK_UNSAFE.sub("-", dotted)

    @property
    def writable(self) -> bool:
        """True when :func:`put` can write at it: no wildcard, placeholder or negative index."""
        return all(isinstance(s, str) or (isinstance(s, int) and s >= 0) for s in self.segments)

    @property
    def placeholders(self) -> bool:
        """True when a key holds placeholders (reads need the payload's values)."""
        return any(isinstance(s, KeyTemplate) for s in self.segments)

    def fill(self, values: Filled | Mapping[str, str]) -> ParamPath:
        """The path with every key that holds placeholders filled."""
        return ParamPath(
            tuple(s.fill(values) if isinstance(s, KeyTemplate) else s for s in self.segments)
        )

    def startswith(self, other: ParamPath) -> bool:
        """True when ``other`` is this path or leads to it."""
        return self.segments[: len(other.segments)] == other.segments


def get(document: object, path: ParamPath, values: Filled | Mapping[str, str] | None = None) -> Any:
    """The value at ``path`` in ``document``, or :data:`NOT_FOUND`.

    A key that is a whole number also indexes a list (``items.0``), an index also reads
    the key of that number in an object; a negative index counts from the end. The
    wildcard takes the first member for which the rest of the path leads somewhere.
    Keys with placeholders are filled from ``values`` (without, they lead nowhere).
    """
    return _get(document, path.segments, values, [0])


def _get(node: object, steps: tuple[Any, ...], values: Any, budget: list[int]) -> Any:
    for depth, segment in enumerate(steps):
        budget[0] += 1
        if budget[0] > _MAX_STEPS:
            return NOT_FOUND
        if segment is WILD:
            members = node.values() if isinstance(node, dict) else node
            if not isinstance(members, (list, type({}.values()))):
                return NOT_FOUND
            for member in members:
                found = _get(member, steps[depth + 1 :], values, budget)
                if found is not NOT_FOUND:
                    return found
            return NOT_FOUND
        if isinstance(segment, KeyTemplate):
            if values is None:
                return NOT_FOUND
            node = _step(node, segment.fill(values))
        else:
            node = _step(node, segment)
        if node is NOT_FOUND:
            return NOT_FOUND
    return node


def _step(node: object, segment: str | int) -> Any:
    if isinstance(node, dict):
        key = segment if isinstance(segment, str) else str(segment)
        return node.get(key, NOT_FOUND)
    if isinstance(node, list):
        index = segment if isinstance(segment, int) else _as_index(segment)
        if index is None or not -len(node) <= index < len(node):
            return NOT_FOUND
        return node[index]
    return NOT_FOUND


_MAX_STEPS = 200_000


def _as_index(segment: str) -> int | None:
    return int(segment) if segment.isdigit() else None


def put(
    document: dict[str, Any],
    path: ParamPath,
    value: object,
    *,
    where: str = "args",
    make: Callable[[ParamPath], dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A copy of ``document`` with ``value`` at ``path``.

    Containers along the path come from ``document`` or are created: an object for a
    key, a list for an index (only ``[0]`` of a missing or empty list, or the index
    just past the end of a list). ``make(path)`` gives the content of an object created
    at ``path`` (e.g. its other required keys). A container of the wrong type is a
    ``UsageError`` that names ``where`` the document came from.
    """
    if not isinstance(path.top, str):
        raise UsageError(f"the path {safe(str(path))!r} must start with an argument name.")
    if not path.writable:
        raise UsageError(
            f"the path {safe(str(path))!r} cannot be written: a wildcard, a placeholder or "
            "a negative index only reads; name each key and index from 0."
        )
    out = copy.deepcopy(document)
    node: Any = out
    for depth, segment in enumerate(path.segments):
        last = depth == len(path.segments) - 1
        here = ParamPath(path.segments[: depth + 1])
        following = None if last else path.segments[depth + 1]

        def fresh(following: str | int | None = following, here: ParamPath = here) -> Any:
            if following is None:
                return value
            if isinstance(following, int):
                return []
            return dict(make(here)) if make is not None else {}

        if isinstance(segment, str):
            if not isinstance(node, dict):
                raise _wrong(where, path, depth, "an object", node)
            if last:
                node[segment] = value
            elif segment not in node:
                node[segment] = fresh()
            node = node[segment]
        else:
            if not isinstance(node, list):
                raise _wrong(where, path, depth, "a list", node)
            if segment > len(node):
                at = safe(str(ParamPath(path.segments[:depth])))
                raise UsageError(
                    f"{where} has {len(node)} item(s) at {at}, so the path "
                    f"{safe(str(path))!r} cannot reach [{segment}]; give the list in full, "
                    "or use the next index."
                )
            if segment == len(node):
                node.append(fresh())
            elif last:
                node[segment] = value
            node = node[segment]
    return out


def _wrong(where: str, path: ParamPath, depth: int, wanted: str, found: object) -> UsageError:
    at = str(ParamPath(path.segments[:depth])) if depth else "the top"
    kinds: dict[type, str] = {dict: "an object", list: "a list", str: "a string"}
    kind = kinds.get(type(found), type(found).__name__)
    return UsageError(
        f"the path {safe(str(path))!r} needs {wanted} at {safe(at)}, but {where} has {kind} there."
    )
