"""One verdict per answer to a malformed call (:func:`judge`), and its excerpt.

The rules, in order:

1. the session or the server process died (or the client library could not take the
   answer in): ``crashed``; no answer within the timeout: ``timeout``;
2. a tool result without ``isError: true``: ``accepted`` (an invalid call answered as
   a success, whatever its text says);
3. a refusal (a JSON-RPC error, or a result flagged ``isError: true``) whose text
   (with a JSON-RPC error's ``data``) is longer than 2,000 characters, or holds a
   stack trace, a file path (not one the call sent) or an exception dump
   (:func:`leak`): ``leaky``; a reply
   over ``--max-reply`` is ``leaky`` too;
4. a JSON-RPC error: ``structured`` (its code is the structure);
5. an ``isError`` result whose text names what was wrong (:func:`named`): the
   argument concerned, or the problem in the words of the case: ``structured``;
6. else ``unnamed``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from fidelity._core.render import safe
from fidelity._report.errors import Verdict

if TYPE_CHECKING:
    from fidelity._sweep.errors_cases import ErrorCase
    from probes.frontend import RawAnswer

__all__ = ["LONGEST", "excerpt", "judge", "leak", "mask", "named"]

#: A refusal longer than this (in characters) is ``leaky``.
LONGEST = 2000
#: The excerpt of an answer kept in the results, in characters.
_EXCERPT = 300

_M = re.MULTILINE
_STACK = (
    re.compile(r"Traceback \(most recent call last\)"),
    re.compile(r'^\s*File "[^"\n]+", line \d+', _M),
    re.compile(r"^\s+at \S.*(?::\d+(?::\d+)?\)?|\(Native Method\)|\(Unknown Source\))\s*$", _M),
    re.compile(r"^goroutine \d+ \[", _M),
    re.compile(r"^panic: ", _M),
    re.compile(r"stack backtrace:|thread '[^'\n]*' panicked at"),
)
_DUMP = (
    re.compile(r"\b(?:[A-Za-z_]\w*\.)*\w*[a-z0-9_](?:Error|Exception)(?::(?:\s|$)|\(|$)", _M),
    re.compile(r"<[\w.]+ object at 0x[0-9a-fA-F]+>|<class '[\w.]+'>"),
    re.compile(r"(?i)\b(?:uncaught|unhandled) exception\b|\bException in thread\b"),
)
#: Where an absolute path starts to be a file path (a JSON pointer such as
#: ``/properties/name`` is not one), unless it names a file by its extension.
_ROOTS = (
    "home|usr|opt|var|srv|app|apps|root|tmp|etc|Users|lib|lib64|proc|mnt|data|workspace"
    "|private|nix|run|sys|bin|sbin|code|src|work|Library|Applications|Volumes"
)
_FILES = (
    "py|pyc|js|mjs|cjs|ts|go|rs|java|kt|rb|php|cs|json|ya?ml|toml|txt|log|db|sqlite|conf"
    "|cfg|ini|so|dll|jar|sh|env|pem|key"
)
_PATH = (
    re.compile(rf"""(?:^|[\s"'(\[=,:])/(?:{_ROOTS})/[\w.@+~-]"""),
    re.compile(rf"""(?:^|[\s"'(\[=,:])(?:/[\w.@+~-]+)+\.(?:{_FILES})\b"""),
    re.compile(r"\b[A-Za-z]:\\[\w.\\ -]+"),
    re.compile(r"(?i)\bfile://"),
    re.compile(r"\b[\w./-]+\.(?:py|js|mjs|cjs|ts|go|rs|java|rb|php|cs):\d+"),
)
_ABSENT = r"\bmissing\b|\brequired\b|\breceived undefined\b|\bnot (?:provided|given)\b"
#: The words that say what was wrong, by the kind of case (before its ``:``).
_PROBLEM = {
    "missing": _ABSENT,
    "empty": _ABSENT,
    "type": r"\btype\b|\bexpected\b|\bmust be\b|\bnot an? (?:valid )?(?:string|number|integer)",
    "extra": (
        r"\b(?:unknown|unexpected|unrecognized|extra) (?:argument|parameter|field|property"
        r"|key|keyword|option|input)|\bunrecognized\b|\badditional propert|\bnot allowed\b"
    ),
    "enum": r"\bone of\b|\benum\b|\ballowed values?\b|\bexpected\b|\bmust be\b",
    "minLength": (
        r"\blength\b|\btoo short\b|\bat least\b|\bfewer than\b|\bminimum\b|\bcharacters?\b"
    ),
    "maxLength": r"\blength\b|\btoo long\b|\bat most\b|\bmore than\b|\bmaximum\b|\bcharacters?\b",
    "pattern": r"\bpattern\b|\bmatch|\bformat\b",
    "unknown-tool": (
        r"\bunknown\b|\bnot found\b|\bno such\b|\bdoes ?n[o']t exist\b|\bnot exist|"
        r"\bunavailable\b|\binvalid tool\b"
    ),
}
_NOUNS = r"(?:argument|parameter|param|field|property|key|input)s?"
_TOKEN = re.compile(
    r"(?i)(\b(?:bearer|basic)\s+|[\w-]*(?:token|secret|password|passwd|api[_-]?key"
    r"|credential|authorization)[\w-]*[\"']?\s*[=:]\s*[\"']?)([^\s\"',;}]{4,})"
)


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value] if len(value) >= 2 else []
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _strings(v)]
    return []


