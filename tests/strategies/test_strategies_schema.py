"""from_schema: arguments that validate against the schema, hazards where asked."""

from __future__ import annotations

from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
from hypothesis import HealthCheck, given, settings

import strategies

_FAST = settings(
    max_examples=25,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

EDIT = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "minLength": 1, "maxLength": 40},
        "old_string": {"type": "string"},
        "new_string": {"type": "string", "maxLength": 300},
        "replace_all": {"type": "boolean", "default": False},
        "mode": {"enum": ["fast", "safe"]},
        "count": {"type": "integer", "minimum": 1, "exclusiveMaximum": 10},
        "ratio": {"type": "number", "minimum": 0, "maximum": 1},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3, "uniqueItems": True},
        "when": {"type": "string", "format": "date"},
        "id": {"type": "string", "format": "uuid"},
        "options": {
            "type": "object",
            "properties": {
                "depth": {"type": ["integer", "null"]},
                "label": {"$ref": "#/$defs/label"},
            },
            "required": ["depth"],
            "additionalProperties": False,
        },
        "maybe": {"anyOf": [{"type": "string", "maxLength": 5}, {"type": "null"}]},
        "version": {"const": 2},
    },
    "required": ["path", "old_string", "new_string"],
    "additionalProperties": False,
    "$defs": {"label": {"type": "string", "pattern": "^[a-z]{2,5}$"}},
}

_CHECKER = jsonschema.Draft202012Validator.FORMAT_CHECKER


def _valid(schema: dict[str, Any], value: object) -> None:
    jsonschema.Draft202012Validator(schema, format_checker=_CHECKER).validate(value)


@_FAST
@given(strategies.from_schema(EDIT))
def test_arguments_satisfy_the_schema(args: dict[str, Any]) -> None:
    _valid(EDIT, args)
    assert {"path", "old_string", "new_string"} <= set(args)


@_FAST
@given(strategies.from_schema(EDIT, param="old_string"))
def test_only_param_gets_hazards(args: dict[str, Any]) -> None:
    _valid(EDIT, args)
    assert args["path"].isalnum()
    assert args["new_string"] == "" or args["new_string"].isalnum()


def test_param_receives_hazards() -> None:
    seen: list[str] = []

    @_FAST
    @given(strategies.from_schema(EDIT, param="old_string"))
    def collect(args: dict[str, Any]) -> None:
        seen.append(args["old_string"])

    collect()
    assert any(not s.isascii() or not s.isprintable() for s in seen)


@_FAST
@given(
    strategies.from_schema(
        {
            "type": "object",
            "properties": {
                "xs": {
                    "type": "array",
                    "prefixItems": [{"type": "integer"}, {"type": "string"}],
                    "minItems": 1,
                },
                "n": {"type": "number", "multipleOf": 0.5, "exclusiveMinimum": 0, "maximum": 3},
                "k": {"type": "integer", "multipleOf": 3, "minimum": -7, "maximum": 7},
                "free": {},
            },
            "required": ["xs", "n", "k", "free"],
            "minProperties": 4,
        }
    )
)
def test_tuples_multiples_and_free_values(args: dict[str, Any]) -> None:
    jsonschema.Draft202012Validator(
        {
            "type": "object",
            "properties": {
                "xs": {
                    "type": "array",
                    "prefixItems": [{"type": "integer"}, {"type": "string"}],
                    "minItems": 1,
                },
                "n": {"type": "number", "multipleOf": 0.5, "exclusiveMinimum": 0, "maximum": 3},
                "k": {"type": "integer", "multipleOf": 3, "minimum": -7, "maximum": 7},
            },
        }
    ).validate(args)


@pytest.mark.parametrize(
    ("schema", "param", "message"),
    [
        (
            {"type": "object", "properties": {"a": {"type": "strin"}}, "required": ["a"]},
            None,
            r"type='strin'; known types",
        ),
        (
            {
                "type": "object",
                "properties": {"a": {"type": "string", "minLength": 5, "maxLength": 2}},
                "required": ["a"],
            },
            None,
            "minLength=5 > maxLength=2",
        ),
        (
            {
                "type": "object",
                "properties": {"a": {"type": "integer", "minimum": 5, "maximum": 2}},
                "required": ["a"],
            },
            None,
            "contradictory bounds",
        ),
        (
            {"type": "object", "properties": {"a": {"type": "integer"}}},
            "a",
            r"param='a' is not a free string property",
        ),
        (
            {"type": "object", "properties": {"a": {"enum": ["x"]}}},
            "a",
            r"param='a' is not a free string property",
        ),
        (
            {"type": "object", "properties": {"a": {"type": "string"}}},
            "b",
            r"param='b' is not a property of input_schema; its properties are: 'a'",
        ),
        (
            {"type": "object", "required": ["b"], "additionalProperties": False},
            None,
            r"requires 'b', which additionalProperties=false forbids",
        ),
        ({"type": "array"}, None, r"type='array'; tool arguments must be an object"),
        (
            {"type": "object", "properties": {"a": {"not": {"type": "string"}}}, "required": ["a"]},
            None,
            r"uses 'not'",
        ),
        (
            {
                "type": "object",
                "properties": {"a": {"$ref": "#/$defs/a"}},
                "required": ["a"],
                "$defs": {"a": {"$ref": "#/$defs/a"}},
            },
            None,
            "recursive",
        ),
    ],
)
def test_unsatisfiable_schemas_are_clear_invalid_arguments(
    schema: dict[str, Any], param: str | None, message: str
) -> None:
    strategy = strategies.from_schema(schema, param=param)
    with pytest.raises(strategies.InvalidArgument, match=message):
        strategy.validate()
