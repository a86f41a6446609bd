"""``path.sanitized``: a file-name sanitizer's work is named, with its style, and nothing else is.

The received values come from the real sanitizers (Werkzeug's ``secure_filename``,
pathvalidate's ``sanitize_filename``); the controls are real rewrites that remove or
replace some of the same characters without being a file-name sanitizer, and must not
be named ``path.sanitized``.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable

import pytest
from _needs import need_module

import fidelity


def _secure_filename(v: str) -> str:
    need_module("werkzeug")
    from werkzeug.utils import secure_filename

    return secure_filename(v)


def _sanitize_filename(v: str) -> str:
    need_module("pathvalidate")
    from pathvalidate import sanitize_filename

    return str(sanitize_filename(v))


@pytest.mark.parametrize(
    ("sanitize", "style"),
    [(_secure_filename, "secure_filename"), (_sanitize_filename, "sanitize_filename")],
)
def test_the_detail_names_the_style(sanitize: Callable[[str], str], style: str) -> None:
    sent = "My Report: 2024/Q1 & more.pdf"
    comparison = fidelity.compare(sent, sanitize(sent))
    assert comparison.kinds == {"path.sanitized"}, comparison.render()
    assert {t.detail for t in comparison.transformations} == {style}


def test_each_hunk_is_the_sanitizer_replayed_where_it_sits() -> None:
    # The ends of the value lose their dots and underscores; the inside slash is a "_".
    comparison = fidelity.compare("../../etc/passwd", _secure_filename("../../etc/passwd"))
    assert [(t.kind, t.sent, t.received) for t in comparison.transformations] == [
        ("path.sanitized", "../../", ""),
        ("path.sanitized", "/", "_"),
    ]
    # A run of blanks and separators is one "_", a non-ASCII word between two blanks
    # goes first (the ASCII step), so its blanks are one run.
    sent = "a \t/ b x \u65e5\u672c y"
    comparison = fidelity.compare(sent, _secure_filename(sent))
    assert comparison.kinds == {"path.sanitized"}, comparison.render()


def test_a_file_name_sanitizer_leaves_a_safe_name_alone() -> None:
    for sent in ("report_2024-v2.pdf", "a.b.c"):
        assert fidelity.compare(sent, _secure_filename(sent)).faithful
        assert fidelity.compare(sent, _sanitize_filename(sent)).faithful


def _ascii_ignore(v: str) -> str:
    return v.encode("ascii", "ignore").decode("ascii")


@pytest.mark.parametrize(
    ("label", "rewrite", "sent"),
    [
        # A transliterator or an ASCII encoder drops a symbol: no file name in sight.
        ("ascii ignore, a symbol", _ascii_ignore, "alpha\u263a\ufe0ebeta"),
        ("ascii ignore, a quote", _ascii_ignore, "it\u2019s a test"),
        # A shell parser drops quotes and backslashes.
        ("shlex quotes", lambda v: shlex.join(shlex.split(v)), 'alpha "quoted" beta'),
        ("shlex backslashes", lambda v: shlex.join(shlex.split(v)), "alpha ..\\..\\x beta"),
        # Spaces replaced, but the value keeps what every sanitizer removes.
        ("spaces replaced", lambda v: v.replace(" ", "_"), "a b! <c>"),
        # Underscores cut from the end of a name that never had a blank.
        ("rstrip underscores", lambda v: v.rstrip("_"), "name_v2__"),
    ],
)
def test_near_misses_are_not_named_sanitized(
    label: str, rewrite: Callable[[str], str], sent: str
) -> None:
    received = rewrite(sent)
    assert received != sent
    comparison = fidelity.compare(sent, received)
    assert "path.sanitized" not in comparison.kinds, (label, comparison.render())


@pytest.mark.parametrize(
    ("sent", "received", "detail"),
    [
        # A cut at a NUL: what followed it is what a sanitizer removes too ('|'), but
        # only the tail is gone (Hypothesis found the first under -n 4).
        ("\x00|", "", "0 chars, 0 UTF-8 bytes, 0 UTF-16 units, nul"),
        ("x\x00|", "x", "1 chars, 1 UTF-8 bytes, 1 UTF-16 units, nul"),
        ("file|", "file", "4 chars, 4 UTF-8 bytes, 4 UTF-16 units"),
    ],
)
def test_a_value_that_only_lost_its_tail_is_cut_not_sanitized(
    sent: str, received: str, detail: str
) -> None:
    comparison = fidelity.compare(sent, received)
    assert [(t.kind, t.detail) for t in comparison.transformations] == [("truncate", detail)]
