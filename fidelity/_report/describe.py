"""A sentence for the model: what happens to a parameter between the model and the
tool, in words that can be pasted into the tool's description.

:func:`describe` turns the rewrites a card shows (and the families it refuses) into at
most a few short sentences, naming only what a model can act on: which characters
change into what, and what to do about it, e.g.::

    old_string: typographic quotes (U+2018 U+2019 U+201C U+201D) arrive as straight
    quotes; copy text with straight quotes, or expect "no match".

A faithful parameter gets no sentence (``""``). The text is deterministic (the same
rewrites give the same words), plain ASCII apart from the parameter's name, and at most
:data:`LIMIT` characters, name included: sentences that would not fit are left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from fidelity._core.kinds import KINDS
from fidelity._core.render import safe
from fidelity._report.rewrites import Rewrite, mojibake_reversed

__all__ = ["LIMIT", "MODEL_SENTENCES", "describe", "refused_families"]

#: The longest description of one parameter, in characters, its name included.
LIMIT = 299
#: Sentences at most per parameter.
_MOST = 4
#: Code points listed at most for one kind.
_POINTS = 4

#: Per kind: the sentence about what happens, then what the model can do about it.
#: ``{to}`` is the verb of the direction ("arrive as", "come back as", "become"),
#: ``{sent}`` and ``{received}`` the code points seen, as `` (U+201C U+201D)``.
MODEL_SENTENCES: dict[str, tuple[str, str]] = {
    "quote.straighten": (
        "typographic quotes{sent} {to} straight quotes",
        'copy text with straight quotes, or expect "no match"',
    ),
    "quote.educate": ("straight quotes {to} typographic quotes{received}", "expect them"),
    "punct.straighten": (
        "typographic dashes, ellipses or primes{sent} {to} ASCII",
        'use ASCII punctuation, or expect "no match"',
    ),
    "punct.educate": (
        "ASCII dashes, dots or primes {to} typographic ones{received}",
        "expect them",
    ),
    "unicode.nfc": ("decomposed letters {to} composed ones (NFC)", "send composed text"),
    "unicode.nfd": ("composed letters{sent} {to} decomposed ones (NFD)", "expect them"),
    "unicode.nfkc": (
        "compatibility characters{sent} {to} plain equivalents (NFKC)",
        "use the plain characters",
    ),
    "unicode.nfkd": (
        "compatibility characters{sent} {to} plain equivalents (NFKD)",
        "use the plain characters",
    ),
    "unicode.case": ("letters {to} another case", "do not rely on letter case"),
    "unicode.ascii_fold": ("accented letters{sent} {to} plain ASCII", "do not rely on diacritics"),
    "whitespace.strip": ("leading and trailing whitespace is removed", "do not rely on it"),
    "whitespace.collapse": ("runs of whitespace {to} one space", "do not rely on them"),
    "whitespace.to_space": (
        "special spaces or tabs{sent} {to} plain spaces",
        'use plain spaces, or expect "no match"',
    ),
    "whitespace.tab_expand": ("tabs {to} spaces", "do not rely on tabs"),
    "whitespace.line_strip": ("spaces at line ends are removed", "do not rely on them"),
    "invisible.removed": ("invisible characters{sent} are removed", "do not send them"),
    "control.removed": ("control characters{sent} are removed", "do not send them"),
    "control.replaced": ("control characters{sent} {to}{received}", "do not send them"),
    "newline.crlf_to_lf": ("CRLF line breaks {to} LF", "expect LF line endings"),
    "newline.cr_to_lf": ("CR line breaks {to} LF", "expect LF line endings"),
    "newline.lf_to_crlf": ("LF line breaks {to} CRLF", "expect CRLF line endings"),
    "newline.separator_to_lf": ("line separators{sent} {to} LF", "use LF for line breaks"),
    "newline.to_space": ("line breaks{sent} {to} spaces", "keep the value on one line"),
    "newline.removed": ("line breaks{sent} are deleted", "keep the value on one line"),
    "newline.inserted": (
        "long lines are wrapped: line breaks are inserted at a width",
        "keep lines short, or expect the breaks",
    ),
    "newline.final_added": ("a final newline is added", "leave it out"),
    "newline.final_removed": ("a final newline is removed", "do not rely on it"),
    "path.backslash_to_slash": ("backslashes {to} slashes", "avoid backslashes"),
    "path.slash_to_backslash": ("slashes {to} backslashes", "avoid slashes"),
    "path.basename": (
        "only the part after the last slash or backslash is kept",
        "send a name, not a path",
    ),
    "path.normalized": (
        "values are normalised as paths (// merged, dir/.. resolved, a final / dropped)",
        "send normalised paths",
    ),
    "path.sanitized": (
        "characters not allowed in a file name{sent} are removed, blanks and slashes {to} _",
        "send letters, digits and . _ - only",
    ),
    "escape.json": ("text is JSON-escaped (backslash escapes appear)", "expect escaped text"),
    "escape.html": ("text is HTML-escaped (&amp; and the like appear)", "expect escaped text"),
    "escape.url": ("text is percent-encoded (%22 and the like appear)", "expect encoded text"),
    "escape.backslash": ("backslashes are doubled", "expect two for one"),
    "escape.markdown": (
        "Markdown characters such as _ * [ ] # gain a backslash",
        "expect escaped text",
    ),
    "escape.shell": (
        "words with spaces or symbols arrive shell-quoted ('a b')",
        "expect quoted words",
    ),
    "unescape.json": ("backslash escapes such as \\n are decoded", "avoid literal escapes"),
    "unescape.html": ("character references such as &amp; are decoded", "avoid them"),
    "unescape.url": ("percent sequences are decoded and + becomes a space", "avoid % and +"),
    "unescape.backslash": (
        "a backslash before a character, or the quotes around a word, are dropped",
        "avoid backslashes and quotes",
    ),
    "encoding.mojibake": ("non-ASCII characters{sent} {to} garbled text", "prefer ASCII"),
    "encoding.replacement": ("characters{sent} {to} U+FFFD", "do not send them"),
    "encoding.question_mark": ("characters{sent} {to} ?", "prefer ASCII"),
    "encoding.dropped": ("characters{sent} are removed", "prefer ASCII"),
    "encoding.surrogate_split": ("astral characters{sent} {to} surrogate halves", "avoid them"),
    "bom.added": ("a byte order mark (U+FEFF) is added at the start", "expect it"),
    "bom.removed": ("a leading U+FEFF is removed", "do not rely on it"),
    "truncate": ("values are cut after {limit} UTF-8 bytes", "keep values shorter"),
    "type.coerced": ("text such as{sent} {to} a number, boolean or null", "avoid such values"),
    "unknown": ("characters{sent} are changed", "avoid them"),
}

#: Per hazard family, the values of it, for a sentence on families the chain refuses.
_REFUSED = {
    "quotes": "typographic quotes",
    "punctuation": "typographic punctuation",
    "normalization": "combining marks",
    "compatibility": "compatibility characters",
    "case": "special letter cases",
    "diacritics": "accented letters",
    "whitespace": "special whitespace",
    "invisible": "invisible characters",
    "bidi": "bidi controls",
    "control": "control characters",
    "nul": "U+0000",
    "newlines": "line breaks",
    "separators": "line separators",
    "paths": "path separators",
    "escapes": "escape sequences",
    "mojibake": "text that looks garbled",
    "astral": "emoji and other astral characters",
    "bom": "a byte order mark",
    "coercion": "number-like text",
    "length": "a great length",
    "scripts": "non-Latin scripts",
}
_VERBS = {"request": "arrive as", "response": "come back as", "round_trip": "become"}
#: Sentences for these pairs of kinds are said as one, with this subject.
_MERGED = (("newline.crlf_to_lf", "newline.cr_to_lf", "CR and CRLF line breaks {to} LF"),)


def _points(chars: Iterable[str]) -> str:
    found = sorted(set(chars))
    if not found:
        return ""
    shown = " ".join(f"U+{ord(c):04X}" for c in found[:_POINTS])
    return f" ({shown}{' ...' if len(found) > _POINTS else ''})"


_BREAKS = frozenset("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")


def _shown_char(kind: str, char: str) -> bool:
    """Whether a changed code point belongs in the kind's sentence (a hunk with two
    kinds holds the code points of both)."""
    if kind in ("newline.to_space", "newline.separator_to_lf"):
        return char in _BREAKS
    if kind == "whitespace.to_space":
        return char.isspace() and char not in _BREAKS
    if kind in ("unicode.nfd", "unicode.ascii_fold", "encoding.mojibake"):
        return not char.isascii()
    return not char.isalnum()


def _changed(rewrites: Sequence[Rewrite], kind: str) -> tuple[str, str]:
    """The code points of the kind that changed: ``(sent side, received side)``."""
    if kind == "type.coerced":
        values = sorted(
            {
                r.sent
                for r in rewrites
                if r.sent.isascii() and r.sent.isprintable() and len(r.sent) <= 8
            }
        )
        shown = " or ".join(f'"{safe(v)}"' for v in values[:2])
        return (f" {shown}" if shown else "", "")
    sent = [c for r in rewrites for c in r.sent if c not in r.received and _shown_char(kind, c)]
    received = [c for r in rewrites for c in r.received if c not in r.sent and _shown_char(kind, c)]
    return _points(sent), _points(received)


def _limit(rewrites: Sequence[Rewrite]) -> str:
    """The longest value that arrived whole, in UTF-8 bytes, from ``truncate`` details."""
    cuts = []
    for r in rewrites:
        parts = r.detail.split(", ")
        if len(parts) > 1 and parts[1].endswith(" UTF-8 bytes"):
            number = parts[1].split(" ")[0]
            if number.isdigit():
                cuts.append(int(number))
    return str(max(cuts)) if cuts else "some"


def _direction(rewrites: Sequence[Rewrite]) -> str:
    """The direction to describe: the request path, else the response path, else the
    round trip (a split probe's round trip only adds up its two paths)."""
    found = {r.direction for r in rewrites}
    return next((d for d in ("request", "response") if d in found), "round_trip")


def _sentence(
    kind: str, rewrites: Sequence[Rewrite], subject: str | None = None, *, points: bool = True
) -> str:
    what, advice = MODEL_SENTENCES.get(kind, MODEL_SENTENCES["unknown"])
    if kind == "truncate" and all(r.detail.endswith("nul") for r in rewrites):
        what, advice = "text after U+0000 is dropped", "do not send U+0000"
    elif kind == "encoding.surrogate_split" and all(r.detail == "joined" for r in rewrites):
        what, advice = "pairs of lone surrogates{sent} {to} one character", "do not send them"
    elif kind == "encoding.mojibake" and all(mojibake_reversed(r) for r in rewrites):
        what, advice = "garbled-looking characters{sent} {to} others", "prefer ASCII"
    direction = _direction(rewrites)
    shown = [r for r in rewrites if r.direction == direction]
    sent, received = _changed(shown, kind) if points else ("", "")
    text = (subject or what).format(
        to=_VERBS[direction], sent=sent, received=received, limit=_limit(shown)
    )
    if direction == "response":
        text = f"in answers, {text}"
    return f"{text}; {advice}."


#: Kinds by how much harm a silent rewrite of that kind does, most first: a value whose
#: meaning changes (escapes decoded, text cut) before one that is merely re-spelled.
_DANGER = (
    "unescape.",
    "truncate",
    "encoding.",
    "unknown",
    "type.",
    "escape.",
    "control.",
    "invisible.",
    "path.",
    "newline.",
    "bom.",
    "whitespace.",
)


def _danger(kind: str) -> int:
    return next((i for i, p in enumerate(_DANGER) if kind.startswith(p)), len(_DANGER))


def _sentences(rewrites: Sequence[Rewrite], *, points: bool = True) -> list[tuple[str, str]]:
    """One sentence per kind (CR and CRLF said together), most dangerous first (then in
    the order of ``KINDS``), each with the kinds it names; ``points=False`` leaves the
    code points out."""
    by_kind: dict[str, list[Rewrite]] = {}
    for r in rewrites:
        by_kind.setdefault(r.kind, []).append(r)
    order = list(KINDS)
    kinds = sorted(
        by_kind,
        key=lambda k: (_danger(k), order.index(k) if k in KINDS else len(order), k),
    )
    subjects: dict[str, str] = {}
    named: dict[str, str] = {k: k for k in kinds}
    for first, second, subject in _MERGED:
        if first in by_kind and second in by_kind:
            by_kind[first] += by_kind.pop(second)
            kinds.remove(second)
            subjects[first] = subject
            named[first] = f"{first}, {second}"
    return [(named[k], _sentence(k, by_kind[k], subjects.get(k), points=points)) for k in kinds]


def _refusals(families: Sequence[str], room: int) -> str:
    """The sentence on refused families, listing as many as fit in ``room`` characters
    (the rest as "other hazards"); ``""`` when none fit."""
    phrases = [_REFUSED[f] for f in families if f in _REFUSED]
    for n in range(len(phrases), 0, -1):
        shown = phrases[:n] + (["other hazards"] if n < len(phrases) else [])
        listed = ", ".join(shown[:-1]) + (" or " if len(shown) > 1 else "") + shown[-1]
        sentence = f"values with {listed} are refused with an error; avoid them."
        if len(sentence) <= room:
            return sentence
    return ""


def refused_families(observations: Iterable[tuple[Sequence[str], str]]) -> tuple[str, ...]:
    """The hazard families whose every payload was refused, from ``(families, status)``
    pairs: a payload counts for the family it is filed under (its first), so a NUL
    payload also tagged ``paths`` does not make paths look refused."""
    statuses: dict[str, set[str]] = {}
    for families, status in observations:
        if families:
            statuses.setdefault(families[0], set()).add(status)
    return tuple(f for f, found in statuses.items() if found == {"rejected"})


def describe(
    name: str,
    rewrites: Iterable[Rewrite],
    refused: Iterable[str] = (),
    unapplied: Iterable[str] = (),
) -> str:
    """The sentences for a parameter named ``name``: the hazard families whose edits
    were not applied although the tool reported no error (``unapplied``), what its
    ``rewrites`` do, then the hazard families whose every payload it ``refused``
    (``surrogates`` is left out: a model cannot write a lone surrogate). ``""`` when
    nothing happens to it.

    Sentences go most dangerous kind first (``unescape.*``, ``truncate``, the
    ``encoding.*`` kinds...) while they fit in :data:`LIMIT` characters, at most four;
    every kind is named, those without a sentence in a last one (``also changed:
    escape.json.``); the refusals come last and list as many families as fit. When
    leaving the code points out says more in the room, they are left out. ``name`` is
    where the rewrites happen: the parameter, or the chain from it to the tool that read
    the value back (``between write_file.content and read_file``).
    """
    found = tuple(rewrites)
    families = [f for f in dict.fromkeys(refused) if f != "surrogates"]
    silent = _unapplied([f for f in dict.fromkeys(unapplied) if f != "surrogates"])
    detailed = _fitted(name, [*silent, *_sentences(found)], families)
    compact = _fitted(name, [*silent, *_sentences(found, points=False)], families)
    return detailed[1] if detailed[0] >= compact[0] else compact[1]


def _unapplied(families: Sequence[str]) -> list[tuple[str, str]]:
    """The sentence on edits that did not apply without an error (none: ``[]``), with
    no kind of its own (``""``): it is said first and never listed as a kind."""
    phrases = [_REFUSED.get(f, f) for f in families]
    if not phrases:
        return []
    listed = ", ".join(phrases[:-1]) + (" or " if len(phrases) > 1 else "") + phrases[-1]
    return [
        (
            "",
            f"an edit of text with {listed} may not apply although the tool reports no "
            "error; read the result back.",
        )
    ]


def _fitted(
    name: str, sentences: Sequence[tuple[str, str]], families: Sequence[str]
) -> tuple[int, str]:
    """The text of the sentences that fit, and how many they are. Every kind is named:
    those whose sentence does not fit are listed by name in a last sentence, for which
    the least dangerous sentences make room."""
    for kept in range(min(len(sentences), _MOST), -1, -1):
        text = f"{safe(name)}:"
        count = 0
        for _, sentence in sentences[:kept]:
            candidate = f"{text} {_capital(sentence, count)}"
            if len(candidate) > LIMIT:
                break
            text, count = candidate, count + 1
        rest = [k for kinds, _ in sentences[count:] for k in kinds.split(", ") if k]
        if rest:
            also = _also(rest, LIMIT - len(text) - 1)
            if not also or count + 1 > _MOST:
                continue
            text, count = f"{text} {_capital(also, count)}", count + 1
        break
    else:
        return 0, ""
    if count < _MOST:
        refusal = _refusals(families, LIMIT - len(text) - 1)
        if refusal:
            text, count = f"{text} {_capital(refusal, count)}", count + 1
    return (count, text) if count else (0, "")


def _also(kinds: Sequence[str], room: int) -> str:
    """The sentence that names ``kinds`` (most dangerous first) in ``room`` characters:
    each by name, else the less dangerous grouped by family (``whitespace.*``), else the
    first ones and how many more; ``""`` when not even that fits."""
    grouped: list[str] = []
    for kind in kinds:
        family = kind.split(".")[0] + ".*" if "." in kind else kind
        siblings = sum(k.startswith(kind.split(".")[0] + ".") for k in kinds)
        name = family if siblings > 1 and _danger(kind) > 1 else kind
        if name not in grouped:
            grouped.append(name)
    for names in (list(kinds), grouped):
        sentence = f"also changed: {', '.join(names)}."
        if len(sentence) <= room:
            return sentence
    for n in range(len(grouped) - 1, 0, -1):
        sentence = f"also changed: {', '.join(grouped[:n])} and {len(grouped) - n} more."
        if len(sentence) <= room:
            return sentence
    return ""


def _capital(sentence: str, position: int) -> str:
    """The first sentence follows the name in lower case; later ones start a sentence."""
    return sentence if position == 0 else sentence[:1].upper() + sentence[1:]
