"""The JSON documents of cards: deterministic dumps, the schema version, and typed
access to fields of a document that is never trusted (a result file is input).

Fields that reports show as they are must be words of the vocabulary (kind ids,
statuses, families, directions, outcomes, an ISO date): a forged file cannot put a
line break, a block marker or markup into a Markdown card through them. Free text (a
chain's name, an error message) is rendered terminal-safe and escaped where shown.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from fidelity._core.errors import UsageError
from fidelity._core.kinds import FAMILIES, KINDS, Status
from fidelity._core.render import safe
from fidelity._probe.observation import Direction

__all__ = [
    "COLLECTION",
    "READ_VERSIONS",
    "RECORD",
    "SCHEMA_VERSION",
    "Malformed",
    "card_name",
    "check_derived",
    "check_version",
    "date",
    "direction",
    "dump",
    "example_key",
    "families_field",
    "int_field",
    "is_int",
    "kinds_field",
    "list_field",
    "load",
    "object_value",
    "outcome",
    "status",
    "str_field",
    "strs_field",
]

#: The version of the JSON form written by ``Card.to_json`` (2 added
#: ``facts.environment``: where the card was measured).
SCHEMA_VERSION = 2
#: The versions read (older documents read as they were written).
READ_VERSIONS = (1, 2)
RECORD = "param-fidelity.card"
COLLECTION = "param-fidelity.cards"


#: The outcome of a row: one status, or ``mixed``.
_OUTCOMES = frozenset({*(s.value for s in Status), "mixed"})
_FAILURES = frozenset(s.value for s in Status) - {"preserved", "transformed"}
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
#: The longest card name read (a block name in a document is one line).
_NAME_CHARS = 1000


class Malformed(Exception):
    """A field of a card document is missing or has the wrong type."""


def _shown(value: object) -> str:
    """A value of a forged document as a message shows it: terminal-safe and short."""
    text = repr(value)
    return safe(text if len(text) <= 60 else text[:57] + "...")


def dump(document: object) -> str:
    return json.dumps(document, sort_keys=True, indent=2, ensure_ascii=True) + "\n"


def load(text: str | bytes) -> object:
    try:
        return json.loads(text)
    except (ValueError, TypeError) as exc:
        raise UsageError(f"the card is not valid JSON ({exc}).") from None
    except RecursionError:
        raise UsageError("not a contract card: its JSON is nested too deeply to be read.") from None


def check_version(raw: object) -> None:
    if not isinstance(raw, dict) or "schema_version" not in raw:
        raise UsageError("not a contract card: the JSON object has no 'schema_version'.")
    version = raw["schema_version"]
    if not is_int(version) or version not in READ_VERSIONS:
        raise UsageError(
            f"unsupported card schema_version {safe(repr(version))[:40]}; this "
            f"param-fidelity reads versions {', '.join(map(str, READ_VERSIONS))}."
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
        raise Malformed(f"unknown direction {_shown(value)}")
    return value


def status(value: str) -> str:
    if value not in {s.value for s in Status}:
        raise Malformed(f"unknown status {_shown(value)}")
    return value


def outcome(value: str) -> str:
    """A row's outcome: a status, or ``mixed``."""
    if value not in _OUTCOMES:
        raise Malformed(f"unknown outcome {_shown(value)}")
    return value


def example_key(value: str) -> str:
    """What an example shows: a kind id, or the status of a payload that did not arrive."""
    if value not in KINDS and value not in _FAILURES:
        raise Malformed(f"an example's key {_shown(value)} is neither a kind id nor a failure")
    return value


def kinds_field(d: Mapping[str, Any], key: str) -> tuple[str, ...]:
    """A list of kind ids (``fidelity.KINDS``)."""
    values = strs_field(d, key)
    for value in values:
        if value not in KINDS:
            raise Malformed(f"field {key!r} names an unknown kind id, {_shown(value)}")
    return values


def families_field(d: Mapping[str, Any], key: str) -> tuple[str, ...]:
    """A list of hazard family ids (``fidelity.FAMILIES``)."""
    values = strs_field(d, key)
    for value in values:
        family(value)
    return values


def family(value: str) -> str:
    """One hazard family id (``fidelity.FAMILIES``), or the plain word of a family that a
    user's own payloads were tagged with (letters, digits, ``_ . -``): either way it
    cannot carry markup, a line break or a marker into a report."""
    if value not in FAMILIES and not _WORD.fullmatch(value):
        raise Malformed(f"unknown family {_shown(value)}")
    return value


def date(value: str) -> str:
    """A date as the cards write it, ``YYYY-MM-DD``."""
    if not _DATE.fullmatch(value):
        raise Malformed(f"the date {_shown(value)} is not written YYYY-MM-DD")
    return value


def card_name(value: str) -> str:
    """A card's name: one line of printable text (it names a block in documents)."""
    if not value or len(value) > _NAME_CHARS or safe(value) != value:
        raise Malformed(
            f"the card name {_shown(value)} must be 1 to {_NAME_CHARS} printable characters "
            "without control, bidi or invisible ones"
        )
    return value
