"""Rewrites that combine in one value are named as the rewrites that were applied.

Each case runs real functions in sequence (``normalize`` then ``strip``, a cp1252
misreading then ``strip``, a Markdown writer then ``html.escape``, an HTML parser
reading ``<pre>``) and ``compare`` must report exactly the kinds written in the case:
the smallest set that replays, a ``truncate`` only where nothing else explains the
missing tail, and no kind that another kind of the same value already explains.
"""

from __future__ import annotations

import html
import random
import shlex
import textwrap
import unicodedata
from collections.abc import Callable

import pytest
from _needs import need_module
from hypothesis import HealthCheck, Phase, given, seed, settings

import fidelity
import strategies


def _nfc_strip(v: str) -> str:
    """The app of the issue: it stores ``normalize("NFC", v).strip()``."""
    return unicodedata.normalize("NFC", v).strip()


def _nfkc_strip(v: str) -> str:
    return unicodedata.normalize("NFKC", v).strip()


def _cp1252_strip(v: str) -> str:
    return v.encode("utf-8").decode("cp1252", "replace").strip()


def _nfkc_casefold(v: str) -> str:
    return unicodedata.normalize("NFKC", v).casefold()


def _ascii_fold(v: str) -> str:
    """The "remove accents" recipe: NFKD, then what ASCII cannot carry is dropped."""
    return unicodedata.normalize("NFKD", v).encode("ascii", "ignore").decode()


def _slug(v: str) -> str:
    """A slug's first steps (as Django's ``slugify``): fold, lower, collapse the blanks."""
    return " ".join(_ascii_fold(v).lower().split())


def _ascii_fold_lower(v: str) -> str:
    return unicodedata.normalize("NFKD", v).encode("ascii", "ignore").decode().lower()


def _lower_collapse(v: str) -> str:
    return " ".join(v.lower().split())


def _upper_strip(v: str) -> str:
    return v.upper().strip()


def _markdown(v: str) -> str:
    need_module("markdownify")
    from markdownify import markdownify

    return str(markdownify(html.escape(v)))


def _secure_filename(v: str) -> str:
    need_module("werkzeug")
    from werkzeug.utils import secure_filename

    return secure_filename(v)


def _shell_words(v: str) -> str:
    """A command line parsed and written back: ``shlex.join(shlex.split(v))``."""
    return shlex.join(shlex.split(v))


def _pre(v: str) -> str:
    """The value written in ``<pre>`` and read back by an HTML5 parser."""
    need_module("html5lib")
    import html5lib

    doc = html5lib.parse(f"<pre>{html.escape(v)}</pre>", namespaceHTMLElements=False)
    element = doc.find(".//pre")
    assert element is not None
    return str(element.text or "")


def _fill(v: str) -> str:
    return textwrap.fill(v, 12)


_FOLDED = {"unicode.ascii_fold", "path.sanitized"}
_SPACED = {"whitespace.to_space", "path.sanitized"}

