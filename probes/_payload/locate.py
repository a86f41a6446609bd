"""Finding where a value comes back: calibration markers, located and proved.

Before a run whose read-back is not given, the probes send a few calibration markers
through the whole chain, each like a payload (:func:`markers_of`): a plain ASCII one,
one with a quote and a backslash (which a read of raw JSON text and a read of the
decoded value return differently), and one with a blank line between two paragraphs
(which a value split across fields, such as a commit's subject and body, or cut at a
line end, does not survive). A read is kept only when it
returns every marker exactly, from the reply that marker got.

Structure first: where a reply is JSON, the value is looked for inside the decoded
document (:func:`structure_paths`), never with a pattern over its raw text. A path
that differs between the replies is made general where it can be: a list index that
counts from the end (``[-1]``), a key that holds ``{n}`` or ``{run}`` (the reply keyed
by a file name), or a wildcard. In other text (:func:`text_patterns`) the value is read
between anchors taken from the text the replies have in common around it, never from
text that holds the marker (or the run id a marker carries: a file or channel name
made from it) and never from text that differs between the replies or looks like it
changes (a word holding a digit: an id, a hash, a time, a count); each anchor is the
shortest such text that reads every marker back exactly.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Sequence

from probes._payload.paths import WILD, KeyTemplate, ParamPath, get
from probes._payload.placeholders import Filled, TextTemplate

__all__ = [
    "CALIBRATION_CALLS",
    "MARKER_SHAPES",
    "STALE_READ",
    "is_marker",
    "json_path_of",
    "marker_of",
    "markers_of",
    "near_value",
    "regex_literal",
    "split_fields",
    "structure_paths",
    "text_patterns",
]

_MARKER = re.compile(r"fidelity-marker-[0-9a-f]{8}(?:-[qn][\s\S]*)?")
#: How many times a calibration sends the chain a value (one per marker).
CALIBRATION_CALLS = 3
#: What each calibration marker is, in the order they are sent (for sentences).
MARKER_SHAPES = ("plain ASCII text", "a quote and a backslash", "a line break")
#: Why a payload whose read-back returned a calibration marker is ``lost``.
STALE_READ = (
    "the read-back returned the calibration value, not this payload's: it reads an "
    "earlier entry (a list that keeps old values, say); read the entry this payload wrote"
)
_VARYING = re.compile(r"\w*\d\w*")
_WORDY = re.compile(r"[A-Za-z0-9_]")
_STATUS = re.compile(r"[A-Z][A-Z_]{2,}")
_TOKENS = re.compile(r"\w+|\s+|[^\w\s]")
#: The ASCII characters that mean something in a pattern (outside a class).
_SPECIAL = frozenset(".^$*+?{}[]\\|()")
_MAX_NODES = 100_000
_MAX_PATTERN_TEXT = 256 * 1024
_MAX_ANCHOR_TOKENS = 24
_MAX_COMBINATIONS = 64


def markers_of(run_id: str) -> tuple[str, str, str]:
    """The calibration markers of a run, sent in this order (see :data:`MARKER_SHAPES`)."""
    base = f"fidelity-marker-{run_id}"
    return base, f'{base}-q "quoted" \\ back', f"{base}-n\n\nsecond paragraph"


def marker_of(run_id: str) -> str:
    """The plain ASCII calibration marker of a run (the first one sent)."""
    return markers_of(run_id)[0]


def is_marker(value: object) -> bool:
    """True when ``value`` is a calibration marker (of this run or an earlier one): no
    payload reads so, so a payload's read-back that returns one read a stale entry."""
    return isinstance(value, str) and _MARKER.fullmatch(value) is not None


# -- structure ----------------------------------------------------------------------


def json_path_of(document: object, marker: str) -> tuple[str | int, ...] | None:
    """The first path (document order) at which ``document`` holds exactly ``marker``."""
    return next(_paths_holding(document, marker), None)


def _paths_holding(document: object, marker: str) -> Iterator[tuple[str | int, ...]]:
    for path, value in _leaves(document):
        if value == marker:
            yield path


