"""Each hint, applied to the chain that shows its rewrite, makes the rewrite go away.

For every chain of the suite that rewrites something (the built-in hops, the HTTP
reflector's chains, the quote-straightening MCP edit server) the survey names the
kind and the hint; the test then changes the chain the way the hint says (a file
opened with ``newline=''``, ``&#13;`` for CR in XML, a YAML dump with
``default_style='"'``, a header value base64-encoded, ``ensure_ascii=False``, a form
field instead of a file name, a declared charset, both sides normalised) and surveys
it again: the kind is gone, and the payloads arrive byte for byte (or, where the hint
says to refuse a value, are refused rather than silently changed).
"""

from __future__ import annotations

import base64
import email
import email.message
import email.policy
import os
import subprocess
import sys
import tempfile
import unicodedata
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable

import pytest
from _needs import need_module
from _support.stdlib import email_header_keeps_final_newline, minidom_escapes_attribute_whitespace

import fidelity
import probes
from fidelity import Status


def _survey(probe: fidelity.Probe, families: Iterable[str]) -> fidelity.Survey:
    return fidelity.survey(probe, families=list(families))


def _hint(survey: fidelity.Survey, kind: str) -> str:
    found = {h.kind: h for h in survey.hints()}
    assert kind in found, (kind, sorted(found))
    return found[kind].text


def _assert_gone(survey: fidelity.Survey, kinds: Iterable[str]) -> None:
    left = set(kinds) & survey.kinds
    assert not left, f"the fix left {sorted(left)}"


def _preserved(survey: fidelity.Survey) -> None:
    statuses = {o.status for o in survey.observations}
    assert statuses == {Status.PRESERVED}, {s: n for s, n in survey.statuses.items() if n}


# -- files and processes ----------------------------------------------------------


def _text_file_newline_empty(value: object) -> object:
    """The text_file hop, opened with newline='' to write and to read, as the hint says."""
    fd, path = tempfile.mkstemp(prefix="fidelity-fix-", suffix=".txt")
    try:
        with open(fd, "w", encoding="utf-8", newline="") as f:
            f.write(str(value))
        with open(path, encoding="utf-8", newline="") as f:
            return f.read()
    finally:
        os.unlink(path)


def test_text_file_newline_hint_keeps_cr_and_crlf() -> None:
    newline_kinds = {"newline.crlf_to_lf", "newline.cr_to_lf"}
    broken = _survey(
        probes.chain(probes.json(ensure_ascii=False), probes.text_file()), ["newlines"]
    )
    assert newline_kinds <= broken.kinds
    for kind in newline_kinds:
        hint = {h.kind: h for h in broken.hints()}[kind]
        assert hint.hop == "text_file"  # JSON kept the CR: the file is to blame
        assert "`newline=''`" in hint.text
    fixed_hop = probes.hop("text_file(newline='')", _text_file_newline_empty)
    fixed = _survey(probes.chain(probes.json(ensure_ascii=False), fixed_hop), ["newlines"])
    _assert_gone(fixed, newline_kinds)
    _preserved(fixed)


_CHILD_NEWLINE_EMPTY = (
    "import io,sys\n"
    "i=io.TextIOWrapper(sys.stdin.buffer,encoding='utf-8',newline='')\n"
    "o=io.TextIOWrapper(sys.stdout.buffer,encoding='utf-8',newline='')\n"
    "o.write(i.read())\n"
    "o.flush()\n"
)


def _pipe_bytes(value: object) -> object:
    """The pipe hop with the hint applied: bytes on the parent's side, each of the
    child's text wrappers given newline=''."""
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", _CHILD_NEWLINE_EMPTY],
        input=str(value).encode("utf-8"),
        capture_output=True,
        timeout=30,
        check=True,
    )
    return done.stdout.decode("utf-8")


def test_pipe_newline_hint_keeps_cr_and_crlf() -> None:
    broken = _survey(probes.chain(probes.pipe()), ["newlines"])
    assert {"newline.crlf_to_lf", "newline.cr_to_lf"} <= broken.kinds
    hint = _hint(broken, "newline.crlf_to_lf")
    assert "`newline=''`" in hint
    assert "bytes" in hint
    fixed = _survey(probes.chain(probes.hop("pipe(bytes)", _pipe_bytes)), ["newlines"])
    _preserved(fixed)


# -- XML, YAML, email ---------------------------------------------------------------


