"""Where an MCP probe finds the value in a tool result: the ``read`` specification.

``text``
    the first text content block.
``regex:PATTERN``
    the one capture group of PATTERN, searched in each text content block in turn
    (``re.DOTALL``), e.g. ``regex:Echo: (.*)``.
``structured:PATH``
    a path into the structured content (``structured:text``,
    ``structured:items[0].body``, or dotted ``items.0.body``).
``json:PATH``
    the first text content block that is a JSON document holding PATH, then PATH
    (``json:entities[0].observations[0]``): for tools that answer with JSON as text.
``armored:PATH``
    like ``structured:PATH``, but the value there is the armored form
    (``fidelity._core.armor``) of what the tool received: the evidence survives any
    response path, so the observation measures the request path alone.

:func:`locate` derives a specification from the results of the calibration calls:
where every marker came back whole (the whole text, JSON inside the text, the
structured content, or the text between anchors), checked on every result.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fidelity._core.armor import unarmor
from fidelity._core.errors import UsageError
from fidelity._core.render import safe
from fidelity._probe.observation import Direction
from probes._payload.calibration import miss, proven_or_rewritten
from probes._payload.locate import near_value, split_fields, structure_paths, text_patterns
from probes._payload.paths import NOT_FOUND, ParamPath, get
from probes._payload.placeholders import Filled

__all__ = ["READ_FORMS", "Reader", "locate", "parse_read", "result_text"]

READ_FORMS = "'text', 'regex:PATTERN' (one group), 'json:PATH', 'structured:PATH' or 'armored:PATH'"
_NO_PATH = ParamPath(())
#: Text content longer than this is not parsed as JSON by a ``json:`` read.
_MAX_JSON_TEXT = 8 * 1024 * 1024


@dataclass(frozen=True, slots=True, kw_only=True)
class Reader:
    """A parsed ``read`` specification; :meth:`read` applies it to a tool result."""

    spec: str
    mode: str
    pattern: re.Pattern[str] | None = None
    path: ParamPath = _NO_PATH

    @property
    def direction(self) -> Direction:
        """What the value read measures: the request path for armored evidence."""
        return Direction.REQUEST if self.mode == "armored" else Direction.ROUND_TRIP

    def read(self, result: Any, values: Filled | None = None) -> tuple[bool, object, str]:
        """Return ``(found, value, why_not)`` for a ``CallToolResult``; ``values`` fill
        the placeholders of keys in a path (``json:["f{n}.txt"].body``)."""
        if self.mode in ("structured", "armored"):
            value: object = getattr(result, "structured_content", None)
            if value is None:
                return False, None, "the result has no structured content"
            value = get(value, self.path, values)
            if value is NOT_FOUND:
                return False, None, f"the structured content has no {safe(str(self.path))}"
            if self.mode == "armored":
                try:
                    return True, unarmor(value), ""
                except UsageError as exc:
                    return False, None, f"{safe(str(self.path))} is not an armored value ({exc})"
            return True, value, ""
        texts = _texts(result)
        if not texts:
            return False, None, "the result has no text content"
        if self.mode == "text":
            return True, texts[0], ""
        if self.mode == "json":
            parsed = False
            for text in texts:
                document = _json(text)
                if document is NOT_FOUND:
                    continue
                parsed = True
                value = get(document, self.path, values)
                if value is not NOT_FOUND:
                    return True, value, ""
            if not parsed:
                return False, None, "no text content is a JSON document"
            return False, None, f"the JSON text content has no {safe(str(self.path))}"
        assert self.pattern is not None
        for text in texts:
            match = self.pattern.search(text)
            if match is not None:
                return True, match.group(1), ""
        return False, None, f"no text content matches {safe(self.pattern.pattern)}"


def _json(text: str) -> Any:
    if len(text) > _MAX_JSON_TEXT or text.lstrip()[:1] not in ("{", "["):
        return NOT_FOUND
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return NOT_FOUND


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
        raise UsageError(f"read={spec!r} must be a string: {READ_FORMS}.")
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
    for mode in ("structured", "armored", "json"):
        if spec.startswith(f"{mode}:"):
            rest = spec[len(mode) + 1 :]
            try:
                path = ParamPath.parse(rest, what="read path")
            except UsageError:
                what = "needs a path after" if not rest else "has no path it can read after"
                raise UsageError(
                    f"read={safe(spec)!r} {what} {mode}: (keys with dots, list indexes from "
                    f"0 in brackets), e.g. '{mode}:text' or '{mode}:items[0].body'."
                ) from None
            return Reader(spec=spec, mode=mode, path=path)
    raise UsageError(f"read={safe(spec)!r} is not understood; use {READ_FORMS}.")


def locate(
    results: Sequence[Any], markers: Sequence[str], values: Sequence[Filled], *, hint: str | None
) -> tuple[str | None, str]:
    """The read specification that finds ``markers[i]`` in ``results[i]``, every one
    exactly, or ``None`` and why not (see :func:`probes._payload.calibration.miss`).

    Candidates, in order: the first text block is the value (``text``); a text block
    that is JSON holds it (``json:PATH``); the structured content holds it
    (``structured:PATH``); a text block that is not JSON holds it between other text
    (``regex:``). A text block that is JSON is never read with a pattern over its raw
    text. ``hint`` is the key the value was sent under (a path ending there is
    preferred when several hold it).
    """
    texts = [_texts(r) for r in results]
    blocks = min(len(t) for t in texts)
    documents = [[_json(text) for text in t[:blocks]] for t in texts]
    structured = [getattr(r, "structured_content", None) for r in results]

    def candidates_of(k: int) -> list[str]:
        """The reads derived from the first ``k`` replies."""
        found: list[str] = []
        if all(t and t[0] == m for t, m in zip(texts[:k], markers[:k], strict=True)):
            found.append("text")
        for j in range(blocks):
            column = [d[j] for d in documents[:k]]
            if all(d is not NOT_FOUND for d in column):
                paths = structure_paths(column, markers[:k], values[:k], hint=hint)
                found += [f"json:{p}" for p in paths]
        if all(s is not None for s in structured[:k]):
            paths = structure_paths(structured[:k], markers[:k], values[:k], hint=hint)
            found += [f"structured:{p}" for p in paths]
        for j in range(blocks):
            if any(d[j] is not NOT_FOUND for d in documents[:k]):
                continue
            found += [f"regex:{p}" for p in text_patterns([t[j] for t in texts[:k]], markers[:k])]
        return found

    def read(spec: str, i: int) -> tuple[bool, object]:
        found, value, _ = parse_read(spec).read(results[i], values[i])
        return found, value

    spec = proven_or_rewritten(candidates_of, read, markers)
    if spec is not None:
        return spec, ""
    candidates = candidates_of(len(markers))
    return None, miss(
        candidates,
        read,
        markers,
        near=[_near(r, t, m) for r, t, m in zip(results, texts, markers, strict=True)],
        split=_split(documents, structured, markers),
    )


def _near(result: Any, texts: list[str], marker: str) -> str | None:
    for text in texts:
        document = _json(text)
        value = near_value(text if document is NOT_FOUND else document, marker)
        if value is not None:
            return value
    structured = getattr(result, "structured_content", None)
    return near_value(structured, marker) if structured is not None else None


def _split(
    documents: list[list[Any]], structured: list[Any], markers: Sequence[str]
) -> tuple[str, ...]:
    """Where the value with a line break came back split across fields, if it did."""
    last = len(markers) - 1
    for document in [*documents[last], structured[last]]:
        if document is not NOT_FOUND and document is not None:
            where = split_fields(document, markers[last])
            if where:
                return where
    return ()


def no_text(result: Any) -> str:
    """What a result without text content holds instead (its content items' types)."""
    kinds = [safe(str(getattr(item, "type", "?")))[:40] for item in result.content or ()][:5]
    structured = " and structured content" if result.structured_content is not None else ""
    return f"no text content, only {', '.join(kinds) or 'nothing'}{structured}"
