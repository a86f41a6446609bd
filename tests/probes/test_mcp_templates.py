"""The pieces a probe places payloads with: paths, placeholders, argument templates, the
string parameters of an input schema, and the calls one payload makes.

Schemas here are the ones the real servers list (server-filesystem's edit_file,
server-memory's create_entities, mcp-server-git's nullable strings), copied in short.
"""

from __future__ import annotations

import pytest
from _support.mcp import edit_file_schema

import probes
from fidelity import UsageError
from probes._mcp.calls import choose_param, plan_calls
from probes._mcp.schema import schema_at, string_params
from probes._mcp.template import ArgumentTemplate, steps_of
from probes._mcp.tools import DestructiveToolRefused, McpTool, consent_reason
from probes._payload.paths import NOT_FOUND, ParamPath, get, put
from probes._payload.placeholders import Filled, TextTemplate

EDIT_FILE = edit_file_schema()
CREATE_ENTITIES = {
    "type": "object",
    "properties": {
        "entities": {
            "type": "array",
            "items": {"$ref": "#/$defs/Entity"},
        }
    },
    "required": ["entities"],
    "$defs": {
        "Entity": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "entityType": {"type": "string"},
                "observations": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["name", "entityType", "observations"],
        }
    },
}
GIT_LOG = {
    "type": "object",
    "properties": {
        "repo_path": {"type": "string"},
        "max_count": {"type": "integer"},
        "start_timestamp": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "uri": {"type": "string", "format": "uri"},
    },
}


@pytest.mark.parametrize(
    ("text", "segments"),
    [
        ("message", ("message",)),
        ("note.body", ("note", "body")),
        ("edits[0].oldText", ("edits", 0, "oldText")),
        ("entities[0].observations[0]", ("entities", 0, "observations", 0)),
        ('a["x.y"][2]', ("a", "x.y", 2)),
        ("[1].name", (1, "name")),
    ],
)
def test_paths_parse_and_print_back(text: str, segments: tuple[object, ...]) -> None:
    path = ParamPath.parse(text)
    assert path.segments == segments
    assert str(path) == text
    assert ParamPath.parse(str(path)) == path


@pytest.mark.parametrize("text", ["", "a..b", "a.", "a[", "a[x]", "a.[0]", 'a"b', "a]"])
def test_malformed_paths_are_one_sentence(text: str) -> None:
    with pytest.raises(UsageError, match="path"):
        ParamPath.parse(text)


def test_put_creates_containers_and_keeps_the_given_ones() -> None:
    path = ParamPath.parse("edits[0].oldText")
    assert put({}, path, "v") == {"edits": [{"oldText": "v"}]}
    given = {"path": "p", "edits": [{"newText": "n"}]}
    assert put(given, path, "v") == {"path": "p", "edits": [{"newText": "n", "oldText": "v"}]}
    assert given == {"path": "p", "edits": [{"newText": "n"}]}  # a copy was changed
    made = put(
        {}, path, "v", make=lambda here: {"newText": "plain"} if here.segments[-1] == 0 else {}
    )
    assert made == {"edits": [{"newText": "plain", "oldText": "v"}]}
    with pytest.raises(UsageError, match="cannot reach \\[2\\]"):
        put({}, ParamPath.parse("edits[2].oldText"), "v")
    with pytest.raises(UsageError, match="needs a list at edits, but args has a string"):
        put({"edits": "x"}, path, "v")
    assert get({"items": [{"body": "b"}]}, ParamPath.parse("items.0.body")) == "b"
    assert get({"items": []}, ParamPath.parse("items[0]")) is NOT_FOUND


def test_placeholders_fill_and_refuse() -> None:
    values = Filled(payload="P", n=7, run="r1")
    template = TextTemplate.parse("f{n}-{run}.txt {{x}}", allowed=("n", "run"), where="args")
    assert template.fill(values) == "f7-r1.txt {x}"
    assert TextTemplate.parse("{{payload}}", allowed=("n",), where="args").literal == "{payload}"
    with pytest.raises(UsageError, match=r"unknown placeholder \{id\}"):
        TextTemplate.parse("a{id}", allowed=("n", "run"), where="args")
    with pytest.raises(UsageError, match="lone '}'"):
        TextTemplate.parse("a}b", allowed=("n",), where="args")