def leak(text: str, length: int | None = None, sent: object = None) -> str:
    """Why ``text`` (``length`` characters long in full) leaks, in a few words; ``""``
    when it does not: more than 2,000 characters; a stack trace (Python, JavaScript,
    Java, .NET, Go, Rust frames); an exception dump (an exception's class name and a
    colon or its repr, such as ``KeyError: 'path'`` or ``KeyError('path')``; ``<class
    '...'>``; an object's repr with its address); a file path (an absolute path under
    a system root such as ``/home``, ``/usr``, ``/srv``, ``/tmp``, one that names a
    file by its extension, a Windows
    drive path, a ``file://`` URL, a source file with its line number). A file path
    that is one of the strings ``sent`` (the call's arguments) is the caller's, not the
    server's: it does not count."""
    full = len(text) if length is None else length
    if full > LONGEST:
        return f"more than {LONGEST:,} characters ({full:,})"
    if any(p.search(text) for p in _STACK):
        return "a stack trace"
    if any(p.search(text) for p in _DUMP):
        return "an exception dump"
    for given in sorted(_strings(sent), key=len, reverse=True):
        text = text.replace(given, "")
    if any(p.search(text) for p in _PATH):
        return "a file path"
    return ""


def _names_word(text: str, name: str) -> bool:
    word = re.escape(name)
    if len(name) >= 3:
        return re.search(rf"(?i)(?<![A-Za-z0-9_]){word}(?![A-Za-z0-9_])", text) is not None
    quoted = (
        rf"['\"`]{word}['\"`]|\b{_NOUNS}\s*:?\s*['\"`]?{word}(?![A-Za-z0-9_])"
        rf"|\bat {word}(?=$|[,;)\]])"
    )
    return re.search(rf"(?im){quoted}", text) is not None


def named(text: str, case: ErrorCase) -> bool:
    """True when ``text`` names what was wrong with ``case``: one of its names (an
    argument of three characters or more as a word; a shorter one quoted, after
    "argument", "parameter", "field", "property", "key" or "input", or as ``at NAME``
    at the end of a line or before ``,;)]``), or the problem in the words of its kind
    (``missing``, ``required``, ``received undefined``, ``not provided`` for
    ``missing:`` and ``empty``; ``type``, ``expected``, ``must be`` for ``type:``...)."""
    if any(_names_word(text, name) for name in case.names if name):
        return True
    kind = case.case.split(":", 1)[0]
    problem = _PROBLEM.get(kind)
    return problem is not None and re.search(rf"(?i){problem}", text) is not None


def judge(answer: RawAnswer, case: ErrorCase) -> tuple[Verdict, str]:
    """The verdict of ``answer`` to ``case``, and why in a few words."""
    from probes.frontend import RawOutcome

    outcome = answer.outcome
    if outcome in (RawOutcome.CRASHED, RawOutcome.FAILED):
        return Verdict.CRASHED, "the session or the server died"
    if outcome is RawOutcome.TIMEOUT:
        return Verdict.TIMEOUT, "no answer within the timeout"
    if outcome is RawOutcome.TOO_LARGE:
        return Verdict.LEAKY, "a reply over --max-reply"
    if outcome is RawOutcome.RESULT and not answer.is_error:
        return Verdict.ACCEPTED, "answered as a success"
    text = f"{answer.text}\n{answer.data}" if answer.data else answer.text
    length = answer.length + (len(answer.data) + 1 if answer.data else 0)
    why = leak(text, length, case.arguments)
    if why:
        return Verdict.LEAKY, f"refused with {why}"
    if outcome is RawOutcome.RPC_ERROR:
        return Verdict.STRUCTURED, f"a JSON-RPC error ({answer.code})"
    if named(answer.text, case):
        return Verdict.STRUCTURED, "isError, naming what was wrong"
    return Verdict.UNNAMED, "isError, without saying what was wrong"


def mask(text: str, secrets: Sequence[str] = ()) -> str:
    """``text`` with each of ``secrets`` (and its JSON-escaped form) and every value
    after ``Bearer``, ``Basic`` or a name holding ``token``, ``secret``, ``password``,
    ``api_key``, ``credential`` or ``authorization`` and ``=`` or ``:`` (``token=``,
    ``"GITHUB_TOKEN": "..."``) replaced by ``***``."""
    from fidelity._sweep.config import redact

    text = redact(text, sorted((s for s in secrets if s), key=len, reverse=True))
    return _TOKEN.sub(lambda m: m.group(1) + "***", text)


def excerpt(text: str, secrets: Sequence[str] = ()) -> str:
    """The start of ``text`` as the results keep it: secrets masked, whitespace runs as
    one space, at most 300 characters, terminal-safe."""
    flat = " ".join(mask(text, secrets).split())  # masked whole: no secret cut in two
    cut = flat if len(flat) <= _EXCERPT else flat[: _EXCERPT - 3] + "..."
    return safe(cut)
