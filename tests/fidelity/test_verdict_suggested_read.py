"""A suggested ``--read`` is one that reads the replies it was computed on.

Every value came back with the same suffix (``.md``, a file name's extension). Read
from the raw text, a pattern that cuts the suffix reads the value alone, and the
warning suggests it; read from a field of a document (``json:``, ``structured:``), a
pattern over the raw text would read nothing there (following such a suggestion
turned 35 values into ``lost``), so none is suggested.
"""

from __future__ import annotations

from fidelity._probe.contract import observe_value
from fidelity._run.verdict import judge

VALUES = ("alpha \u201c beta", "it\u2019s", "a\r\nb")
OBSERVATIONS = [observe_value(v, v + ".md") for v in VALUES]


def test_a_raw_text_read_gets_the_pattern_that_cuts_the_suffix() -> None:
    (warning,) = judge(OBSERVATIONS, read="text", read_found=False).warnings
    assert warning == (
        "every value came back followed by the same suffix '.md': --read "
        "'regex:(?s)\\A(.*)\\.md\\Z' reads the value alone (or leave --read out to locate "
        "the read-back automatically)."
    )


def test_a_field_read_gets_no_pattern_over_the_raw_text() -> None:
    (warning,) = judge(OBSERVATIONS, read="json:items[0].path", read_found=False).warnings
    assert warning == (
        "every value came back followed by the same suffix '.md', at --read "
        "json:items[0].path: the target adds it to every value (counted as a rewrite); name "
        "a --read that gives the value alone, if the target has one, or leave --read out "
        "to locate it."
    )
    assert "regex:" not in warning