def _leaves(document: object) -> Iterator[tuple[tuple[str | int, ...], object]]:
    stack: list[tuple[tuple[str | int, ...], object]] = [((), document)]
    seen = 0
    while stack and seen < _MAX_NODES:
        path, node = stack.pop()
        seen += 1
        if isinstance(node, dict):
            stack.extend(reversed([((*path, k), v) for k, v in node.items() if isinstance(k, str)]))
        elif isinstance(node, list):
            stack.extend(reversed([((*path, i), v) for i, v in enumerate(node)]))
        else:
            yield path, node


def structure_paths(
    documents: Sequence[object],
    markers: Sequence[str],
    values: Sequence[Filled],
    *,
    hint: str | None = None,
) -> list[ParamPath]:
    """Paths that read ``markers[i]`` exactly from ``documents[i]``, for every ``i``.

    Each path holding the first marker is made general against the others (see the
    module); every path returned is checked on every document. Best first: one whose
    last key is ``hint`` (the name the value was sent under), then plain paths, then
    those with placeholders, a negative index, a wildcard; document order within.
    """
    exact = [
        list(itertools.islice(_paths_holding(d, m), 20))
        for d, m in zip(documents, markers, strict=True)
    ]
    if not exact or any(not paths for paths in exact):
        return []
    found: list[ParamPath] = []
    for first in exact[0]:
        others = [[q for q in paths if _same_shape(first, q)] for paths in exact[1:]]
        for choice in itertools.islice(itertools.product(*others), _MAX_COMBINATIONS):
            path = _general((first, *choice), documents, values)
            if path is None or path in found:
                continue
            if all(
                get(d, path, v) == m for d, m, v in zip(documents, markers, values, strict=True)
            ):
                found.append(path)
    return sorted(found, key=lambda p: (not _ends_with(p, hint), _rank(p)))


def _same_shape(a: tuple[str | int, ...], b: tuple[str | int, ...]) -> bool:
    return len(a) == len(b) and all(
        isinstance(x, int) == isinstance(y, int) for x, y in zip(a, b, strict=False)
    )


def _ends_with(path: ParamPath, hint: str | None) -> bool:
    keys = [s for s in path.segments if isinstance(s, str)]
    return bool(hint) and bool(keys) and keys[-1] == hint


def _rank(path: ParamPath) -> int:
    segments = path.segments
    if any(s is WILD for s in segments):
        return 3
    if any(isinstance(s, int) and s < 0 for s in segments):
        return 2
    return 1 if path.placeholders else 0


def _general(
    paths: Sequence[tuple[str | int, ...]], documents: Sequence[object], values: Sequence[Filled]
) -> ParamPath | None:
    """One path that stands for ``paths`` (one per document), or ``None``."""
    out: list[object] = []
    for depth, segment in enumerate(paths[0]):
        column = [p[depth] for p in paths]
        if all(s == segment for s in column):
            out.append(segment)
            continue
        if isinstance(segment, int):
            lengths = [_length(d, p[:depth]) for d, p in zip(documents, paths, strict=True)]
            offsets = {s - n for s, n in zip(column, lengths, strict=True) if isinstance(s, int)}
            if len(offsets) != 1 or -1 in lengths:
                return None
            out.append(offsets.pop())
            continue
        keys = [str(s) for s in column]
        out.append(_key_template(keys, values) or WILD)
    return ParamPath(tuple(out))


def _length(document: object, path: tuple[str | int, ...]) -> int:
    node = get(document, ParamPath(path))
    return len(node) if isinstance(node, list) else -1


def _key_template(keys: Sequence[str], values: Sequence[Filled]) -> KeyTemplate | None:
    """A key with ``{run}`` and/or ``{n}`` that gives ``keys[i]`` for ``values[i]``."""
    first, filled = keys[0], values[0]
    escaped = first.replace("{", "{{").replace("}", "}}")
    with_run = escaped.replace(filled.run, "{run}") if filled.run else escaped
    n = str(filled.n)
    texts = [with_run]
    spots = [m.start() for m in re.finditer(re.escape(n), with_run)]
    texts += [with_run[:at] + "{n}" + with_run[at + len(n) :] for at in reversed(spots)]
    if len(spots) > 1:
        texts.append(with_run.replace(n, "{n}"))
    for text in texts:
        try:
            template = TextTemplate.parse(text, allowed=("n", "run"), where="a key")
        except ValueError:
            continue
        if template.names and all(template.fill(v) == k for k, v in zip(keys, values, strict=True)):
            return KeyTemplate(template, text)
    return None