def _xml_text_cr_reference() -> probes.ChainHop:
    """The xml_text hop, with CR written as the character reference &#13;."""

    def encode(value: object) -> bytes:
        element = ET.Element("value")
        element.text = str(value)
        written: bytes = ET.tostring(element, encoding="utf-8")
        return written.replace(b"\r", b"&#13;")

    def decode(data: bytes) -> object:
        return ET.fromstring(data).text or ""

    return probes.hop("xml_text(&#13;)", encode, decode)


def test_xml_text_cr_hint_keeps_line_endings() -> None:
    broken = _survey(probes.chain(probes.xml_text()), ["newlines"])
    assert {"newline.crlf_to_lf", "newline.cr_to_lf"} <= broken.kinds
    assert "`&#13;`" in _hint(broken, "newline.cr_to_lf")
    fixed = _survey(probes.chain(_xml_text_cr_reference()), ["newlines"])
    _preserved(fixed)


def test_minidom_attribute_hint_etree_keeps_whitespace() -> None:
    families = ["whitespace", "newlines"]
    kinds = {"newline.to_space", "whitespace.to_space"}
    broken = _survey(probes.chain(probes.xml_attr(writer="minidom")), families)
    if minidom_escapes_attribute_whitespace():
        # minidom escapes tab and line breaks in attributes from 3.13 on (gh-50002).
        _assert_gone(broken, kinds)
    else:
        assert kinds <= broken.kinds
        assert "`xml.etree.ElementTree`" in _hint(broken, "newline.to_space")
    fixed = _survey(probes.chain(probes.xml_attr()), families)
    _assert_gone(fixed, kinds)
    _preserved(fixed)


def _yaml_double_quoted() -> probes.ChainHop:
    import yaml

    def encode(value: object) -> bytes:
        dumped: str = yaml.safe_dump({"value": value}, allow_unicode=True, default_style='"')
        return dumped.encode("utf-8")

    def decode(data: bytes) -> object:
        return yaml.safe_load(data)["value"]

    return probes.hop("yaml(default_style='\"')", encode, decode)


@pytest.mark.parametrize("style", ["block", "flow"])
def test_yaml_line_break_hint_keeps_separators(style: str) -> None:
    need_module("yaml")
    broken = _survey(probes.chain(probes.yaml(style=style)), ["separators"])  # type: ignore[arg-type]
    assert "newline.to_space" in broken.kinds
    assert "`default_style='\"'`" in _hint(broken, "newline.to_space")
    fixed = _survey(probes.chain(_yaml_double_quoted()), ["separators", "newlines"])
    _preserved(fixed)


def _email_header_base64() -> probes.ChainHop:
    def encode(value: object) -> bytes:
        message = email.message.EmailMessage()
        message["Subject"] = base64.b64encode(str(value).encode("utf-8")).decode("ascii")
        return message.as_bytes()

    def decode(data: bytes) -> object:
        header = email.message_from_bytes(data, policy=email.policy.default)["Subject"]
        return base64.b64decode(str(header)).decode("utf-8")

    return probes.hop("email_header(base64)", encode, decode)


def test_email_header_hint_base64_keeps_edges() -> None:
    families = ["whitespace", "newlines"]
    kinds = {"whitespace.strip"}
    if not email_header_keeps_final_newline():
        # Up to 3.12 the header drops a final line break; 3.13 encodes it and keeps it.
        kinds.add("newline.final_removed")
    broken = _survey(probes.chain(probes.email_header()), families)
    assert kinds == broken.kinds & {"whitespace.strip", "newline.final_removed"}
    for kind in kinds:
        assert "base64-encode" in _hint(broken, kind)
    fixed = _survey(probes.chain(_email_header_base64()), families)
    _preserved(fixed)


# -- JSON ---------------------------------------------------------------------------


def test_json_surrogate_hint_ensure_ascii_false_refuses_instead_of_joining() -> None:
    broken = _survey(probes.chain(probes.json()), ["surrogates"])
    assert "encoding.surrogate_split" in broken.kinds
    hint = _hint(broken, "encoding.surrogate_split")
    assert "`ensure_ascii=False`" in hint
    fixed = _survey(probes.chain(probes.json(ensure_ascii=False)), ["surrogates"])
    _assert_gone(fixed, {"encoding.surrogate_split"})
    joined = {o.payload_id for o in broken.observations if o.kinds}
    for obs in fixed.observations:
        if obs.payload_id in joined:  # silently joined before, refused now
            assert obs.status is Status.REJECTED


