"""Every kind, at least three cases each, built by the real library that does the rewrite.

Each case is (kind, sent, received); the received value is what the library returns,
never a hand-typed expectation (except where no library performs the rewrite, said so
in the case id). ``compare`` must report exactly that kind and explain it by replay.
"""

from __future__ import annotations

import codecs
import ctypes
import email
import email.policy
import html
import io
import json
import ntpath
import pathlib
import posixpath
import re
import shlex
import subprocess
import textwrap
import unicodedata
import xml.etree.ElementTree as ET
from collections.abc import Callable
from urllib.parse import quote, quote_plus, unquote, unquote_plus
from xml.sax.saxutils import escape as xml_escape

import pytest
from _needs import need_executable, need_module
from _support.text import utf16_units

from fidelity import KINDS, compare

Case = tuple[str, str, Callable[[], tuple[str | bytes, object]]]


def _lib(name: str) -> object:
    need_module(name)
    import importlib

    return importlib.import_module(name)


def _ftfy_fix(fn: str, text: str) -> tuple[str, object]:
    ftfy_fixes = _lib("ftfy.fixes")
    return text, getattr(ftfy_fixes, fn)(text)


def _smarty(text: str, attrs: str) -> tuple[str, object]:
    sp = _lib("smartypants")
    attr = sp.Attr  # type: ignore[attr-defined]
    flags = 0
    for name in attrs:
        flags |= getattr(attr, name)
    return text, sp.smartypants(text, flags | attr.u)  # type: ignore[attr-defined]


def _secure_filename(text: str) -> tuple[str, object]:
    werkzeug_utils = _lib("werkzeug.utils")
    return text, werkzeug_utils.secure_filename(text)  # type: ignore[attr-defined]


def _sanitize_filename(text: str) -> tuple[str, object]:
    pathvalidate = _lib("pathvalidate")
    return text, pathvalidate.sanitize_filename(text)  # type: ignore[attr-defined]


def _markdownify(text: str, **options: bool) -> tuple[str, object]:
    """``text`` as HTML text converted to Markdown, which escapes its metacharacters."""
    md = _lib("markdownify")
    return text, md.markdownify(text, **options)  # type: ignore[attr-defined]


def _yaml(text: str) -> tuple[str, object]:
    yaml = _lib("yaml")
    return text, yaml.safe_load(text)  # type: ignore[attr-defined]


def _text_file_read(data: bytes) -> tuple[str, object]:
    """Bytes written in binary, read back by a real file object in text mode."""
    stream = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    return data.decode("utf-8"), stream.read()


def _smtp_body(text: str) -> tuple[str, object]:
    """A message body as the email package writes it with ``policy.SMTP`` (CRLF)."""
    message = email.message_from_string("Subject: x\n\n" + text, policy=email.policy.default)
    return text, message.as_string(policy=email.policy.SMTP).split("\r\n\r\n", 1)[1]


_PROSE = "Please review the attached quarterly report before our meeting on Thursday, thanks"
_URL = "see https://example.com/a/very/long/path/that/does/not/fit"


def _folded_header(text: str, policy: email.policy.EmailPolicy) -> tuple[str, object]:
    """A header value as the email package folds it (a line break before a blank)."""
    folded = policy.fold("Subject", text)
    return text, folded.removeprefix("Subject: ").removesuffix(policy.linesep)


def _text_file_write(text: str, newline: str) -> tuple[str, object]:
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="utf-8", newline=newline)
    stream.write(text)
    stream.flush()
    return text, raw.getvalue()


def _shell_capture(text: str) -> tuple[str, object]:
    """``$(cat)`` in a real shell: command substitution drops trailing newlines."""
    out = subprocess.run(
        ["sh", "-c", 'printf %s "$(cat)"'],
        input=text.encode(),
        capture_output=True,
        timeout=10,
        check=True,
    ).stdout
    return text, out


def _cat_v(text: str) -> tuple[str, object]:
    """``cat -v`` (coreutils): control characters in caret notation (ESC is ``^[``)."""
    out = subprocess.run(
        [need_executable("cat"), "-v"],
        input=text.encode(),
        capture_output=True,
        timeout=10,
        check=True,
    ).stdout
    return text, out.decode("ascii")


def _printed(text: str) -> tuple[str, object]:
    buf = io.StringIO()
    print(text, file=buf)
    return text, buf.getvalue()


def _lib_regex_sub(pattern: str, text: str) -> str:
    import regex

    return str(regex.sub(pattern, "", text))


def _unfolded_header(value: str) -> str:
    message = email.message_from_string(f"Subject: {value}\n\nb", policy=email.policy.default)
    return str(message["Subject"])


def _lib_ftfy_fix_encoding(text: str) -> str:
    ftfy = _lib("ftfy")
    return str(ftfy.fix_encoding(text))  # type: ignore[attr-defined]


def _etree_text(escaped: str) -> str:
    return ET.fromstring(f"<a>{escaped}</a>").text or ""


def _multipart_filename(filename: str) -> tuple[str, object]:
    """The filename aiohttp's server reads from a part's quoted ``Content-Disposition``.

    Browsers write a Windows path in the quoted string as it is, backslashes unescaped;
    the parser takes each backslash as a quoted-pair and drops it.
    """
    need_module("aiohttp")
    from aiohttp import BodyPartReader
    from multidict import CIMultiDict, CIMultiDictProxy

    header = f'form-data; name="upload"; filename="{filename}"'
    headers = CIMultiDictProxy(CIMultiDict({"Content-Disposition": header}))
    return filename, BodyPartReader(b"--b", headers, None).filename