def split_fields(document: object, marker: str) -> tuple[str, ...]:
    """Where the lines of a multi-line ``marker`` came back one by one, when no single
    field holds it: the paths of the leaves holding its first line and the rest."""
    first, _, rest = marker.partition("\n")
    if not rest or json_path_of(document, marker) is not None:
        return ()
    head = next((p for p, v in _leaves(document) if isinstance(v, str) and v == first), None)
    tail = next(
        (p for p, v in _leaves(document) if isinstance(v, str) and v.strip() == rest.strip()),
        None,
    )
    if head is None or tail is None:
        return ()
    return str(ParamPath(head)), str(ParamPath(tail))


def near_value(document: object, marker: str) -> str | None:
    """The leaf (or, in a text, the line part) that looks like ``marker`` came back
    changed: it holds the marker's start, or its run id. ``None`` when nothing does."""
    start, run = marker[:12], marker[16:24]
    if isinstance(document, str):
        for probe in (start, run):
            at = document.find(probe) if probe == start else _run_at(document, run)
            if at >= 0:
                begin = max(0, document.rfind("\n", 0, at) + 1, at - 16)
                begin = at if probe == start else begin
                end = min(len(document), begin + len(marker) + 8)
                return document[begin:end] if "\n" in marker else document[begin:end].split("\n")[0]
        return None
    for _, value in _leaves(document):
        if isinstance(value, str) and (start in value or (run and _run_at(value, run) >= 0)):
            return value
    return None


#: How the names a run makes for other arguments begin (``fidelity-{run}-{n}``): the run
#: id after it is such a name, echoed back, not a calibration marker changed.
_MADE_NAME = "fidelity-"


def _run_at(text: str, run: str) -> int:
    """Where ``run`` first occurs in ``text`` other than in a made name, or -1."""
    at = text.find(run)
    while at >= 0 and text[max(0, at - len(_MADE_NAME)) : at] == _MADE_NAME:
        at = text.find(run, at + 1)
    return at


# -- text ---------------------------------------------------------------------------


def regex_literal(text: str) -> str:
    """``text`` as a regular expression that matches it literally, on one printable line.

    ``re.escape`` leaves a line feed raw; here every control, separator and other
    invisible character is written as an escape (``\\n``, ``\\x00``, ``\\u2028``), so
    the pattern can be printed, recorded and pasted as a command-line argument.
    """
    out = []
    for char in text:
        code = ord(char)
        if char in "\n\r\t":
            out.append({"\n": r"\n", "\r": r"\r", "\t": r"\t"}[char])
        elif code < 0x20 or 0x7F <= code < 0xA0:
            out.append(f"\\x{code:02x}")
        elif code < 0x80:
            out.append("\\" + char if char in _SPECIAL else char)
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return "".join(out)


def text_patterns(texts: Sequence[str], markers: Sequence[str]) -> list[str]:
    """Patterns with one group that read ``markers[i]`` exactly from ``texts[i]``.

    One per place the markers stand in the texts (counted from the last), best first:
    a value that ends the text, then one followed by a line break, then the others.
    Anchors are the shortest text the texts have in common next to the value (see the
    module) with which every marker is read back exactly.
    """
    if not texts or any(len(t) > _MAX_PATTERN_TEXT for t in texts):
        return []
    spots = [
        [m.start() for m in re.finditer(re.escape(k), t)]
        for t, k in zip(texts, markers, strict=True)
    ]
    if any(not s for s in spots):
        return []
    run = markers[0][16:24]
    found: list[tuple[int, int, str]] = []
    for back in range(1, min(len(s) for s in spots) + 1):
        befores, afters = [], []
        for text, marker, at in zip(texts, markers, (s[-back] for s in spots), strict=True):
            befores.append(_after_last(text[:at], (marker, run)))
            afters.append(_before_first(text[at + len(marker) :], (marker, run)))
        ends = (
            all(b == t[: len(b)] for b, t in zip(befores, texts, strict=True)),
            all(a == t[len(t) - len(a) :] for a, t in zip(afters, texts, strict=True)),
        )
        pattern = _pattern(texts, markers, befores, afters, ends)
        if pattern is not None:
            after = afters[0]
            order = 0 if not after else 1 if after.startswith(("\n", "\r")) else 2
            found.append((order, back, pattern))
    return [p for _, _, p in sorted(found)]


