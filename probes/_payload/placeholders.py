"""Placeholders in a probe's argument templates and URLs: ``{payload}``, ``{n}``,
``{run}``, ``{mark}``.

Inside a string, ``{n}`` becomes a number unique to the payload within the run (1, 2,
3... in the order the payloads are sent, :func:`payload_numbers`; the calibration that
locates the read-back sends its values with :data:`CALIBRATION_NUMBERS`: 0, then
numbers no payload takes), ``{run}`` an id unique to the run, ``{mark}`` a plain-ASCII
token unique to the payload (letters and digits only, see :func:`mark_of`: an edit that
must apply puts it into the file, and the read-back must hold it), and, in an HTTP
``read_url``, ``{id}`` the id the write response returned. ``{{`` and ``}}`` are literal
braces. In a JSON template a string value that is exactly ``"{payload}"`` becomes the
payload itself (see :mod:`probes._mcp.template`); ``{payload}`` inside a longer string
(such as ``"{payload}{mark}"``) is taken only with an ``expect`` template, which says
what the read-back must then equal.

Strings are parsed once, when the template is built: an unknown name or a stray
brace is a ``UsageError`` naming the placeholders, before anything is sent.
"""

from __future__ import annotations

import itertools
import re
import secrets
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from urllib.parse import quote

from fidelity._core.errors import UsageError
from fidelity._core.render import safe

__all__ = [
    "CALIBRATION_NUMBERS",
    "PAYLOAD",
    "Filled",
    "TextTemplate",
    "mark_of",
    "new_run_id",
    "path_segment",
    "payload_numbers",
]

#: The string value that is replaced by the payload in a JSON template.
PAYLOAD = "{payload}"
_TOKEN = re.compile(r"\{\{|\}\}|\{([^{}]*)\}|[{}]")


#: The ``{n}`` of each calibration value, in the order they are sent: 0 for the first
#: (a setup that prepares a resource per payload prepares ``0`` for it), then numbers
#: no payload takes, so that a key holding ``{n}`` is told apart across the replies and
#: each value writes its own entry, while the payloads keep 1, 2, 3...
CALIBRATION_NUMBERS = (0, 1_000_001, 1_000_002)


def payload_numbers() -> Iterator[int]:
    """The ``{n}`` of the payloads, in the order they are sent: 1, 2, 3... (never a
    number of :data:`CALIBRATION_NUMBERS`)."""
    return (n for n in itertools.count(1) if n not in CALIBRATION_NUMBERS)


def new_run_id() -> str:
    """An id for one run: 8 lowercase hex digits (the value of ``{run}``)."""
    return secrets.token_hex(4)


def mark_of(run: str, n: int) -> str:
    """The value of ``{mark}`` for payload ``n`` of run ``run``: lowercase ASCII letters
    and digits only (``mk`` + the run id + ``x`` + n + ``k``), which no normalization of
    text rewrites, unique in the run and not a prefix of another payload's mark."""
    return f"mk{run}x{n}k"


@dataclass(frozen=True, slots=True, kw_only=True)
class Filled:
    """The values placeholders take for one payload."""

    payload: str
    n: int
    run: str
    id: str | None = None

    @property
    def mark(self) -> str:
        """The payload's ``{mark}`` (see :func:`mark_of`)."""
        return mark_of(self.run, self.n)

    def value(self, name: str) -> str:
        """The text of placeholder ``name`` (``payload`` only where a whole value is)."""
        if name == "n":
            return str(self.n)
        if name == "run":
            return self.run
        if name == "mark":
            return self.mark
        if name == "id" and self.id is not None:
            return self.id
        if name == "payload":
            return self.payload
        raise KeyError(name)


@dataclass(frozen=True, slots=True)
class TextTemplate:
    """A string with placeholders, parsed: literal parts and placeholder names in turn."""

    parts: tuple[tuple[str, str], ...]  # ("text", literal) or ("name", placeholder)

    @classmethod
    def parse(cls, text: str, *, allowed: tuple[str, ...], where: str) -> TextTemplate:
        """Parse ``text``; a placeholder not in ``allowed`` or a stray brace is a
        ``UsageError`` that names ``where`` the string is."""
        parts: list[tuple[str, str]] = []
        literal: list[str] = []
        pos = 0
        for match in _TOKEN.finditer(text):
            literal.append(text[pos : match.start()])
            pos = match.end()
            token = match.group(0)
            if token in ("{{", "}}"):
                literal.append(token[0])
                continue
            name = match.group(1)
            if name is None:
                raise UsageError(
                    f"{where} has a lone {token!r} in {safe(text)!r}; write a literal brace "
                    "as {{ or }}."
                )
            if name not in allowed:
                shown = ", ".join("{" + a + "}" for a in allowed)
                raise UsageError(
                    f"{where} holds the unknown placeholder {{{safe(name)}}}; the placeholders "
                    f"there are {shown} (a literal brace is written {{{{)."
                )
            parts.append(("text", "".join(literal)))
            literal = []
            parts.append(("name", name))
        literal.append(text[pos:])
        parts.append(("text", "".join(literal)))
        return cls(tuple(p for p in parts if p != ("text", "")))

    @property
    def names(self) -> frozenset[str]:
        """The placeholders it holds."""
        return frozenset(value for kind, value in self.parts if kind == "name")

    @property
    def literal(self) -> str | None:
        """The text itself when it holds no placeholder (braces unescaped), else ``None``."""
        if self.names:
            return None
        return "".join(value for _, value in self.parts)

    def fill(self, values: Filled | Mapping[str, str]) -> str:
        """The text with every placeholder replaced."""
        get = values.value if isinstance(values, Filled) else values.__getitem__
        return "".join(value if kind == "text" else get(value) for kind, value in self.parts)


def path_segment(value: str) -> str:
    """``value`` percent-encoded as one URL path segment: every reserved character
    encoded (``/`` too), and the dots of ``.`` and ``..`` as ``%2E``, which would
    otherwise be dot segments that climb the path (``/items/../view`` is ``/view``)."""
    encoded = quote(value, safe="")
    return encoded.replace(".", "%2E") if encoded in (".", "..") else encoded