def test_coercion_hint_quoting_keeps_strings() -> None:
    need_module("yaml")
    import yaml

    broken = _survey(probes.function(yaml.safe_load), ["coercion"])
    assert "type.coerced" in broken.kinds
    assert "quote it when writing" in _hint(broken, "type.coerced")
    # yaml.safe_dump quotes a string that would read back as another type.
    fixed = _survey(probes.function(lambda v: yaml.safe_load(yaml.safe_dump(v))), ["coercion"])
    _preserved(fixed)


# -- HTTP ---------------------------------------------------------------------------


def test_multipart_filename_hint_form_field_keeps_paths(reflector: probes.HttpReflector) -> None:
    families = ["paths", "quotes"]
    with probes.http(
        reflector.url + "reflect", send="filename:file", read="json:text", reflector=True
    ) as probe:
        broken = _survey(probe, families)
    assert {"path.basename", "escape.url"} <= broken.kinds
    for kind in ("path.basename", "escape.url"):
        assert "form field of its own" in _hint(broken, kind)
    with probes.http(
        reflector.url + "reflect", send="multipart:text", read="json:text", reflector=True
    ) as probe:
        fixed = _survey(probe, families)
    _preserved(fixed)


def test_no_charset_latin1_hint_declared_charset_keeps_text(
    reflector: probes.HttpReflector,
) -> None:
    options = {"send": "body", "read": "body", "reflector": True, "default_encoding": "latin-1"}
    with probes.http(reflector.url + "reflect", emit_charset=None, **options) as probe:
        broken = _survey(probe, ["mojibake", "diacritics"])
    assert "encoding.mojibake" in broken.kinds
    assert "charset=utf-8" in _hint(broken, "encoding.mojibake")
    # The same client, defaulting to latin-1, once the response declares its charset.
    with probes.http(reflector.url + "reflect", emit_charset="utf-8", **options) as probe:
        fixed = _survey(probe, ["mojibake", "diacritics"])
    _preserved(fixed)


def test_header_mojibake_hint_body_keeps_text(reflector: probes.HttpReflector) -> None:
    with probes.http(
        reflector.url + "reflect",
        send="header:x-fidelity-text",
        read="header:x-fidelity-text",
        reflector=True,
    ) as probe:
        broken = _survey(probe, ["mojibake", "bom"])
    assert "encoding.mojibake" in broken.kinds
    hint = _hint(broken, "encoding.mojibake")
    assert "is read as UTF-8" in hint
    assert "charset=utf-8" in hint
    with probes.http(reflector.url + "reflect", send="body", read="body", reflector=True) as probe:
        fixed = _survey(probe, ["mojibake", "bom"])
    _preserved(fixed)


# -- MCP ----------------------------------------------------------------------------


def _straighten(text: str) -> str:
    return text.translate(
        str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'"})
    )


def test_quote_edit_hint_both_sides_normalised_match(quote_edit_survey: fidelity.Survey) -> None:
    """The edit server straightens old_string before searching: with both sides
    normalised (as the hint says), what the tool searched for equals what was sent."""
    broken = quote_edit_survey  # the quotes payloads and three plain ones
    hints = {h.kind: h for h in broken.hints()}
    assert hints["quote.straighten"].directions == ("request",)
    assert "compare both sides normalised" in hints["quote.straighten"].text
    rewritten = [o for o in broken.observations if "quote.straighten" in o.kinds]
    assert rewritten
    for obs in rewritten:
        assert isinstance(obs.received, str)
        assert not fidelity.compare(obs.sent, obs.received).faithful
        assert fidelity.compare(_straighten(obs.sent), _straighten(obs.received)).faithful


# -- library layers that perform the other rewrites -----------------------------------


def _roundtrip_file(write: dict[str, str], read: dict[str, str]) -> Callable[[str], str]:
    def run(text: str) -> str:
        fd, path = tempfile.mkstemp(prefix="fidelity-fix-", suffix=".txt")
        try:
            with open(fd, "w", **write) as f:
                f.write(text)
            with open(path, **read) as f:
                return f.read()
        finally:
            os.unlink(path)

    return run


def _quote_then(decode: Callable[[str], str]) -> Callable[[str], str]:
    from urllib.parse import quote

    return lambda text: decode(quote(text))