def _after_last(text: str, needles: Sequence[str]) -> str:
    cut = max((text.rfind(n) + len(n) for n in needles if n and n in text), default=0)
    return text[cut:]


def _before_first(text: str, needles: Sequence[str]) -> str:
    cut = min((text.find(n) for n in needles if n and n in text), default=len(text))
    return text[:cut]


def _pieces(parts: Sequence[str], *, from_end: bool) -> tuple[list[tuple[str, bool]], bool]:
    """Patterns for the tokens next to the value in all ``parts`` (nearest first): a
    token they share, literally; one that looks like it varies (it holds a digit, or it
    is an upper-case status word) or that differs between them, as a pattern of its
    kind, each with whether it holds a word. Stops where the parts differ in kind.
    Also whether they are all of every part.
    """
    token_lists = [_TOKENS.findall(p) for p in parts]
    if from_end:
        token_lists = [list(reversed(t)) for t in token_lists]
    pieces: list[tuple[str, bool]] = []
    for column in zip(*token_lists, strict=False):
        piece = _piece(column)
        if piece is None or len(pieces) >= _MAX_ANCHOR_TOKENS:
            break
        pieces.append((piece, any(_WORDY.search(t) for t in column)))
    whole = all(len(t) == len(pieces) for t in token_lists)
    return pieces, whole


def _piece(column: Sequence[str]) -> str | None:
    if all(_VARYING.fullmatch(t) for t in column):
        return r"\w*\d\w*"
    if all(_STATUS.fullmatch(t) for t in column):
        return "[A-Z][A-Z_]*"
    if len(set(column)) == 1:
        return regex_literal(column[0])
    if all(t.isspace() for t in column):
        return r"\s+"
    if all(re.fullmatch(r"\w+", t) for t in column):
        return r"\w+"
    return None


def _pattern(
    texts: Sequence[str],
    markers: Sequence[str],
    befores: list[str],
    afters: list[str],
    ends: tuple[bool, bool],
) -> str | None:
    """The first pattern that reads every marker back: a value up to the end of the
    text (its whole tail, as a pattern) before one up to the shortest anchor after
    it; the shortest anchor before it. ``ends``: whether the text before the value
    reaches the start of each text, and the text after it the end (no marker cut it)."""
    heads, head_whole = _pieces(befores, from_end=True)
    tails, tail_whole = _pieces(afters, from_end=False)
    head_whole, tail_whole = head_whole and ends[0], tail_whole and ends[1]
    head_options = [
        (r"\A" if head_whole and i == len(heads) else "")
        + "".join(p for p, _ in reversed(heads[:i]))
        for i in _word_ends(heads)
    ]
    if head_whole and not heads:
        head_options = [r"\A"]
    tail_options = [(True, "".join(p for p, _ in tails) + r"\Z")] if tail_whole else []
    tail_options += [(False, "".join(p for p, _ in tails[:i])) for i in _word_ends(tails)]
    for greedy, tail in tail_options:
        for head in head_options:
            pattern = f"(?s){head}{'(.*)' if greedy else '(.*?)'}{tail}"
            if _reads_all(pattern, texts, markers):
                return pattern
    return None


def _word_ends(pieces: Sequence[tuple[str, bool]]) -> list[int]:
    """How many pieces an anchor may take: enough to hold a word (``: `` alone is too
    easily found elsewhere), or all there are."""
    ends = [i for i in range(1, len(pieces) + 1) if any(w for _, w in pieces[:i])]
    return ends if ends else list(range(1, len(pieces) + 1))[-1:]


def _reads_all(pattern: str, texts: Sequence[str], markers: Sequence[str]) -> bool:
    compiled = re.compile(pattern)
    for text, marker in zip(texts, markers, strict=True):
        match = compiled.search(text)
        if match is None or match.group(1) != marker:
            return False
    return True