def _bash_read(line: str) -> tuple[str, object]:
    """``read`` without ``-r`` in a real bash: a backslash escapes the next character."""
    out = subprocess.run(
        ["bash", "-c", 'IFS= read v; printf %s "$v"'],
        input=(line + "\n").encode(),
        capture_output=True,
        timeout=10,
        check=True,
    ).stdout
    return line, out


def _cookie_value(value: str) -> tuple[str, object]:
    """A quoted cookie value read by ``http.cookies`` (it unquotes ``\\x`` to ``x``)."""
    import http.cookies

    jar: http.cookies.SimpleCookie = http.cookies.SimpleCookie()
    jar.load(f'k="{value}"')
    return value, jar["k"].value


def _node_shell_quote(word: str) -> tuple[str, object]:
    """Node's ``shell-quote`` package: ``quote([word])`` (tests/servers/node_modules)."""
    from _support.mcp import NODE_MODULES

    need_executable("node")
    if not (NODE_MODULES / "shell-quote").is_dir():
        pytest.skip("shell-quote is missing: run npm ci --prefix tests/servers")
    script = "process.stdout.write(require('shell-quote').quote([process.argv[1]]))"
    out = subprocess.run(
        ["node", "-e", script, word],
        capture_output=True,
        timeout=30,
        check=True,
        cwd=NODE_MODULES.parent,
    ).stdout
    return word, out.decode()


def _text_file_write_crlf_final() -> tuple[str, object]:
    buf = io.StringIO(newline="")
    print("a b", file=buf)
    return "a b", buf.getvalue()


