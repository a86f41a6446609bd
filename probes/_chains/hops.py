"""Built-in hops: real serialization libraries, files, pipes, argv and environment.

Each function returns a :class:`~probes._chains.chain.ChainHop` that writes the value into a
format and reads it back out with the real library, the way a tool's caller and the
tool would. Text formats travel as UTF-8 bytes, so a value the format cannot encode is
refused (``rejected``), never silently changed by this harness. Hops over optional
libraries (PyYAML, tomli-w) are still returned when the library is missing, marked
``unavailable`` with the reason; using one raises ``UsageError``.

The subprocess hops (``pipe``, ``argv``, ``env``) start a small Python child per
payload (``sys.executable -I -S -c ...``), bounded by ``timeout`` seconds; a chain
runs several of them at once.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tempfile
from typing import Any, Literal

from fidelity._core.errors import UsageError
from fidelity._core.extras import install_hint
from fidelity._core.text import from_utf8
from probes._chains.chain import ChainBroken, ChainHop, ValueLost

__all__ = [
    "argv",
    "builtin_hops",
    "csv",
    "email_header",
    "env",
    "form",
    "json",
    "pipe",
    "query",
    "text_file",
    "toml",
    "xml_attr",
    "xml_text",
    "yaml",
]

_KEY = "value"


def _text(value: object) -> str:
    return value if isinstance(value, str) else str(value)


def _utf8(text: str) -> bytes:
    # Strict on purpose: a lone surrogate cannot travel as UTF-8; that is a refusal.
    return text.encode("utf-8")


def _field(document: object, where: str) -> object:
    if not isinstance(document, dict) or _KEY not in document:
        raise ValueLost(f"the {where} read back has no {_KEY!r} field")
    return document[_KEY]


def _missing(module: str, extra: str, package: str) -> str:
    try:
        __import__(module)
    except ImportError:
        return f"{package} is not installed ({install_hint(extra)})."
    return ""


# -- structured formats -------------------------------------------------------------


def json(ensure_ascii: bool = True) -> ChainHop:
    """JSON via the standard library: ``json.dumps`` to UTF-8 bytes, ``json.loads`` back.

    With ``ensure_ascii=False`` a lone surrogate cannot be written as UTF-8 and is
    rejected; with the default, everything a ``str`` can hold survives.
    """
    import json as _json

    def encode(value: object) -> bytes:
        return _utf8(_json.dumps({_KEY: value}, ensure_ascii=ensure_ascii))

    def decode(data: bytes) -> object:
        return _field(_json.loads(data), "JSON document")

    name = "json" if ensure_ascii else "json(ensure_ascii=False)"
    return ChainHop(
        name=name,
        encode=encode,
        decode=decode,
        description=f"json.dumps(ensure_ascii={ensure_ascii}) as UTF-8, json.loads",
    )


def yaml(style: Literal["block", "flow"] = "block") -> ChainHop:
    """YAML via PyYAML: ``safe_dump(allow_unicode=True)`` in block or flow style, ``safe_load``.

    Unavailable when PyYAML is not installed.
    """
    if style not in ("block", "flow"):
        raise UsageError(f"style={style!r} must be 'block' or 'flow'.")
    name = "yaml" if style == "block" else "yaml(style='flow')"
    description = f"yaml.safe_dump({style} style, allow_unicode=True) as UTF-8, yaml.safe_load"
    unavailable = _missing("yaml", "yaml", "PyYAML")
    if unavailable:
        return ChainHop(name=name, encode=_text, description=description, unavailable=unavailable)
    import yaml as _yaml

    def encode(value: object) -> bytes:
        dumped: str = _yaml.safe_dump(
            {_KEY: value},
            allow_unicode=True,
            default_flow_style=style == "flow",
            sort_keys=False,
        )
        return _utf8(dumped)

    def decode(data: bytes) -> object:
        return _field(_yaml.safe_load(data), "YAML document")

    return ChainHop(name=name, encode=encode, decode=decode, description=description)


def toml() -> ChainHop:
    """TOML: ``tomli_w.dumps`` as UTF-8, ``tomllib.loads``. Unavailable without tomli-w."""
    name = "toml"
    description = "tomli_w.dumps as UTF-8, tomllib.loads"
    unavailable = _missing("tomli_w", "toml", "tomli-w")
    if unavailable:
        return ChainHop(name=name, encode=_text, description=description, unavailable=unavailable)
    import tomllib

    import tomli_w

    def encode(value: object) -> bytes:
        return _utf8(tomli_w.dumps({_KEY: value}))

    def decode(data: bytes) -> object:
        return _field(tomllib.loads(data.decode("utf-8")), "TOML document")

    return ChainHop(name=name, encode=encode, decode=decode, description=description)


def xml_text() -> ChainHop:
    """XML element text via ``xml.etree.ElementTree``: ``tostring`` (UTF-8), ``fromstring``.

    Empty element text reads back as ``""`` (XML does not tell empty from absent).
    """
    import xml.etree.ElementTree as ET

    def encode(value: object) -> bytes:
        element = ET.Element(_KEY)
        element.text = _text(value)
        written: bytes = ET.tostring(element, encoding="utf-8")
        return written

    def decode(data: bytes) -> object:
        return ET.fromstring(data).text or ""

    return ChainHop(
        name="xml_text",
        encode=encode,
        decode=decode,
        description="element text: ElementTree.tostring as UTF-8, ElementTree.fromstring",
    )


def xml_attr(writer: Literal["etree", "minidom"] = "etree") -> ChainHop:
    """An XML attribute value, written by ``xml.etree`` or ``xml.dom.minidom``, read by etree.

    ElementTree writes tab, LF and CR in attributes as character references, so they
    survive; minidom writes them raw, and the parser's attribute-value normalization
    turns each into a space.
    """
    import xml.etree.ElementTree as ET

    if writer not in ("etree", "minidom"):
        raise UsageError(f"writer={writer!r} must be 'etree' or 'minidom'.")

    def encode_etree(value: object) -> bytes:
        element = ET.Element(_KEY)
        element.set(_KEY, _text(value))
        written: bytes = ET.tostring(element, encoding="utf-8")
        return written

    def encode_minidom(value: object) -> bytes:
        from xml.dom import minidom

        document = minidom.Document()
        element = document.createElement(_KEY)
        element.setAttribute(_KEY, _text(value))
        document.appendChild(element)
        return document.toxml(encoding="utf-8")

    def decode(data: bytes) -> object:
        found = ET.fromstring(data).get(_KEY)
        if found is None:
            raise ValueLost(f"the XML element read back has no {_KEY!r} attribute")
        return found

    name = "xml_attr" if writer == "etree" else "xml_attr(writer='minidom')"
    written = "ElementTree.tostring" if writer == "etree" else "minidom toxml"
    return ChainHop(
        name=name,
        encode=encode_etree if writer == "etree" else encode_minidom,
        decode=decode,
        description=f"attribute value: {written} as UTF-8, ElementTree.fromstring",
    )


def csv() -> ChainHop:
    """One CSV field: ``csv.writer`` (``newline=''``) as UTF-8, ``csv.reader`` back."""
    import csv as _csv

    def encode(value: object) -> bytes:
        buffer = io.StringIO(newline="")
        _csv.writer(buffer).writerow([_text(value)])
        return _utf8(buffer.getvalue())

    def decode(data: bytes) -> object:
        rows = list(_csv.reader(io.StringIO(data.decode("utf-8"), newline="")))
        if not rows or not rows[0]:
            raise ValueLost("the CSV read back has no field")
        return rows[0][0]

    return ChainHop(
        name="csv",
        encode=encode,
        decode=decode,
        description="csv.writer row as UTF-8, csv.reader",
    )


def form() -> ChainHop:
    """An ``application/x-www-form-urlencoded`` body: ``urlencode``, ``parse_qs`` back."""
    from urllib.parse import parse_qs, urlencode

    def encode(value: object) -> bytes:
        return urlencode({_KEY: _text(value)}).encode("ascii")

    def decode(data: bytes) -> object:
        fields = parse_qs(data.decode("ascii"), keep_blank_values=True)
        if _KEY not in fields:
            raise ValueLost(f"the form body read back has no {_KEY!r} field")
        return fields[_KEY][0]

    return ChainHop(
        name="form",
        encode=encode,
        decode=decode,
        description="urllib.parse.urlencode body, parse_qs(keep_blank_values=True)",
    )


def query() -> ChainHop:
    """A URL query parameter: ``quote``-encoded into a URL, ``urlsplit`` + ``parse_qsl`` back."""
    from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

    def encode(value: object) -> bytes:
        qs = urlencode({_KEY: _text(value)}, quote_via=quote)
        return urlunsplit(("http", "tool.invalid", "/call", qs, "")).encode("ascii")

    def decode(data: bytes) -> object:
        pairs = parse_qsl(urlsplit(data.decode("ascii")).query, keep_blank_values=True)
        for key, found in pairs:
            if key == _KEY:
                return found
        raise ValueLost(f"the URL read back has no {_KEY!r} query parameter")

    return ChainHop(
        name="query",
        encode=encode,
        decode=decode,
        description="URL query: urlencode(quote_via=quote), urlsplit + parse_qsl",
    )


def email_header() -> ChainHop:
    """An email header (``Subject``): ``EmailMessage.as_bytes``, parsed back (policy default)."""
    import email
    import email.message
    import email.policy

    def encode(value: object) -> bytes:
        message = email.message.EmailMessage()
        message["Subject"] = _text(value)
        return message.as_bytes()

    def decode(data: bytes) -> object:
        header = email.message_from_bytes(data, policy=email.policy.default)["Subject"]
        if header is None:
            raise ValueLost("the message read back has no Subject header")
        return str(header)

    return ChainHop(
        name="email_header",
        encode=encode,
        decode=decode,
        description="Subject header: EmailMessage.as_bytes, message_from_bytes(policy=default)",
    )


# -- files and processes ------------------------------------------------------------


def text_file() -> ChainHop:
    """A file written and read in text mode (UTF-8, the platform's newline handling)."""

    def round_trip(value: object) -> object:
        fd, path = tempfile.mkstemp(prefix="fidelity-", suffix=".txt")
        try:
            with open(fd, "w", encoding="utf-8") as f:
                f.write(_text(value))
            with open(path, encoding="utf-8") as f:
                return f.read()
        finally:
            os.unlink(path)

    return ChainHop(
        name="text_file",
        encode=round_trip,
        description="open(path, 'w', encoding='utf-8').write, then open(path).read()",
    )


_PIPE_CHILD = (
    "import io,sys\n"
    "i=io.TextIOWrapper(sys.stdin.buffer,encoding='utf-8')\n"
    "o=io.TextIOWrapper(sys.stdout.buffer,encoding='utf-8')\n"
    "o.write(i.read())\n"
    "o.flush()\n"
)
_ARGV_CHILD = "import os,sys\nsys.stdout.buffer.write(os.fsencode(sys.argv[1]))\n"
_ENV_CHILD = (
    "import os,sys\n"
    "v=os.environb[b'FIDELITY_VALUE'] if hasattr(os,'environb') "
    "else os.environ['FIDELITY_VALUE'].encode('utf-8','surrogatepass')\n"
    "sys.stdout.buffer.write(v)\n"
)
_ENV_NAME = "FIDELITY_VALUE"


def _check_timeout(timeout: float) -> float:
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise UsageError(f"timeout={timeout!r} must be a positive number of seconds.")
    return float(timeout)


def _run(args: list[str], *, timeout: float, **options: Any) -> bytes | str:
    try:
        done = subprocess.run(args, capture_output=True, timeout=timeout, check=False, **options)
    except (FileNotFoundError, PermissionError) as exc:
        raise ChainBroken(f"cannot start the child process: {exc}") from exc
    if done.returncode != 0:
        err = (
            done.stderr if isinstance(done.stderr, str) else done.stderr.decode("utf-8", "replace")
        )
        last = err.strip().splitlines()[-1:] or ["no message"]
        raise RuntimeError(f"the child process exited with status {done.returncode}: {last[0]}")
    out: bytes | str = done.stdout
    return out


def _bytes_or_text(data: bytes) -> object:
    text = from_utf8(data)
    # A child that received bytes that are not UTF-8 reports them as bytes, exactly.
    return data if text is None or _has_surrogate(text) else text


def _has_surrogate(text: str) -> bool:
    return not text.isascii() and any(0xD800 <= ord(c) <= 0xDFFF for c in text)


def pipe(timeout: float = 10.0) -> ChainHop:
    """A subprocess that echoes its stdin, both ends in text mode (UTF-8, platform newlines)."""
    limit = _check_timeout(timeout)

    def round_trip(value: object) -> object:
        return _run(
            [sys.executable, "-I", "-S", "-c", _PIPE_CHILD],
            timeout=limit,
            input=_text(value),
            text=True,
            encoding="utf-8",
        )

    return ChainHop(
        name="pipe",
        encode=round_trip,
        description="text-mode stdin -> child echoing stdin in text mode -> text-mode stdout",
        concurrent=True,
    )


def argv(timeout: float = 10.0) -> ChainHop:
    """A subprocess argument: the child prints ``argv[1]`` as the bytes it received."""
    limit = _check_timeout(timeout)

    def round_trip(value: object) -> object:
        out = _run([sys.executable, "-I", "-S", "-c", _ARGV_CHILD, _text(value)], timeout=limit)
        assert isinstance(out, bytes)
        return _bytes_or_text(out)

    return ChainHop(
        name="argv",
        encode=round_trip,
        description="subprocess argument, printed back by the child as raw bytes",
        concurrent=True,
    )


def env(timeout: float = 10.0) -> ChainHop:
    """An environment variable through a subprocess, printed back as the bytes it held."""
    limit = _check_timeout(timeout)

    def round_trip(value: object) -> object:
        environment = dict(os.environ)
        environment[_ENV_NAME] = _text(value)
        out = _run([sys.executable, "-I", "-S", "-c", _ENV_CHILD], timeout=limit, env=environment)
        assert isinstance(out, bytes)
        return _bytes_or_text(out)

    return ChainHop(
        name="env",
        encode=round_trip,
        description=f"environment variable {_ENV_NAME} of a child, printed back as raw bytes",
        concurrent=True,
    )


def builtin_hops() -> tuple[ChainHop, ...]:
    """Every built-in hop variant, each marked with its availability here."""
    return (
        json(),
        json(ensure_ascii=False),
        yaml(),
        yaml(style="flow"),
        toml(),
        xml_text(),
        xml_attr(),
        xml_attr(writer="minidom"),
        csv(),
        form(),
        query(),
        email_header(),
        text_file(),
        pipe(),
        argv(),
        env(),
    )
