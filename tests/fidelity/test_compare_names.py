"""Choosing the names: what real servers did gets the name a reader would give it.

The cases of issue 41, each built from the call the server makes (a sanitiser that
deletes Unicode category C but LF and TAB, ``pathlib``, ``posixpath.normpath``,
``ntpath.normpath``); the kinds specification and ``fidelity.KINDS`` hold the same ids;
and the choice rule of the specification, as a property over composed real rewrites:
no reported kind whose whole product another reported kind erases, and no reported
set from which a kind can be left out while the rest still replays every finding.

The property is drawn from every hazard family but three: with a byte order mark
(``bom``), lone surrogates (``surrogates``) or the long values of ``length``, the
engine still reports sets that are not minimal (a second leading U+FEFF named a strip
where the encoder that dropped the first names both; an NFKD fold next to spaces named
``whitespace.to_space`` in a value too long to be named again).
"""

from __future__ import annotations

import html
import json
import ntpath
import pathlib
import posixpath
import re
import unicodedata
import urllib.parse
from collections.abc import Callable
from itertools import pairwise, permutations
from pathlib import Path

import pytest
import regex
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

import fidelity
import strategies
from fidelity import KINDS, compare
from fidelity._compare.rules import RULES_BY_KIND, Context
from fidelity._core.text import to_utf8
from fidelity._report.describe import describe
from fidelity._report.rewrites import Rewrite


def _sanitise(value: str) -> str:
    """A libSQL server's sanitiser: every category-C character but LF and TAB is deleted."""
    return str(regex.sub(r"[^\P{C}\n\t]", "", value))


def _pure_posix(value: str) -> str:
    return str(pathlib.PurePosixPath(value))


def _pure_windows(value: str) -> str:
    return str(pathlib.PureWindowsPath(value))


def _names(sent: str, received: str) -> set[tuple[str, str]]:
    c = compare(sent, received)
    assert c.explained, c.render()
    return {(t.kind, t.detail) for t in c.transformations}


# -- the cases of the issue --------------------------------------------------------


def test_a_lone_cr_deleted_next_to_a_crlf_that_lost_its_cr() -> None:
    sent = "alpha\r\r\nbeta"
    received = _sanitise(sent)
    assert received == "alpha\nbeta"
    # The lone CR vanished (newline.removed); the CR an LF follows made a CRLF an LF.
    assert compare(sent, received).kinds == {"newline.removed", "newline.crlf_to_lf"}


def test_a_deleted_cr_is_newline_removed() -> None:
    sent = "alpha\rbeta"
    received = _sanitise(sent)
    assert received == "alphabeta"
    assert _names(sent, received) == {("newline.removed", "")}


@pytest.mark.parametrize(
    ("sent", "kinds"),
    [
        ("a\r\nb", {"newline.crlf_to_lf"}),  # the CR of a CRLF: an LF follows it
        ("x\ry\rz", {"newline.removed"}),
        ("tab\tand\x01\rcr", {"control.removed", "newline.removed"}),
        ("a\r\n\r\nb", {"newline.crlf_to_lf"}),
    ],
)
def test_the_sanitiser_names_each_line_break_it_deletes(sent: str, kinds: set[str]) -> None:
    c = compare(sent, _sanitise(sent))
    assert c.kinds == kinds, c.render()
    assert c.explained


@pytest.mark.parametrize(
    ("sent", "received"),
    [
        ("a\nb", "".join("a\nb".splitlines())),
        ("a\r\nb", "".join("a\r\nb".splitlines())),
        ("one\ntwo\nthree", "".join("one\ntwo\nthree".splitlines())),
    ],
)
def test_lines_joined_with_nothing_are_newline_removed(sent: str, received: str) -> None:
    assert _names(sent, received) == {("newline.removed", "")}


@pytest.mark.parametrize(
    ("call", "detail"),
    [
        (_pure_posix, "trailing separator"),
        (posixpath.normpath, "trailing separator"),
        (lambda v: v.rstrip("/"), "trailing separator"),  # an HTTP file API's path
    ],
)
def test_a_trailing_slash_dropped_is_path_normalized_not_a_cut(
    call: Callable[[str], str], detail: str
) -> None:
    sent = "alpha dir/"
    received = call(sent)
    assert received == "alpha dir"
    assert _names(sent, received) == {("path.normalized", detail)}


