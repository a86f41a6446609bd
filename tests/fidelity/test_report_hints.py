"""Hints at their edges: a detail refines only the hint of its own kind, and a refined
hint wins over the general one whichever rewrite comes first. Texts are pinned by
their words (the HTML elements a leading line break is dropped after), not read from
the module."""

from __future__ import annotations

import json

from fidelity._report.hints import hints
from fidelity._report.rewrites import Rewrite

PRE = "`<pre>`, `<textarea>` or `<listing>`"


def test_a_leading_line_break_dropped_gets_the_html_hint_over_the_general_one() -> None:
    plain = Rewrite(kind="whitespace.strip", detail="")
    leading = Rewrite(kind="whitespace.strip", detail="leading line break")
    for order in ([plain, leading], [leading, plain]):
        (hint,) = hints(order)
        assert hint.kind == "whitespace.strip"
        assert PRE in hint.text
        assert hint.text.startswith("one line break at the start of the value is dropped")
        # The likelier cause first: a plain strip(), then the HTML parser.
        assert hint.text.index("`strip()`") < hint.text.index(PRE)
    (general,) = hints([plain])
    assert PRE not in general.text
    assert "strips leading and trailing whitespace" in general.text


def test_the_leading_line_break_detail_refines_only_whitespace_strip() -> None:
    for kind in ("newline.final_removed", "bom.removed", "unicode.case"):
        (hint,) = hints([Rewrite(kind=kind, detail="leading line break")])
        assert hint.kind == kind
        assert PRE not in hint.text


def test_a_detail_read_back_from_json_refines_the_hint_as_well() -> None:
    # A card read from its JSON holds details as new string objects, equal but not
    # the same object as the engine's.
    detail = json.loads('"leading line break"')
    (hint,) = hints([Rewrite(kind="whitespace.strip", detail=detail)])
    assert PRE in hint.text
