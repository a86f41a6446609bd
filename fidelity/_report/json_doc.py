"""The JSON documents of cards: deterministic dumps, the schema version, and typed
access to fields of a document that is never trusted (a result file is input).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from fidelity._core.errors import UsageError
from fidelity._core.kinds import KINDS, Status
from fidelity._core.render import safe
from fidelity._probe.observation import Direction

__all__ = [
    "COLLECTION",
    "RECORD",
    "SCHEMA_VERSION",
    "Malformed",
    "check_derived",
    "check_version",
    "direction",
    "dump",
    "int_field",
    "is_int",
    "list_field",
    "load",
    "object_value",
    "status",
    "str_field",
    "strs_field",
]

#: The version of the JSON form written by ``Card.to_json``.
SCHEMA_VERSION = 1
RECORD = "param-fidelity.card"
COLLECTION = "param-fidelity.cards"


class Malformed(Exception):
    """A field of a card document is missing or has the wrong type."""


def dump(document: object) -> str:
    return json.dumps(document, sort_keys=True, indent=2, ensure_ascii=True) + "\n"


def load(text: str | bytes) -> object:
    try:
        return json.loads(text)
    except (ValueError, TypeError) as exc:
        raise UsageError(f"the card is not valid JSON ({exc}).") from None


def check_version(raw: object) -> None:
    if not isinstance(raw, dict) or "schema_version" not in raw:
        raise UsageError("not a contract card: the JSON object has no 'schema_version'.")
    version = raw["schema_version"]
    if version != SCHEMA_VERSION or not is_int(version):
        raise UsageError(
            f"unsupported card schema_version {version!r}; "
            f"this param-fidelity reads version {SCHEMA_VERSION}."
        )


#: The longest hint text, hop name and description a card document may hold.
_HINT_CHARS = 400
_HOP_CHARS = 200
_DESCRIBE_CHARS = 299


def _printable(value: object, limit: int) -> bool:
    """One line of at most ``limit`` characters, with nothing a terminal would act on."""
    return isinstance(value, str) and len(value) <= limit and safe(value) == value


def check_derived(d: Mapping[str, Any]) -> None:
    """Check a card's derived fields, ``hints`` and ``describe`` (both optional; cards
    compute them again from their observations): each hint names a known kind, its
    text and hop are printable one-liners, its directions are split directions."""
    hints = d.get("hints", [])
    if not isinstance(hints, list):
        raise Malformed("field 'hints' must be a list")
    for hint in hints:
        h = object_value(hint, "hint")
        if h.get("kind") not in KINDS:
            raise Malformed("a hint must name a known kind id")
        if not _printable(h.get("text"), _HINT_CHARS):
            raise Malformed(f"a hint's text must be printable text of at most {_HINT_CHARS} "
                            "characters")  # fmt: skip
        hop = h.get("hop")
        if hop is not None and not _printable(hop, _HOP_CHARS):
            raise Malformed(f"a hint's hop must be null or printable text of at most "
                            f"{_HOP_CHARS} characters")  # fmt: skip
        directions = h.get("directions", [])
        if not isinstance(directions, list) or not all(
            x in (Direction.REQUEST.value, Direction.RESPONSE.value) for x in directions
        ):
            raise Malformed("a hint's directions must be a list of 'request' or 'response'")
    described = d.get("describe", "")
    if not _printable(described, _DESCRIBE_CHARS):
        raise Malformed(
            f"field 'describe' must be printable text of at most {_DESCRIBE_CHARS} characters"
        )


def object_value(raw: object, what: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise Malformed(f"a {what} must be a JSON object")
    return raw


def str_field(d: Mapping[str, Any], key: str) -> str:
    value = d.get(key)
    if not isinstance(value, str):
        raise Malformed(f"field {key!r} must be a string")
    return value


def is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def int_field(d: Mapping[str, Any], key: str) -> int:
    value = d.get(key)
    if not is_int(value):
        raise Malformed(f"field {key!r} must be an integer")
    assert isinstance(value, int)
    return value


def list_field(d: Mapping[str, Any], key: str) -> list[Any]:
    value = d.get(key)
    if not isinstance(value, list):
        raise Malformed(f"field {key!r} must be a list")
    return value


def strs_field(d: Mapping[str, Any], key: str) -> tuple[str, ...]:
    values = list_field(d, key)
    if not all(isinstance(v, str) for v in values):
        raise Malformed(f"field {key!r} must be a list of strings")
    return tuple(values)


def direction(value: str) -> str:
    if value not in {d.value for d in Direction}:
        raise Malformed(f"unknown direction {value!r}")
    return value


def status(value: str) -> str:
    if value not in {s.value for s in Status}:
        raise Malformed(f"unknown status {value!r}")
    return value
