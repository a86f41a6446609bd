"""Whole transport stacks, not single functions: classified by what the bytes show.

Each case pushes a value through the code a real chain runs (node's Buffer,
TextDecoder, escape and locale case; Starlette under uvicorn with h11; bash, dash and
coreutils; a child process with another stdout codec; sqlite; a zip without its UTF-8
flag; minidom, plistlib, configparser, csv; ctypes) and ``compare`` must report exactly
the expected kinds, or one of the equally valid sets where the bytes allow two
readings. Hazards sit at the start, middle and end of values from one character to
over 100 KiB, and several rewrites are mixed in one value.
"""

from __future__ import annotations

import configparser
import csv
import ctypes
import email
import email.policy
import html
import http.cookies
import io
import json
import ntpath
import os
import plistlib
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import unicodedata
import zipfile
from collections.abc import Callable, Iterator
from email.message import EmailMessage
from urllib.parse import quote, urlencode
from xml.dom import minidom

import pytest
from _needs import need_executable, need_module
from _support.classified import Build, Case, assert_classified, assert_found_anywhere
from _support.text import utf16_units

from fidelity import compare

_TIMEOUT = 20


def _node(script: str, text: str) -> bytes:
    """Run ``script`` in node with ``s`` bound to ``text`` (sent as JSON: lone surrogates too)."""
    node = need_executable("node")
    prog = "const s = JSON.parse(require('fs').readFileSync(0, 'utf8'));" + script
    return subprocess.run(
        [node, "-e", prog],
        input=json.dumps(text).encode(),
        capture_output=True,
        timeout=_TIMEOUT,
        check=True,
    ).stdout


def _node_json(expression: str, text: str) -> object:
    """``expression`` computed in node, sent back with ``JSON.stringify``, read by ``json``."""
    out = _node(f"process.stdout.write(JSON.stringify({expression}));", text)
    return json.loads(out.decode("utf-8", "surrogatepass"))


def _sh(
    command: str, text: str, *, stdin: bytes | None = None, tools: tuple[str, ...] = ()
) -> bytes:
    """``bash -c command`` with ``$1`` = ``text``: the raw bytes it writes."""
    bash = need_executable("bash")
    for tool in tools:
        need_executable(tool)
    return subprocess.run(
        [bash, "-c", command, "_", text],
        input=stdin,
        capture_output=True,
        timeout=_TIMEOUT,
        check=True,
    ).stdout


def _child(text: str, io_encoding: str) -> bytes:
    """A Python child writing ``text`` to stdout with ``PYTHONIOENCODING=io_encoding``."""
    return subprocess.run(
        [sys.executable, "-c", "import sys; sys.stdout.write(sys.argv[1])", text],
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": io_encoding},
        timeout=_TIMEOUT,
        check=True,
    ).stdout


def _sqlite(sql: str, value: str) -> object:
    with sqlite3.connect(":memory:") as db:
        return db.execute(sql, (value,)).fetchone()[0]


def _zip_without_utf8_flag(name: str) -> tuple[str, object]:
    """A zipper that writes UTF-8 names but not the language-encoding flag (bit 11)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(name, b"x")
    data = bytearray(buf.getvalue())
    for signature, flags in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = data.find(signature) + flags + 1
        data[at] &= ~0x08
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as z:
        return name, z.namelist()[0]


def _config_value(raw: str) -> tuple[str, object]:
    cp = configparser.ConfigParser()
    cp.read_string(f"[s]\nk = {raw}\n")
    return raw, cp["s"]["k"]


def _csv_text_mode(cell: str) -> tuple[str, object]:
    """A CSV written correctly, read back from a text stream without ``newline=''``."""
    raw = io.BytesIO()
    with io.TextIOWrapper(raw, encoding="utf-8", newline="", write_through=True) as out:
        csv.writer(out).writerow([cell, "x"])
        data = raw.getvalue()
    reader = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    return cell, next(csv.reader(reader))[0]


def _email_body(text: str, cte: str | None) -> tuple[str, object]:
    msg = EmailMessage()
    if cte is None:
        msg.set_content(text)
    else:
        msg.set_content(text, cte=cte)
    parsed = email.message_from_bytes(msg.as_bytes(), policy=email.policy.default)
    assert isinstance(parsed, EmailMessage)
    return text, parsed.get_content() if cte is None else parsed.get_payload()


def _cookie(value: str) -> tuple[str, object]:
    cookie: http.cookies.SimpleCookie = http.cookies.SimpleCookie()
    cookie["k"] = value
    return value, cookie.output(header="").strip().split("=", 1)[1]


def _xml_attribute(value: str) -> tuple[str, object]:
    """``value`` written raw into an attribute and read back by a parser."""
    root = minidom.parseString(f'<r a="{value}"/>').documentElement
    assert root is not None
    return value, root.getAttribute("a")


def _cesu8(text: str) -> bytes:
    """CESU-8 / Java's modified UTF-8: each UTF-16 unit encoded on its own."""
    units = utf16_units(text)
    return b"".join(u.encode("utf-8", "surrogatepass") for u in units)


