"""``ended``: an exception's text as the end of a sentence, one stop on every Python.

Python 3.12 adds "Did you mean ...?" to some ``ImportError`` texts and 3.13 to
``TypeError`` texts for unknown keywords: a sentence that quotes them ends once.
"""

from __future__ import annotations

import pytest

from fidelity._core.errors import ended


@pytest.mark.parametrize(
    ("text", "sentence"),
    [
        (
            "it got an unexpected keyword argument 'alow'",
            "it got an unexpected keyword argument 'alow'.",
        ),
        ("No module named 'yaml'.", "No module named 'yaml'."),
        ("argument 'alow'. Did you mean 'allow'?", "argument 'alow'. Did you mean 'allow'?"),
        ("halted!  \n", "halted!"),
        ("trailing space ", "trailing space."),
    ],
)
def test_one_stop_at_the_end(text: str, sentence: str) -> None:
    assert ended(text) == sentence


def test_this_pythons_keyword_error_ends_once() -> None:
    # Whatever this Python's TypeError says (3.13: "... Did you mean 'allow'?"), the
    # sentence built from it has one stop at its end.
    def takes(*, allow: object = None) -> object:
        return allow

    with pytest.raises(TypeError) as caught:
        takes(alow=1)  # type: ignore[call-arg]
    sentence = ended(str(caught.value))
    assert sentence.startswith(str(caught.value).rstrip())
    assert sentence[-1] in ".?!"
    assert not sentence.endswith(("?.", "..", "!."))