def test_a_traversal_resolved_by_normpath_is_path_normalized() -> None:
    sent = "alpha ../../etc/passwd beta"
    assert _names(sent, posixpath.normpath(sent)) == {("path.normalized", "posixpath.normpath")}
    # The same value under a root (``normpath("/" + v).lstrip("/")``) and on Windows.
    rooted = posixpath.normpath("/../../etc/passwd").lstrip("/")
    assert _names("../../etc/passwd", rooted) == {
        ("path.normalized", "posixpath.normpath under a root")
    }
    assert _names(sent, ntpath.normpath(sent)) == {("path.normalized", "ntpath.normpath")}


@pytest.mark.parametrize(
    ("call", "received", "detail"),
    [
        (posixpath.normpath, "x/y/z", "posixpath.normpath"),
        (_pure_posix, "x/y/z", "posixpath.normpath"),
        (ntpath.normpath, "x\\y\\z", "ntpath.normpath"),
        (_pure_windows, "x\\y\\z", "ntpath.normpath"),
    ],
)
def test_merged_separators_and_dot_segments_are_one_normalisation(
    call: Callable[[str], str], received: str, detail: str
) -> None:
    assert call("x//y/./z") == received
    assert _names("x//y/./z", received) == {("path.normalized", detail)}


@pytest.mark.parametrize(
    ("sent", "call", "kinds"),
    [
        ("C:\\Users\\me\\..\\you\\", ntpath.normpath, {"path.normalized"}),
        ("a/b/c", ntpath.normpath, {"path.slash_to_backslash"}),  # separators only
        ("C:\\x\\y", lambda v: pathlib.PureWindowsPath(v).as_posix(), {"path.backslash_to_slash"}),
        ("C:\\\\x", lambda v: json.loads(f'"{v}"'), {"unescape.json"}),  # no path at work
        ("/etc/x/y.conf", posixpath.basename, {"path.basename"}),
        ("ab/", lambda v: v[:1], {"truncate"}),  # the cut took a letter too
    ],
)
def test_a_normalisation_is_told_from_its_neighbours(
    sent: str, call: Callable[[str], str], kinds: set[str]
) -> None:
    c = compare(sent, call(sent))
    assert c.kinds == kinds, c.render()


def test_a_normalisation_composed_with_other_rewrites() -> None:
    sent = "Caf\u00e9 Dir/"
    assert compare(sent, _pure_posix(sent).lower()).kinds == {"path.normalized", "unicode.case"}
    sent = "cafe\u0301//y/./z"
    received = unicodedata.normalize("NFC", posixpath.normpath(sent))
    assert compare(sent, received).kinds == {"path.normalized", "unicode.nfc"}
    sent = "  x//y/  "
    assert compare(sent, posixpath.normpath(sent.strip())).kinds == {
        "path.normalized",
        "whitespace.strip",
    }


def test_describe_never_says_cut_for_a_normalisation() -> None:
    c = compare("alpha dir/", _pure_posix("alpha dir/"))
    (t,) = c.transformations
    rewrite = Rewrite(kind=t.kind, detail=t.detail, sent=t.sent, received=t.received)
    text = describe("server", [rewrite])
    assert text == (
        "server: values are normalised as paths (// merged, dir/.. resolved, a final / "
        "dropped); send normalised paths."
    )
    assert "cut" not in text


# -- the specification's kinds are fidelity.KINDS --------------------------------------

