"""JUnit XML for CI systems: cards in, XML text out.

A CI system (GitLab, Jenkins, Azure, the GitHub test reporters) reads test results as
JUnit XML. :func:`render_junit` writes one ``testsuite`` per target and one
``testcase`` per :class:`JUnitCase`: a tool parameter of ``fidelity probe``, a client's
run of ``--clients``, a chain x family of ``fidelity survey``. A case's counts (the
statuses of its payloads) are its ``system-out``; a rewrite beyond ``--allow`` is a
``failure`` whose message names the kinds and whose text holds the smallest examples
as code points (``U+0041 U+000D``); a case that broke or measured nothing is an
``error`` with the run's sentence.

Everything written is printable ASCII or escaped by the XML writer: names and
sentences go through :func:`fidelity._core.render.safe` (control, bidi and invisible
characters become ``[U+XXXX NAME]`` badges), and any code point XML 1.0 cannot hold
is written as ``U+XXXX``. The output is deterministic (no timestamps, ``time="0"``),
so the JUnit of one run and of its parts joined again are the same bytes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from xml.etree import ElementTree as ET

from fidelity._core.render import safe
from fidelity._report.card import Card
from fidelity._report.card_records import CardExample, CardObservation, CardRow
from fidelity._report.outcomes import family_key

__all__ = ["JUnitCase", "JUnitSuite", "card_case", "code_points", "family_cases", "render_junit"]

#: Code points of a value shown in a failure's text, at most.
_SHOWN = 40
#: Examples shown per row of a failure.
_EXAMPLES = 2
#: Characters XML 1.0 cannot hold (and the surrogates, which UTF-8 cannot encode).
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


@dataclass(frozen=True, slots=True, kw_only=True)
class JUnitCase:
    """One ``testcase``: its ``name`` (a parameter, or chain x family), the ``counts``
    of its payloads by status, the ``failure`` (message, text) when it rewrote beyond
    ``--allow`` and the ``error`` (message, text) when it broke or measured nothing;
    ``output``, when given, is its ``system-out`` instead of the counts, and
    ``failure_type`` the type of its failure (the error contract's calls)."""

    name: str
    counts: tuple[tuple[str, int], ...] = ()
    failure: tuple[str, str] | None = None
    error: tuple[str, str] | None = None
    output: str | None = None
    failure_type: str = "fidelity.rewrite"


@dataclass(frozen=True, slots=True, kw_only=True)
class JUnitSuite:
    """One ``testsuite``: a target (a server, an endpoint, a chain) and its cases."""

    name: str
    cases: tuple[JUnitCase, ...]


def _xml_text(text: str) -> str:
    """``text`` terminal-safe (line by line) and holding only what XML 1.0 allows."""
    shown = "\n".join(safe(line) for line in text.split("\n"))
    return _NOT_XML.sub(lambda m: f"U+{ord(m.group()):04X}", shown)


def code_points(value: object, limit: int = _SHOWN) -> str:
    """``value`` as code points (``U+0061 U+000D``), the first ``limit`` of them and how
    many more; a value that is not text as its type."""
    if not isinstance(value, str):
        return f"({type(value).__name__})" if value is not None else "(nothing)"
    if not value:
        return "(empty)"
    shown = " ".join(f"U+{ord(c):04X}" for c in value[:limit])
    more = len(value) - limit
    return shown + (f" ... ({more} more)" if more > 0 else "")


def _example_lines(example: CardExample) -> list[str]:
    lines = [f"  {example.payload_id}", f"    sent:     {code_points(example.sent.value())}"]
    if example.received is not None:
        lines.append(f"    received: {code_points(example.received.value())}")
    elif example.error:
        lines.append(
            f"    error:    {safe(example.error.splitlines()[0] if example.error else '')}"
        )
    return lines


def _rewrites(rows: Iterable[CardRow], allow: Iterable[str]) -> tuple[str, str] | None:
    """The failure of ``rows`` whose kinds go beyond ``allow``: the kinds, then for each
    such row its smallest examples as code points; ``None`` when there are none."""
    allowed = frozenset(allow)
    beyond: set[str] = set()
    lines: list[str] = []
    for row in rows:
        kinds = [k for k in row.kinds if k not in allowed]
        if not kinds:
            continue
        beyond.update(kinds)
        lines.append(f"{row.family} ({row.direction}): {', '.join(kinds)}")
        for example in row.examples[:_EXAMPLES]:
            lines += _example_lines(example)
    if not beyond:
        return None
    message = f"rewrites beyond --allow: {', '.join(sorted(beyond))}"
    return message, "\n".join(lines)


def _counts(observations: Iterable[CardObservation]) -> tuple[tuple[str, int], ...]:
    tally: dict[str, int] = {}
    for obs in observations:
        tally[obs.status] = tally.get(obs.status, 0) + 1
    return tuple(sorted(tally.items()))


def card_case(
    card: Card,
    *,
    name: str | None = None,
    rows: Sequence[CardRow] | None = None,
    observations: Sequence[CardObservation] | None = None,
    error: str = "",
) -> JUnitCase:
    """The case of a whole card (one tool parameter): its counts, its rewrites beyond
    the card's allow list, and ``error`` (the run's sentence, when it broke or measured
    nothing). ``rows`` and ``observations`` replace the card's (a client's own run)."""
    seen = card.observations if observations is None else observations
    setup = card.facts.setup
    edit = setup is not None and bool(setup.expect)
    return JUnitCase(
        name=name or card.name,
        counts=_counts(seen),
        failure=_findings(
            _rewrites(card.rows if rows is None else rows, card.facts.allow), seen, edit
        ),
        error=(error.split(";", maxsplit=1)[0].strip(), error) if error else None,
    )


def _findings(
    rewrites: tuple[str, str] | None, seen: Sequence[CardObservation], edit: bool
) -> tuple[str, str] | None:
    """The failure of a case: its rewrites beyond ``--allow``, and the findings no
    ``--allow`` accepts (the run's exit rule: payloads lost among values that came
    back, edits that never applied, silently or refused when ``edit``)."""
    sent = [o for o in seen if not o.client_side]
    arrived = any(o.status in ("preserved", "transformed") for o in sent)
    lost = sum(1 for o in sent if o.status == "lost") if arrived else 0
    never = sum(1 for o in sent if o.status == "rejected" and (o.silent or edit))
    more = [f"{lost} lost"] if lost else []
    more += [f"{never} not applied"] if never else []
    if not more:
        return rewrites
    message, text = rewrites or ("", "")
    said = "; ".join([message, *more] if message else more)
    return said, text or said


def family_cases(card: Card) -> tuple[JUnitCase, ...]:
    """One case per family of ``card`` (a survey's chain x family); a family any of
    whose payloads broke the chain is an error."""
    families = sorted({f for o in card.observations for f in o.families[:1]}, key=family_key)
    cases = []
    for family in families:
        seen = [o for o in card.observations if o.families[:1] == (family,)]
        broken = [o for o in seen if o.status == "broken" and not o.client_side]
        error = None
        if broken:
            first = broken[0].error or broken[0].error_type or "no detail"
            error = (
                f"{len(broken)} of {len(seen)} payloads broke the chain",
                f"first: {first}",
            )
        cases.append(
            JUnitCase(
                name=family,
                counts=_counts(seen),
                failure=_rewrites([r for r in card.rows if r.family == family], card.facts.allow),
                error=error,
            )
        )
    return tuple(cases)


def _case_element(parent: ET.Element, suite: str, case: JUnitCase) -> None:
    total = sum(n for _, n in case.counts)
    element = ET.SubElement(
        parent,
        "testcase",
        {"classname": _xml_text(suite), "name": _xml_text(case.name), "time": "0"},
    )
    if case.error is not None:
        message, text = case.error
        node = ET.SubElement(
            element, "error", {"message": _xml_text(message), "type": "fidelity.error"}
        )
        node.text = _xml_text(text)
    if case.failure is not None:
        message, text = case.failure
        node = ET.SubElement(
            element, "failure", {"message": _xml_text(message), "type": case.failure_type}
        )
        node.text = _xml_text(text)
    counts = ", ".join(f"{n} {status}" for status, n in case.counts) or "none"
    out = ET.SubElement(element, "system-out")
    out.text = (
        _xml_text(case.output)
        if case.output is not None
        else f"{total} payload{'' if total == 1 else 's'}: {counts}"
    )


def render_junit(suites: Sequence[JUnitSuite], *, name: str = "fidelity") -> str:
    """The JUnit XML document of ``suites`` (deterministic, UTF-8 declared, ASCII-safe
    names and messages)."""
    root = ET.Element("testsuites", {"name": name})
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for index, suite in enumerate(suites):
        failures = sum(1 for c in suite.cases if c.failure is not None)
        errors = sum(1 for c in suite.cases if c.error is not None)
        element = ET.SubElement(
            root,
            "testsuite",
            {
                "name": _xml_text(suite.name),
                "id": str(index),
                "tests": str(len(suite.cases)),
                "failures": str(failures),
                "errors": str(errors),
                "skipped": "0",
                "time": "0",
            },
        )
        for case in suite.cases:
            _case_element(element, suite.name, case)
        totals["tests"] += len(suite.cases)
        totals["failures"] += failures
        totals["errors"] += errors
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("time", "0")
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"
