"""The implicit typing that turns a string into a number, boolean, null or date.

Each resolver is the real rule of a format that chains use: YAML 1.1 implicit
resolution (what PyYAML and many config loaders apply: ``010`` -> 8, ``no`` -> False,
``12:30:00`` -> 45000, ``~`` -> None), YAML 1.2 core schema, JSON (``json.loads``) and
Python's own ``int``/``float`` parsing (``1e3`` -> 1000.0, ``007`` -> 7). The replay of
``type.coerced`` is: resolve the sent text with one of these, and compare with what
arrived, either as the value itself or as its text rendered again (``1.50`` -> ``1.5``).
"""

from __future__ import annotations

import contextlib
import datetime
import json
import math
import re
from collections.abc import Iterator

__all__ = ["coercions", "rendered_coercion", "value_coercion"]

_Y11_BOOL = {
    **dict.fromkeys(("yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
    **dict.fromkeys(("no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
    **dict.fromkeys(("y", "Y"), True),
    **dict.fromkeys(("n", "N"), False),
}
_Y11_NULL = frozenset(("~", "null", "Null", "NULL", ""))
_Y12_BOOL = {
    **dict.fromkeys(("true", "True", "TRUE"), True),
    **dict.fromkeys(("false", "False", "FALSE"), False),
}

_Y11_INT = re.compile(
    r"[-+]?(?:0b[01_]+|0[0-7_]+|(?:0|[1-9][0-9_]*)|0x[0-9a-fA-F_]+|[1-9][0-9_]*(?::[0-5]?[0-9])+)"
)
_Y11_FLOAT = re.compile(
    r"[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
    r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
)
_Y12_INT = re.compile(r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+")
_Y12_FLOAT = re.compile(
    r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)"
    r"|\.(?:nan|NaN|NAN)"
)
_DATE = re.compile(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}")
_DATETIME = re.compile(
    r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?"
    r"(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?"
)


def _sexagesimal(text: str, number: type[int] | type[float]) -> int | float:
    sign = -1 if text.startswith("-") else 1
    parts = text.lstrip("+-").split(":")
    value: float = 0
    for part in parts:
        value = value * 60 + number(part)
    return number(sign * value)


def _yaml11_int(text: str) -> int:
    t = text.replace("_", "")
    sign = -1 if t.startswith("-") else 1
    body = t.lstrip("+-")
    if ":" in body:
        return int(_sexagesimal(t, int))
    if body.startswith("0b"):
        return sign * int(body[2:], 2)
    if body.startswith("0x"):
        return sign * int(body[2:], 16)
    if body != "0" and body.startswith("0"):
        return sign * int(body, 8)
    return sign * int(body)


def _yaml11_float(text: str) -> float:
    t = text.replace("_", "").lower()
    if t.endswith(".inf"):
        return -math.inf if t.startswith("-") else math.inf
    if t.endswith(".nan"):
        return math.nan
    if ":" in t:
        return float(_sexagesimal(t, float))
    return float(t)


def _timestamp(text: str) -> object:
    if _DATE.fullmatch(text):
        y, m, d = (int(x) for x in text.split("-"))
        return datetime.date(y, m, d)
    iso = re.sub(r"[ \t]+", " ", text).replace("t", "T").replace(" Z", "Z")
    iso = re.sub(r" ([-+])", r"\1", iso)
    return datetime.datetime.fromisoformat(iso.replace(" ", "T"))


def coercions(text: str) -> Iterator[tuple[str, object]]:
    """Every (resolver, value) the implicit typing of known formats gives ``text``."""
    if len(text) > 64:
        return
    # A YAML plain scalar does not hold the blanks around it: "  0320  " reads as 0320.
    plain = text.strip(" \r\n")  # PyYAML takes no tab around a scalar
    if plain in _Y11_BOOL:
        yield "YAML 1.1 bool", _Y11_BOOL[plain]
    if plain in _Y11_NULL:
        yield "YAML 1.1 null", None
    if plain in _Y12_BOOL:
        yield "YAML 1.2 bool", _Y12_BOOL[plain]
    try:
        if _Y11_INT.fullmatch(plain):
            yield "YAML 1.1 int", _yaml11_int(plain)
        if _Y11_FLOAT.fullmatch(plain):
            yield "YAML 1.1 float", _yaml11_float(plain)
        if _Y12_INT.fullmatch(plain):
            yield "YAML 1.2 int", int(plain, 0) if plain[:2] in ("0o", "0x") else int(plain)
        if _Y12_FLOAT.fullmatch(plain):
            yield "YAML 1.2 float", _yaml11_float(plain)
    except ValueError:
        pass
    if _DATE.fullmatch(plain) or _DATETIME.fullmatch(plain):
        with contextlib.suppress(ValueError):
            yield "YAML 1.1 timestamp", _timestamp(plain)
    for label, parse in (("int", int), ("float", float)):
        with contextlib.suppress(ValueError):
            yield label, parse(text)
    with contextlib.suppress(ValueError):
        yield "int literal", int(text, 0)
    if text in ("True", "False", "None"):
        yield "Python literal", {"True": True, "False": False, "None": None}[text]
    try:
        value = json.loads(text)
    except ValueError:
        pass
    else:
        if not isinstance(value, str):
            yield "JSON", value


def _same(a: object, b: object) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    try:
        return bool(a == b)
    except Exception:
        return False


def value_coercion(text: str, received: object) -> str | None:
    """The resolver that turns ``text`` into exactly ``received``, as a detail string."""
    for label, value in coercions(text):
        if _same(value, received):
            return f"{label} -> {type(received).__name__}"
    return None


def _renderings(value: object) -> Iterator[str]:
    yield str(value)
    yield repr(value)
    if isinstance(value, bool) or value is None:
        yield json.dumps(value)
        yield "~" if value is None else ("yes" if value else "no")
    with contextlib.suppress(TypeError, ValueError):
        yield json.dumps(value)
    if isinstance(value, (datetime.date, datetime.datetime)):
        yield value.isoformat()


def rendered_coercion(text: str, received: str) -> str | None:
    """The resolver whose value, written out again, is ``received``, as a detail string."""
    if text == received:
        return None
    for label, value in coercions(text):
        for shown in _renderings(value):
            if shown == received:
                return f"{label} -> {type(value).__name__} -> text"
    return None
