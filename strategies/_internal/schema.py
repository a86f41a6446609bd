"""``from_schema``: tool argument dicts that satisfy a JSON Schema, with hostile strings.

The schema (typically an MCP tool's ``inputSchema``) is compiled into a Hypothesis
strategy once, when the strategy is first used; anything the compiler cannot satisfy
is an ``InvalidArgument`` naming the place in the schema, never a health-check failure
later. Supported: ``type`` (one or a list), ``enum``, ``const``, ``properties``,
``required``, ``additionalProperties``, ``minProperties``/``maxProperties``, ``items``
(schema or list), ``prefixItems``, ``additionalItems``, ``minItems``/``maxItems``,
``uniqueItems``, ``minLength``/``maxLength``, ``pattern``, ``format`` (``date``,
``date-time``, ``time``, ``email``, ``uuid``, ``ipv4``, ``ipv6``, ``hostname``,
``uri``), ``minimum``/``maximum`` and their exclusive forms (numbers or draft-4
booleans), ``multipleOf``, ``anyOf``/``oneOf`` (as a choice; ``oneOf`` branches are
assumed disjoint), ``allOf`` (merged), local ``$ref`` to ``#/...`` (not recursive).
Annotations (``title``, ``description``, ``default``, ``examples``...) are ignored.
"""

from __future__ import annotations

import json
import math
import re
import string
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from hypothesis import strategies as st

from strategies._internal.arguments import invalid
from strategies._internal.lazy import _UNSET, Defined, call_repr
from strategies._internal.mixing import text

__all__ = ["from_schema"]

_TYPES = ("string", "integer", "number", "boolean", "null", "object", "array")
_UNSUPPORTED = (
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "dependencies",
    "dependentRequired",
    "patternProperties",
    "propertyNames",
    "contains",
    "unevaluatedProperties",
    "unevaluatedItems",
    "$dynamicRef",
    "$recursiveRef",
)
_OBJECT_KEYS = ("properties", "required", "additionalProperties", "minProperties", "maxProperties")
_ARRAY_KEYS = ("items", "prefixItems", "additionalItems", "minItems", "maxItems", "uniqueItems")
_STRING_KEYS = ("minLength", "maxLength", "pattern", "format")
_NUMBER_KEYS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
_PLAIN_ALPHABET = string.ascii_letters + string.digits
#: Arrays and open-ended strings stay small: the interesting part is the hazards.
_EXTRA_ITEMS = 3
_EXTRA_CHARS = 12

_FORMATS: dict[str, Callable[[], st.SearchStrategy[str]]] = {
    "date": lambda: st.dates().map(lambda d: d.isoformat()),
    "date-time": lambda: st.datetimes(timezones=st.just(UTC)).map(datetime.isoformat),
    "time": lambda: st.times(timezones=st.just(UTC)).map(lambda t: t.isoformat()),
    "email": st.emails,
    "uuid": lambda: st.uuids().map(str),
    "ipv4": lambda: st.ip_addresses(v=4).map(str),
    "ipv6": lambda: st.ip_addresses(v=6).map(str),
    "hostname": lambda: st.from_regex(
        r"[a-z][a-z0-9]{0,10}(\.[a-z][a-z0-9]{0,10}){0,2}", fullmatch=True
    ),
    "uri": lambda: st.from_regex(r"https://[a-z]{1,10}\.example/[a-z0-9]{0,10}", fullmatch=True),
}


def _fit(value: str, lo: int, hi: int | None) -> str:
    if hi is not None and len(value) > hi:
        value = value[:hi]
    if len(value) < lo:
        value += "x" * (lo - len(value))
    return value