_PROSE = ("The quick brown fox jumps over the lazy dog. " * 40 + "\n") * 60  # 108 KiB
_TR = "DIYARBAKIR \u0130stanbul I\u0131"

CASES: list[Case] = [
    # ---- node: what JavaScript servers do to a string
    (
        "node TextDecoder windows-1252, undefined bytes as C1",
        lambda: (
            s := "\u201dend \u00c1 \u00cd \u00cf \u00d0",
            _node_json("new TextDecoder('windows-1252').decode(Buffer.from(s))", s),
        ),
        ({"encoding.mojibake"},),
    ),
    (
        "node unescape(encodeURIComponent(s))",
        lambda: (s := "\u00fcber-Stra\u00dfe", _node_json("unescape(encodeURIComponent(s))", s)),
        ({"encoding.mojibake"},),
    ),
    (
        "node escape() writes %uXXXX",
        lambda: (s := "r\u00e9sum\u00e9 \u20ac5 \U0001f600", _node_json("escape(s)", s)),
        ({"escape.url"},),
    ),
    (
        "node toLocaleLowerCase tr",
        lambda: (_TR, _node_json("s.toLocaleLowerCase('tr')", _TR)),
        ({"unicode.case"},),
    ),
    (
        "node toLocaleUpperCase tr",
        lambda: ("istanbul ilk", _node_json("s.toLocaleUpperCase('tr')", "istanbul ilk")),
        ({"unicode.case"},),
    ),
    (
        "node trim drops BOM, NBSP and U+2028",
        lambda: (s := "\ufeff\u00a0 text\u2028\u3000", _node_json("s.trim()", s)),
        ({"whitespace.strip", "bom.removed"}, {"whitespace.strip"}),
    ),
    (
        "node slice on UTF-16 units, written to stdout",
        lambda: (
            s := "emoji at cut \U0001f600\U0001f601",
            _node("process.stdout.write(s.slice(0, 14))", s),
        ),
        ({"truncate"},),
    ),
    (
        "node Buffer 'binary' keeps the low byte",
        lambda: (s := "a\u20acb", _node_json("Buffer.from(s, 'binary').toString('utf8')", s)),
        ({"encoding.replacement"},),
    ),
    (
        "node replace(/\\s+/g) with NBSP, BOM, U+2028",
        lambda: (s := "x\u00a0y\ufeffz\u2028w  v", _node_json("s.replace(/\\s+/g, ' ')", s)),
        (
            {"whitespace.to_space", "newline.to_space", "whitespace.collapse", "invisible.removed"},
            {"whitespace.to_space", "newline.to_space", "whitespace.collapse", "unknown"},
        ),
    ),
    (
        "node five rewrites in one value",
        lambda: (
            s := "Mix \u201cq\u201d\u00a0caf\u00e9\u200b\r\nEND",
            _node_json(
                "s.replace(/[\\u201c\\u201d]/g, '\"').replace(/\\u00a0/g, ' ')"
                ".replace(/\\u200b/g, '').replace(/\\r\\n/g, '\\n').toLowerCase()",
                s,
            ),
        ),
        (
            {
                "quote.straighten",
                "whitespace.to_space",
                "invisible.removed",
                "newline.crlf_to_lf",
                "unicode.case",
            },
        ),
    ),
    (
        "node big: NFD, CRLF to LF and trim",
        lambda: (
            s := "\u00a0\u201cQ\u201d caf\u00e9\r\n" + _PROSE + "end\t\u2026 ",
            _node_json("s.normalize('NFD').replace(/\\r\\n/g, '\\n').trim()", s),
        ),
        ({"unicode.nfd", "newline.crlf_to_lf", "whitespace.strip"},),
    ),
    (
        "node big: CRLF to LF then written as latin-1",
        lambda: (
            s := "r\u00e9sum\u00e9\r\n" * 20000,
            _node("process.stdout.write(Buffer.from(s.replace(/\\r\\n/g, '\\n'), 'latin1'))", s),
        ),
        ({"newline.crlf_to_lf", "encoding.mojibake"},),
    ),
    # ---- shells and coreutils
    (
        "dash echo interprets escapes",
        lambda: (s := "a\\tb \\\\ c\\nd", _sh('sh -c \'echo "$1"\' _ "$1"', s, tools=("sh",))),
        ({"unescape.json", "newline.final_added"},),
    ),
    (
        "cut -c counts bytes, then a newline",
        lambda: (
            s := "\u00e9\u00e9\u00e9\u00e9\u00e9 long value",
            _sh('printf %s "$1" | cut -c1-3', s, tools=("cut",)),
        ),
        ({"truncate", "newline.final_added"},),
    ),
    (
        "awk '$1=$1' squeezes, strips and ends the line",
        lambda: (
            s := "  x   y\tz  ",
            _sh("printf '%s\\n' \"$1\" | awk '{$1=$1};1'", s, tools=("awk",)),
        ),
        (
            {
                "whitespace.strip",
                "whitespace.collapse",
                "whitespace.to_space",
                "newline.final_added",
            },
        ),
    ),
    (
        "bash $(...) drops trailing newlines",
        lambda: (s := "value\n\n\n", _sh('x=$(printf %s "$1"); printf %s "$x"', s)),
        ({"whitespace.strip"}, {"newline.final_removed"}),
    ),
    (
        "bash read without -r eats backslashes",
        lambda: (
            s := "  path\\to\\file  \t",
            _sh('IFS= read x; printf %s "$x"', s, stdin=(s + "\n").encode()),
        ),
        ({"unescape.backslash"},),
    ),
    (
        "bash printf %q in the C locale",
        lambda: (
            s := "caf\u00e9 \u00e0 la",
            subprocess.run(
                [need_executable("bash"), "-c", 'printf %q "$1"', "_", s],
                capture_output=True,
                env={"LC_ALL": "C", "PATH": os.environ.get("PATH", "")},
                timeout=_TIMEOUT,
                check=True,
            ).stdout,
        ),
        ({"escape.json", "unknown"},),
    ),
    (
        "iconv SHIFT_JIS, then sed adds CR",
        lambda: (
            s := "\u30c6\u30b9\u30c8 \u65e5\u672c\u8a9e\n\u884c2\n",
            _sh(
                "printf %s \"$1\" | iconv -f utf-8 -t SHIFT_JIS | sed 's/$/\\r/'",
                s,
                tools=("iconv", "sed"),
            ),
        ),
        ({"newline.lf_to_crlf", "encoding.mojibake"},),
    ),
    (
        "iconv ascii//TRANSLIT then expand -t 4, big",
        lambda: (
            s := "\u201cstart\u201d\t" + _PROSE.replace("lazy", "l\u00e4zy", 50) + "\u2014end",
            _sh(
                'printf %s "$1" | iconv -f utf-8 -t ascii//TRANSLIT | expand -t 4',
                s,
                tools=("iconv", "expand"),
            ),
        ),
        (
            {
                "quote.straighten",
                "unicode.ascii_fold",
                "whitespace.to_space",
                "punct.straighten",
            },
        ),
    ),
    (
        "head -c cuts a big value inside a character",
        lambda: (
            s := _PROSE[:3000] + "\u00e9" + _PROSE[:3000],
            _sh('printf %s "$1" | head -c 3001', s, tools=("head",)),
        ),
        ({"truncate"},),
    ),
    # ---- child processes and files
    (
        "child stdout cp437",
        lambda: (s := "caf\u00e9 \u00fc", _child(s, "cp437")),
        ({"encoding.mojibake"},),
    ),
    (
        "child stdout ascii:backslashreplace",
        lambda: (s := "caf\u00e9 \u201cq\u201d \U0001f600", _child(s, "ascii:backslashreplace")),
        ({"escape.json"},),
    ),
    (
        "csv read from a text stream without newline=''",
        lambda: _csv_text_mode('cell, "q"\r\nnext\u00e9'),
        ({"newline.crlf_to_lf"},),
    ),
    (
        "Python bytes repr",
        lambda: (s := "\u00e9\r\n", str(s.encode())),
        ({"escape.json", "unknown"},),
    ),
    (
        "CESU-8 bytes",
        lambda: ("x\U0001f600y", _cesu8("x\U0001f600y")),
        ({"encoding.surrogate_split"},),
    ),
    (
        "UTF-16 units as code points, big",
        lambda: (s := "\U0001f600 " * 30000, utf16_units(s)),
        ({"encoding.surrogate_split"},),
    ),
    (
        "big cp1251 with CRLF, as bytes",
        lambda: (
            s := "\u041f\u0440\u0438\u0432\u0435\u0442 \u043c\u0438\u0440\n" * 3000,
            s.replace("\n", "\r\n").encode("cp1251"),
        ),
        ({"newline.lf_to_crlf", "encoding.mojibake"},),
    ),
    (
        "ctypes C string stops at NUL",
        lambda: (s := "nul\x00after", ctypes.create_string_buffer(s.encode()).value),
        ({"truncate"},),
    ),
    # ---- databases, archives, documents
    (
        "sqlite upper() folds ASCII only",
        lambda: (s := "\u00e9cole MIXED Case \u00c9", _sqlite("select upper(?)", s)),
        ({"unicode.case"},),
    ),
    (
        "sqlite cast to integer",
        lambda: ("0042", _sqlite("select cast(? as integer)", "0042")),
        ({"type.coerced"},),
    ),
    (
        "zip name without the UTF-8 flag, read as cp437",
        lambda: _zip_without_utf8_flag("r\u00e9sum\u00e9/\u00fcber \u00e7a.txt"),
        ({"encoding.mojibake"},),
    ),
    (
        "minidom attribute value normalization",
        lambda: _xml_attribute("a\tb\nc  d"),
        ({"whitespace.to_space", "newline.to_space"},),
    ),
    (
        "plistlib XML turns CR into LF",
        lambda: (s := "plist\r\nvalue\r", plistlib.loads(plistlib.dumps({"k": s}))["k"]),
        ({"newline.crlf_to_lf", "newline.cr_to_lf"},),
    ),
    (
        "configparser %% interpolation",
        lambda: _config_value("100%%"),
        ({"unknown"}, {"truncate"}),
    ),
    (
        "email quoted-printable payload",
        lambda: _email_body("plain text body line \u00e9\n.dot line\nlast", "quoted-printable"),
        ({"unknown", "newline.final_added"},),
    ),
    (
        "cookie value quoted with octal escapes",
        lambda: _cookie('a b;"c"\u00e9'),
        ({"escape.json", "unknown"},),
    ),
    (
        "ntpath.normcase",
        lambda: (s := "C:/Users/Me/File.TXT", ntpath.normcase(s)),
        ({"unicode.case", "path.slash_to_backslash"},),
    ),
    (
        "quote(encoding='cp1252')",
        lambda: (s := "\u201cq\u201d \u00e9 & \u2014", quote(s, encoding="cp1252")),
        ({"escape.url"},),
    ),
    (
        "html.escape twice",
        lambda: (s := "Tom & \u201cJerry\u201d", html.escape(html.escape(s))),
        ({"escape.html"}, {"escape.html", "unknown"}),
    ),
    # ---- tiny values
    (
        "tiny CRLF read in text mode",
        lambda: ("\r\n", io.TextIOWrapper(io.BytesIO(b"\r\n"), encoding="utf-8").read()),
        ({"newline.crlf_to_lf"}, {"newline.final_removed"}),
    ),
    (
        "tiny BOM only, decoded utf-8-sig",
        lambda: (s := "\ufeff", s.encode().decode("utf-8-sig")),
        ({"bom.removed"}, {"invisible.removed"}),
    ),
    (
        "tiny é encoded latin-1",
        lambda: (s := "\u00e9", s.encode("latin-1")),
        ({"encoding.mojibake"},),
    ),
]


