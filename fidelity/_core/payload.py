"""The payload record: one labelled value pushed through a chain."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Payload"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Payload:
    """One payload: a stable ``id`` (``family/name``), its ``text`` and ``families``.

    ``families`` are hazard family ids (``fidelity.FAMILIES``) that the text
    exercises; the first one is the family the payload is filed under.
    """

    id: str
    text: str
    families: tuple[str, ...]