CASES: list[Case] = [
    # quotes
    ("quote.straighten", "ftfy uncurl", lambda: _ftfy_fix("uncurl_quotes", "“a” ‘b’")),
    ("quote.straighten", "ftfy uncurl low-9", lambda: _ftfy_fix("uncurl_quotes", "„Ja“, ‚so‘")),
    ("quote.straighten", "ftfy uncurl apostrophe", lambda: _ftfy_fix("uncurl_quotes", "we’ll")),
    ("quote.educate", "smartypants q", lambda: _smarty('"a" it\'s', "q")),
    ("quote.educate", "smartypants q b", lambda: _smarty("``a'' 'b'", "qb")),
    ("quote.educate", "smartypants q nested", lambda: _smarty("He said \"'hi'\" there", "q")),
    # punctuation
    ("punct.educate", "smartypants d e", lambda: _smarty("x -- y...", "de")),
    ("punct.educate", "smartypants set1 dashes", lambda: _smarty("a --- b -- c", "D")),
    ("punct.educate", "smartypants ellipsis", lambda: _smarty("wait. . . what...", "e")),
    ("punct.straighten", "NFKC ellipsis", lambda: ("a…b", unicodedata.normalize("NFKC", "a…b"))),
    (
        "punct.straighten",
        "str.translate dashes (no library)",
        lambda: ("a—b–c", "a—b–c".translate({0x2014: "--", 0x2013: "-"})),
    ),
    (
        "punct.straighten",
        "str.replace primes (no library)",
        lambda: ("5′ 3″", "5′ 3″".replace("′", "'").replace("″", '"')),
    ),
    # unicode normalization, case, folding
    ("unicode.nfc", "NFC", lambda: ("cafe\u0301", unicodedata.normalize("NFC", "cafe\u0301"))),
    (
        "unicode.nfc",
        "NFC hangul",
        lambda: ("\u1100\u1161", unicodedata.normalize("NFC", "\u1100\u1161")),
    ),
    (
        "unicode.nfc",
        "NFC stacked",
        lambda: ("o\u0308\u0304x", unicodedata.normalize("NFC", "o\u0308\u0304x")),
    ),
    ("unicode.nfd", "NFD", lambda: ("café", unicodedata.normalize("NFD", "café"))),
    ("unicode.nfd", "NFD Å", lambda: ("Ångström", unicodedata.normalize("NFD", "Ångström"))),
    ("unicode.nfd", "NFD hangul", lambda: ("한국", unicodedata.normalize("NFD", "한국"))),
    ("unicode.nfkc", "NFKC", lambda: ("ﬁ①Ａ", unicodedata.normalize("NFKC", "ﬁ①Ａ"))),
    ("unicode.nfkc", "NFKC superscript", lambda: ("x²", unicodedata.normalize("NFKC", "x²"))),
    ("unicode.nfkc", "ftfy width", lambda: _ftfy_fix("fix_character_width", "ＡＢＣ１")),
    ("unicode.nfkd", "NFKD", lambda: ("ﬁé", unicodedata.normalize("NFKD", "ﬁé"))),
    ("unicode.nfkd", "NFKD circled", lambda: ("①ñ", unicodedata.normalize("NFKD", "①ñ"))),
    ("unicode.nfkd", "NFKD ligature", lambda: ("ĳsel ǆ", unicodedata.normalize("NFKD", "ĳsel ǆ"))),
    ("unicode.case", "casefold", lambda: ("Straße", "Straße".casefold())),
    ("unicode.case", "upper", lambda: ("crème brûlée", "crème brûlée".upper())),
    ("unicode.case", "lower greek", lambda: ("ΣΊΣΥΦΟΣ", "ΣΊΣΥΦΟΣ".lower())),
    ("unicode.case", "title", lambda: ("hello world", "hello world".title())),
    (
        "unicode.ascii_fold",
        "NFKD strip marks",
        lambda: (
            "naïve café",
            unicodedata.normalize("NFKD", "naïve café").encode("ascii", "ignore").decode(),
        ),
    ),
    (
        "unicode.ascii_fold",
        "NFKD strip marks Å",
        lambda: (
            "Ångström",
            unicodedata.normalize("NFKD", "Ångström").encode("ascii", "ignore").decode(),
        ),
    ),
    (
        "unicode.ascii_fold",
        "transliteration (no library)",
        lambda: ("Łódź Øresund", "Lodz Oresund"),
    ),
    # whitespace
    ("whitespace.strip", "str.strip", lambda: ("  a b \n", "  a b \n".strip())),
    ("whitespace.strip", "str.lstrip", lambda: ("\t\u00a0x", "\t\u00a0x".lstrip())),
    ("whitespace.strip", "str.rstrip", lambda: ("x y  \t", "x y  \t".rstrip())),
    (
        "whitespace.collapse",
        "textwrap.shorten",
        lambda: ("a   b  c", textwrap.shorten("a   b  c", 100)),
    ),
    ("whitespace.collapse", "re.sub", lambda: ("a \t b\n\nc", re.sub(r"\s+", " ", "a \t b\n\nc"))),
    (
        "whitespace.collapse",
        "split/join",
        lambda: (s := "one  two   three", " ".join(s.split())),
    ),
    (
        "whitespace.to_space",
        "replace NBSP",
        lambda: ("10\u00a0kg", "10\u00a0kg".replace("\u00a0", " ")),
    ),
    (
        "whitespace.to_space",
        "textwrap no tab expansion",
        lambda: ("a\tb\x0bc", textwrap.TextWrapper(width=100, expand_tabs=False).fill("a\tb\x0bc")),
    ),
    (
        "whitespace.to_space",
        "regex \\s",
        lambda: ("a\u2003b\u3000c", re.sub(r"[^\S ]", " ", "a\u2003b\u3000c")),
    ),
    ("whitespace.tab_expand", "expandtabs", lambda: ("a\tb", "a\tb".expandtabs())),
    ("whitespace.tab_expand", "expandtabs 4", lambda: ("x\tyy\tz", "x\tyy\tz".expandtabs(4))),
    ("whitespace.tab_expand", "textwrap", lambda: ("ab\tc", textwrap.fill("ab\tc", 100))),
    (
        "whitespace.line_strip",
        "textwrap.dedent",
        lambda: ("a\n   \nb", textwrap.dedent("a\n   \nb")),
    ),
    (
        "whitespace.line_strip",
        "rstrip lines",
        lambda: (s := "a  \nb\t\nc", "\n".join(x.rstrip() for x in s.split("\n"))),
    ),
    (
        "whitespace.line_strip",
        "re multiline",
        lambda: ("x \r\ny", re.sub(r"[ \t]+(?=\r?$)", "", "x \r\ny", flags=re.M)),
    ),
    # invisible and control
    (
        "invisible.removed",
        "regex Cf",
        lambda: ("a\u200bb\u2066c", _lib_regex_sub(r"\p{Cf}", "a\u200bb\u2066c")),
    ),
    (
        "invisible.removed",
        "category filter",
        lambda: (
            "x\u00ady\u200dz",
            "".join(c for c in "x\u00ady\u200dz" if unicodedata.category(c) != "Cf"),
        ),
    ),
    ("invisible.removed", "ftfy mid BOM", lambda: _ftfy_fix("remove_control_chars", "a\ufeffb")),
    (
        "invisible.removed",
        "regex variation selector",
        lambda: (
            "I \u2764\ufe0f it",
            _lib_regex_sub(r"\p{Variation_Selector}", "I \u2764\ufe0f it"),
        ),
    ),
    ("control.removed", "ftfy", lambda: _ftfy_fix("remove_control_chars", "a\x01b\x7f")),
    (
        "control.removed",
        "isprintable filter",
        lambda: ("a\x1b[0mb", "".join(c for c in "a\x1b[0mb" if c.isprintable())),
    ),
    ("control.removed", "translate C1", lambda: ("a\x9bb", "a\x9bb".translate({0x9B: None}))),
    ("control.replaced", "space", lambda: ("a\x01b", "a\x01b".replace("\x01", " "))),
    ("control.replaced", "cat -v", lambda: _cat_v("a\x1bb\x00c\x7fd")),
    (
        "control.replaced",
        "control pictures",
        lambda: ("a\x07b", "".join(chr(0x2400 + ord(c)) if ord(c) < 32 else c for c in "a\x07b")),
    ),
    (
        "control.replaced",
        "question mark",
        lambda: ("x\x00y", "".join(c if c.isprintable() else "?" for c in "x\x00y")),
    ),
    # newlines
    ("newline.crlf_to_lf", "text-mode read", lambda: _text_file_read(b"a\r\nb\r\n")),
    ("newline.crlf_to_lf", "splitlines", lambda: ("a\r\nb", "\n".join("a\r\nb".splitlines()))),
    ("newline.crlf_to_lf", "ftfy", lambda: _ftfy_fix("fix_line_breaks", "x\r\ny")),
    ("newline.cr_to_lf", "text-mode read", lambda: _text_file_read(b"a\rb")),
    ("newline.cr_to_lf", "splitlines", lambda: ("a\rb\rc", "\n".join("a\rb\rc".splitlines()))),
    ("newline.cr_to_lf", "ftfy", lambda: _ftfy_fix("fix_line_breaks", "x\ry")),
    ("newline.lf_to_crlf", "text-mode write", lambda: _text_file_write("a\nb", "\r\n")),
    ("newline.lf_to_crlf", "text-mode write crlf", lambda: _text_file_write("a\r\nb", "\r\n")),
    ("newline.lf_to_crlf", "email policy SMTP", lambda: _smtp_body("x\ny\n")),
    ("newline.separator_to_lf", "ftfy", lambda: _ftfy_fix("fix_line_breaks", "a\u2028b\x85c")),
    (
        "newline.separator_to_lf",
        "splitlines",
        lambda: ("a\x0bb\x0cc", "\n".join("a\x0bb\x0cc".splitlines())),
    ),
    (
        "newline.separator_to_lf",
        "splitlines para",
        lambda: ("a\u2029b", "\n".join("a\u2029b".splitlines())),
    ),
    ("newline.to_space", "textwrap.fill", lambda: ("a\nb", textwrap.fill("a\nb", 100))),
    ("newline.to_space", "join lines", lambda: ("a\r\nb\nc", " ".join("a\r\nb\nc".splitlines()))),
    ("newline.to_space", "replace", lambda: ("x\ny", "x\ny".replace("\n", " "))),
    (
        "newline.inserted",
        "textwrap.fill",
        lambda: (_PROSE, textwrap.fill(_PROSE, 40)),
    ),
    (
        "newline.inserted",
        "textwrap.fill long word",
        lambda: (_URL, textwrap.fill(_URL, 24)),
    ),
    (
        "newline.inserted",
        "email header folding",
        lambda: _folded_header(_PROSE, email.policy.default),
    ),
    (
        "newline.inserted",
        "email header folding SMTP",
        lambda: _folded_header(_PROSE, email.policy.SMTP),
    ),
    (
        "newline.removed",
        "category-C sanitiser",
        lambda: ("alpha\rbeta", _lib_regex_sub(r"[^\P{C}\n\t]", "alpha\rbeta")),
    ),
    (
        "newline.removed",
        "join splitlines",
        lambda: ("a\nb\r\nc", "".join("a\nb\r\nc".splitlines())),
    ),
    (
        "newline.removed",
        "email header unfolding",
        lambda: ("hello\n world", _unfolded_header("hello\n world")),
    ),
    ("newline.final_added", "print", lambda: _printed("a")),
    ("newline.final_added", "print multiline", lambda: _printed("a\nb")),
    ("newline.final_added", "text-mode write crlf", _text_file_write_crlf_final),
    ("newline.final_removed", "shell $(...)", lambda: _shell_capture("a b\n")),
    (
        "newline.final_removed",
        "readline rstrip",
        lambda: ("a\n", io.StringIO("a\n").readline().rstrip("\n")),
    ),
    ("newline.final_removed", "splitlines", lambda: ("x\ny\n", "\n".join("x\ny\n".splitlines()))),
    # paths
    (
        "path.backslash_to_slash",
        "as_posix",
        lambda: ("C:\\x\\y", pathlib.PureWindowsPath("C:\\x\\y").as_posix()),
    ),
    ("path.backslash_to_slash", "replace", lambda: ("a\\b", "a\\b".replace("\\", "/"))),
    (
        "path.backslash_to_slash",
        "as_posix rel",
        lambda: ("d\\e\\f.txt", pathlib.PureWindowsPath("d\\e\\f.txt").as_posix()),
    ),
    ("path.slash_to_backslash", "ntpath.normpath", lambda: ("a/b/c", ntpath.normpath("a/b/c"))),
    (
        "path.slash_to_backslash",
        "PureWindowsPath",
        lambda: ("x/y", str(pathlib.PureWindowsPath("x/y"))),
    ),
    ("path.slash_to_backslash", "ntpath.join", lambda: ("u/v", ntpath.join("u", "v"))),
    (
        "path.basename",
        "ntpath",
        lambda: ("C:\\Users\\me\\f.txt", ntpath.basename("C:\\Users\\me\\f.txt")),
    ),
    ("path.basename", "posixpath", lambda: ("/etc/x/y.conf", posixpath.basename("/etc/x/y.conf"))),
    (
        "path.basename",
        "PurePath.name",
        lambda: ("a/b/c d.md", pathlib.PurePosixPath("a/b/c d.md").name),
    ),
    ("path.normalized", "posixpath.normpath", lambda: ("x//y/./z", posixpath.normpath("x//y/./z"))),
    (
        "path.normalized",
        "PurePosixPath trailing slash",
        lambda: ("alpha dir/", str(pathlib.PurePosixPath("alpha dir/"))),
    ),
    (
        "path.normalized",
        "posixpath.normpath dot-dot",
        lambda: ("alpha ../../etc/passwd beta", posixpath.normpath("alpha ../../etc/passwd beta")),
    ),
    (
        "path.normalized",
        "ntpath.normpath",
        lambda: ("C:\\a\\..\\b", ntpath.normpath("C:\\a\\..\\b")),
    ),
    ("path.sanitized", "secure_filename", lambda: _secure_filename("My Report: 2024/Q1 & x.pdf")),
    ("path.sanitized", "secure_filename traversal", lambda: _secure_filename("../../etc/passwd")),
    ("path.sanitized", "secure_filename blanks", lambda: _secure_filename("a\tb\n c.txt")),
    ("path.sanitized", "sanitize_filename", lambda: _sanitize_filename("a:b*c?.txt")),
    (
        "path.sanitized",
        "sanitize_filename path",
        lambda: _sanitize_filename("My Report: 2024/Q1 & more.pdf"),
    ),
    # escapes
    ("escape.json", "json.dumps inner", lambda: ("“q”\n", json.dumps("“q”\n")[1:-1])),
    ("escape.json", "json.dumps quoted", lambda: ("a\tb", json.dumps("a\tb"))),
    ("escape.json", "repr", lambda: ("x\x01y", repr("x\x01y")[1:-1])),
    ("escape.json", "json.dumps astral pairs", lambda: ("😀😀", json.dumps("😀😀")[1:-1])),
    ("escape.html", "html.escape", lambda: ('a & <b> "c"', html.escape('a & <b> "c"'))),
    ("escape.html", "xml escape", lambda: ("x<y>&z", xml_escape("x<y>&z"))),
    (
        "escape.html",
        "xmlcharrefreplace",
        lambda: ("a “b”", "a “b”".encode("ascii", "xmlcharrefreplace").decode()),
    ),
    ("escape.url", "quote", lambda: ("a b/“", quote("a b/“", safe=""))),
    ("escape.url", "quote_plus", lambda: ("a b&c", quote_plus("a b&c"))),
    ("escape.url", "quote path", lambda: ("/dir/é x", quote("/dir/é x"))),
    ("escape.backslash", "replace", lambda: ("C:\\x", "C:\\x".replace("\\", "\\\\"))),
    ("escape.backslash", "json.dumps path", lambda: ("a\\b\\c", json.dumps("a\\b\\c")[1:-1])),
    ("escape.backslash", "re.sub", lambda: ("\\\\srv\\s", re.sub(r"\\", r"\\\\", "\\\\srv\\s"))),
    ("escape.markdown", "markdownify", lambda: _markdownify("1_000 *a*")),
    ("escape.markdown", "markdownify names", lambda: _markdownify("snake_case_name *x*")),
    (
        "escape.markdown",
        "markdownify escape_misc",
        lambda: _markdownify("price [x] # 5", escape_misc=True),
    ),
    ("escape.shell", "shlex.quote", lambda: ("caf\u00e9 x", shlex.quote("caf\u00e9 x"))),
    ("escape.shell", "shlex.quote apostrophe", lambda: ("it's", shlex.quote("it's"))),
    (
        "escape.shell",
        "shlex.join words",
        lambda: ("echo na\u00efve $HOME", shlex.join(["echo", "na\u00efve", "$HOME"])),
    ),
    ("escape.shell", "shell-quote (Node)", lambda: _node_shell_quote("it's a $HOME")),
    ("unescape.json", "json.loads", lambda: ("a\\nb", json.loads('"a\\nb"'))),
    (
        "unescape.json",
        "unicode_escape",
        lambda: ("caf\\u00e9", codecs.decode("caf\\u00e9", "unicode_escape")),
    ),
    (
        "unescape.json",
        "json.loads pair",
        lambda: ("\\ud83d\\ude00!", json.loads('"\\ud83d\\ude00!"')),
    ),
    (
        "unescape.html",
        "html.unescape",
        lambda: ("Tom &amp; Jerry", html.unescape("Tom &amp; Jerry")),
    ),
    (
        "unescape.html",
        "xml.etree",
        lambda: ("a &lt;b&gt; &#233;", _etree_text("a &lt;b&gt; &#233;")),
    ),
    ("unescape.html", "ftfy", lambda: _ftfy_fix("unescape_html", "caf&eacute; &#x201C;")),
    ("unescape.url", "unquote_plus", lambda: ("a+b%41", unquote_plus("a+b%41"))),
    ("unescape.url", "unquote", lambda: ("caf%C3%A9%20x", unquote("caf%C3%A9%20x"))),
    ("unescape.url", "unquote_plus form", lambda: ("x+y+z", unquote_plus("x+y+z"))),
    (
        "unescape.backslash",
        "aiohttp multipart filename",
        lambda: _multipart_filename("C:\\Users\\me\\x.txt"),
    ),
    (
        "unescape.backslash",
        "shlex.split",
        lambda: ("C:\\temp\\new", shlex.split("C:\\temp\\new")[0]),
    ),
    ("unescape.backslash", "bash read", lambda: _bash_read("D:\\data\\caf\u00e9.csv")),
    (
        "unescape.backslash",
        "shlex.split quotes",
        lambda: ('say "hello world"', " ".join(shlex.split('say "hello world"'))),
    ),
    ("unescape.backslash", "http.cookies", lambda: _cookie_value("C:\\Users\\me")),
    # encodings
    ("encoding.mojibake", "cp1252", lambda: ("we’ll", "we’ll".encode().decode("cp1252"))),
    ("encoding.mojibake", "latin-1", lambda: ("café", "café".encode().decode("latin-1"))),
    ("encoding.mojibake", "cp1250", lambda: ("Łódź", "Łódź".encode().decode("cp1250", "replace"))),
    ("encoding.mojibake", "cp437", lambda: ("naïve", "naïve".encode().decode("cp437"))),
    ("encoding.mojibake", "mac-roman", lambda: ("résumé", "résumé".encode().decode("mac-roman"))),
    ("encoding.mojibake", "bytes cp1252", lambda: ("café €", "café €".encode("cp1252"))),
    ("encoding.mojibake", "ftfy repair", lambda: ("weâ€™ll", _lib_ftfy_fix_encoding("weâ€™ll"))),
    (
        "encoding.replacement",
        "decode ascii replace",
        lambda: ("é!", "é!".encode().decode("ascii", "replace")),
    ),
    (
        "encoding.replacement",
        "lone surrogate",
        lambda: (
            "a\ud800b",
            "a\ud800b".encode("utf-8", "surrogatepass").decode("utf-8", "replace"),
        ),
    ),
    (
        "encoding.replacement",
        "latin-1 bytes as utf-8",
        lambda: ("café", "café".encode("latin-1").decode("utf-8", "replace")),
    ),
    (
        "encoding.question_mark",
        "ascii replace",
        lambda: ("“😀”", "“😀”".encode("ascii", "replace").decode()),
    ),
    (
        "encoding.question_mark",
        "cp1252 replace",
        lambda: ("a😀b", "a😀b".encode("cp1252", "replace").decode("cp1252")),
    ),
    (
        "encoding.question_mark",
        "latin-1 replace",
        lambda: ("Łx", "Łx".encode("latin-1", "replace").decode("latin-1")),
    ),
    (
        "encoding.question_mark",
        "utf-16 units ascii replace",  # one ? per UTF-16 unit, as a Java/JS string gives
        lambda: ("a😀b", utf16_units("a😀b").encode("ascii", "replace").decode()),
    ),
    (
        "encoding.dropped",
        "ascii ignore",
        lambda: ("a😀b\ufffe!", "a😀b\ufffe!".encode("ascii", "ignore").decode()),
    ),
    (
        "encoding.dropped",
        "latin-1 ignore",
        lambda: ("café 😀 €", "café 😀 €".encode("latin-1", "ignore").decode("latin-1")),
    ),
    (
        "encoding.dropped",
        "cp1252 ignore",
        lambda: ("€5 😀 Ł ok", "€5 😀 Ł ok".encode("cp1252", "ignore").decode("cp1252")),
    ),
    (
        "encoding.surrogate_split",
        "U+10000 joined by utf-16 codec",  # the first pair: U+D800 U+DC00
        lambda: (
            "\ud800\udc00",
            "\ud800\udc00".encode("utf-16-le", "surrogatepass").decode("utf-16-le"),
        ),
    ),
    (
        "encoding.surrogate_split",
        "lone low surrogate dropped",  # U+DFFF, the last surrogate
        lambda: ("a\udfffb", "a\udfffb".encode("utf-8", "ignore").decode()),
    ),
    ("encoding.surrogate_split", "utf-16 units", lambda: ("😀", utf16_units("😀"))),
    ("encoding.surrogate_split", "utf-16 units text", lambda: ("a🎉b", utf16_units("a🎉b"))),
    (
        "encoding.surrogate_split",
        "joined by utf-16 codec",
        lambda: (
            "\ud83d\ude00",
            "\ud83d\ude00".encode("utf-16-le", "surrogatepass").decode("utf-16-le"),
        ),
    ),
    # bom
    ("bom.added", "utf-8-sig", lambda: ("a", "a".encode("utf-8-sig"))),
    ("bom.added", "utf-8-sig text", lambda: ("x y", "x y".encode("utf-8-sig").decode("utf-8"))),
    ("bom.added", "BOM_UTF8", lambda: ("é", codecs.BOM_UTF8 + "é".encode())),
    (
        "bom.removed",
        "utf-8-sig decode",
        lambda: ("\ufeffa", "\ufeffa".encode().decode("utf-8-sig")),
    ),
    ("bom.removed", "ftfy", lambda: _ftfy_fix("remove_bom", "\ufeffhello")),
    ("bom.removed", "lstrip", lambda: ("\ufeffx\n", "\ufeffx\n".lstrip("\ufeff"))),
    # truncate
    (
        "truncate",
        "bytes ignore",
        lambda: ("abc€def", "abc€def".encode()[:5].decode("utf-8", "ignore")),
    ),
    (
        "truncate",
        "bytes replace",
        lambda: ("abc€def", "abc€def".encode()[:5].decode("utf-8", "replace")),
    ),
    ("truncate", "raw bytes", lambda: ("abc€def", "abc€def".encode()[:5])),
    ("truncate", "ctypes C string", lambda: (s := "ab\x00cd", ctypes.c_char_p(s.encode()).value)),
    ("truncate", "utf-16 cut", lambda: ("a😀b", utf16_units("a😀b")[:2])),
    # coercion
    ("type.coerced", "yaml octal", lambda: _yaml("010")),
    ("type.coerced", "yaml no", lambda: _yaml("no")),
    ("type.coerced", "yaml null", lambda: _yaml("null")),
    ("type.coerced", "yaml sexagesimal", lambda: _yaml("12:30:00")),
    ("type.coerced", "yaml hex", lambda: _yaml("0x1F")),
    ("type.coerced", "json 1e3", lambda: ("1e3", json.loads("1e3"))),
    ("type.coerced", "float text", lambda: ("1.50", str(float("1.50")))),
    ("type.coerced", "int text", lambda: ("007", str(int("007")))),
]