@pytest.mark.parametrize(("label", "build", "expected"), CASES, ids=[c[0] for c in CASES])
def test_stack_is_classified_by_its_bytes(
    label: str, build: Build, expected: tuple[set[str], ...]
) -> None:
    assert_classified(label, build, expected)


@pytest.mark.parametrize(
    ("sent", "received"),
    [
        (s := "\u00e9t\u00e9 \u201cok\u201d", json.loads(json.dumps(s, ensure_ascii=False))),
        (s := "keep \ud83d lone", json.loads(json.dumps(s))),
        (s := "\u00e9t\u00e9\r\n\u201cok\u201d\u00a0", _sqlite("select ?", s)),
    ],
)
def test_faithful_stacks_stay_faithful(sent: str, received: str) -> None:
    assert compare(sent, received).faithful


@pytest.fixture(scope="module")
def echo_server() -> Iterator[int]:
    """A Starlette echo app under uvicorn (h11) on 127.0.0.1, OS-assigned port."""
    need_module("uvicorn")
    need_module("starlette")
    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    async def header(request: Request) -> Response:
        return JSONResponse({"q": request.headers.get("x-q", "")})

    async def query(request: Request) -> Response:
        return JSONResponse({"q": request.query_params.get("q", "")})

    async def latin(request: Request) -> Response:
        return Response(await request.body(), media_type="text/plain; charset=iso-8859-1")

    app = Starlette(
        routes=[Route("/h", header), Route("/q", query), Route("/l", latin, methods=["POST"])]
    )
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="error", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline and thread.is_alive():
        time.sleep(0.01)
    assert server.started, "uvicorn did not start"
    yield server.servers[0].sockets[0].getsockname()[1]
    server.should_exit = True
    thread.join(10)


