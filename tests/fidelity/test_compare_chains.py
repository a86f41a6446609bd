"""Real chains the kind tests do not use: classified by what the bytes show.

Each case is built by the code that does the rewrite (stdlib, ftfy, smartypants,
PyYAML, node); ``compare`` must report exactly the expected kinds (or one of the
equally valid sets where the bytes cannot tell two rewrites apart) and say whether
they explain the whole value. Hazards sit at the start, middle and end of values from
one character to over 100 KiB, and several rewrites are mixed in one value.
"""

from __future__ import annotations

import codecs
import email
import email.policy
import html
import json
import re
import subprocess
import textwrap
import unicodedata
from collections.abc import Callable
from urllib.parse import quote, unquote

import pytest
from _needs import need_executable, need_module
from _support.classified import Build, Case, assert_classified, assert_found_anywhere

from fidelity import compare


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def _nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


def _strip_marks(text: str) -> str:
    """The usual stdlib idiom for removing accents."""
    return "".join(c for c in _nfd(text) if not unicodedata.combining(c))


def _rstrip_lines(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.split("\n"))


def _ftfy(fn: str, text: str) -> tuple[str, object]:
    need_module("ftfy")
    import ftfy.fixes

    return text, getattr(ftfy.fixes, fn)(text)


def _yaml(document: str) -> object:
    need_module("yaml")
    import yaml

    return yaml.safe_load(document)


def _smartypants(text: str) -> tuple[str, object]:
    need_module("smartypants")
    import smartypants

    attrs = smartypants.Attr.set1 | smartypants.Attr.u
    return text, smartypants.smartypants(text, attrs)


def _node(expression: str, text: str) -> str:
    node = need_executable("node")
    script = f"const s = process.argv[1]; process.stdout.write({expression});"
    out = subprocess.run(
        [node, "-e", script, "--", text], capture_output=True, timeout=20, check=True
    ).stdout
    return out.decode("utf-8", "surrogatepass")


def _mojibake_cut(text: str, nbytes: int, codec: str) -> tuple[str, object]:
    return text, text.encode()[:nbytes].decode(codec, "replace")


_PROSE = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 2000  # 114 KiB
_GREEK = "Ελληνικά — “κείμενο” με πολλά γράμματα"
_ACCENTED = "ÀÉÎÕÜ " * 20000
_SPACED = "  a \t b\nc  "
_LETTERS = "abcd"

