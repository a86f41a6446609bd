"""Long values: named as their short versions are, and no rewrite runs on the whole in vain.

A long value's whole-value rewrites are tried first on windows around what the hunks
left unexplained (``fidelity._compare.windows``); these tests pin that the windows
change no verdict and that a rewrite which does not fit them never runs on the whole
value. They count work, never time it.
"""

from __future__ import annotations

import random
import unicodedata

import pytest

import fidelity
import fidelity._compare.whole_value as whole_value_module
from fidelity._compare.rules import Context, Rule

_WORDS = ("the", "of", "and", "a", "to", "in", "is", "you", "that", "it", "was", "for", "on")


def _prose(size: int, seed: int) -> str:
    rng = random.Random(seed)
    words: list[str] = []
    length = 0
    while length < size:
        word = rng.choice(_WORDS)
        words.append(word + (".\n" if rng.random() < 0.05 else ""))
        length += len(words[-1]) + 1
    return " ".join(words)


def _long(text: str, size: int = 40_000) -> str:
    """``text`` after ``size`` code points of prose (so the value is long)."""
    return _prose(size, seed=len(text)) + " " + text


# (label, sent, rewrite): the rewrite is what a real function does to the sent value.
REWRITES = [
    (
        "cp1252 misreading, then cut",
        "caf\u00e9 \u201cq\u201d and na\u00efve",
        lambda s: s.encode("utf-8").decode("cp1252", "replace")[:-9],
    ),
    ("a word replaced", "one caf\u00e9 two", lambda s: s.replace("two", "zwei")),
    ("NFD, and a word replaced", "caf\u00e9 two", lambda s: unicodedata.normalize("NFD", s)[:-3]),
    ("a BOM removed", "x\ufeffy", lambda s: s.replace("\ufeff", "")),
    (
        "latin-1 bytes",
        "na\u00efve caf\u00e9",
        lambda s: s.encode("latin-1"),
    ),
]


@pytest.mark.parametrize(("label", "tail", "rewrite"), REWRITES, ids=[r[0] for r in REWRITES])
def test_a_long_value_is_named_as_its_short_version(label: str, tail: str, rewrite: object) -> None:
    assert callable(rewrite)
    short = fidelity.compare(tail, rewrite(tail))
    sent = _long(tail)
    long = fidelity.compare(sent, rewrite(sent))
    assert long.kinds == short.kinds, (label, long.render())
    assert long.explained == short.explained


def test_a_rewrite_that_misses_the_windows_never_runs_on_the_whole_value(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sent = _prose(400_000, seed=3)
    middle = sent.index(" the ", len(sent) // 2)
    received = sent[:middle] + " zebra " + sent[middle + 5 :]  # one unexplained hunk
    lengths: list[int] = []
    rewrite_as = whole_value_module.rewrite_as
    whole_rewrites = whole_value_module.whole_rewrites

    def spy_as(rule: Rule, detail: str, text: str, ctx: Context) -> list[str]:
        lengths.append(len(text))
        return rewrite_as(rule, detail, text, ctx)

    def spy_whole(rule: Rule, text: str, received: str, ctx: Context) -> list[tuple[str, str]]:
        lengths.append(len(text))
        return whole_rewrites(rule, text, received, ctx)

    monkeypatch.setattr(whole_value_module, "rewrite_as", spy_as)
    monkeypatch.setattr(whole_value_module, "whole_rewrites", spy_whole)
    comparison = fidelity.compare(sent, received)
    assert lengths, "no whole-value rewrite was tried at all"
    assert comparison.kinds == {"unknown"}
    assert not any(n >= len(sent) for n in lengths)


def test_a_rewrite_of_the_whole_long_value_is_still_found() -> None:
    # Every line's CRLF became LF and the value was then read as latin-1 bytes: no
    # alignment, no window; the rereading finds it.
    sent = _prose(60_000, seed=5).replace("\n", "\r\n") + " caf\u00e9"
    received = sent.replace("\r\n", "\n").encode("latin-1")
    comparison = fidelity.compare(sent, received)
    assert comparison.kinds == {"newline.crlf_to_lf", "encoding.mojibake"}, comparison.render()
    assert comparison.explained