def _raw_get(port: int, target: bytes, header: bytes = b"") -> bytes:
    """One HTTP/1.1 GET written by hand (clients refuse what servers must still parse)."""
    request = b"GET " + target + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + header
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request + b"\r\n")
        reply = b""
        while len(reply) < 1 << 20 and (chunk := sock.recv(65536)):
            reply += chunk
    return reply.split(b"\r\n\r\n", 1)[1]


def test_h11_strips_header_whitespace(echo_server: int) -> None:
    sent = " \tpadded header\t "
    got = json.loads(_raw_get(echo_server, b"/h", b"X-Q: " + sent.encode() + b"\r\n"))["q"]
    c = compare(sent, got)
    assert c.kinds == {"whitespace.strip"}, c.render()


def test_utf8_header_read_as_latin1(echo_server: int) -> None:
    sent = "caf\u00e9 na\u00efve"
    got = json.loads(_raw_get(echo_server, b"/h", b"X-Q: " + sent.encode() + b"\r\n"))["q"]
    c = compare(sent, got)
    assert c.kinds == {"encoding.mojibake"}, c.render()
    assert c.explained, c.render()


def test_query_built_by_concatenation(echo_server: int) -> None:
    sent = "a b+c&d=e#frag"
    target = b"/q?q=" + sent.replace(" ", "%20").encode()
    got = json.loads(_raw_get(echo_server, target))["q"]
    c = compare(sent, got)
    assert c.kinds == {"unescape.url", "truncate"}, c.render()
    assert c.explained, c.render()