CASES: list[Case] = [
    # tab stops other than 8/4/2, found from all the tabs of the value together
    (
        "expandtabs(3)",
        lambda: ("ab\tc\td\te", "ab\tc\td\te".expandtabs(3)),
        ({"whitespace.tab_expand"},),
    ),
    (
        "expandtabs(16)",
        lambda: ("ab\tc\td", "ab\tc\td".expandtabs(16)),
        ({"whitespace.tab_expand"},),
    ),
    (
        "expandtabs after CR and LF",
        lambda: ("x\n\ty\r\n ab\tc", "x\n\ty\r\n ab\tc".expandtabs(4)),
        ({"whitespace.tab_expand"},),
    ),
    ("expandtabs(1)", lambda: ("a\tb\tc", "a\tb\tc".expandtabs(1)), ({"whitespace.to_space"},)),
    ("expandtabs(0)", lambda: ("a\tb", "a\tb".expandtabs(0)), ({"unknown"},)),
    # strip together with edits inside
    (
        "split and join",
        lambda: (_SPACED, " ".join(_SPACED.split())),
        ({"whitespace.strip", "whitespace.collapse", "newline.to_space"},),
    ),
    (
        "re.sub then strip",
        lambda: (" a  b\n", re.sub(r"\s+", " ", " a  b\n").strip()),
        ({"whitespace.collapse", "whitespace.strip"},),
    ),
    (
        "NFC, CRLF and strip",
        lambda: (
            _nfd("  Café\r\nCrème  "),
            _nfc(_nfd("  Café\r\nCrème  ")).replace("\r\n", "\n").strip(),
        ),
        ({"unicode.nfc", "newline.crlf_to_lf", "whitespace.strip"},),
    ),
    (
        "tabs expanded and lines stripped",
        lambda: (
            "Tab\there  \nnext\tline  ",
            _rstrip_lines("Tab\there  \nnext\tline  ".expandtabs()),
        ),
        ({"whitespace.tab_expand", "whitespace.line_strip"},),
    ),
    (
        "JavaScript trim drops U+FEFF",
        lambda: ("\u00a0\ufeffx\u2003", _node("s.trim()", "\u00a0\ufeffx\u2003")),
        ({"whitespace.strip"},),
    ),
    (
        "email header unfolding",
        lambda: (
            "hello\n world",
            str(
                email.message_from_string(
                    "Subject: hello\n world\n\nb", policy=email.policy.default
                )["Subject"]
            ),
        ),
        # RFC 5322 unfolding deletes the line break before the folding blank.
        ({"newline.removed"},),
    ),
    (
        "textwrap.shorten",
        lambda: ("a   b\t\tc", textwrap.shorten("a   b\t\tc", 80)),
        ({"whitespace.collapse"},),
    ),
    (
        "textwrap.fill wraps lines",
        lambda: ("alpha beta gamma delta", textwrap.fill("alpha beta gamma delta", 11)),
        ({"newline.inserted"},),
    ),
    # codecs beyond the usual five, and UTF-16 mishandled
    (
        "cp1253",
        lambda: ("naïve", "naïve".encode().decode("cp1253", "replace")),
        ({"encoding.mojibake"},),
    ),
    ("koi8-r", lambda: ("Привет", "Привет".encode().decode("koi8-r")), ({"encoding.mojibake"},)),
    (
        "euc-jp",
        lambda: ("日本語", "日本語".encode().decode("euc-jp", "replace")),
        ({"encoding.mojibake"},),
    ),
    (
        "bytes in shift_jis",
        lambda: ("日本語のテキスト", "日本語のテキスト".encode("shift_jis")),
        ({"encoding.mojibake"},),
    ),
    (
        "UTF-8 read as UTF-16",
        lambda: (_LETTERS, _LETTERS.encode().decode("utf-16-le")),
        ({"encoding.mojibake"},),
    ),
    ("bytes in UTF-16-LE", lambda: ("hi", "hi".encode("utf-16-le")), ({"encoding.mojibake"},)),
    (
        "bytes in UTF-16 with BOM",
        lambda: ("héllo", "héllo".encode("utf-16")),
        ({"encoding.mojibake"},),
    ),
    (
        "mojibake then cut",
        lambda: _mojibake_cut(_GREEK, 41, "cp1253"),
        ({"encoding.mojibake", "truncate"},),
    ),
    # escapes
    ("json.dumps twice", lambda: ('a"b', json.dumps(json.dumps('a"b'))[1:-1]), ({"escape.json"},)),
    ("quote in latin-1", lambda: ("café", quote("café", encoding="latin-1")), ({"escape.url"},)),
    (
        "unquote of non-UTF-8 at the end",
        lambda: ("%E9t%E9", unquote("%E9t%E9")),
        ({"unescape.url"},),
    ),
    (
        "YAML double-quoted escapes",
        lambda: ("a\\x41\\u00e9", _yaml('"a\\x41\\u00e9"')),
        ({"unescape.json"},),
    ),
    ("YAML folds NEL", lambda: ("a\x85b", _yaml('"a\x85b"')), ({"newline.to_space"},)),
    (
        "escape then unescape is not an explanation",
        lambda: _ftfy("fix_c1_controls", "a\x93b\x94"),
        ({"unknown"},),
    ),
    # lost characters are not a truncation when the same loss happens inside: what a
    # decoder with errors="ignore" lost of latin-1 bytes is what ASCII cannot carry
    (
        "decode ignore",
        lambda: ("résumé", "résumé".encode("latin-1").decode("utf-8", "ignore")),
        ({"encoding.dropped"},),
    ),
    (
        "terminal escapes removed",
        lambda: _ftfy("remove_terminal_escapes", "\x1b[31mred\x1b[0m"),
        ({"unknown"}, {"control.removed", "unknown"}),
    ),
    (
        "cut with replacement",
        lambda: ("a€😀b", "a€😀b".encode()[:5].decode("utf-8", "replace")),
        ({"truncate"},),
    ),
    # folding and case
    (
        "accents stripped",
        lambda: ("Ünïcödé Ærø", _strip_marks("Ünïcödé Ærø")),
        ({"unicode.ascii_fold"},),
    ),
    (
        "node toLowerCase",
        lambda: ("İSTANBUL ΣΑΣ", _node("s.toLowerCase()", "İSTANBUL ΣΑΣ")),
        ({"unicode.case"},),
    ),
    (
        "node NFKD",
        lambda: ("ﬁ①", _node("s.normalize('NFKD')", "ﬁ①")),
        ({"unicode.nfkd"}, {"unicode.nfkc"}),
    ),
    ("NFC of a composition exclusion", lambda: ("\u0958", _nfc("\u0958")), ({"unicode.nfc"},)),
    ("smartypants at the start", lambda: _smartypants('\'tis "so"'), ({"quote.educate"},)),
    # dense rewrites of large values: no anchor survives, the whole value is replayed
    (
        "large CRLF everywhere",
        lambda: ("x\r\ny " * 30000, ("x\r\ny " * 30000).replace("\r\n", "\n")),
        ({"newline.crlf_to_lf"},),
    ),
    ("large upper", lambda: (_PROSE, _PROSE.upper()), ({"unicode.case"},)),
    (
        "large accents stripped",
        lambda: (_ACCENTED, _strip_marks(_ACCENTED)),
        ({"unicode.ascii_fold"},),
    ),
    (
        "large mojibake",
        lambda: ("Größe " * 20000, ("Größe " * 20000).encode().decode("cp1252")),
        ({"encoding.mojibake"},),
    ),
    ("large JSON", lambda: ("é😀 " * 30000, json.dumps("é😀 " * 30000)[1:-1]), ({"escape.json"},)),
    (
        "large HTML",
        lambda: ("<a & b> " * 15000, html.escape("<a & b> " * 15000)),
        ({"escape.html"},),
    ),
    (
        "large tabs",
        lambda: ("a\tb\tc\n" * 20000, ("a\tb\tc\n" * 20000).expandtabs(4)),
        ({"whitespace.tab_expand"},),
    ),
    (
        "large with a cut BOM-less UTF-8",
        lambda: (codecs.BOM_UTF8.decode() + "é" * 70000, ("é" * 70000).encode()[:65535]),
        ({"bom.removed", "truncate"},),
    ),
]