@pytest.mark.parametrize(
    ("kind", "label", "build"), CASES, ids=[f"{k}:{lab}" for k, lab, _ in CASES]
)
def test_kind_from_library(
    kind: str, label: str, build: Callable[[], tuple[str | bytes, object]]
) -> None:
    sent, received = build()
    c = compare(sent, received)
    assert not c.faithful, f"{label}: the library did not rewrite {sent!r}"
    assert c.kinds == {kind}, c.render()
    assert c.explained, c.render()


def test_every_kind_has_three_cases() -> None:
    counts = dict.fromkeys(KINDS, 0)
    for kind, _, _ in CASES:
        counts[kind] += 1
    missing = {k: n for k, n in counts.items() if n < 3 and k != "unknown"}
    assert not missing


@pytest.mark.parametrize(
    ("style", "build"),
    [
        ("shlex.quote", lambda: ("it's a $HOME", shlex.quote("it's a $HOME"))),
        ("shell-quote", lambda: _node_shell_quote("it's a $HOME")),
    ],
)
def test_shell_quoting_is_named_with_its_style(
    style: str, build: Callable[[], tuple[str, object]]
) -> None:
    sent, received = build()
    (t,) = compare(sent, received).transformations
    assert (t.kind, t.detail) == ("escape.shell", style), received


