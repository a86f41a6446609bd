"""``Transformation``: one named rewrite, and where it happened on each side."""

from __future__ import annotations

from dataclasses import dataclass

from fidelity._core.records import fast_init

__all__ = ["Transformation"]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Transformation:
    """One named rewrite: ``kind`` (a ``KINDS`` id), ``detail``, and where it happened.

    ``sent``/``received`` are the segments on each side; offsets are in code points
    (``*_start``/``*_end``) and in UTF-8 bytes (``*_byte_start``/``*_byte_end``).
    When one segment holds two rewrites (a quote straightened and a letter folded in
    the same word), each is a transformation over the same segments, in the order
    they replay. For a received value that is not text (``type.coerced``),
    ``received`` is its ``repr``.
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
