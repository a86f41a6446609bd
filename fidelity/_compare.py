"""compare(sent, received): the public records. (Engine under construction.)"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from fidelity._errors import FidelityError
from fidelity._render import safe
from fidelity._text import to_utf8

__all__ = ["Comparison", "Transformation", "assert_faithful", "compare"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Transformation:
    """One named rewrite: ``kind`` (a ``KINDS`` id), ``detail``, and where it happened.

    ``sent``/``received`` are the segments on each side; offsets are in code points
    (``*_start``/``*_end``) and in UTF-8 bytes (``*_byte_start``/``*_byte_end``).
    """

    kind: str
    detail: str = ""
    sent: str
    received: str
    sent_start: int
    sent_end: int
    received_start: int
    received_end: int
    sent_byte_start: int
    sent_byte_end: int
    received_byte_start: int
    received_byte_end: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Comparison:
    """The result of comparing a sent value with the value that arrived."""

    sent: str | bytes
    received: object
    faithful: bool
    transformations: tuple[Transformation, ...]
    explained: bool

    @property
    def kinds(self) -> frozenset[str]:
        """The kind ids of all transformations."""
        return frozenset(t.kind for t in self.transformations)

    def render(self) -> str:
        """A terminal-safe, human-readable account of the differences."""
        if self.faithful:
            return "faithful"
        lines = [f"{t.kind}: {safe(t.sent)!s} -> {safe(t.received)!s}" for t in self.transformations]
        return "\n".join(lines)


def compare(sent: str | bytes, received: object) -> Comparison:
    """Compare ``sent`` with ``received`` and name every difference."""
    sb = sent if isinstance(sent, bytes) else to_utf8(sent)
    if isinstance(received, (str, bytes)):
        rb = received if isinstance(received, bytes) else to_utf8(received)
        if sb == rb:
            return Comparison(
                sent=sent, received=received, faithful=True, transformations=(), explained=True
            )
    s = sb.decode("utf-8", "surrogatepass")
    r = received.decode("utf-8", "replace") if isinstance(received, bytes) else str(received)
    t = Transformation(
        kind="unknown" if isinstance(received, (str, bytes)) else "type.coerced",
        sent=s,
        received=r,
        sent_start=0,
        sent_end=len(s),
        received_start=0,
        received_end=len(r),
        sent_byte_start=0,
        sent_byte_end=len(sb),
        received_byte_start=0,
        received_byte_end=len(to_utf8(r)),
    )
    return Comparison(
        sent=sent, received=received, faithful=False, transformations=(t,), explained=False
    )


def assert_faithful(sent: str | bytes, received: object, allow: Iterable[str] = ()) -> None:
    """Raise ``FidelityError`` unless every kind found is in ``allow``."""
    c = compare(sent, received)
    if not c.kinds <= frozenset(allow):
        raise FidelityError(c.render(), c)