@pytest.mark.parametrize(
    ("sent", "received"),
    [
        ("abc", "'abc'"),  # no style quotes a word of safe characters
        ("a b", "'a' b"),
        ("caf\u00e9 x", "'caf\u00e9 x"),  # one quote: no quoting
        ('say "hi" & go', html.escape('say "hi" & go')),
        ('say "hi"', json.dumps('say "hi"')),
        ('it\'s "q" a\\ b', 'it\'s "q" a\\ b'),
    ],
)
def test_quotes_that_no_shell_style_writes_are_not_escape_shell(sent: str, received: str) -> None:
    assert "escape.shell" not in compare(sent, received).kinds


@pytest.mark.parametrize(
    ("sent", "received"),
    [("x", "y"), ("abc", "xyz"), ("", "a"), ("hello", "help me")],
)
def test_unexplained_is_unknown_with_code_points(sent: str, received: str) -> None:
    c = compare(sent, received)
    assert "unknown" in c.kinds
    assert not c.explained
    unknown = [t for t in c.transformations if t.kind == "unknown"]
    assert all("U+" in t.detail for t in unknown)


def test_more_replacement_characters_than_utf8_bytes_is_unknown() -> None:
    # A decoder writes at most one U+FFFD per byte: two for the one-byte "b" are no
    # decoding's work.
    c = compare("abc", "a\ufffd\ufffdc")
    assert c.kinds == {"unknown"}
    assert not c.explained