#: The kinds of the specification's table, in its order (written from kinds.md by hand).
SPEC_KINDS = [
    "quote.straighten",
    "quote.educate",
    "punct.straighten",
    "punct.educate",
    "unicode.nfc",
    "unicode.nfd",
    "unicode.nfkc",
    "unicode.nfkd",
    "unicode.case",
    "unicode.ascii_fold",
    "whitespace.strip",
    "whitespace.collapse",
    "whitespace.to_space",
    "whitespace.tab_expand",
    "whitespace.line_strip",
    "invisible.removed",
    "control.removed",
    "control.replaced",
    "newline.crlf_to_lf",
    "newline.cr_to_lf",
    "newline.lf_to_crlf",
    "newline.separator_to_lf",
    "newline.to_space",
    "newline.removed",
    "newline.inserted",
    "newline.final_added",
    "newline.final_removed",
    "path.backslash_to_slash",
    "path.slash_to_backslash",
    "path.basename",
    "path.normalized",
    "path.sanitized",
    "escape.json",
    "escape.html",
    "escape.url",
    "escape.backslash",
    "escape.markdown",
    "escape.shell",
    "unescape.json",
    "unescape.html",
    "unescape.url",
    "unescape.backslash",
    "encoding.mojibake",
    "encoding.replacement",
    "encoding.question_mark",
    "encoding.dropped",
    "encoding.surrogate_split",
    "bom.added",
    "bom.removed",
    "truncate",
    "type.coerced",
    "unknown",
]


def _spec_file() -> Path | None:
    """The project's kinds specification, next to the repository (absent in CI)."""
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "shared" / "spec" / "kinds.md"
        if candidate.is_file():
            return candidate
    return None


def test_the_kinds_are_the_specifications() -> None:
    assert list(KINDS) == SPEC_KINDS


def test_the_pinned_list_is_the_specification_table() -> None:
    spec = _spec_file()
    if spec is None:
        pytest.skip("the kinds specification is not next to this checkout")
    table = spec.read_text(encoding="utf-8").split("## Choosing the names")[0]
    rows = re.findall(r"^\| `([a-z_.]+)` \|", table, re.MULTILINE)
    assert rows == SPEC_KINDS


# -- the choice rule, as a property ----------------------------------------------------


def _json_inner(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)[1:-1]


def _ascii_fold(s: str) -> str:
    return unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode()


Rewrite_ = Callable[[str], str]

#: The composition benchmark's sixteen pairs, and pairs of what the servers of issue 41
#: did with what other layers do.
PAIRS: tuple[tuple[str, Rewrite_, Rewrite_], ...] = (
    ("NFC, strip", lambda s: unicodedata.normalize("NFC", s), str.strip),
    ("cp1252, strip", lambda s: to_utf8(s).decode("cp1252", "replace"), str.strip),
    ("NFKC, casefold", lambda s: unicodedata.normalize("NFKC", s), str.casefold),
    ("NFKC, strip", lambda s: unicodedata.normalize("NFKC", s), str.strip),
    ("CRLF, strip", lambda s: s.replace("\r\n", "\n"), str.strip),
    ("lower, collapse", str.lower, lambda s: " ".join(s.split())),
    ("NFC, lower", lambda s: unicodedata.normalize("NFC", s), str.lower),
    ("expandtabs, rstrip", str.expandtabs, str.rstrip),
    ("html.unescape, strip", html.unescape, str.strip),
    ("json, html.escape", _json_inner, html.escape),
    ("ASCII fold, lower", _ascii_fold, str.lower),
    ("NBSP, strip", lambda s: s.replace("\u00a0", " "), str.strip),
    ("ZWSP, strip", lambda s: s.replace("\u200b", ""), str.strip),
    ("unquote_plus, strip", urllib.parse.unquote_plus, str.strip),
    ("html.escape, strip", html.escape, str.strip),
    ("casefold, collapse", str.casefold, lambda s: " ".join(s.split())),
    ("sanitise, strip", _sanitise, str.strip),
    ("sanitise, NFC", _sanitise, lambda s: unicodedata.normalize("NFC", s)),
    ("CRLF, sanitise", lambda s: s.replace("\r\n", "\n"), _sanitise),
    ("normpath, lower", posixpath.normpath, str.lower),
    ("strip, normpath", str.strip, posixpath.normpath),
    ("NFC, PurePosixPath", lambda s: unicodedata.normalize("NFC", s), _pure_posix),
    ("rstrip('/'), NFC", lambda s: s.rstrip("/"), lambda s: unicodedata.normalize("NFC", s)),
)