CASES: list[tuple[str, Callable[[str], str], str, set[str]]] = [
    # A composed character at the edge of a stripped run: NFC and a strip, not a cut.
    ("nfc strip, the issue's value", _nfc_strip, "e\u0301 ", {"unicode.nfc", "whitespace.strip"}),
    ("nfc strip, both ends", _nfc_strip, "\t a\u0301\u3000", {"unicode.nfc", "whitespace.strip"}),
    ("nfc strip, final line break", _nfc_strip, " e\u0301\n", {"unicode.nfc", "whitespace.strip"}),
    (
        "nfkc strip, ideographic space",
        _nfkc_strip,
        "\uff58\u3000",
        {"unicode.nfkc", "whitespace.strip"},
    ),
    # The no-break space read as cp1252 ends in a no-break space, which strip removes.
    ("cp1252 strip, NBSP", _cp1252_strip, "alpha\u00a0", {"encoding.mojibake", "whitespace.strip"}),
    (
        "cp1252 strip, e-acute",
        _cp1252_strip,
        "caf\u00e9 ",
        {"encoding.mojibake", "whitespace.strip"},
    ),
    # Both ends stripped, though only the leading blank keeps its neighbour: the last
    # letter changed case next to the trailing tab.
    (
        "lower collapse, one end by its neighbour",
        _lower_collapse,
        "\xa0x\n\n\u2009\xa0\u00c5E\t",
        {"unicode.case", "whitespace.collapse", "whitespace.strip"},
    ),
    # casefold explains the sharp s: the blanks are whitespace.to_space, not a wider
    # unicode.ascii_fold (same count, the narrower kind wins).
    (
        "nfkc casefold, blanks and sharp s",
        _nfkc_casefold,
        "\u3000\xa0caf\u00e9 Stra\u00dfe",
        {"unicode.case", "whitespace.to_space"},
    ),
    # casefold also folds the ligature and the ohm sign: NFKC's only visible work is
    # the em space; a full-width letter is NFKC's own.
    (
        "nfkc casefold, only blanks left",
        _nfkc_casefold,
        "\ufb01\u2003\u2126",
        {"unicode.case", "whitespace.to_space"},
    ),
    (
        "nfkc casefold, full width",
        _nfkc_casefold,
        "\uff21\u2003B",
        {"unicode.case", "unicode.nfkc"},
    ),
    # A thin space and a ligature in one edit: NFKC alone replays it, a narrower
    # whitespace.to_space would need casefold composed with it.
    (
        "ascii fold lower, a space and a ligature",
        _ascii_fold_lower,
        "Cx\u2009\ufb01le",
        {"unicode.case", "unicode.nfkc"},
    ),
    # The "remove accents" recipe drops what NFKD leaves outside ASCII (an emoji, ©).
    (
        "ascii fold, an emoji dropped",
        _ascii_fold,
        "caf\u00e9 \U0001f600!",
        {"unicode.ascii_fold", "encoding.dropped"},
    ),
    (
        "ascii fold lower, mojibake",
        _ascii_fold_lower,
        "Caf\u00c3\u00a9 ok",
        {"unicode.ascii_fold", "unicode.case", "encoding.dropped"},
    ),
    (
        "slug recipe",
        _slug,
        "Cr\u00e8me  Br\u00fbl\u00e9e\u2764\ufe0f 2",
        {"unicode.ascii_fold", "unicode.case", "encoding.dropped", "whitespace.collapse"},
    ),
    # One operation, one name: the strip removed the final line break too.
    ("upper strip, final line break", _upper_strip, " x\n", {"unicode.case", "whitespace.strip"}),
    ("strip alone, final line break", str.strip, " a \n", {"whitespace.strip"}),
    # A cut inside a cluster stays a cut: one kind, not a diacritic dropped and a strip.
    ("cut inside a cluster", lambda v: v[:2], "\ta\u0301\u3000", {"truncate"}),
    ("cut before a space", lambda v: v[:2], "abc  ", {"truncate"}),
    # Markdown: the writer escapes metacharacters; html.escape after it, one kind each.
    ("markdownify", _markdown, "1_000 *a*", {"escape.markdown"}),
    (
        "markdown then html",
        lambda v: html.escape(_markdown(v)),
        "a_b & *c*",
        {"escape.markdown", "escape.html"},
    ),
    # A value split into shell words and joined again: each word's quoting lost and
    # gained, and the whitespace between words, each named by the kind that replays it.
    ("shlex join, words quoted", _shell_words, "caf\u00e9 au lait", {"escape.shell"}),
    (
        "shlex join, lines",
        _shell_words,
        "\u00e9\nx y&z\n",
        {"escape.shell", "newline.to_space", "newline.final_removed"},
    ),
    (
        "shlex join, quotes and blanks",
        _shell_words,
        ' say "hello world"  caf\u00e9\t',
        {"unescape.backslash", "escape.shell", "whitespace.collapse", "whitespace.strip"},
    ),
    ("shlex join, quotes only removed", _shell_words, 'a "b" c', {"unescape.backslash"}),
    (
        "nfc then shlex join",
        lambda v: _shell_words(unicodedata.normalize("NFC", v)),
        "e\u0301 x\n",
        {"unicode.nfc", "escape.shell", "newline.final_removed"},
    ),
    # textwrap turns line breaks into spaces, expands tabs, drops the blanks at a break
    # and at the end, and breaks lines: each rewrite once, the break as inserted.
    (
        "fill, a line break",
        _fill,
        "one\ntwo three four five",
        {"newline.to_space", "newline.inserted"},
    ),
    ("fill, a tab", _fill, "one\ttwo three four", {"whitespace.tab_expand", "newline.inserted"}),
    (
        "fill, blanks at the end",
        _fill,
        "one two three four  \n",
        {"newline.inserted", "whitespace.strip"},
    ),
    (
        "nfc then fill",
        lambda v: _fill(unicodedata.normalize("NFC", v)),
        "cafe\u0301 cre\u0300me brule\u0301e",
        {"unicode.nfc", "newline.inserted"},
    ),
    (
        "collapse then fill",
        lambda v: _fill(" ".join(v.split())),
        "one   two\t\tthree  four",
        {"whitespace.collapse", "newline.inserted"},
    ),
    (
        "fill then upper",
        lambda v: _fill(v).upper(),
        "one two three four",
        {"unicode.case", "newline.inserted"},
    ),
    # An HTML parser drops the line feed right after <pre>: one name, whatever follows.
    ("pre, a word", _pre, "\nx", {"whitespace.strip"}),
    ("pre, a second line break", _pre, "\n\nx", {"whitespace.strip"}),
    ("pre, indented", _pre, "\n  x", {"whitespace.strip"}),
    ("pre, a tab", _pre, "\n\tx", {"whitespace.strip"}),
    ("pre, a CRLF", _pre, "\r\nx y", {"whitespace.strip"}),
    # A file-name sanitizer after NFKD and the ASCII step (secure_filename does both),
    # after a strip of the ends, or before lower(): each step its own kind.
    ("secure_filename, accents", _secure_filename, "caf\u00e9 menu.txt", _FOLDED),
    (
        "secure_filename, ends and accents",
        _secure_filename,
        " na\u00efve r\u00e9sum\u00e9.doc ",
        _FOLDED | {"whitespace.strip"},
    ),
    ("secure_filename, ideographic space", _secure_filename, "a\u3000b.txt", _SPACED),
    ("secure_filename, no-break space", _secure_filename, "report\u00a0final.pdf", _SPACED),
    (
        "secure_filename, lower",
        lambda v: _secure_filename(v).lower(),
        "My File.TXT",
        {"path.sanitized", "unicode.case"},
    ),
]


