"""The face of the package: names, reprs, lazy argument validation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import hypothesis.errors
import pytest

import fidelity
import strategies


def _bad(value: object) -> Any:
    """A wrongly typed argument, on purpose."""
    return value


def test_face_pins_its_names_and_marker() -> None:
    assert strategies.__param_fidelity__ is True
    expected = {"InvalidArgument", "catalogue", "family", "from_schema", "payloads", "text"}
    assert set(strategies.__all__) == expected | set(fidelity.FAMILIES)
    for name in fidelity.FAMILIES:  # one strategy per family, read like its call
        assert repr(getattr(strategies, name)()) == f"strategies.{name}()"
        assert repr(strategies.family(name)) == f"strategies.{name}()"
    assert strategies.InvalidArgument is hypothesis.errors.InvalidArgument
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        strategies.nope  # noqa: B018


@pytest.mark.parametrize(
    ("make", "shown"),
    [
        (strategies.text, "strategies.text()"),
        (lambda: strategies.text(families=("quotes",)), "strategies.text(families=('quotes',))"),
        (
            lambda: strategies.text(max_pieces=2, plain=False),
            "strategies.text(max_pieces=2, plain=False)",
        ),
        (lambda: strategies.payloads(families=["bidi"]), "strategies.payloads(families=['bidi'])"),
        (strategies.quotes, "strategies.quotes()"),
        (
            lambda: strategies.from_schema({"type": "object"}, param="x"),
            "strategies.from_schema({'type': 'object'}, param='x')",
        ),
    ],
)
def test_reprs_read_like_the_call(make: Callable[[], object], shown: str) -> None:
    assert repr(make()) == shown


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda: strategies.text(families=["quotes", "nope"]),
            r"families=\['quotes', 'nope'\] names unknown",
        ),
        (
            lambda: strategies.text(families=_bad("quotes")),
            r"families='quotes' must be a list of family ids",
        ),
        (lambda: strategies.text(max_pieces=0), r"max_pieces=0 must be at least 1"),
        (lambda: strategies.text(max_pieces=True), r"max_pieces=True must be of type int"),
        (lambda: strategies.payloads(plain=_bad("yes")), r"plain='yes' must be of type bool"),
        (
            lambda: strategies.from_schema(_bad([])),
            r"input_schema=\[\] must be a JSON Schema object",
        ),
    ],
)
def test_bad_arguments_fail_when_used_not_when_built(make: Callable[[], Any], message: str) -> None:
    strategy = make()  # building never raises
    with pytest.raises(strategies.InvalidArgument, match=message):
        strategy.validate()