def test_form_encoded_in_cp1252_read_as_utf8(echo_server: int) -> None:
    need_module("httpx")
    import httpx

    sent = "\u201cquoted\u201d \u00e9\r\nnext"
    with httpx.Client(base_url=f"http://127.0.0.1:{echo_server}", timeout=10) as client:
        got = client.get("/q?" + urlencode({"q": sent}, encoding="cp1252"))
    c = compare(sent, got.json()["q"])
    assert c.kinds == {"encoding.replacement"}, c.render()


def test_big_body_declared_latin1(echo_server: int) -> None:
    need_module("httpx")
    import httpx

    sent = "\u00e9t\u00e9\r\n" * 30000
    with httpx.Client(base_url=f"http://127.0.0.1:{echo_server}", timeout=10) as client:
        got = client.post("/l", content=sent.encode()).text
    c = compare(sent, got)
    assert c.kinds == {"encoding.mojibake"}, c.render()
    assert c.explained, c.render()


@pytest.mark.parametrize("position", ["start", "middle", "end"])
@pytest.mark.parametrize(
    ("hazard", "rewrite", "kind"),
    [
        ("I", lambda t: t.replace("I", "\u0131").lower(), "unicode.case"),
        ("\u20ac", lambda t: t.encode().decode("mac-roman"), "encoding.mojibake"),
        ("\u00e9", lambda t: quote(t, encoding="latin-1"), "escape.url"),
        ("\U0001f600", utf16_units, "encoding.surrogate_split"),
        ("\u00e9", lambda t: str(t.encode())[2:-1], "escape.json"),
    ],
)
def test_stack_hazard_anywhere(
    position: str, hazard: str, rewrite: Callable[[str], str], kind: str
) -> None:
    assert_found_anywhere(position, hazard, rewrite, kind)


def test_nfd_stays_nfd_through_unicodedata() -> None:
    sent = "\uac00\ud7a3 \u1100\u1161"
    c = compare(sent, unicodedata.normalize("NFD", sent))
    assert c.kinds == {"unicode.nfd"}, c.render()
