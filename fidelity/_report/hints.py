"""A fix for every rewrite: a short remediation hint per kind, refined by hop and
direction.

Every kind of ``fidelity.KINDS`` has a general hint (:data:`GENERAL`). Where the probe
knows more, the hint is refined: by the hop that changed the value (a text-mode file,
an XML parser, a YAML writer: :data:`BY_HOP`), by the kind's detail (the codec of a
mojibake and which way it went, a cut at U+0000, surrogates joined), and the direction
(request path, response path) is named with it. :func:`hints` gives one :class:`Hint`
per kind that a set of :class:`~fidelity._report.rewrites.Rewrite` records shows; the
CLI and the pytest plugin print them as ``hint:`` lines, cards carry them in Markdown,
JSON and HTML.

The texts are plain ASCII with code in backticks, so that they read the same in a
terminal and in Markdown; every one is checked by a test, most by applying the fix
to a real chain that shows the rewrite.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from fidelity._core.kinds import KINDS
from fidelity._core.render import safe
from fidelity._probe.observation import Direction
from fidelity._report.rewrites import Rewrite, mojibake_reversed

__all__ = ["BY_HOP", "GENERAL", "Hint", "hint_text", "hints"]

_TEXT_MODE = (
    "a layer turns line endings into LF (text-mode I/O with universal newlines, a "
    "normalisation of line endings); keep them: open files with `newline=''` (Python) or "
    "in binary mode, and do not normalise."
)
_DRIFT_IN_FORMS = "compare both sides normalised, or stop normalising."

#: The general hint of every kind, by kind id.
GENERAL: Mapping[str, str] = MappingProxyType(
    {
        "quote.straighten": f"a layer normalises typographic quotes to ASCII; {_DRIFT_IN_FORMS}",
        "quote.educate": (
            "a layer turns ASCII quotes into typographic ones (smart quotes); turn that off "
            "for this value, or compare both sides normalised."
        ),
        "punct.straighten": (
            f"a layer replaces typographic dashes, ellipses or primes with ASCII; {_DRIFT_IN_FORMS}"
        ),
        "punct.educate": (
            "a layer turns `--`, `...` or ASCII primes into typographic punctuation (smart "
            "punctuation); turn that off for this value."
        ),
        "unicode.nfc": (
            "a layer normalises text to NFC; compare both sides in one form "
            "(`unicodedata.normalize('NFC', text)`), or stop normalising."
        ),
        "unicode.nfd": (
            "a layer decomposes text to NFD (macOS file names, for one); compare both sides "
            "in one form (`unicodedata.normalize('NFC', text)`), or keep the value out of it."
        ),
        "unicode.nfkc": (
            "a layer applies compatibility normalisation (NFKC), which replaces ligatures, "
            "full-width and super/subscript characters; normalise to NFC instead, or not at all."
        ),
        "unicode.nfkd": (
            "a layer applies compatibility decomposition (NFKD), which replaces ligatures, "
            "full-width and super/subscript characters; normalise to NFC instead, or not at all."
        ),
        "unicode.case": (
            "a layer changes letter case; keep the value as sent, and where case must not "
            "matter compare `casefold()` of both sides."
        ),
        "unicode.ascii_fold": (
            "a layer strips diacritics or transliterates to ASCII (a slug, an ASCII-only "
            "charset); keep the original text, and fold only a separate lookup key."
        ),
        "whitespace.strip": (
            "a layer strips leading and trailing whitespace (`strip()`, a form or header "
            "parser); stop stripping this value, or refuse edge whitespace with an error."
        ),
        "whitespace.collapse": (
            "a layer collapses runs of whitespace into one space (HTML display, "
            "`' '.join(text.split())`); keep the value out of it, or compare both sides collapsed."
        ),
        "whitespace.to_space": (
            "a layer turns no-break spaces, tabs or other whitespace into U+0020; stop "
            "normalising whitespace in this value."
        ),
        "whitespace.tab_expand": (
            "a layer expands tabs into spaces (`expandtabs()`, an editor or terminal); pass "
            "tabs through, or compare with tabs expanded on both sides."
        ),
        "whitespace.line_strip": (
            "a layer trims trailing whitespace at line ends (an editor or formatter setting); "
            "turn trimming off for this value."
        ),
        "invisible.removed": (
            "a sanitiser removes zero-width, format or bidi characters; keep them if the value "
            "must be exact, or refuse such values with an error instead of dropping them."
        ),
        "control.removed": (
            "a layer removes control characters; escape them for the format (JSON "
            "`\\u0001`), or refuse such values with an error instead of dropping them."
        ),
        "control.replaced": (
            "a layer replaces control characters with a stand-in or a space; escape them for "
            "the format, or refuse such values with an error."
        ),
        "newline.crlf_to_lf": _TEXT_MODE,
        "newline.cr_to_lf": _TEXT_MODE,
        "newline.lf_to_crlf": (
            "a layer writes LF as CRLF (text-mode output on Windows, a CRLF protocol); write "
            "with `newline=''` (Python) or in binary mode."
        ),
        "newline.separator_to_lf": (
            "a layer takes U+2028, U+2029, NEL, VT or FF for line breaks (`splitlines()`, a "
            "line reader); split on LF only (`text.split('\\n')`), or keep the value whole."
        ),
        "newline.to_space": (
            "a layer folds line breaks into spaces (XML attribute normalisation, YAML "
            "folding, a one-line field); put the value where line breaks are kept, or escape them."
        ),
        "newline.removed": (
            "a sanitiser deletes line breaks (a filter of control characters that counts CR "
            "as one, header unfolding, lines joined with nothing); escape them for the format "
            "(`\\r`, `\\n` in JSON), or refuse such values with an error."
        ),
        "newline.inserted": (
            "a layer wraps long lines at a width (`textwrap.fill`, an HTML-to-text converter's "
            "body width, e-mail header folding) and inserts line breaks; turn wrapping off "
            "(`body_width=0`), or unwrap the value where it is read."
        ),
        "newline.final_added": (
            "a layer appends a final newline (`print()`, `echo`, a writer ending files with "
            "one); write with `print(text, end='')` or `write(text)`."
        ),
        "newline.final_removed": (
            "a layer drops the trailing newline (`rstrip()`, shell `$(...)`, a line "
            "reader); read the whole value with `read()`, as it is."
        ),
        "path.backslash_to_slash": (
            "a layer rewrites `\\` as `/` (path normalisation such as "
            "`PureWindowsPath.as_posix()`); keep values that are not paths out of it."
        ),
        "path.slash_to_backslash": (
            "a layer rewrites `/` as `\\` (Windows path normalisation such as "
            "`ntpath.normpath`); keep values that are not paths out of it."
        ),
        "path.basename": (
            "a layer keeps only the last path component (upload file names); send the full "
            "text in a field of its own."
        ),
        "path.normalized": (
            "a layer normalises the value as a path (`os.path.normpath`, `pathlib`): `//` "
            "merged, `dir/..` resolved, a final `/` dropped; send paths already normalised, "
            "or percent-encode text that is not a path (`quote(value, safe='')`)."
        ),
        "path.sanitized": (
            "a sanitiser makes the value a safe file name (`secure_filename`, "
            "`get_valid_filename`): blanks and slashes become `_`, other characters are "
            "removed; keep text in a field that is not a file name, or store the original "
            "name next to the safe one."
        ),
        "escape.json": (
            "the value was JSON-encoded once too often, or is read as raw JSON text; encode "
            "it once and decode it once (`json.loads`) where it is read."
        ),
        "escape.html": (
            "a layer HTML-escapes the value (autoescaping, `html.escape`) and nothing decodes "
            "it; escape only where HTML is written, not in the value passed on."
        ),
        "escape.url": (
            "a layer percent-encodes the value and nothing decodes it; decode once where it is "
            "read (`urllib.parse.unquote`), or do not encode it twice."
        ),
        "escape.backslash": (
            "a layer doubles backslashes (`repr()`, a string-literal or shell escaper) and "
            "nothing undoes it; pass the value as it is, or unescape it exactly once."
        ),
        "escape.markdown": (
            "a layer writes the value as Markdown text and escapes its metacharacters "
            "(`1_000` becomes `1\\_000`: an HTML-to-Markdown converter, a Markdown writer); "
            "pass the value as plain text, or render the Markdown where it is read."
        ),
        "escape.shell": (
            "a layer quotes the value or its words for a shell (`shlex.quote`, `shlex.join`, "
            "Node's `shell-quote`: `a b` becomes `'a b'`) and nothing parses it back; pass "
            "an argument list, or split it once where it is read."
        ),
        "unescape.json": (
            "a layer decodes escape sequences that were text (a second `json.loads`, "
            "`unicode_escape`); decode once only, or escape the backslashes first."
        ),
        "unescape.html": (
            "a layer decodes character references in text that was not HTML "
            "(`html.unescape`); unescape only what was escaped, once."
        ),
        "unescape.url": (
            "a layer URL-decodes text that was not encoded (`unquote_plus` also turns `+` "
            "into a space); percent-encode the value where it enters a URL or form (`quote`)."
        ),
        "unescape.backslash": (
            "a layer treats backslashes as escapes (a shell, `shlex.split`, a quoted-string "
            "parser: the quotes around a word go too); quote the value for it "
            "(`shlex.quote`), or pass an argument list."
        ),
        "encoding.mojibake": (
            "the reader assumes another codec than UTF-8; declare or assume UTF-8 "
            "(`charset=utf-8`, `encoding='utf-8'`)."
        ),
        "encoding.replacement": (
            "a decoder replaced what it could not decode with U+FFFD (`errors='replace'`); "
            "send valid UTF-8, and decode strictly so that a bad value fails loudly."
        ),
        "encoding.question_mark": (
            "a layer encodes into a legacy charset with `errors='replace'` (what it cannot "
            "encode becomes `?`); use UTF-8 end to end."
        ),
        "encoding.dropped": (
            "a layer encodes into ASCII or a legacy charset, or decodes bytes, with "
            "`errors='ignore'`: what it cannot carry vanishes (a slug or file-name sanitizer, "
            "a transliterator); "
            "use UTF-8 end to end, or refuse what the charset cannot carry."
        ),
        "encoding.surrogate_split": (
            "a layer counts in UTF-16 units (JavaScript, Java, .NET) and split or cut an astral "
            "character; index and cut text by code points, not UTF-16 units."
        ),
        "bom.added": (
            "a writer adds a byte order mark (`encoding='utf-8-sig'`, some Windows tools); "
            "write with `encoding='utf-8'`."
        ),
        "bom.removed": (
            "a reader drops a leading U+FEFF (`encoding='utf-8-sig'`, BOM-aware decoding); "
            "read with `encoding='utf-8'` where the first character matters."
        ),
        "truncate": (
            "a layer cuts the value at a length limit; raise the limit, or refuse longer "
            "values with an error instead of cutting them."
        ),
        "type.coerced": (
            "a layer reads the text as a number, boolean or null (YAML 1.1 plain scalars, an "
            "untyped reader); keep it a string: quote it when writing, or declare it a string."
        ),
        "unknown": (
            "an edit that no kind explains; read its code points, and the hop that changed "
            "it, to find the layer responsible."
        ),
    }
)

#: Hints for a kind made by a known hop: (kinds, hop name pattern, hint). The pattern
#: matches the whole hop name, a ``#2`` of a repeated hop included.
BY_HOP: tuple[tuple[frozenset[str], str, str], ...] = (
    (
        frozenset({"newline.crlf_to_lf", "newline.cr_to_lf"}),
        r"text_file",
        "the file is read back in text mode, which turns CR and CRLF into LF; open it "
        "with `newline=''` to write and to read.",
    ),
    (
        frozenset({"newline.crlf_to_lf", "newline.cr_to_lf"}),
        r"pipe",
        "both ends of the pipe are text streams with universal newlines; pass bytes (the "
        "`.buffer` streams), or give each text wrapper `newline=''`.",
    ),
    (
        frozenset({"newline.crlf_to_lf", "newline.cr_to_lf"}),
        r"xml_text",
        "an XML parser turns CR and CRLF into LF (XML 1.0 end-of-line handling); write CR "
        "as the character reference `&#13;`, or keep CR out of XML.",
    ),
    (
        frozenset({"newline.to_space", "whitespace.to_space"}),
        r"xml_attr\(writer='minidom'\)",
        "minidom writes tab, CR and LF raw in an attribute and the parser turns each into "
        "a space; write it with `xml.etree.ElementTree` (character references) or as "
        "element text.",
    ),
    (
        frozenset({"newline.to_space"}),
        r"yaml(\(.*\))?",
        "PyYAML writes a line break such as NEL (U+0085) raw in a quoted scalar and the "
        "loader folds it into a space; dump with `default_style='\"'` so it is escaped.",
    ),
    (
        frozenset({"whitespace.strip", "newline.final_removed"}),
        r"email_header",
        "an email header loses leading whitespace and a trailing line break (and refuses "
        "inner ones); base64-encode the value in the header, or carry it in the body.",
    ),
    (
        frozenset({"encoding.surrogate_split"}),
        r"json",
        "`json.dumps` (`ensure_ascii=True`) writes lone surrogates as `\\u` escapes and "
        "`json.loads` joins a high and a low one; dump with `ensure_ascii=False` and "
        "encode as UTF-8, which refuses them.",
    ),
    (
        frozenset({"path.basename", "escape.url"}),
        r"starlette \(decoded\)",
        "the payload went as a multipart file name, which the client percent-encodes and "
        "the server cuts to a base name; send the text as a form field of its own.",
    ),
    (
        frozenset({"encoding.mojibake"}),
        r"httpx \(read body\)",
        "the response declares no charset and the client decodes it as latin-1 (the old "
        "HTTP/1.1 default); send `Content-Type: text/plain; charset=utf-8`, or decode "
        "the bytes as UTF-8.",
    ),
)

_HOPS = tuple(
    (kinds, re.compile(rf"(?:{pattern})(?:#\d+)?"), text) for kinds, pattern, text in BY_HOP
)
_CODEC = re.compile(r"[A-Za-z0-9_.-]{1,40}")
_DIRECTIONS = tuple(d.value for d in Direction)
_WHERE = {"request": "request path", "response": "response path"}
_HOP_CHARS = 200


@dataclass(frozen=True, slots=True, kw_only=True)
class Hint:
    """How to fix one kind of rewrite: ``text`` is the hint; ``hop`` the hop that
    changed the value (when the chain has hops) and ``directions`` the paths the kind
    was seen on (``request``, ``response``; empty for a round trip alone)."""

    kind: str
    text: str
    hop: str | None = None
    directions: tuple[str, ...] = ()

    @property
    def where(self) -> str:
        """Where the rewrite happened, as words (empty when nothing is known)."""
        parts = []
        if self.directions:
            paths = [_WHERE.get(d, d) for d in self.directions]
            parts.append(paths[0] if len(paths) == 1 else "request and response paths")
        if self.hop:
            parts.append(f"hop {self.hop}")
        return ", ".join(parts)

    def line(self) -> str:
        """The terminal line: ``hint: KIND (WHERE): TEXT``, terminal-safe."""
        where = f" ({self.where})" if self.where else ""
        return safe(f"hint: {self.kind}{where}: {self.text}")

    def to_dict(self) -> dict[str, object]:
        """The JSON form (the hop terminal-safe and at most 200 characters, as card
        documents must hold it)."""
        hop = None if self.hop is None else safe(self.hop)
        if hop is not None and len(hop) > _HOP_CHARS:
            hop = hop[: _HOP_CHARS - 3] + "..."
        return {
            "kind": self.kind,
            "text": self.text,
            "hop": hop,
            "directions": list(self.directions),
        }


def hint_text(rewrite: Rewrite) -> tuple[str, int]:
    """The hint for one rewrite and how specific it is (2: the hop's own, 1: refined by
    the detail, 0: the kind's general hint)."""
    kind, hop = rewrite.kind, rewrite.hop
    if hop is not None:
        for kinds, pattern, text in _HOPS:
            if kind in kinds and pattern.fullmatch(hop):
                return text, 2
    if kind == "encoding.mojibake":
        codec = rewrite.detail.partition(",")[0].strip()
        if _CODEC.fullmatch(codec):
            if mojibake_reversed(rewrite):
                return (
                    f"text written as {codec} is read as UTF-8 (HTTP header values, for "
                    "one, travel as latin-1); encode it as UTF-8, or send it in a body "
                    "that declares `charset=utf-8`.",
                    1,
                )
            return f"the reader assumes {codec}; declare or assume UTF-8.", 1
    if kind == "whitespace.strip" and rewrite.detail == "leading line break":
        return (
            "one line break at the start of the value is dropped: most often `strip()` "
            "removed it (stop stripping this value); or an HTML parser drops the line feed "
            "right after `<pre>`, `<textarea>` or `<listing>` (html5lib, browsers): write "
            "an extra line feed after the tag, or carry the value outside those elements.",
            1,
        )
    if kind == "truncate" and rewrite.detail.endswith("nul"):
        return (
            "a layer cuts the value at U+0000 (a C string); refuse values holding U+0000, "
            "or pass the value with its length.",
            1,
        )
    if kind == "encoding.surrogate_split" and rewrite.detail == "joined":
        return (
            "two lone surrogates (written as `\\u` escapes) were joined into one character; "
            "lone surrogates are not text: refuse them before sending (encode strictly "
            "as UTF-8).",
            1,
        )
    return GENERAL.get(kind, GENERAL["unknown"]), 0


def _kind_order(kind: str) -> tuple[int, str]:
    order = list(KINDS)
    return (order.index(kind), kind) if kind in KINDS else (len(order), kind)


def hints(rewrites: Iterable[Rewrite]) -> tuple[Hint, ...]:
    """One hint per kind the rewrites show, in the order of ``KINDS``.

    The hint is the most specific one any rewrite of the kind gets (ties go to the
    request path, then the response path, then the round trip, then the hop name);
    ``directions`` lists the paths the kind was seen on.
    """
    by_kind: dict[str, list[Rewrite]] = {}
    for rewrite in rewrites:
        by_kind.setdefault(rewrite.kind, []).append(rewrite)
    out = []
    for kind in sorted(by_kind, key=_kind_order):
        seen = by_kind[kind]
        (text, _), best = min(((hint_text(r), r) for r in seen), key=_rank)
        out.append(Hint(kind=kind, text=text, hop=best.hop, directions=_paths(seen)))
    return tuple(out)


def _rank(item: tuple[tuple[str, int], Rewrite]) -> tuple[int, int, str, str]:
    """Most specific first, then the request path, the response path, the round trip,
    then by hop name and text."""
    (text, specific), rewrite = item
    order = ("request", "response", "round_trip")
    where = order.index(rewrite.direction) if rewrite.direction in order else len(order)
    return (-specific, where, rewrite.hop or "", text)


def _paths(seen: Sequence[Rewrite]) -> tuple[str, ...]:
    """The split directions a kind was seen on (a round trip alone names none)."""
    found = {r.direction for r in seen}
    return tuple(d for d in _DIRECTIONS if d in found and d != "round_trip")