class _Compiler:
    """Compiles one schema; ``hostile`` strings go where ``param`` says."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.refs: list[str] = []
        #: True while compiling the ``param`` property: hostile even where a format is.
        self.forcing = False

    # -- helpers -----------------------------------------------------------------
    def resolve(self, ref: object, path: str) -> Any:
        if not isinstance(ref, str) or not ref.startswith("#"):
            invalid(f"input_schema{path} has $ref={ref!r}; only local references '#/...' work.")
        node: Any = self.root
        for part in filter(None, ref[1:].split("/")):
            key = part.replace("~1", "/").replace("~0", "~")
            if isinstance(node, Mapping) and key in node:
                node = node[key]
            elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
                node = node[int(key)]
            else:
                invalid(f"input_schema{path} has $ref={ref!r}, which points nowhere.")
        return node

    def expand(self, schema: Any, path: str) -> Any:
        """Inline ``$ref`` and merge ``allOf``; returns a schema without either."""
        if not isinstance(schema, Mapping):
            return schema
        if "$ref" in schema:
            ref = schema["$ref"]
            if ref in self.refs:
                invalid(f"input_schema{path} has a recursive $ref={ref!r}, which is unsupported.")
            self.refs.append(ref)
            try:
                target = self.expand(self.resolve(ref, path), path)
            finally:
                self.refs.pop()
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            schema = self.merge([target, rest], path) if rest else target
        if isinstance(schema, Mapping) and "allOf" in schema:
            parts = schema["allOf"]
            if not isinstance(parts, list) or not parts:
                invalid(f"input_schema{path} has allOf={parts!r}; it must be a non-empty list.")
            rest = {k: v for k, v in schema.items() if k != "allOf"}
            expanded = [self.expand(p, f"{path}['allOf'][{i}]") for i, p in enumerate(parts)]
            schema = self.merge([rest, *expanded], path)
        return schema

    def merge(self, schemas: list[Any], path: str) -> Any:
        out: dict[str, Any] = {}
        for s in schemas:
            if s is True:
                continue
            if s is False:
                return False
            if not isinstance(s, Mapping):
                invalid(f"input_schema{path} combines a non-schema {s!r}.")
            for key, value in s.items():
                if key not in out:
                    out[key] = value
                elif key == "properties":
                    props = dict(out[key])
                    for name, sub in value.items():
                        props[name] = self.merge([props[name], sub], path) if name in props else sub
                    out[key] = props
                elif key == "required":
                    out[key] = list(dict.fromkeys([*out[key], *value]))
                elif key in ("minimum", "minLength", "minItems", "minProperties"):
                    out[key] = max(out[key], value)
                elif key in ("maximum", "maxLength", "maxItems", "maxProperties"):
                    out[key] = min(out[key], value)
                elif key == "type":
                    a = {out[key]} if isinstance(out[key], str) else set(out[key])
                    b = {value} if isinstance(value, str) else set(value)
                    if "number" in a and "integer" in b:
                        a.add("integer")
                    if "number" in b and "integer" in a:
                        b.add("integer")
                    both = sorted(a & b)
                    if not both:
                        invalid(
                            f"input_schema{path} combines the types {out[key]!r} and {value!r}."
                        )
                    out[key] = both[0] if len(both) == 1 else both
                elif out[key] != value and key not in ("title", "description", "default"):
                    invalid(
                        f"input_schema{path} combines {key}={out[key]!r} with {key}={value!r}, "
                        "which is unsupported."
                    )
        return out

    @staticmethod
    def count(schema: Mapping[str, Any], key: str, path: str) -> int | None:
        value = schema.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            invalid(f"input_schema{path} has {key}={value!r}; it must be a non-negative integer.")
        return value

    def bounds(
        self, schema: Mapping[str, Any], lo_key: str, hi_key: str, path: str
    ) -> tuple[int, int | None]:
        lo = self.count(schema, lo_key, path) or 0
        hi = self.count(schema, hi_key, path)
        if hi is not None and lo > hi:
            invalid(f"input_schema{path} has {lo_key}={lo} > {hi_key}={hi}: no value satisfies it.")
        return lo, hi

    # -- compilation ---------------------------------------------------------------
    def compile(self, schema: Any, path: str, *, hostile: bool) -> st.SearchStrategy[Any]:
        schema = self.expand(schema, path)
        if schema is True or schema == {}:
            return self.any_json(hostile=hostile)
        if schema is False:
            invalid(f"input_schema{path} is false: no value satisfies it.")
        if not isinstance(schema, Mapping):
            invalid(f"input_schema{path}={schema!r} is not a schema (a JSON object or boolean).")
        for key in _UNSUPPORTED:
            if key in schema:
                invalid(f"input_schema{path} uses {key!r}, which from_schema does not support.")
        if "const" in schema:
            return st.just(schema["const"])
        if "enum" in schema:
            values = schema["enum"]
            if not isinstance(values, list) or not values:
                invalid(f"input_schema{path} has enum={values!r}; it must be a non-empty list.")
            return st.sampled_from(values)
        for key in ("anyOf", "oneOf"):
            if key in schema:
                branches = schema[key]
                if not isinstance(branches, list) or not branches:
                    invalid(
                        f"input_schema{path} has {key}={branches!r}; it must be a non-empty list."
                    )
                rest = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
                return st.one_of(
                    [
                        self.compile(self.merge([rest, self.expand(b, p)], p), p, hostile=hostile)
                        for i, b in enumerate(branches)
                        for p in [f"{path}[{key!r}][{i}]"]
                    ]
                )
        kind = schema.get("type", self.infer(schema))
        if kind is None:
            return self.any_json(hostile=hostile)
        if isinstance(kind, list):
            if not kind:
                invalid(f"input_schema{path} has type=[]: no value satisfies it.")
            return st.one_of(
                [self.compile({**schema, "type": k}, path, hostile=hostile) for k in kind]
            )
        if kind not in _TYPES:
            invalid(f"input_schema{path} has type={kind!r}; known types are: {', '.join(_TYPES)}.")
        build: Callable[..., st.SearchStrategy[Any]] = getattr(self, f"compile_{kind}")
        result: st.SearchStrategy[Any] = build(schema, path, hostile=hostile)
        return result

    @staticmethod
    def infer(schema: Mapping[str, Any]) -> str | None:
        for kind, keys in (
            ("object", _OBJECT_KEYS),
            ("array", _ARRAY_KEYS),
            ("string", _STRING_KEYS),
            ("number", _NUMBER_KEYS),
        ):
            if any(k in schema for k in keys):
                return kind
        return None

    def any_json(self, *, hostile: bool) -> st.SearchStrategy[Any]:
        leaf = self.plain_text(0, None)
        if hostile:
            leaf = st.one_of(text(), leaf)
        scalars = st.one_of(st.none(), st.booleans(), st.integers(), leaf)
        return st.recursive(
            scalars,
            lambda inner: st.one_of(
                st.lists(inner, max_size=_EXTRA_ITEMS),
                st.dictionaries(self.plain_text(1, 8), inner, max_size=_EXTRA_ITEMS),
            ),
            max_leaves=6,
        )

    @staticmethod
    def plain_text(lo: int, hi: int | None) -> st.SearchStrategy[str]:
        top = hi if hi is not None else lo + _EXTRA_CHARS
        return st.text(alphabet=_PLAIN_ALPHABET, min_size=lo, max_size=top)

    def compile_string(
        self, schema: Mapping[str, Any], path: str, *, hostile: bool
    ) -> st.SearchStrategy[str]:
        lo, hi = self.bounds(schema, "minLength", "maxLength", path)
        pattern = schema.get("pattern")
        if pattern is not None:
            try:
                re.compile(pattern)
            except (re.error, TypeError):
                invalid(f"input_schema{path} has pattern={pattern!r}, which is not a valid regex.")
            matches = st.from_regex(pattern, fullmatch=not hostile)
            if lo or hi is not None:
                matches = matches.filter(lambda s: lo <= len(s) and (hi is None or len(s) <= hi))
            return matches
        fmt = schema.get("format")
        if fmt in _FORMATS and not self.forcing:
            values = _FORMATS[fmt]()
            if lo or hi is not None:
                values = values.filter(lambda s: lo <= len(s) and (hi is None or len(s) <= hi))
            return values
        if hostile:
            return text().map(lambda s: _fit(s, lo, hi))
        return self.plain_text(lo, hi)

    def numeric_bounds(
        self, schema: Mapping[str, Any], path: str
    ) -> tuple[float | None, bool, float | None, bool]:
        for key in _NUMBER_KEYS:
            value = schema.get(key)
            if value is None or (key.startswith("exclusive") and isinstance(value, bool)):
                continue
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not math.isfinite(value)
            ):
                invalid(f"input_schema{path} has {key}={value!r}; it must be a finite number.")
        lo, hi = schema.get("minimum"), schema.get("maximum")
        lo_x = hi_x = False
        ex_lo, ex_hi = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
        if ex_lo is True:
            lo_x = lo is not None
        elif ex_lo is not None and ex_lo is not False and (lo is None or ex_lo >= lo):
            lo, lo_x = ex_lo, True
        if ex_hi is True:
            hi_x = hi is not None
        elif ex_hi is not None and ex_hi is not False and (hi is None or ex_hi <= hi):
            hi, hi_x = ex_hi, True
        if lo is not None and hi is not None and (lo > hi or (lo == hi and (lo_x or hi_x))):
            invalid(f"input_schema{path} has contradictory bounds: no number satisfies them.")
        return lo, lo_x, hi, hi_x

    def compile_integer(
        self, schema: Mapping[str, Any], path: str, *, hostile: bool
    ) -> st.SearchStrategy[int]:
        lo, lo_x, hi, hi_x = self.numeric_bounds(schema, path)
        ilo = None if lo is None else (math.floor(lo) + 1 if lo_x else math.ceil(lo))
        ihi = None if hi is None else (math.ceil(hi) - 1 if hi_x else math.floor(hi))
        step = schema.get("multipleOf")
        if step is not None:
            if isinstance(step, bool) or not isinstance(step, (int, float)) or step <= 0:
                invalid(
                    f"input_schema{path} has multipleOf={step!r}; it must be a positive number."
                )
            if step != int(step):
                invalid(
                    f"input_schema{path} has multipleOf={step!r} on an integer; "
                    "use an integer step."
                )
            n = int(step)
            klo = None if ilo is None else -((-ilo) // n)
            khi = None if ihi is None else ihi // n
            if klo is not None and khi is not None and klo > khi:
                invalid(f"input_schema{path} has no multiple of {n} within its bounds.")
            return st.integers(klo, khi).map(lambda k: k * n)
        if ilo is not None and ihi is not None and ilo > ihi:
            invalid(f"input_schema{path} has no integer within its bounds.")
        return st.integers(ilo, ihi)

    def compile_number(
        self, schema: Mapping[str, Any], path: str, *, hostile: bool
    ) -> st.SearchStrategy[float | int]:
        lo, lo_x, hi, hi_x = self.numeric_bounds(schema, path)
        if "multipleOf" in schema:
            step = schema["multipleOf"]
            if isinstance(step, bool) or not isinstance(step, (int, float)) or step <= 0:
                invalid(
                    f"input_schema{path} has multipleOf={step!r}; it must be a positive number."
                )
            if step == int(step):
                return self.compile_integer(schema, path, hostile=hostile)
            klo = None if lo is None else math.ceil(lo / step)
            khi = None if hi is None else math.floor(hi / step)
            return (
                st.integers(klo, khi)
                .map(lambda k: k * step)
                .filter(
                    lambda v: (
                        (lo is None or v > lo or (v == lo and not lo_x))
                        and (hi is None or v < hi or (v == hi and not hi_x))
                    )
                )
            )
        return st.floats(
            min_value=lo,
            max_value=hi,
            exclude_min=lo_x,
            exclude_max=hi_x,
            allow_nan=False,
            allow_infinity=False,
        )

    def compile_boolean(
        self, schema: Mapping[str, Any], path: str, *, hostile: bool
    ) -> st.SearchStrategy[bool]:
        return st.booleans()

    def compile_null(
        self, schema: Mapping[str, Any], path: str, *, hostile: bool
    ) -> st.SearchStrategy[None]:
        return st.none()

    def compile_array(
        self, schema: Mapping[str, Any], path: str, *, hostile: bool
    ) -> st.SearchStrategy[list[Any]]:
        lo, hi = self.bounds(schema, "minItems", "maxItems", path)
        items = schema.get("items", True)
        prefix = schema.get("prefixItems")
        rest: Any = items
        if isinstance(items, list):
            prefix, rest = items, schema.get("additionalItems", True)
        prefix = prefix or []
        if not isinstance(prefix, list):
            invalid(f"input_schema{path} has prefixItems={prefix!r}; it must be a list.")
        heads = [
            self.compile(p, f"{path}['prefixItems'][{i}]", hostile=hostile)
            for i, p in enumerate(prefix)
        ]
        top = hi if hi is not None else max(lo, len(heads)) + _EXTRA_ITEMS
        if rest is False:
            top = min(top, len(heads))
            if top < lo:
                invalid(f"input_schema{path} has minItems={lo} but allows only {len(heads)} items.")
        unique = schema.get("uniqueItems") is True
        if not heads:
            element = self.compile(rest, f"{path}['items']", hostile=hostile)
            if unique:
                return st.lists(element, min_size=lo, max_size=top, unique_by=_json_key)
            return st.lists(element, min_size=lo, max_size=top)
        tail = (
            st.just([])
            if rest is False
            else st.lists(
                self.compile(rest, f"{path}['items']", hostile=hostile),
                min_size=max(0, lo - len(heads)),
                max_size=max(0, top - len(heads)),
            )
        )

        @st.composite
        def tuple_array(draw: st.DrawFn) -> list[Any]:
            n = draw(st.integers(min(lo, len(heads)), min(top, len(heads))))
            values = [draw(h) for h in heads[:n]]
            if n == len(heads):
                values += draw(tail)
            if unique and len({_json_key(v) for v in values}) != len(values):
                from hypothesis import assume

                assume(False)
            return values

        return tuple_array()

    def compile_object(
        self, schema: Mapping[str, Any], path: str, *, hostile: bool
    ) -> st.SearchStrategy[dict[str, Any]]:
        return self.object_strategy(schema, path, hostile_names=(None if hostile else ()))

    def object_strategy(
        self, schema: Mapping[str, Any], path: str, *, hostile_names: tuple[str, ...] | None
    ) -> st.SearchStrategy[dict[str, Any]]:
        """``hostile_names`` None: every string is hostile; otherwise only those properties."""
        props = schema.get("properties", {})
        if not isinstance(props, Mapping):
            invalid(f"input_schema{path} has properties={props!r}; it must be an object.")
        required = schema.get("required", [])
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            invalid(f"input_schema{path} has required={required!r}; it must be a list of names.")
        extra = schema.get("additionalProperties", True)
        lo, hi = self.bounds(schema, "minProperties", "maxProperties", path)
        names = list(props)
        for name in required:
            if name not in props:
                if extra is False:
                    invalid(
                        f"input_schema{path} requires {name!r}, which additionalProperties=false "
                        "forbids."
                    )
                names.append(name)

        def value(name: str) -> st.SearchStrategy[Any]:
            sub = props.get(name, extra if isinstance(extra, Mapping) else True)
            hostile = hostile_names is None or name in hostile_names
            inner_hostile = hostile_names is None
            p = f"{path}['properties'][{name!r}]"
            if hostile and not inner_hostile:
                self.forcing = True
                try:
                    return self.compile(sub, p, hostile=True)
                finally:
                    self.forcing = False
            return self.compile(sub, p, hostile=inner_hostile)

        must = list(dict.fromkeys([*required, *(hostile_names or ())]))
        optional = [n for n in names if n not in must]
        while len(must) < lo and optional:
            must.append(optional.pop(0))
        if len(must) < lo:
            invalid(
                f"input_schema{path} has minProperties={lo} but names only {len(names)} "
                "properties; from_schema does not invent property names."
            )
        if hi is not None and len(must) > hi:
            invalid(f"input_schema{path} requires {len(must)} properties but maxProperties={hi}.")
        order = {n: i for i, n in enumerate(names)}
        room = None if hi is None else hi - len(must)

        def arrange(drawn: dict[str, Any]) -> dict[str, Any]:
            keys = sorted(drawn, key=order.__getitem__)
            if room is not None:
                extras = [k for k in keys if k not in must][room:]
                keys = [k for k in keys if k not in extras]
            return {k: drawn[k] for k in keys}

        return st.fixed_dictionaries(
            {n: value(n) for n in must}, optional={n: value(n) for n in optional}
        ).map(arrange)


def _json_key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _compile(input_schema: object, param: object) -> st.SearchStrategy[dict[str, Any]]:
    if not isinstance(input_schema, Mapping):
        invalid(
            f"input_schema={input_schema!r} must be a JSON Schema object (a dict), "
            f"not {type(input_schema).__name__}."
        )
    if param is not None and not isinstance(param, str):
        invalid(f"param={param!r} must be a property name (str) or None.")
    compiler = _Compiler(input_schema)
    schema = compiler.expand(input_schema, "")
    if not isinstance(schema, Mapping):
        invalid("input_schema resolves to a boolean schema; tool arguments need an object.")
    kind = schema.get("type", _Compiler.infer(schema) or "object")
    if kind != "object":
        invalid(f"input_schema has type={kind!r}; tool arguments must be an object.")
    for key in _UNSUPPORTED:
        if key in schema:
            invalid(f"input_schema uses {key!r}, which from_schema does not support.")
    if param is None:
        return compiler.object_strategy(schema, "", hostile_names=None)
    props = schema.get("properties", {})
    if not isinstance(props, Mapping) or param not in props:
        names = ", ".join(map(repr, props)) if isinstance(props, Mapping) else ""
        invalid(f"param={param!r} is not a property of input_schema; its properties are: {names}.")
    target = compiler.expand(props[param], f"['properties'][{param!r}]")
    if not _allows_free_string(target):
        invalid(
            f"param={param!r} is not a free string property of input_schema "
            f"(its schema is {target!r}); hostile strings can only go in a string field."
        )
    return compiler.object_strategy(schema, "", hostile_names=(param,))


def _allows_free_string(schema: Any) -> bool:
    if schema is True or schema == {}:
        return True
    if not isinstance(schema, Mapping) or "enum" in schema or "const" in schema:
        return False
    if "anyOf" in schema or "oneOf" in schema:
        return False
    kind = schema.get("type", _Compiler.infer(schema))
    return kind == "string" or (isinstance(kind, list) and kind == ["string"])


def from_schema(
    input_schema: Mapping[str, Any], *, param: str | None = None
) -> st.SearchStrategy[dict[str, Any]]:
    """Argument dicts that satisfy ``input_schema``, with hazards in the strings.

    ``input_schema`` is a JSON Schema for an object, such as an MCP tool's
    ``inputSchema``. Every generated dict satisfies it: required properties are always
    present, optional ones sometimes, values respect types, ``enum``/``const``, bounds
    and supported formats. String values come from :func:`strategies.text` (cut or
    padded to ``minLength``/``maxLength``); with ``param``, only that top-level
    string property gets hostile strings (it is always present, and hostile even if it
    has a ``format``) and every other string is a plain alphanumeric value; without
    ``param``, strings with a supported ``format`` get valid values of that format.
    Schemas that cannot be satisfied, unknown types, unsupported keywords, and a
    ``param`` that is not a string property raise ``InvalidArgument`` when the
    strategy is first used. Shrinks towards required
    properties only, with the smallest hazard and the smallest plain values.
    """
    representation = call_repr(
        "from_schema", input_schema, param=_UNSET if param is None else param
    )
    return Defined(representation, lambda: _compile(input_schema, param))
