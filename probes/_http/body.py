"""An HTTP request's JSON body: the body template, the payload placed in it, the wire form.

``body`` (``--body JSON``) is a JSON object with the placeholders of an argument
template (a whole ``"{payload}"``, ``{n}`` and ``{run}`` inside strings); ``send
json:PATH`` places the payload at ``PATH`` inside it, creating the objects that are
missing. :func:`json_bytes` writes the body as UTF-8 with every lone surrogate as a
``\\udXXX`` escape, as ``JSON.stringify`` (and so the TypeScript clients) do, so the
server's answer to such a value is measured instead of the client refusing it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from fidelity._core.errors import UsageError
from probes._mcp.template import ArgumentTemplate
from probes._payload.placeholders import Filled

__all__ = ["body_template", "json_body", "json_bytes", "place"]

_LONE = re.compile("[\ud800-\udfff]")
_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")


def json_bytes(document: object) -> bytes:
    """``document`` as JSON in UTF-8, a lone surrogate as its ``\\udXXX`` escape.

    A surrogate code point can only stand inside a JSON string, where its escape is the
    value itself, so the text stays the document it was. A high surrogate followed by a
    low one has no JSON form apart from the character the pair makes, so it is a
    ``ValueError`` (the client's refusal), never sent as something else.
    """
    text = json.dumps(document, ensure_ascii=False, allow_nan=False)
    if _PAIR.search(text):
        raise ValueError(
            "a high surrogate followed by a low one has no JSON form apart from the "
            "character the pair makes"
        )
    return _LONE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text).encode("utf-8")


def body_template(body: Mapping[str, Any] | None) -> ArgumentTemplate | None:
    """Check the ``body`` option (a JSON object with placeholders) and parse it."""
    if body is None:
        return None
    return ArgumentTemplate.of(body, where="body")


def place(document: dict[str, Any], path: str, value: object) -> dict[str, Any]:
    """``document`` with ``value`` at the dotted ``path``, the objects on the way created
    where missing; a digit segment steps into a list the template already holds
    (``tags.0``); a value on the way that is neither is a ``UsageError``."""
    node: Any = document
    keys = path.split(".")
    for key in keys[:-1]:
        if isinstance(node, list) and key.isdigit() and int(key) < len(node):
            child = node[int(key)]
        elif isinstance(node, dict):
            child = node.setdefault(key, {})
        else:
            child = None
        if not isinstance(child, (dict, list)):
            raise UsageError(
                f"body holds {json.dumps(child)[:40]} at {key!r}, where send json:{path} "
                "needs an object to place the payload in."
            )
        node = child
    last = keys[-1]
    if isinstance(node, list) and last.isdigit() and int(last) < len(node):
        node[int(last)] = value
    elif isinstance(node, dict):
        node[last] = value
    else:
        raise UsageError(
            f"body holds a list at {path!r} without an item {last}; put one in the body "
            f"template for send json:{path} to replace."
        )
    return document


def json_body(
    template: ArgumentTemplate | None, path: str | None, text: str, values: Filled
) -> bytes:
    """The JSON body of one payload: the template filled (its ``"{payload}"`` places
    hold ``text``), and ``text`` at ``path`` when the payload goes in the JSON body."""
    document: dict[str, Any] = template.fill(values) if template is not None else {}
    if path is not None:
        place(document, path, text)
    return json_bytes(document)
