"""Paths into a tool's arguments or a JSON document: ``message``, ``note.body``,
``edits[0].oldText``, ``entities[0].observations[0]``.

A path is a sequence of object keys (``name``, or ``["a key.with dots"]``) and list
indexes (``[0]``). Read paths also take a dotted number (``items.0.body``), which
indexes a list where there is one. :func:`put` writes a value at a path, creating
the containers that are missing; :func:`get` reads one.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fidelity._core.errors import UsageError
from fidelity._core.render import safe

__all__ = ["NOT_FOUND", "ParamPath", "get", "put"]

_KEY = re.compile(r"[^.\[\]\"]+")
_INDEX = re.compile(r"\[(\d{1,6})\]")
_QUOTED = re.compile(r'\[("(?:[^"\\]|\\.)*")\]')
_BLOCK_UNSAFE = re.compile(r"[^A-Za-z0-9_.:/@+ -]")

#: What :func:`get` returns when the path leads nowhere.
NOT_FOUND: Any = object()


@dataclass(frozen=True, slots=True)
class ParamPath:
    """A parsed path: object keys (``str``) and list indexes (``int``)."""

    segments: tuple[str | int, ...]

    @classmethod
    def parse(cls, text: str, *, what: str = "param") -> ParamPath:
        """Parse ``text``; a malformed path is a ``UsageError`` that shows the forms."""
        if not isinstance(text, str) or not text:
            raise UsageError(
                f"{what}={text!r} must be a path such as 'message' or 'edits[0].oldText'."
            )
        segments: list[str | int] = []
        pos = 0
        while pos < len(text):
            dotted = pos > 0 and text[pos] == "."
            at = pos + 1 if dotted else pos
            key = _KEY.match(text, at) if (dotted or pos == 0) else None
            if key is not None:
                segments.append(key.group(0))
                pos = key.end()
                continue
            index = _INDEX.match(text, pos)
            if index is not None and not dotted:
                segments.append(int(index.group(1)))
                pos = index.end()
                continue
            quoted = _QUOTED.match(text, pos)
            if quoted is not None and not dotted:
                segments.append(json.loads(quoted.group(1)))
                pos = quoted.end()
                continue
            raise UsageError(
                f"{what}={safe(text)!r} is not a path: write keys with dots and list "
                "indexes in brackets, such as 'note.body' or 'edits[0].oldText' "
                '(a key holding dots or brackets as ["the key"]).'
            )
        return cls(tuple(segments))

    def __str__(self) -> str:
        out = []
        for i, segment in enumerate(self.segments):
            if isinstance(segment, int):
                out.append(f"[{segment}]")
            elif _KEY.fullmatch(segment):
                out.append(segment if i == 0 else f".{segment}")
            else:
                out.append(f"[{json.dumps(segment)}]")
        return "".join(out)

    @property
    def top(self) -> str | int:
        """The first segment (for a tool's arguments, the argument's name)."""
        return self.segments[0]

    @property
    def block_name(self) -> str:
        """The path in the characters a card block name allows (``edits.0.oldText``)."""
        dotted = ".".join(str(s) for s in self.segments)
        return _BLOCK_UNSAFE.sub("-", dotted)

    def startswith(self, other: ParamPath) -> bool:
        """True when ``other`` is this path or leads to it."""
        return self.segments[: len(other.segments)] == other.segments


def get(document: object, path: ParamPath) -> Any:
    """The value at ``path`` in ``document``, or :data:`NOT_FOUND`.

    A key that is a whole number also indexes a list (``items.0``).
    """
    node = document
    for segment in path.segments:
        if isinstance(node, dict) and isinstance(segment, str):
            node = node.get(segment, NOT_FOUND)
        elif isinstance(node, list):
            index = segment if isinstance(segment, int) else _as_index(segment)
            node = node[index] if index is not None and 0 <= index < len(node) else NOT_FOUND
        else:
            return NOT_FOUND
        if node is NOT_FOUND:
            return NOT_FOUND
    return node


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
