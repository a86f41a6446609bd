"""Where an MCP probe finds the value in a tool result: the ``read`` specification.

``text``
    the first text content block.
``regex:PATTERN``
    the one capture group of PATTERN, searched in each text content block in turn
    (``re.DOTALL``), e.g. ``regex:Echo: (.*)``.
``structured:PATH``
    a dotted path into the structured content (``structured:text``,
    ``structured:items.0.body``); integers index lists.
``armored:PATH``
    like ``structured:PATH``, but the value there is the armored form
    (``fidelity._core.armor``) of what the tool received: the evidence survives any
    response path, so the observation measures the request path alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from fidelity._core.armor import unarmor
from fidelity._core.errors import UsageError
from fidelity._core.render import safe
from fidelity._probe.observation import Direction

__all__ = ["Reader", "parse_read", "result_text"]

_NOT_FOUND = object()


@dataclass(frozen=True, slots=True, kw_only=True)
class Reader:
    """A parsed ``read`` specification; :meth:`read` applies it to a tool result."""

    spec: str
    mode: str
    pattern: re.Pattern[str] | None = None
    path: tuple[str, ...] = ()

    @property
    def direction(self) -> Direction:
        """What the value read measures: the request path for armored evidence."""
        return Direction.REQUEST if self.mode == "armored" else Direction.ROUND_TRIP

    def read(self, result: Any) -> tuple[bool, object, str]:
        """Return ``(found, value, why_not)`` for a ``CallToolResult``."""
        if self.mode in ("structured", "armored"):
            value: object = getattr(result, "structured_content", None)
            if value is None:
                return False, None, "the result has no structured content"
            for step in self.path:
                value = _step(value, step)
                if value is _NOT_FOUND:
                    return False, None, f"the structured content has no {'.'.join(self.path)}"
            if self.mode == "armored":
                try:
                    return True, unarmor(value), ""
                except UsageError as exc:
                    return False, None, f"{'.'.join(self.path)} is not an armored value ({exc})"
            return True, value, ""
        texts = _texts(result)
        if not texts:
            return False, None, "the result has no text content"
        if self.mode == "text":
            return True, texts[0], ""
        assert self.pattern is not None
        for text in texts:
            match = self.pattern.search(text)
            if match is not None:
                return True, match.group(1), ""
        return False, None, f"no text content matches {safe(self.pattern.pattern)}"


def _step(value: object, step: str) -> object:
    if isinstance(value, dict):
        return value.get(step, _NOT_FOUND)
    if isinstance(value, list) and re.fullmatch(r"-?\d+", step):
        index = int(step)
        return value[index] if -len(value) <= index < len(value) else _NOT_FOUND
    return _NOT_FOUND


def _texts(result: Any) -> list[str]:
    return [
        block.text
        for block in getattr(result, "content", None) or ()
        if getattr(block, "type", None) == "text" and isinstance(getattr(block, "text", None), str)
    ]


def result_text(result: Any, limit: int = 300) -> str:
    """The text content of a result, joined, bounded and terminal-safe (for errors)."""
    text = " ".join(_texts(result))
    if len(text) > limit:
        text = text[:limit] + "..."
    return safe(text)


def parse_read(spec: str) -> Reader:
    """Parse a ``read`` specification, or raise ``UsageError`` saying what is accepted."""
    if not isinstance(spec, str):
        raise UsageError(
            f"read={spec!r} must be a string: 'text', 'regex:PATTERN', 'structured:PATH' "
            "or 'armored:PATH'."
        )
    if spec == "text":
        return Reader(spec=spec, mode="text")
    if spec.startswith("regex:"):
        try:
            pattern = re.compile(spec[len("regex:") :], re.DOTALL)
        except re.error as exc:
            raise UsageError(
                f"read={safe(spec)!r} is not a valid regular expression ({exc})."
            ) from None
        if pattern.groups != 1:
            raise UsageError(
                f"read={safe(spec)!r} must have exactly one capture group around the value, "
                f"e.g. 'regex:Echo: (.*)'; it has {pattern.groups}."
            )
        return Reader(spec=spec, mode="regex", pattern=pattern)
    for mode in ("structured", "armored"):
        if spec.startswith(f"{mode}:"):
            path = tuple(spec[len(mode) + 1 :].split("."))
            if not all(path):
                raise UsageError(f"read={safe(spec)!r} needs a dotted path, e.g. '{mode}:text'.")
            return Reader(spec=spec, mode=mode, path=path)
    raise UsageError(
        f"read={safe(spec)!r} is not understood; use 'text', 'regex:PATTERN' (one group), "
        "'structured:PATH' or 'armored:PATH'."
    )
