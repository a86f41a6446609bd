"""What ended an MCP session, or what a message the SDK could not parse held.

:func:`describe_failure` names the exception that killed a session in one bounded,
terminal-safe sentence; :func:`raw_input` and :func:`top_level_keys` look inside a
line the SDK failed to parse.
"""

from __future__ import annotations

import asyncio
import re

from fidelity._core.render import safe

__all__ = ["MESSAGE_CHARS", "describe_failure", "raw_input", "top_level_keys"]

MESSAGE_CHARS = 300


def raw_input(exc: Exception) -> tuple[str | None, str]:
    """The raw line inside the SDK's parse error, and the parser's reason."""
    errors = getattr(exc, "errors", None)
    if not callable(errors):
        return None, ""
    try:
        first = errors()[0]
    except Exception:  # not a pydantic ValidationError after all
        return None, ""
    raw = first.get("input") if isinstance(first, dict) else None
    reason = str(first.get("msg", "")) if isinstance(first, dict) else ""
    return (raw if isinstance(raw, str) else None), reason


#: A string (one left open runs to the end of the text: matching it costs one pass, where
#: backtracking to every later quote would cost the square of a hostile line's length),
#: or a run of brackets.
_JSON_TOKEN = re.compile(r'"((?:[^"\\]|\\.?)*+)(?:"|\Z)\s*(:)?|([{\[]+)|([}\]]+)', re.DOTALL)


def top_level_keys(raw: str) -> set[str]:
    """The keys of the outermost JSON object in ``raw``, found without recursion.

    For a text too deeply nested to be parsed: tells a JSON-RPC reply (``id`` with
    ``result`` or ``error``) from any other message. Escapes in keys are not decoded.
    """
    keys: set[str] = set()
    depth = 0
    for token in _JSON_TOKEN.finditer(raw):
        key, colon, opening, closing = token.groups()
        if opening:
            depth += len(opening)
        elif closing:
            depth -= len(closing)
        elif depth == 1 and colon:
            keys.add(key)
    return keys


def _leaves(exc: BaseException) -> list[BaseException]:
    """The exceptions inside ``exc``: groups flattened, causes and contexts followed."""
    out: list[BaseException] = []
    stack = [exc]
    seen: set[int] = set()
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, BaseExceptionGroup):
            stack.extend(item.exceptions)
            continue
        out.append(item)
        for linked in (item.__cause__, item.__context__):
            if linked is not None:
                stack.append(linked)
    return out


def _is_cancel(exc: BaseException) -> bool:
    return isinstance(exc, asyncio.CancelledError) or type(exc).__name__ == "Cancelled"


def describe_failure(exc: BaseException) -> tuple[str, str, bool]:
    """Name what killed a session: ``(error_type, message, client_side)``.

    ``client_side`` is true when the SDK in this process failed to encode the value
    (a lone surrogate cannot be written as UTF-8 JSON), i.e. before anything was sent.
    """
    leaves = [e for e in _leaves(exc) if not _is_cancel(e)] or [exc]
    for leaf in leaves:
        text = str(leaf)
        if isinstance(leaf, UnicodeEncodeError) or (
            type(leaf).__name__ == "PydanticSerializationError" and "UnicodeEncodeError" in text
        ):
            return (
                type(leaf).__name__,
                "the MCP client library could not encode the value "
                f"({safe(text[:MESSAGE_CHARS])}); the session died before it was sent",
                True,
            )
    for leaf in leaves:
        if isinstance(leaf, UnicodeDecodeError):
            return (
                "UnicodeDecodeError",
                f"the server wrote bytes that are not UTF-8 ({safe(str(leaf)[:MESSAGE_CHARS])}); "
                "the session died",
                False,
            )
    leaf = leaves[0]
    return type(leaf).__name__, safe(str(leaf)[:MESSAGE_CHARS]) or type(leaf).__name__, False