def test_each_backslash_a_shell_drops_is_its_own_finding() -> None:
    sent, received = _bash_read("C:\\Users\\me\\x.txt")
    c = compare(sent, received)
    assert [(t.kind, t.sent, t.received) for t in c.transformations] == [
        ("unescape.backslash", "\\U", "U"),
        ("unescape.backslash", "\\m", "m"),
        ("unescape.backslash", "\\x", "x"),
    ]


def test_each_entity_html_decodes_is_its_own_finding() -> None:
    # Entities for characters below "&" (a quote, "!") are entities too.
    sent = "say &quot;hi&quot; &#33; now"
    c = compare(sent, html.unescape(sent))
    assert [(t.kind, t.sent, t.received) for t in c.transformations] == [
        ("unescape.html", "&quot;", '"'),
        ("unescape.html", "&quot;", '"'),
        ("unescape.html", "&#33;", "!"),
    ]


@pytest.mark.parametrize("last", ["\ue000", "\uff01"])
def test_an_astral_last_character_replaced_by_a_bmp_one_is_no_truncation(last: str) -> None:
    # Only the high surrogate of the cut character can be what is left of it (typed by
    # hand: no library replaces an emoji with these).
    c = compare("ok \U0001f600", "ok " + last)
    assert c.kinds == {"unknown"}, c.render()


