"""The sentence for the model at its edges: the 299-character limit reached exactly,
the number-like values a coercion names, the code points listed, the direction said.
Expected texts are written out from the sentences' definitions, not read from the
module."""

from __future__ import annotations

from fidelity._report.describe import describe
from fidelity._report.rewrites import Rewrite

BOM = "a byte order mark (U+FEFF) is added at the start; expect it."


def test_a_text_of_exactly_299_characters_is_kept_and_one_more_is_not() -> None:
    name = "n" * (299 - len(": ") - len(BOM))
    text = describe(name, [Rewrite(kind="bom.added")])
    assert text == f"{name}: {BOM}"
    assert len(text) == 299
    longer = name + "n"
    # the sentence no longer fits: the kind is still named, in the short form
    assert describe(longer, [Rewrite(kind="bom.added")]) == f"{longer}: also changed: bom.added."


def test_a_coercion_names_number_like_values_of_up_to_eight_characters() -> None:
    rewrites = [
        Rewrite(kind="type.coerced", sent="12345678", received="12345678"),
        Rewrite(kind="type.coerced", sent="123456789", received="123456789"),
    ]
    assert describe("p", rewrites) == (
        'p: text such as "12345678" become a number, boolean or null; avoid such values.'
    )
    two = [
        Rewrite(kind="type.coerced", sent="true", received="True"),
        Rewrite(kind="type.coerced", sent="1e3", received="1000.0"),
        Rewrite(kind="type.coerced", sent="null", received="None"),
    ]
    # at most two, in sorted order
    assert describe("p", two) == (
        'p: text such as "1e3" or "null" become a number, boolean or null; avoid such values.'
    )
