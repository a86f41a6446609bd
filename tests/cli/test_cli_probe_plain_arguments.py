"""The other required arguments ``--all-tools`` makes for a tool: Hypothesis' shrunk
example of ``strategies.from_schema``, written down without shrinking when every other
required argument is a plain string.

The shortcut must give the very example the search gives (the arguments are part of
each call, hence of each result): schemas of that shape, drawn with their optional
properties of every kind, annotations and property orders, are run both ways. The
shortcut must also fail where the search fails, with the same sentence.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fidelity._core.errors import UsageError
from fidelity._sweep import arguments
from fidelity._sweep.arguments import plain_arguments
from probes import McpTool

_NAMES = st.text(alphabet="abcdefghij_", min_size=1, max_size=6)
_ANNOTATIONS = st.fixed_dictionaries(
    {},
    optional={
        "title": st.just("A title"),
        "description": st.just("what it holds"),
        "default": st.just("x"),
        "examples": st.just(["a", "b"]),
    },
)
#: Schemas of optional properties: anything, constrained or nested.
_OPTIONAL = st.sampled_from(
    [
        {"type": "string"},
        {"type": "string", "minLength": 3},
        {"type": "string", "format": "uri"},
        {"type": "integer", "minimum": 5},
        {"type": "boolean"},
        {"type": "array", "items": {"type": "string"}, "minItems": 1},
        {"type": "object", "properties": {"a": {"type": "number"}}, "required": ["a"]},
        {"enum": ["x", "y"]},
        {"anyOf": [{"type": "string"}, {"type": "null"}]},
        {},
    ]
)


@st.composite
def _plain_shaped(draw: st.DrawFn) -> tuple[dict[str, Any], str]:
    """A tool schema whose required arguments besides the payload's are plain strings."""
    names = draw(st.lists(_NAMES, min_size=2, max_size=6, unique=True))
    param = draw(st.sampled_from(names))
    props: dict[str, Any] = {}
    required = [param]
    for name in names:
        if name == param:
            props[name] = draw(st.sampled_from([{"type": "string"}, {"type": "array"}]))
        elif draw(st.booleans()):
            props[name] = {"type": "string", **draw(_ANNOTATIONS)}
            required.append(name)
        else:
            props[name] = draw(_OPTIONAL)
    schema: dict[str, Any] = {"type": "object", "properties": props}
    schema["required"] = draw(st.permutations(required))
    if draw(st.booleans()):
        schema["additionalProperties"] = draw(st.booleans())
    if draw(st.booleans()):
        schema["maxProperties"] = len(required) + draw(st.integers(0, 2))
    return schema, param


def _searched(tool: McpTool, param: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The arguments as the search alone makes them (no shortcut, no memory)."""
    with monkeypatch.context() as m:
        m.setattr(arguments, "_plain", lambda schema, others: None)
        m.setattr(arguments, "_SHRUNK", {})
        return dict(plain_arguments(tool, param))


# The search is a Hypothesis search itself (nested in this one on purpose).
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(_plain_shaped())
def test_the_shortcut_gives_the_searched_example(shaped: tuple[dict[str, Any], str]) -> None:
    schema, param = shaped
    tool = McpTool(name="t", input_schema=schema)
    with pytest.MonkeyPatch.context() as monkeypatch:
        searched = _searched(tool, param, monkeypatch)
        monkeypatch.setattr(arguments, "_SHRUNK", {})
        made = dict(plain_arguments(tool, param))
    assert made == searched
    assert list(made) == list(searched)  # the same order: it is the call's JSON
    others = [r for r in schema["required"] if r != param]
    assert made == {n: "" for n in schema["properties"] if n in others}


def test_a_plain_schema_is_not_searched(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(strategy: Any) -> Any:
        raise AssertionError("searched")

    monkeypatch.setattr(arguments, "_shrunk", refuse)
    monkeypatch.setattr(arguments, "_SHRUNK", {})
    schema = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "where"},
            "content": {"type": "string"},
            "mode": {"type": "string", "enum": ["a", "w"]},
        },
        "required": ["content", "path"],
    }
    tool = McpTool(name="write", input_schema=schema)
    assert list(plain_arguments(tool, "content").items()) == [("path", "")]


@pytest.mark.parametrize(
    "other",
    [
        {"type": "string", "minLength": 2},
        {"type": "string", "pattern": "^a+$"},
        {"type": "integer"},
        {"enum": ["x"]},
        {"type": ["string", "null"]},
    ],
)
def test_other_shapes_are_searched(other: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(arguments, "_SHRUNK", {})
    schema = {
        "type": "object",
        "properties": {"text": {"type": "string"}, "other": other},
        "required": ["text", "other"],
    }
    tool = McpTool(name="t", input_schema=schema)
    made = dict(plain_arguments(tool, "text"))
    assert made == _searched(tool, "text", monkeypatch)
    assert list(made) == ["other"]


def test_a_schema_the_search_refuses_is_refused_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    schema = {
        "type": "object",
        "properties": {
            "text": {"type": "string"},
            "name": {"type": "string"},
            "bad": {"not": {"type": "string"}},  # optional, but from_schema cannot compile it
        },
        "required": ["text", "name"],
    }
    tool = McpTool(name="t", input_schema=schema)
    with pytest.raises(UsageError) as searched:
        _searched(tool, "text", monkeypatch)
    monkeypatch.setattr(arguments, "_SHRUNK", {})
    with pytest.raises(UsageError) as made:
        plain_arguments(tool, "text")
    assert str(made.value) == str(searched.value)
    assert "'not'" in str(made.value)


def test_a_searched_example_is_searched_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(arguments, "_SHRUNK", {})
    schema = {
        "type": "object",
        "properties": {"text": {"type": "string"}, "n": {"type": "integer", "minimum": 3}},
        "required": ["text", "n"],
    }
    tool = McpTool(name="t", input_schema=schema)
    first = plain_arguments(tool, "text")
    assert first == {"n": 3}

    def refuse(strategy: Any) -> Any:
        raise AssertionError("searched again")

    monkeypatch.setattr(arguments, "_shrunk", refuse)
    again = plain_arguments(tool, "text")
    assert again == first
    assert again is not first  # a copy: the caller may change it
