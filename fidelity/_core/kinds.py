"""The stable vocabulary: transformation kinds, probe outcomes and hazard families.

The ids below are public API (see the project's kinds specification): tests, cards,
allow-lists and baselines name them, so an id never changes meaning once released.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import NoReturn

__all__ = [
    "FAMILIES",
    "KINDS",
    "Kind",
    "Status",
    "check_families",
    "check_kinds",
    "families_from_text",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class Kind:
    """One transformation kind: its stable ``id`` and a one-line ``summary``."""

    id: str
    summary: str


_KIND_TABLE: tuple[tuple[str, str], ...] = (
    ("quote.straighten", "typographic quotes became ASCII quotes"),
    ("quote.educate", "ASCII quotes became typographic quotes"),
    ("punct.straighten", "typographic dashes, ellipsis, primes became ASCII"),
    ("punct.educate", "ASCII sequences became typographic punctuation"),
    ("unicode.nfc", "composed (NFC) form of a decomposed segment"),
    ("unicode.nfd", "decomposed (NFD) form of a composed segment"),
    ("unicode.nfkc", "compatibility composition"),
    ("unicode.nfkd", "compatibility decomposition"),
    ("unicode.case", "letters changed case"),
    ("unicode.ascii_fold", "letters lost their diacritics or were transliterated to ASCII"),
    ("whitespace.strip", "leading and/or trailing whitespace of the value removed"),
    ("whitespace.collapse", "a run of whitespace became one space"),
    ("whitespace.to_space", "a non-space whitespace character became U+0020"),
    ("whitespace.tab_expand", "a tab became several spaces"),
    ("whitespace.line_strip", "trailing whitespace at line ends removed"),
    ("invisible.removed", "zero-width, format or bidi control characters removed"),
    ("control.removed", "C0/C1 control characters other than tab/LF/CR removed"),
    ("control.replaced", "a control character replaced by a visible stand-in or space"),
    ("newline.crlf_to_lf", "CRLF became LF"),
    ("newline.cr_to_lf", "lone CR became LF"),
    ("newline.lf_to_crlf", "LF became CRLF"),
    ("newline.separator_to_lf", "U+2028, U+2029, U+0085, VT or FF became LF"),
    ("newline.to_space", "a line break became a space"),
    ("newline.removed", "a line break was deleted with nothing in its place"),
    ("newline.inserted", "a line break was inserted to wrap the text at a width"),
    ("newline.final_added", "a trailing newline appeared"),
    ("newline.final_removed", "the trailing newline vanished"),
    ("path.backslash_to_slash", "backslash became slash"),
    ("path.slash_to_backslash", "slash became backslash"),
    ("path.basename", "everything up to the last separator dropped"),
    (
        "path.normalized",
        "the value was normalised as a path (dot segments resolved, repeated separators "
        "merged, a trailing separator dropped)",
    ),
    ("path.sanitized", "characters not allowed in a file name removed or replaced"),
    ("escape.json", "JSON / backslash escape sequences appear literally"),
    ("escape.html", "HTML/XML character references appear"),
    ("escape.url", "percent-encoding appears"),
    ("escape.backslash", "backslashes doubled"),
    ("escape.markdown", "Markdown metacharacters gain a backslash"),
    ("escape.shell", "shell quoting was applied to a word or the value"),
    ("unescape.json", "literal escape sequences in the sent text were decoded"),
    ("unescape.html", "literal character references in the sent text were decoded"),
    ("unescape.url", "literal percent sequences decoded, or + became space"),
    (
        "unescape.backslash",
        "a backslash was dropped before the character it would escape, or the quotes "
        "around a quoted string (a quoted-string or shell parser)",
    ),
    ("encoding.mojibake", "UTF-8 bytes were decoded with another codec"),
    ("encoding.replacement", "characters became U+FFFD"),
    ("encoding.question_mark", "unencodable characters became ?"),
    ("encoding.dropped", "characters a codec could not encode or decode were removed"),
    ("encoding.surrogate_split", "an astral character became a surrogate pair, or half was lost"),
    ("bom.added", "a U+FEFF byte order mark appeared at the start"),
    ("bom.removed", "a leading U+FEFF vanished"),
    ("truncate", "the received text is a prefix of the sent text"),
    ("type.coerced", "a string arrived as a number, boolean or null"),
    ("unknown", "an edit that no other kind explains"),
)

#: Every transformation kind by id, in the order of the specification.
KINDS: MappingProxyType[str, Kind] = MappingProxyType(
    {kid: Kind(id=kid, summary=summary) for kid, summary in _KIND_TABLE}
)

#: The hazard families of payloads, in the order of the specification.
FAMILIES: tuple[str, ...] = (
    "quotes",
    "punctuation",
    "normalization",
    "compatibility",
    "case",
    "diacritics",
    "whitespace",
    "invisible",
    "bidi",
    "control",
    "nul",
    "newlines",
    "separators",
    "paths",
    "escapes",
    "mojibake",
    "astral",
    "surrogates",
    "bom",
    "coercion",
    "length",
    "scripts",
)


class Status(StrEnum):
    """The one outcome of pushing one payload through a chain."""

    PRESERVED = "preserved"
    TRANSFORMED = "transformed"
    REJECTED = "rejected"
    LOST = "lost"
    TIMEOUT = "timeout"
    BROKEN = "broken"


def check_kinds(kinds: object, *, name: str = "allow") -> tuple[str, ...]:
    """Return ``kinds`` as a tuple of known kind ids, or raise ``UsageError``.

    A single string is refused (it would be read as its characters). The message names
    the offending ids and lists the valid ones.
    """
    from fidelity._core.errors import UsageError

    if isinstance(kinds, str) or not isinstance(kinds, (list, tuple, set, frozenset)):
        raise UsageError(f"{name}={kinds!r} must be a list of kind ids, e.g. ['quote.straighten'].")
    bad = [k for k in kinds if k not in KINDS]
    if bad:
        raise UsageError(
            f"{name} names unknown kind id(s) {', '.join(map(repr, bad))}; "
            f"valid kinds are: {', '.join(KINDS)}."
        )
    return tuple(kinds)


def check_families(families: object, *, name: str = "families") -> tuple[str, ...]:
    """Return ``families`` as known hazard family ids, in specification order, or raise
    ``UsageError``.

    The one check of family ids, used by every entry point (``survey``, ``strategies``,
    the CLI and the plugin options). A single string is refused (it would be read as its
    characters), as is an empty selection (leave the option out for all families); the
    message names the offending ids and lists the valid ones. Duplicates are dropped.
    """
    if isinstance(families, (str, bytes)) or not isinstance(families, Iterable):
        _bad_families(f"{name}={families!r} must be a list of family ids, e.g. {name}=['quotes']")
    names = tuple(families)
    return _known_families(names, f"{name}={list(names)!r}")


def families_from_text(text: str, *, option: str | None) -> tuple[str, ...]:
    """Parse a command-line list of families (``quotes,newlines``: commas and/or spaces)
    with :func:`check_families`; ``option`` names the option in the message (``None``
    when the caller's own message names it already, as argparse's does)."""
    import re

    shown = repr(text) if option is None else f"{option} {text!r}"
    return _known_families(tuple(n for n in re.split(r"[,\s]+", text) if n), shown)


def _known_families(names: tuple[str, ...], shown: str) -> tuple[str, ...]:
    if not names:
        _bad_families(f"{shown} selects no family; leave it out for all families")
    unknown = [f for f in dict.fromkeys(names) if f not in FAMILIES]
    if unknown:
        _bad_families(f"{shown} names unknown family id(s) {', '.join(map(repr, unknown))}")
    chosen = set(names)
    return tuple(f for f in FAMILIES if f in chosen)


def _bad_families(what: str) -> NoReturn:
    from fidelity._core.errors import UsageError

    raise UsageError(f"{what}; valid families are: {', '.join(FAMILIES)}.")