def _library_cases() -> list[tuple[str, Callable[[str], object], Callable[[str], object], str]]:
    import html
    import json
    import posixpath
    import shlex
    import unicodedata
    from urllib.parse import quote, unquote, unquote_plus

    utf8 = {"encoding": "utf-8", "newline": ""}
    return [
        # kind, the rewriting layer, the layer with the hint applied, a text it rewrites
        (
            "newline.lf_to_crlf",
            _roundtrip_file({"encoding": "utf-8", "newline": "\r\n"}, utf8),
            _roundtrip_file(utf8, utf8),
            "a\nb",
        ),
        (
            "bom.added",
            _roundtrip_file({"encoding": "utf-8-sig"}, {"encoding": "utf-8"}),
            _roundtrip_file({"encoding": "utf-8"}, {"encoding": "utf-8"}),
            "abc",
        ),
        (
            "bom.removed",
            _roundtrip_file({"encoding": "utf-8"}, {"encoding": "utf-8-sig"}),
            _roundtrip_file({"encoding": "utf-8"}, {"encoding": "utf-8"}),
            "\ufeffabc",
        ),
        (
            "newline.separator_to_lf",
            lambda s: "\n".join(s.splitlines()),
            lambda s: "\n".join(s.split("\n")),
            "a\u2028b",
        ),
        (
            "unicode.nfkc",
            lambda s: unicodedata.normalize("NFKC", s),
            lambda s: unicodedata.normalize("NFC", s),
            "\ufb01le",
        ),
        (
            "escape.json",
            lambda s: json.dumps(s)[1:-1],
            lambda s: json.loads(json.dumps(s)),
            "say \u201chi\u201d",
        ),
        ("escape.html", html.escape, lambda s: html.unescape(html.escape(s)), "a & <b>"),
        ("escape.url", quote, lambda s: unquote(quote(s)), "a b/c"),
        ("unescape.url", unquote_plus, _quote_then(unquote_plus), "a+b%41"),
        (
            "unescape.html",
            html.unescape,
            lambda s: html.unescape(html.escape(s)),
            "Tom &amp; Jerry",
        ),
        (
            "unescape.json",
            lambda s: json.loads(f'"{s}"'),
            lambda s: json.loads(json.dumps(s)),
            "a\\nb",
        ),
        (
            "unescape.backslash",
            lambda s: shlex.split(s)[0],
            lambda s: shlex.split(shlex.quote(s))[0],
            "C:\\Users\\x",
        ),
        (
            "escape.shell",
            lambda s: shlex.join(s.split(" ")),
            lambda s: " ".join(shlex.split(shlex.join(s.split(" ")))),
            "caf\u00e9 $HOME",
        ),
        (
            "newline.removed",
            _category_c_sanitiser,
            lambda s: json.loads(f'"{_category_c_sanitiser(json.dumps(s)[1:-1])}"'),
            "alpha\r\nbeta\rgamma",
        ),
        (
            "path.normalized",
            posixpath.normpath,
            lambda s: unquote(posixpath.normpath(quote(s, safe=""))),
            "x//y/./z/",
        ),
        (
            "encoding.question_mark",
            lambda s: s.encode("ascii", "replace").decode("ascii"),
            lambda s: s.encode("utf-8").decode("utf-8"),
            "caf\u00e9",
        ),
        (
            "encoding.mojibake",
            lambda s: s.encode("utf-8").decode("cp1252"),
            lambda s: s.encode("utf-8").decode("utf-8"),
            "we\u2019ll",
        ),
    ]


def _category_c_sanitiser(text: str) -> str:
    """A libSQL server's sanitiser: every Unicode category-C character but LF and TAB goes."""
    import regex

    return str(regex.sub(r"[^\P{C}\n\t]", "", text))


#: Per kind of the library cases, the words of the hint that name the fix applied.
_FIX_WORDS = {
    "newline.lf_to_crlf": "write with `newline=''`",
    "bom.added": "write with `encoding='utf-8'`",
    "bom.removed": "read with `encoding='utf-8'`",
    "newline.separator_to_lf": "split on LF only",
    "unicode.nfkc": "normalise to NFC instead",
    "escape.json": "encode it once and decode it once",
    "escape.html": "escape only where HTML is written",
    "escape.url": "decode once where it is read (`urllib.parse.unquote`)",
    "unescape.url": "percent-encode the value where it enters a URL",
    "unescape.html": "unescape only what was escaped",
    "unescape.json": "escape the backslashes first",
    "unescape.backslash": "quote the value for it (`shlex.quote`)",
    "escape.shell": "split it once where it is read",
    "encoding.question_mark": "use UTF-8 end to end",
    "newline.removed": "escape them for the format",
    "path.normalized": "percent-encode text that is not a path (`quote(value, safe='')`)",
    "encoding.mojibake": "the reader assumes cp1252; declare or assume UTF-8",
}