def test_an_argument_template_places_the_payload_wherever_it_is_whole() -> None:
    template = ArgumentTemplate.of(
        {"path": "/r/f{n}.txt", "edits": [{"oldText": "{payload}", "newText": "{payload}"}]}
    )
    assert [str(p) for p in template.payload_paths] == ["edits[0].oldText", "edits[0].newText"]
    assert template.uses_n
    filled = template.fill(Filled(payload="a{n}\r\n", n=3, run="r"))
    # The payload goes in as it is: braces in it are not placeholders.
    assert filled == {
        "path": "/r/f3.txt",
        "edits": [{"oldText": "a{n}\r\n", "newText": "a{n}\r\n"}],
    }
    assert template.to_json() == (
        '{"path": "/r/f{n}.txt", "edits": [{"oldText": "{payload}", "newText": "{payload}"}]}'
    )
    # Inside a longer string only with an expect template, which the probe checks.
    embedded = ArgumentTemplate.of({"m": "say {payload}"})
    assert embedded.embedded == (ParamPath(("m",)),)
    with pytest.raises(UsageError, match="whole string value"):
        embedded.refuse_embedded()
    with pytest.raises(UsageError, match="whole string value"):
        probes.mcp(["x"], args={"m": "say {payload}"})
    with pytest.raises(UsageError, match="JSON values only"):
        ArgumentTemplate.of({"m": {1, 2}})
    (step,) = steps_of([("git_add", {"files": ["f{n}.txt"]})])
    assert step.tool == "git_add"
    assert step.arguments.fill(Filled(payload="", n=4, run="r")) == {"files": ["f4.txt"]}


def test_string_params_of_real_schemas() -> None:
    assert [(str(p.path), p.free) for p in string_params(EDIT_FILE)] == [
        ("path", True),
        ("edits[0].oldText", True),
        ("edits[0].newText", True),
    ]
    assert [str(p.path) for p in string_params(CREATE_ENTITIES)] == [
        "entities[0].name",
        "entities[0].entityType",
        "entities[0].observations[0]",
    ]
    assert [(str(p.path), p.free) for p in string_params(GIT_LOG)] == [
        ("repo_path", True),
        ("start_timestamp", True),  # anyOf string/null: a nullable string is still text
        ("uri", False),
    ]
    assert schema_at(EDIT_FILE, ParamPath.parse("edits[0].oldText")) == [{"type": "string"}]
    assert schema_at(EDIT_FILE, ParamPath.parse("edits[0].old")) == []
    assert schema_at({"type": "object"}, ParamPath.parse("anything.deep")) is None


def test_choose_param_takes_the_one_free_string_left() -> None:
    tool = McpTool(name="edit_file", input_schema=EDIT_FILE)
    with pytest.raises(UsageError, match="3 free-form string parameters"):
        choose_param(tool, None)
    left = choose_param(tool, ArgumentTemplate.of({"path": "p", "edits": [{"oldText": "o"}]}))
    assert str(left) == "edits[0].newText"


def test_plan_calls_lists_every_tool_for_consent() -> None:
    tools = (
        McpTool(name="write_file", input_schema=EDIT_FILE, annotations={"destructiveHint": True}),
        McpTool(name="edit_file", input_schema=EDIT_FILE, annotations={"readOnlyHint": False}),
        McpTool(name="read_text_file", input_schema=EDIT_FILE, annotations={"readOnlyHint": True}),
    )
    plan = plan_calls(
        tools,
        tool="edit_file",
        param=None,
        template=ArgumentTemplate.of({"path": "p", "edits": [{"oldText": "{payload}"}]}),
        steps=steps_of([("write_file", {"path": "p", "content": "{payload}"})]),
        read_tool="read_text_file",
        read_template=None,
        fill=None,
    )
    assert [(t.name, role) for t, role in plan.calls] == [
        ("write_file", "setup step 1"),
        ("edit_file", "payload tool"),
        ("read_text_file", "read tool"),
    ]
    # No param given, but the template places the payload: nothing is guessed.
    assert plan.param is None
    assert plan.label == "edits[0].oldText"
    values = Filled(payload="X", n=1, run="r")
    arguments = plan.arguments(values)
    assert arguments == {"path": "p", "edits": [{"oldText": "X"}]}
    # By default the read tool gets the arguments it accepts, the payload's left out.
    assert plan.read_arguments(values, arguments) == {"path": "p"}
    assert [consent_reason(t) for t in tools] == [
        "destructiveHint: true",
        "readOnlyHint: false",
        "",
    ]
    from probes._mcp.calls import check_consent

    with pytest.raises(DestructiveToolRefused) as refused:
        check_consent(plan.calls, allowed=False)
    assert [r.tool for r in refused.value.refused] == ["write_file", "edit_file"]
    check_consent(plan.calls, allowed=True)