@pytest.mark.parametrize(("label", "build", "expected"), CASES, ids=[c[0] for c in CASES])
def test_real_chain_is_classified_by_its_bytes(
    label: str, build: Build, expected: tuple[set[str], ...]
) -> None:
    assert_classified(label, build, expected)


@pytest.mark.parametrize("position", ["start", "middle", "end"])
@pytest.mark.parametrize(
    ("hazard", "rewrite", "kind"),
    [
        ("\u201c", lambda t: t.replace("\u201c", '"'), "quote.straighten"),
        ("e\u0301", _nfc, "unicode.nfc"),
        ("\u00a0", lambda t: unicodedata.normalize("NFKC", t), "whitespace.to_space"),
        ("\u2014", lambda t: t.replace("\u2014", "--"), "punct.straighten"),
        ("é", lambda t: t.encode().decode("cp1252"), "encoding.mojibake"),
        ("\t", lambda t: t.expandtabs(4), "whitespace.tab_expand"),
    ],
)
def test_hazard_anywhere(
    position: str, hazard: str, rewrite: Callable[[str], str], kind: str
) -> None:
    assert_found_anywhere(position, hazard, rewrite, kind)


@pytest.mark.parametrize("size", [3, 5, 6, 7])
@pytest.mark.parametrize("sent", ["a\tb\n\tc", "\tc\nab\td"])
def test_expandtabs_names_one_tab_stop_for_every_tab(sent: str, size: int) -> None:
    # Each tab alone also fits a fixed width (two, then three spaces); the tab stop
    # that explains both is the one named.
    c = compare(sent, sent.expandtabs(size))
    assert c.kinds == {"whitespace.tab_expand"}
    assert [(t.detail, t.sent) for t in c.transformations] == [(f"tabsize {size}", "\t")] * 2


@pytest.mark.parametrize("size", [4, 8])
@pytest.mark.parametrize("sent", ["abc\tx\t\ty", "name\tx\t\tend"])
def test_expandtabs_of_tabs_close_together_is_one_tab_stop(sent: str, size: int) -> None:
    # The tabs after the first are replayed at the columns the earlier ones left.
    c = compare(sent, sent.expandtabs(size))
    assert c.kinds == {"whitespace.tab_expand"}, c.render()
    assert {t.detail for t in c.transformations} == {f"tabsize {size}"}


def test_lines_rstripped_then_written_with_crlf() -> None:
    # Trailing blanks trimmed per line, then LF written as CRLF (an editor, then git's
    # autocrlf): each line end is both rewrites.
    sent = "alpha \t\nbeta \ngamma  \nend"
    received = "\r\n".join(line.rstrip() for line in sent.split("\n"))
    c = compare(sent, received)
    assert c.kinds == {"whitespace.line_strip", "newline.lf_to_crlf"}, c.render()
    assert c.explained
    assert [t.sent for t in c.transformations] == [" \t\n", " \t\n", " \n", " \n", "  \n", "  \n"]


def test_lf_to_crlf_next_to_an_existing_crlf_leaves_the_words_out() -> None:
    # A naive LF -> CRLF replacement over text that already had a CRLF: far-apart line
    # breaks are separate findings, none spans the word between them.
    sent = "a\n\n \r\nKIRMIZI\n\n"
    c = compare(sent, sent.replace("\n", "\r\n"))
    assert c.kinds == {"newline.lf_to_crlf"}
    assert not any("KIRMIZI" in t.sent for t in c.transformations), c.render()


@pytest.mark.parametrize("width", [4, 8])
def test_tabs_replaced_by_a_fixed_run_of_spaces_are_that_width(width: int) -> None:
    # The first tab (column 0) also fits a tab stop of that width; the others, after
    # two and three characters, do not: the tab stop is no explanation of them.
    sent = "\tx\nab\ty\nabc\tz"
    c = compare(sent, sent.replace("\t", " " * width))
    assert c.kinds == {"whitespace.tab_expand"}
    assert {t.detail for t in c.transformations} == {f"{width} spaces"}, c.render()