#: Every family but ``bom``, ``surrogates`` and ``length`` (see the module's docstring).
_FAMILIES = [
    "quotes",
    "punctuation",
    "normalization",
    "compatibility",
    "case",
    "diacritics",
    "whitespace",
    "invisible",
    "control",
    "newlines",
    "separators",
    "paths",
    "escapes",
    "scripts",
    "bidi",
    "nul",
    "coercion",
    "mojibake",
    "astral",
]

_PATHS = st.lists(
    st.sampled_from(["a", "dir", "caf\u00e9", "..", ".", "", " x ", "\u00a0", "e\u0301", "B"]),
    min_size=1,
    max_size=6,
).map("/".join)


def _replays(kind: str, s: str, r: str, ctx: Context) -> bool:
    rule = RULES_BY_KIND[kind]
    return rule.gate(s, r) and rule.match(s, r, ctx) is not None


def _replayed_without(
    t: fidelity.Transformation, kinds: set[str], sent: str, received: str
) -> bool:
    """True when ``kinds`` (one, or two composed) replay transformation ``t``'s segment."""
    ctx = Context(sent=sent, value=received, start=t.received_start)
    usable = [k for k in kinds if k in RULES_BY_KIND]
    if any(_replays(k, t.sent, t.received, ctx) for k in usable):
        return True
    for first, second in permutations(usable, 2):
        for mid, _ in RULES_BY_KIND[first].apply(t.sent, ctx):
            if mid not in (t.sent, t.received) and _replays(second, mid, t.received, ctx):
                return True
    return False


def _deleted_all_it_wrote(sent: str, mid: str, received: str) -> bool:
    """True when ``received`` is ``mid`` with characters deleted, among them every
    character the first step (``sent`` -> ``mid``) wrote."""
    wrote = set(mid) - set(sent)
    if not wrote or wrote & set(received):
        return False
    at = 0
    for c in received:
        at = mid.find(c, at) + 1
        if not at:
            return False
    return True


def _check_choice(sent: str, received: str) -> None:
    c = compare(sent, received)
    if c.faithful or not c.explained:
        return
    reported = set(c.kinds)
    by_segment: dict[tuple[int, int], list[fidelity.Transformation]] = {}
    for t in c.transformations:
        by_segment.setdefault((t.sent_start, t.received_start), []).append(t)
    # No kind whose whole product the next kind of the same segment erases.
    for ts in by_segment.values():
        for first, second in pairwise(ts):
            if first.kind not in RULES_BY_KIND:
                continue
            ctx = Context(sent=sent, value=received, start=first.received_start)
            mids = [
                m
                for m, d in RULES_BY_KIND[first.kind].apply(first.sent, ctx)
                if d == first.detail and m != first.sent
            ]
            if not mids or second.kind not in RULES_BY_KIND:
                continue
            kept = [m for m in mids if not _deleted_all_it_wrote(first.sent, m, first.received)]
            assert kept, (f"{first.kind} erased by {second.kind}", c.render())
    # Minimal: leaving one kind out, some finding no longer replays.
    for kind in reported:
        rest = reported - {kind}
        named = [ts for ts in by_segment.values() if any(t.kind == kind for t in ts)]
        assert not all(_replayed_without(ts[0], rest, sent, received) for ts in named), (
            f"{sorted(reported)} is not minimal: {sorted(rest)} replays",
            c.render(),
        )


@seed(41)
@settings(
    max_examples=150,
    database=None,
    deadline=None,
    phases=(Phase.generate,),
    suppress_health_check=list(HealthCheck),
)
@given(
    pair=st.sampled_from(PAIRS),
    value=st.one_of(strategies.text(families=_FAMILIES), _PATHS),
)
def test_the_names_of_two_composed_rewrites_are_minimal_and_visible(
    pair: tuple[str, Rewrite_, Rewrite_], value: str
) -> None:
    _, f, g = pair
    _check_choice(value, g(f(value)))


@pytest.mark.parametrize(("label", "f", "g"), PAIRS, ids=[p[0] for p in PAIRS])
def test_every_pair_on_the_catalogue_is_named_minimally(
    label: str, f: Rewrite_, g: Rewrite_
) -> None:
    for payload in list(strategies.catalogue())[::7]:
        _check_choice(payload.text, g(f(payload.text)))
