"""The armored form carries any value byte-exactly."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fidelity import UsageError
from fidelity._core.armor import armor, unarmor


@given(st.text(alphabet=st.characters(codec=None)))
def test_text_round_trips_through_json(text: str) -> None:
    wire = json.dumps(armor(text))
    assert unarmor(json.loads(wire)) == text


@given(st.binary())
def test_bytes_round_trip(data: bytes) -> None:
    back = unarmor(armor(data))
    expected = back if isinstance(back, bytes) else back.encode("utf-8", "surrogatepass")
    assert expected == data


def test_codepoints_are_the_evidence() -> None:
    assert armor("e\u0301")["codepoints"] == [0x65, 0x301]
    assert "codepoints" not in armor(b"\xff")


@pytest.mark.parametrize("bad", [None, {}, {"base64": 1}, {"base64": "!!!"}, []])
def test_malformed_armor_is_a_usage_error(bad: object) -> None:
    with pytest.raises(UsageError):
        unarmor(bad)
