"""Paths into a tool's arguments, and the string places of a schema, pinned by what
they mean: ``edits[0].oldText`` writes the first edit, never another one; a place that
any branch of a union leaves free-form is free-form."""

from __future__ import annotations

import pytest

from fidelity import UsageError
from probes._mcp.schema import string_params
from probes._payload.paths import ParamPath, get, put

TWO_EDITS = {"path": "f.txt", "edits": [{"oldText": "a", "newText": "b"}, {"oldText": "c"}]}


def test_an_index_writes_that_element_of_a_list() -> None:
    first = put(TWO_EDITS, ParamPath.parse("edits[0].oldText"), "X")
    assert first["edits"] == [{"oldText": "X", "newText": "b"}, {"oldText": "c"}]
    second = put(TWO_EDITS, ParamPath.parse("edits[1].oldText"), "Y")
    assert second["edits"] == [{"oldText": "a", "newText": "b"}, {"oldText": "Y"}]
    assert TWO_EDITS["edits"] == [{"oldText": "a", "newText": "b"}, {"oldText": "c"}]


def test_an_index_as_the_last_step_replaces_that_element() -> None:
    names = {"names": ["a", "b", "c"]}
    assert put(names, ParamPath.parse("names[0]"), "X") == {"names": ["X", "b", "c"]}
    assert put(names, ParamPath.parse("names[1]"), "X") == {"names": ["a", "X", "c"]}
    assert put(names, ParamPath.parse("names[3]"), "X") == {"names": ["a", "b", "c", "X"]}


def test_get_reads_the_element_put_wrote() -> None:
    path = ParamPath.parse("edits[0].oldText")
    assert get(put(TWO_EDITS, path, "X"), path) == "X"
    assert get(TWO_EDITS, ParamPath.parse("edits.1.oldText")) == "c"


def _free(schema: dict[str, object]) -> dict[str, bool]:
    return {str(p.path): p.free for p in string_params(schema)}


def test_a_union_with_a_free_string_is_free_whichever_branch_comes_first() -> None:
    enum_first = {
        "type": "object",
        "properties": {"v": {"anyOf": [{"type": "string", "enum": ["a"]}, {"type": "string"}]}},
    }
    free_first = {
        "type": "object",
        "properties": {"v": {"oneOf": [{"type": "string"}, {"type": "string", "enum": ["a"]}]}},
    }
    assert _free(enum_first) == {"v": True}
    assert _free(free_first) == {"v": True}
    only_enum = {
        "type": "object",
        "properties": {"v": {"anyOf": [{"type": "string", "enum": ["a"]}, {"type": "integer"}]}},
    }
    assert _free(only_enum) == {"v": False}


def test_a_path_starts_with_itself_and_with_the_paths_that_lead_to_it() -> None:
    deep = ParamPath.parse("edits[0].oldText")
    assert deep.startswith(ParamPath.parse("edits")) is True
    assert deep.startswith(ParamPath.parse("edits[0]")) is True
    assert deep.startswith(deep) is True
    # a longer path does not lead to a shorter one; a sibling or a path that sorts
    # before it does not lead to it either
    assert ParamPath.parse("edits").startswith(deep) is False
    assert deep.startswith(ParamPath.parse("edits[1]")) is False
    assert ParamPath.parse("b.x").startswith(ParamPath.parse("a.x")) is False
    assert ParamPath.parse("a").startswith(ParamPath.parse("b")) is False


def test_only_paths_of_names_and_indexes_from_0_can_be_written() -> None:
    assert ParamPath.parse("edits[0].oldText").writable is True
    for text in ("edits[-1].oldText", "files.*.content", 'notes["f{n}.txt"]'):
        path = ParamPath.parse(text)
        assert path.writable is False
        with pytest.raises(UsageError, match="cannot be written: a wildcard, a placeholder"):
            put({"edits": [{"oldText": "a"}], "files": {}, "notes": {}}, path, "X")
