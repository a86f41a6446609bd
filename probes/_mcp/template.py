"""Argument templates: a tool's arguments with placeholders, filled for each payload.

An :class:`ArgumentTemplate` is a JSON object (the arguments of a tool, a setup step
or a read tool) checked once, when it is built: every string in it is parsed for
placeholders (:mod:`probes._payload.placeholders`), and the places that are exactly
``"{payload}"`` are recorded as paths, and those that hold it inside a longer string
(``"{payload}{mark}"``, the new text of an edit that must apply) apart, as ``embedded``.
:meth:`ArgumentTemplate.fill` makes the arguments of one payload. A :class:`Step` is a
tool called with a template before each payload (``write_file`` of a seed file,
``git_add``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fidelity._core.errors import UsageError
from fidelity._core.render import safe
from probes._payload.paths import NOT_FOUND, ParamPath, get
from probes._payload.placeholders import PAYLOAD, Filled, TextTemplate

__all__ = ["ArgumentTemplate", "Step", "steps_of"]

_IN_STRINGS = ("n", "run", "mark")
_MAX_NODES = 10_000


@dataclass(frozen=True, slots=True, kw_only=True)
class ArgumentTemplate:
    """A JSON object with placeholders; ``source`` is its JSON text, keys in the order
    given; ``payload_paths`` are the ``"{payload}"`` places in that order, ``embedded``
    the strings that hold ``{payload}`` among other text (taken only with an ``expect``
    template: see :meth:`refuse_embedded`); ``where`` names the option in messages."""

    source: str
    payload_paths: tuple[ParamPath, ...]
    uses_n: bool = False
    embedded: tuple[ParamPath, ...] = ()
    where: str = "args"

    @classmethod
    def of(cls, arguments: Mapping[str, Any], *, where: str = "args") -> ArgumentTemplate:
        """Check ``arguments`` (a mapping of JSON values) and build its template."""
        if not isinstance(arguments, Mapping):
            raise UsageError(
                f"{where}={arguments!r} must be a mapping of argument names to values."
            )
        try:
            source = json.dumps(dict(arguments), ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise UsageError(f"{where} must hold JSON values only ({exc}).") from None
        payloads: list[ParamPath] = []
        embedded: list[ParamPath] = []
        names: set[str] = set()
        nodes = 0
        # Depth first, in document order: the stack holds the later siblings reversed.
        todo: list[tuple[object, tuple[str | int, ...]]] = [(json.loads(source), ())]
        while todo:
            node, path = todo.pop()
            nodes += 1
            if nodes > _MAX_NODES:
                raise UsageError(
                    f"{where} is too large to be a template (over {_MAX_NODES} values)."
                )
            if isinstance(node, dict):
                todo.extend(reversed([(v, (*path, k)) for k, v in node.items()]))
            elif isinstance(node, list):
                todo.extend(reversed([(v, (*path, i)) for i, v in enumerate(node)]))
            elif isinstance(node, str):
                if node == PAYLOAD:
                    payloads.append(ParamPath(path))
                    continue
                parsed = TextTemplate.parse(node, allowed=(*_IN_STRINGS, "payload"), where=where)
                if "payload" in parsed.names:
                    embedded.append(ParamPath(path))
                names |= parsed.names
        return cls(
            source=source,
            payload_paths=tuple(payloads),
            uses_n="n" in names,
            embedded=tuple(embedded),
            where=where,
        )

    def refuse_embedded(self) -> None:
        """Refuse ``{payload}`` inside a longer string when no ``expect`` template says
        what the read-back must then equal."""
        if not self.embedded:
            return
        node = get(self.value, self.embedded[0])
        raise UsageError(
            f"{self.where} has {{payload}} inside the string {safe(str(node))!r}; the payload "
            'replaces a whole string value ("{payload}"), since text around it would be '
            "measured as part of it; to send it with other text (an edit's new text "
            '"{payload}{mark}"), say what the read-back must equal with '
            "expect='{payload}{mark}'."
        )

    @property
    def value(self) -> dict[str, Any]:
        """The template as a fresh JSON object, placeholders as written."""
        parsed: dict[str, Any] = json.loads(self.source)
        return parsed

    def has(self, path: ParamPath) -> bool:
        """True when the template sets a value at ``path``."""
        return get(self.value, path) is not NOT_FOUND

    def fill(self, values: Filled) -> dict[str, Any]:
        """The arguments for one payload: every placeholder replaced."""
        filled: dict[str, Any] = _fill(self.value, values)
        return filled

    def to_json(self) -> str:
        """The template as JSON on one line, ASCII only, keys in the order given (for
        records and cards)."""
        return json.dumps(self.value, ensure_ascii=True)


def _fill(node: Any, values: Filled) -> Any:
    if isinstance(node, dict):
        return {k: _fill(v, values) for k, v in node.items()}
    if isinstance(node, list):
        return [_fill(v, values) for v in node]
    if isinstance(node, str):
        if node == PAYLOAD:
            return values.payload
        return TextTemplate.parse(node, allowed=(*_IN_STRINGS, "payload"), where="args").fill(
            values
        )
    return node


@dataclass(frozen=True, slots=True, kw_only=True)
class Step:
    """A tool called with ``arguments`` before each payload (a setup step)."""

    tool: str
    arguments: ArgumentTemplate


def steps_of(before: Sequence[Any] | None) -> tuple[Step, ...]:
    """Check ``before``: a sequence of ``(tool, arguments)`` pairs or :class:`Step`s."""
    if before is None:
        return ()
    if isinstance(before, (str, bytes, Mapping)) or not isinstance(before, Sequence):
        raise UsageError(
            f"before={before!r} must be a list of (tool, arguments) pairs, e.g. "
            "[('git_add', {'repo_path': '/r', 'files': ['f{n}.txt']})]."
        )
    steps = []
    for i, item in enumerate(before, 1):
        if isinstance(item, Step):
            steps.append(item)
            continue
        if (
            not isinstance(item, Sequence)
            or isinstance(item, str)
            or len(item) != 2
            or not isinstance(item[0], str)
            or not item[0]
        ):
            raise UsageError(
                f"before={before!r}: step {i} must be a (tool, arguments) pair with a tool name."
            )
        steps.append(
            Step(tool=item[0], arguments=ArgumentTemplate.of(item[1], where=f"before step {i}"))
        )
    return tuple(steps)
