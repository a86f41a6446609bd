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


def test_a_kind_named_in_the_short_form_still_leaves_room_for_the_refusals() -> None:
    # The quotes sentence does not fit after a 205-character name, even without its
    # code points; its name in the short form and the refusal sentence do.
    name = "n" * 205
    straightened = Rewrite(kind="quote.straighten", sent="\u201cq\u201d", received='"q"')
    assert describe(name, [straightened], ["nul"]) == (
        f"{name}: also changed: quote.straighten. "
        "Values with U+0000 are refused with an error; avoid them."
    )


def test_one_edit_that_may_not_apply_names_its_family_alone() -> None:
    assert describe("p", [], unapplied=["quotes"]) == (
        "p: an edit of text with typographic quotes may not apply although the tool "
        "reports no error; read the result back."
    )
    assert describe("p", [], unapplied=["quotes", "newlines"]) == (
        "p: an edit of text with typographic quotes or line breaks may not apply although "
        "the tool reports no error; read the result back."
    )


def test_only_surrogates_joined_are_said_as_joined() -> None:
    joined = Rewrite(
        kind="encoding.surrogate_split", detail="joined", sent="\ud83d\ude00", received="\U0001f600"
    )
    assert describe("p", [joined]) == (
        "p: pairs of lone surrogates (U+D83D U+DE00) become one character; do not send them."
    )
    # another kind whose detail happens to read "joined" keeps its own sentence
    assert describe("p", [Rewrite(kind="bom.added", detail="joined")]) == f"p: {BOM}"


def test_kinds_that_do_not_fit_are_named_with_how_many_more() -> None:
    kinds = ["unescape.json", "truncate", "encoding.replacement"]
    short = "also changed: unescape.json, truncate and 1 more."
    name = "n" * (299 - len(": ") - len(short))
    text = describe(name, [Rewrite(kind=k) for k in kinds])
    assert text == f"{name}: {short}"
    assert len(text) == 299


def test_the_most_dangerous_kinds_are_named_one_by_one_never_as_a_family() -> None:
    # Kinds that change a value's meaning (unescape.*, truncate) are never folded into
    # "unescape.*": with too little room, the first are named and the rest counted.
    kinds = ["unescape.json", "unescape.html", "unescape.url"]
    short = "also changed: unescape.json, unescape.html and 1 more."
    name = "n" * (299 - len(": ") - len(short))
    assert describe(name, [Rewrite(kind=k) for k in kinds]) == f"{name}: {short}"
