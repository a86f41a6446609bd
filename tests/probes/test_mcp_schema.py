"""The string places of an MCP tool's input schema, and the schemas a path leads to,
pinned by what a JSON Schema means: which keywords limit a string and how they are
shown, local ``$ref``s (escaped, cyclic), type lists, tuple items, unions, and the
bounds on depth and count."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from probes._mcp.schema import object_schema, schema_at, string_params
from probes._payload.paths import ParamPath


def _places(schema: dict[str, Any]) -> list[tuple[str, bool, str]]:
    return [(str(p.path), p.free, p.constraint) for p in string_params(schema)]


def _obj(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props}


def test_each_keyword_that_limits_a_string_is_named_with_its_value() -> None:
    schema = _obj(
        a={"type": "string", "enum": ["x"]},
        b={"type": "string", "const": "x"},
        c={"type": "string", "format": "uri"},
        d={"type": "string", "pattern": "^[a-z]+$"},
        e={"type": "string", "contentEncoding": "base64"},
        f={"type": "string", "contentMediaType": "image/png"},
        g={"type": "string", "format": 7},  # not a string: the keyword alone
        h={"type": "string", "minLength": 1},  # a length is no limit on the text
    )
    assert _places(schema) == [
        ("a", False, "enum"),
        ("b", False, "const"),
        ("c", False, "format: uri"),
        ("d", False, "pattern: ^[a-z]+$"),
        ("e", False, "contentEncoding: base64"),
        ("f", False, "contentMediaType: image/png"),
        ("g", False, "format"),
        ("h", True, ""),
    ]


def test_a_long_constraint_value_is_cut_to_forty_characters() -> None:
    forty = "a" * 40
    schema = _obj(
        exact={"type": "string", "pattern": forty},
        longer={"type": "string", "pattern": "b" * 41},
    )
    assert _places(schema) == [
        ("exact", False, "pattern: " + forty),
        ("longer", False, "pattern: " + "b" * 37 + "..."),
    ]


def test_local_refs_are_followed_and_escaped_names_read() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/Note"},
            "b": {"$ref": "#/definitions/a~1b~0c"},
            "c": {"$ref": "https://example.org/s.json"},  # not local: unknown, skipped
            "d": {"$ref": "#/$defs/Missing"},
        },
        "$defs": {"Note": {"type": "object", "properties": {"body": {"type": "string"}}}},
        "definitions": {"a/b~c": {"type": "string", "format": "email"}},
    }
    assert _places(schema) == [("a.body", True, ""), ("b", False, "format: email")]


def test_a_cyclic_ref_ends_and_keeps_what_it_found() -> None:
    schema = {
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/Node"}},
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "child": {"$ref": "#/$defs/Node"}},
            }
        },
    }
    assert _places(schema) == [("root.name", True, "")]


def test_types_from_a_list_or_implied_by_properties_and_items() -> None:
    schema = {
        "properties": {  # no "type": properties make it an object
            "maybe": {"type": ["null", "string"]},
            "list": {"items": {"type": "string"}},  # no "type": items make it an array
            "pair": {"prefixItems": [{"type": "integer"}, {"type": "string"}]},
            "old": {"type": "array", "items": [{"type": "string"}, {"type": "string"}]},
            "number": {"type": ["integer", 5]},
            "": {"type": "string"},  # an empty name is no place
        }
    }
    assert _places(schema) == [
        ("maybe", True, ""),
        ("list[0]", True, ""),
        ("pair[1]", True, ""),
        ("old[0]", True, ""),
        ("old[1]", True, ""),
    ]


def test_the_whole_input_being_a_string_is_no_place() -> None:
    assert string_params({"type": "string"}) == ()


def test_a_place_is_free_when_any_branch_leaves_it_free_in_whatever_order() -> None:
    for order in ("anyOf", "oneOf", "allOf"):
        free_last = _obj(v={order: [{"type": "string", "format": "uri"}, {"type": "string"}]})
        free_first = _obj(v={order: [{"type": "string"}, {"type": "string", "format": "uri"}]})
        assert _places(free_last) == [("v", True, "")]
        assert _places(free_first) == [("v", True, "")]
    both_limited = _obj(v={"anyOf": [{"type": "string", "enum": ["a"]}, {"format": "uri"}]})
    # only a branch that says "string" is a string place: the second says nothing
    assert _places(both_limited) == [("v", False, "enum")]


def test_places_are_found_twelve_levels_down_and_no_further() -> None:
    def nested(depth: int) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "string"}
        for _ in range(depth):
            schema = _obj(k=schema)
        return schema

    assert _places(nested(12)) == [(".".join(["k"] * 12), True, "")]
    assert _places(nested(13)) == []


def test_at_most_five_hundred_places() -> None:
    many = _obj(**{f"p{i}": {"type": "string"} for i in range(600)})
    found = string_params(many)
    assert len(found) == 500
    assert str(found[0].path) == "p0"
    assert str(found[-1].path) == "p499"


def test_schema_at_follows_keys_indexes_tuples_and_unions() -> None:
    text = {"type": "string"}
    schema = {
        "type": "object",
        "properties": {
            "edits": {"type": "array", "items": _obj(oldText=text)},
            "pair": {"type": "array", "prefixItems": [{"type": "integer"}, text]},
            "either": {"anyOf": [_obj(a=text), _obj(b={"type": "integer"})]},
            "ref": {"$ref": "#/$defs/T"},
        },
        "$defs": {"T": text},
    }
    assert schema_at(schema, ParamPath.parse("edits[3].oldText")) == [text]
    assert schema_at(schema, ParamPath.parse("pair[1]")) == [text]
    assert schema_at(schema, ParamPath.parse("either.b")) == [{"type": "integer"}]
    assert schema_at(schema, ParamPath.parse("ref")) == [text]
    assert schema_at(schema, ParamPath.parse("either")) == [
        {"anyOf": [_obj(a=text), _obj(b={"type": "integer"})]},
        _obj(a=text),
        _obj(b={"type": "integer"}),
    ]


def test_schema_at_rules_a_path_out_or_says_it_cannot_tell() -> None:
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "pair": {"type": "array", "prefixItems": [{"type": "string"}]},
            "loose": {"type": "object"},
            "anything": {},
            "list": {"type": "array"},
        },
    }
    assert schema_at(schema, ParamPath.parse("other")) == []  # an undeclared key
    assert schema_at(schema, ParamPath.parse("name.x")) == []  # a key into a string
    assert schema_at(schema, ParamPath.parse("name[0]")) == []  # an index into a string
    assert schema_at(schema, ParamPath.parse("pair[0]")) == [{"type": "string"}]
    # past the tuple without "items": JSON Schema allows any further item
    assert schema_at(schema, ParamPath.parse("pair[1]")) is None
    assert schema_at(schema, ParamPath.parse("loose.x")) is None  # no properties listed
    assert schema_at(schema, ParamPath.parse("anything.x")) is None  # no type at all
    assert schema_at(schema, ParamPath.parse("anything[0]")) is None
    assert schema_at(schema, ParamPath.parse("list[0]")) is None  # no items listed


def test_object_schema_is_the_first_that_lists_properties() -> None:
    listed = _obj(a={"type": "string"})
    implied = {"properties": {"b": {}}}
    assert object_schema([{"type": "string"}, {"type": "object"}, listed, implied]) is listed
    assert object_schema([implied, listed]) is implied
    assert object_schema([{"type": "object", "properties": []}]) == {}
    assert object_schema([]) == {}


def test_places_are_values_that_can_be_kept_in_a_set() -> None:
    first = string_params(_obj(v={"type": "string"}))
    again = string_params(_obj(v={"type": "string"}))
    assert first == again
    assert len({*first, *again}) == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        first[0].free = False  # type: ignore[misc]