def test_question_marks_are_named_where_their_characters_were() -> None:
    sent = "\u0141\u00f3d\u017a, ok"
    c = compare(sent, sent.encode("ascii", "replace").decode())
    assert [(t.kind, t.sent, t.received) for t in c.transformations] == [
        ("encoding.question_mark", "\u0141\u00f3", "??"),
        ("encoding.question_mark", "\u017a", "?"),
    ]


def test_each_character_html_escapes_is_its_own_finding() -> None:
    sent = 'say "hi" & go'
    c = compare(sent, html.escape(sent))
    assert [(t.kind, t.sent, t.received) for t in c.transformations] == [
        ("escape.html", '"', "&quot;"),
        ("escape.html", '"', "&quot;"),
        ("escape.html", "&", "&amp;"),
    ]


def test_each_line_break_a_wrapper_inserts_is_its_own_finding() -> None:
    # textwrap breaks at the blanks (dropping the run) and inside a word too long.
    sent = "one two\t three " + "x" * 12
    received = textwrap.fill(sent, 10)
    assert received == "one two\nthree xxxx\nxxxxxxxx"
    c = compare(sent, received)
    assert [(t.kind, t.sent, t.received) for t in c.transformations] == [
        ("newline.inserted", "o\t t", "o\nt"),
        ("newline.inserted", "xx", "x\nx"),
    ]