@pytest.mark.parametrize(
    ("kind", "layer", "fixed", "text"),
    _library_cases(),
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_hint_applied_to_a_library_layer(
    kind: str, layer: Callable[[str], object], fixed: Callable[[str], object], text: str
) -> None:
    """The library really performs the kind (once the engine names it: a kind being
    added in parallel is matched by id), its hint is reported, and the layer changed
    as the hint says keeps the text byte for byte."""
    payload = [fidelity.Payload(id="fix/1", text=text, families=("escapes",))]
    broken = fidelity.survey(probes.function(layer), payloads=payload)
    assert broken.statuses[Status.TRANSFORMED] == 1
    if kind in fidelity.KINDS:
        assert kind in broken.kinds, broken.kinds
        hint = {h.kind: h.text for h in broken.hints()}[kind]
        # The hint names the fix applied here (words written per kind, not read back
        # from the hints' table, so two hints swapped fail).
        assert _FIX_WORDS[kind] in hint, hint
    _preserved(fidelity.survey(probes.function(fixed), payloads=payload))


def _c_string(text: str) -> str:
    """A C string API (``ctypes.c_char_p``): the value ends at the first NUL."""
    import ctypes

    value = ctypes.c_char_p(text.encode("utf-8")).value
    return (value or b"").decode("utf-8")


def _with_length(text: str) -> str:
    """The same bytes passed with their length (``ctypes.string_at``), as the hint says."""
    import ctypes

    data = text.encode("utf-8")
    buffer = ctypes.create_string_buffer(data, len(data))
    return ctypes.string_at(buffer, len(data)).decode("utf-8")


def test_truncation_at_nul_hint_passes_the_length() -> None:
    payload = [fidelity.Payload(id="nul/1", text="alpha\x00beta", families=("nul",))]
    broken = fidelity.survey(probes.function(_c_string), payloads=payload)
    assert broken.kinds == {"truncate"}
    assert "pass the value with its length" in _hint(broken, "truncate")
    _preserved(fidelity.survey(probes.function(_with_length), payloads=payload))


def _straighten_punctuation(text: str) -> str:
    return text.replace("\u2014", "--").replace("\u2026", "...")


@pytest.mark.parametrize(
    ("kind", "layer", "both_sides", "family"),
    [
        ("unicode.nfc", lambda s: unicodedata.normalize("NFC", s), "NFC", "normalization"),
        ("unicode.nfd", lambda s: unicodedata.normalize("NFD", s), "NFC", "diacritics"),
        ("unicode.case", str.lower, "casefold", "case"),
        ("punct.straighten", _straighten_punctuation, "punctuation", "punctuation"),
        ("whitespace.collapse", lambda s: " ".join(s.split()), "collapse", "whitespace"),
    ],
)
def test_compare_both_sides_hints_make_the_sides_agree(
    kind: str, layer: Callable[[str], str], both_sides: str, family: str
) -> None:
    """Hints that say to compare both sides in one form: with that form applied to the
    sent and the received value of every rewritten payload, they agree."""
    normalise: Callable[[str], str] = {
        "NFC": lambda s: unicodedata.normalize("NFC", s),
        "casefold": str.casefold,
        "punctuation": _straighten_punctuation,
        "collapse": lambda s: " ".join(s.split()),
    }[both_sides]
    broken = fidelity.survey(probes.function(layer), families=[family])
    assert kind in broken.kinds
    hint = _hint(broken, kind)
    assert "both sides" in hint
    rewritten = [o for o in broken.observations if kind in o.kinds]
    for obs in rewritten:
        assert isinstance(obs.received, str)
        assert fidelity.compare(normalise(obs.sent), normalise(obs.received)).faithful


def test_replacement_hint_strict_decoding_fails_loudly() -> None:
    """Bytes that are not UTF-8 become U+FFFD with errors='replace'; decoded strictly,
    the same bytes fail, as the hint says they should."""
    data = "a\ud800b".encode("utf-8", "surrogatepass")
    survey = fidelity.survey(
        probes.function(lambda _: data.decode("utf-8", "replace")),
        payloads=[fidelity.Payload(id="fix/1", text="a\ud800b", families=("surrogates",))],
    )
    assert "encoding.replacement" in survey.kinds
    assert "decode strictly" in _hint(survey, "encoding.replacement")
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
