"""Path normalisation: a value rewritten the way ``os.path.normpath`` or ``pathlib`` do.

``.`` segments dropped, ``name/..`` resolved, repeated separators merged, a trailing
separator dropped. The whole-value rewrites (:func:`normalizations`) are the library
calls themselves, each with its name as the detail: ``posixpath.normpath``,
``pathlib.PurePosixPath``, ``ntpath.normpath`` and ``pathlib.PureWindowsPath`` (the
Windows forms, which also turn ``/`` into ``\\``), a normalisation under a root
(``posixpath.normpath("/" + v).lstrip("/")``, which drops the ``..`` that would climb
out of it) and a trailing separator dropped alone (an HTTP file API). A rewrite that
only turned one separator into the other is not one of them: that is
``path.slash_to_backslash`` or ``path.backslash_to_slash``.

A hunk is replayed on its own (:func:`_local`): the same steps on the segment, the
ends of the value only where the segment reaches them. Repeated backslashes are not
merged there: ``\\\\`` -> ``\\`` is an escape decoded as much as a path normalised.
"""

from __future__ import annotations

import ntpath
import posixpath
import re
from collections.abc import Callable, Iterable
from pathlib import PurePosixPath, PureWindowsPath

from fidelity._compare.rules.base import Context, Rule

__all__ = ["RULES", "normalization", "normalizations"]

_SEPARATORS = re.compile(r"[/\\]")


def _trailing(v: str) -> str:
    stripped = v.rstrip("/\\")
    return stripped if stripped else v


def _rooted(v: str) -> str:
    return posixpath.normpath("/" + v).lstrip("/") or v


#: The library calls, in the order their name is preferred when several give ``b``.
_CALLS: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("trailing separator", _trailing),
    ("posixpath.normpath", posixpath.normpath),
    ("pathlib.PurePosixPath", lambda v: str(PurePosixPath(v))),
    ("posixpath.normpath under a root", _rooted),
    ("ntpath.normpath", ntpath.normpath),
    ("pathlib.PureWindowsPath", lambda v: str(PureWindowsPath(v))),
)


def _same_but_separators(a: str, b: str) -> bool:
    return a.replace("\\", "/") == b.replace("\\", "/")


def normalizations(value: str) -> list[tuple[str, str]]:
    """The path normalisations of ``value`` that change more than its separators."""
    if _SEPARATORS.search(value) is None:
        return []
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for detail, call in _CALLS:
        try:
            norm = call(value)
        except ValueError:  # a NUL in a Windows path
            continue
        if (
            norm in seen
            or not norm
            or norm == "."
            or _same_but_separators(value, norm)
            or norm == value.replace("\\\\", "\\")  # doubled backslashes undone: an escape
        ):
            continue
        seen.add(norm)
        out.append((norm, detail))
    return out


def normalization(a: str, b: str) -> str | None:
    """The name of the library call that normalises the path ``a`` into ``b``, or None."""
    if not b or len(b) > len(a):
        return None
    for norm, detail in normalizations(a):
        if norm == b:
            return detail
    return None


_MERGED = re.compile(r"/(?:\.?/)+")  # "//", "/./", "/.//" -> "/"
_DOT_BACK = re.compile(r"\\(?:\.\\)+")  # "\.\" -> "\"
#: ``name/..`` (not ``../..``) after a separator, or also at the start of the segment
#: when it starts the value; ``$`` is the end of the segment, right before a separator
#: or the end of the value (a segment is widened to whole components).
_UP = {
    (sep, at_start): re.compile(
        (f"(?:(?<={s})|^)" if at_start else f"(?<={s})")
        + f"(?!\\.\\.(?:{s}|$))[^{s}]+{s}\\.\\.(?:{s}|$)"
    )
    for sep, s in (("/", "/"), ("\\", r"\\"))
    for at_start in (False, True)
}


def _local(s: str, start: bool, end: bool) -> str:
    """``s`` normalised as a part of a path: dot segments and repeated ``/`` merged, and
    at the ends of the value a leading ``./`` and a trailing separator (or ``/.``) gone."""
    out = _DOT_BACK.sub("\\\\", _MERGED.sub("/", s))
    if ".." in out:
        # A NUL after the segment: ``a/..`` ends a component only at the end of the value.
        out += "" if end else "\x00"
        for (sep, at_start), up in _UP.items():
            while at_start == start and sep in out:
                resolved = up.sub("", out, count=1)
                if resolved == out:
                    break
                out = resolved
        out = out if end else out[:-1]
    if start:
        while out.startswith(("./", ".\\")) and len(out) > 2:
            out = out[2:]
    if end:
        stripped = re.sub(r"(?:[/\\]\.?)+$", "", out)
        if stripped or not start:
            out = stripped
    return out


def _match(s: str, r: str, ctx: Context) -> str | None:
    """The library call for a whole value; for a part of one, no detail (the same
    steps replayed on the part say which call it was no better than its neighbours)."""
    if ctx.value is None:
        detail = normalization(s, r)
        if detail is not None:
            return detail
        start = end = True
    else:
        start, end = ctx.start == 0, ctx.start + len(r) == len(ctx.value)
    value = r if ctx.value is None else ctx.value
    if end and value.endswith(("/", "\\")):
        return None  # a normalised path ends with no separator: a run was shortened
    out = _local(s, start, end)
    if out == s or out != r or (start and end and not r):
        return None
    return ""


def _apply(s: str, ctx: Context) -> Iterable[tuple[str, str]]:
    """The library calls on a whole value; on a part of one, the same steps on the part
    (whether it ends the value is not known: its trailing separator stays)."""
    if ctx.value is None:
        return normalizations(s)
    out = _local(s, ctx.start == 0, False)
    return [(out, "")] if out != s else []


RULES: tuple[Rule, ...] = (
    Rule(kind="path.normalized", src=_SEPARATORS, dst=None, match=_match, apply=_apply),
)
