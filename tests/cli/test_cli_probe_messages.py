"""Probe errors as ``fidelity probe`` prints them: the options' names, one bounded line."""

from __future__ import annotations

from fidelity._run.messages import MAX_MESSAGE, as_options, one_line


def test_api_arguments_become_options() -> None:
    assert as_options("read_tool='x' is not offered; tool='y'") == (
        "--read-tool 'x' is not offered; --tool 'y'"
    )
    assert as_options("url='ftp://x' is not valid") == "the URL 'ftp://x' is not valid"
    # Words that merely contain an argument name, or are not followed by a value, stay.
    assert as_options("the tool= sign, retool='x'") == "the tool= sign, retool='x'"


def test_one_line_folds_breaks_and_drops_repeated_reasons() -> None:
    message = (
        "bad reply\n  field required[U+000A LINE FEED]more (x) | bad reply\n field required more"
    )
    assert one_line(message) == "bad reply field required more (x)"
    assert one_line("an error | an") == "an error | an"  # short reasons are all kept
    long = one_line("word " * 200)
    assert len(long) == MAX_MESSAGE
    assert long.endswith("...")