@pytest.mark.parametrize(
    ("codec", "sent"),
    [
        ("ascii", "I \u2764 \U0001f600 Unicode\U000e0100 \U0010fffd!"),
        ("latin-1", "caf\u00e9 \u2013 \U0001f600 na\u00efve"),
        ("cp1252", "\u20ac5 \u2014 \u0141\U0001f600 ok"),
    ],
)
def test_dropped_names_the_codec_that_kept_the_rest(codec: str, sent: str) -> None:
    c = compare(sent, sent.encode(codec, "ignore").decode(codec))
    assert {(t.kind, t.detail) for t in c.transformations} == {("encoding.dropped", codec)}


def _collapse(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize(
    ("sent", "received", "kinds"),
    [
        ("a b", "a\n\nb", {"unknown"}),  # a paragraph break is no wrap
        ("ab", "a\n\nb", {"unknown"}),
        ("a b", "a \nb", {"unknown"}),  # the blank kept before the break
        ("ab", "\nab", {"unknown"}),  # a break before the first character
        ("ab", "ab\n", {"newline.final_added"}),
        ("a\nb", "a\r\nb", {"newline.lf_to_crlf"}),
        ("a\u2028b", "a\nb", {"newline.separator_to_lf"}),
        ("a\rb", "a\nb", {"newline.cr_to_lf"}),
        ("a  \nb", "a\nb", {"whitespace.line_strip"}),
        ("a b", "a\rb", {"unknown"}),  # a lone CR breaks no line a wrapper writes
    ],
)
def test_a_line_break_no_wrapper_inserts_is_not_named_inserted(
    sent: str, received: str, kinds: set[str]
) -> None:
    assert compare(sent, received).kinds == kinds


def test_the_whole_value_wrap_is_textwrap_on_plain_prose() -> None:
    from fidelity._compare.rules.newlines import WRAP_WIDTHS, wrap

    prose = " ".join([_PROSE] * 4)
    for width in WRAP_WIDTHS:
        wrapped = wrap(prose, width)
        assert wrapped == textwrap.fill(prose, width)
        assert compare(prose, wrapped).kinds == {"newline.inserted"}
    assert wrap("x" * 25 + "\nab  cd", 10) == "xxxxxxxxxx\nxxxxxxxxxx\nxxxxx\nab  cd"


@pytest.mark.parametrize(
    ("sent", "received", "kinds"),
    [
        # A cut that fell before an emoji is a cut: nothing was dropped inside.
        ("ok \U0001f600", "ok \U0001f600"[:3], {"truncate"}),
        # The narrower kinds keep their names.
        ("a\u200bb", "a\u200bb".replace("\u200b", ""), {"invisible.removed"}),
        ("a\x85b\x9f", "a\x85b\x9f".translate({0x85: None, 0x9F: None}), {"control.removed"}),
        ("\ufeffab", b"\xef\xbb\xbfab".decode("utf-8-sig"), {"bom.removed"}),
        (
            "a\U0001f600b",
            "a\U0001f600b".encode("ascii", "replace").decode(),
            {"encoding.question_mark"},
        ),
        # Blanks an encoder could drop, next to a collapse: the collapse.
        ("a \u2008 b", _collapse("a \u2008 b"), {"whitespace.collapse"}),
    ],
)
def test_dropped_leaves_narrower_kinds_their_names(
    sent: str, received: str, kinds: set[str]
) -> None:
    c = compare(sent, received)
    assert c.kinds == kinds, c.render()


@pytest.mark.parametrize(
    ("sent", "received"),
    [
        # No codec drops one emoji and keeps the other (typed by hand: no library does).
        ("x\U0001f600y\U0001f600z", "xy\U0001f600z"),
        # Nor drops an ASCII letter.
        ("a\U0001f600bc", "ac"),
    ],
)
def test_a_partial_drop_is_not_named_dropped(sent: str, received: str) -> None:
    c = compare(sent, received)
    assert "encoding.dropped" not in c.kinds, c.render()


@pytest.mark.parametrize(
    ("sent", "received"),
    [
        # Written from the systems' tables by hand: no dependency transliterates here.
        ("Москва, Щука, Юлия", "Moskva, Shchuka, Yuliya"),  # BGN/PCGN
        ("Москва, Щука, Юлия", "Moskva, Shhuka, Yuliya"),  # GOST 7.79 system B
        ("Київ", "Kyiv"),  # Ukrainian national system
        ("Αθήνα, Ευχαριστώ", "Athina, Efcharisto"),  # ELOT 743
        ("ΣΟΦΙΑ σοφία", "SOFIA sofia"),
        ("Straße Þór Œuvre", "Strasse Thor OEuvre"),
    ],
)
def test_ascii_fold_replays_standard_romanizations(sent: str, received: str) -> None:
    c = compare(sent, received)
    assert c.kinds == {"unicode.ascii_fold"}, c.render()


@pytest.mark.parametrize(
    ("sent", "received"),
    [
        ("Москва", "Moskwa!"),  # a letter added
        ("Αθήνα", "Athens"),  # an exonym, not a spelling
        ("привет", "qrivet"),  # п is never q
    ],
)
def test_ascii_fold_refuses_what_no_romanization_writes(sent: str, received: str) -> None:
    c = compare(sent, received)
    assert "unicode.ascii_fold" not in c.kinds, c.render()