@pytest.mark.parametrize(
    ("rewrite", "sent", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_composed_rewrites_are_named_exactly(
    rewrite: Callable[[str], str], sent: str, expected: set[str]
) -> None:
    received = rewrite(sent)
    comparison = fidelity.compare(sent, received)
    assert comparison.kinds == expected, comparison.render()
    assert comparison.explained


def test_a_line_feed_dropped_after_pre_has_its_own_hint() -> None:
    from fidelity._report.hints import hint_text
    from fidelity._report.rewrites import Rewrite

    comparison = fidelity.compare("\n  x", _pre("\n  x"))
    (rewrite,) = comparison.transformations
    assert (rewrite.kind, rewrite.detail) == ("whitespace.strip", "leading line break")
    text, specific = hint_text(Rewrite(kind=rewrite.kind, detail=rewrite.detail))
    assert "<pre>" in text
    assert specific == 1


@seed(3)
@settings(
    max_examples=200,
    database=None,
    deadline=None,
    phases=(Phase.generate,),
    suppress_health_check=list(HealthCheck),
)
@given(strategies.text(families=["normalization", "whitespace", "scripts"]))
def test_the_nfc_strip_app_names_every_rewrite(value: str) -> None:
    received = _nfc_strip(value)
    comparison = fidelity.compare(value, received)
    if comparison.faithful:
        return
    assert comparison.explained, comparison.render()
    assert comparison.kinds <= {"unicode.nfc", "whitespace.strip", "newline.final_removed"}, (
        comparison.render()
    )
    assert not {"whitespace.strip", "newline.final_removed"} <= comparison.kinds


def test_decomposed_letters_between_blanks_are_nfc_and_strip() -> None:
    # Decomposed letters, blanks and line breaks at both ends, in every order.
    shown: list[frozenset[str]] = []
    rng = random.Random(3)
    for _ in range(40):
        parts = [
            rng.choice(("e\u0301", "a\u030a", "\u3000", " ", "\t", "\n", "x")) for _ in range(6)
        ]
        value = "".join(parts)
        received = _nfc_strip(value)
        if value != received:
            shown.append(frozenset(fidelity.compare(value, received).kinds))
    assert any({"unicode.nfc", "whitespace.strip"} <= k for k in shown)
    assert not any("unknown" in k or "truncate" in k for k in shown)
