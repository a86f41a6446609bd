"""One finding: a region of the two texts and the kinds that explain it (none: unknown)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Finding", "bom_finding", "kind_count", "strip_finding", "unexplained", "whole_finding"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """One explained (or unexplained) region: its kinds in the order they apply."""

    kinds: tuple[tuple[str, str], ...]  # (kind, detail); empty means unknown
    sent_start: int
    sent_end: int
    received_start: int
    received_end: int
    explained: bool


def whole_finding(kind: str, detail: str, a: str, b: str) -> Finding:
    return Finding(
        kinds=((kind, detail),),
        sent_start=0,
        sent_end=len(a),
        received_start=0,
        received_end=len(b),
        explained=True,
    )


def bom_finding(kind: str, s0: int, s1: int, r0: int, r1: int) -> Finding:
    return Finding(
        kinds=((kind, ""),),
        sent_start=s0,
        sent_end=s1,
        received_start=r0,
        received_end=r1,
        explained=True,
    )


def strip_finding(kind: tuple[str, str], s0: int, s1: int, r: int) -> Finding:
    return Finding(
        kinds=(kind,),
        sent_start=s0,
        sent_end=s1,
        received_start=r,
        received_end=r,
        explained=True,
    )


def kind_count(findings: list[Finding]) -> int:
    return len({kind for f in findings for kind, _ in f.kinds})


def unexplained(findings: list[Finding]) -> int:
    """Code points (both sides) that the findings leave unexplained."""
    return sum(
        f.sent_end - f.sent_start + f.received_end - f.received_start
        for f in findings
        if not f.explained
    )
