"""``fidelity probe --all-tools``: a whole server in one command.

Against @modelcontextprotocol/server-everything and server-filesystem (with ``--yes``,
in a temporary root): every string parameter of every tool is either surveyed or listed
as not surveyed with its reason, and no tool is called without its guard. The truth is
established apart from the probe: the tool list from a plain MCP SDK session, walked by
a schema walker written here; the calls counted by a proxy in front of the server
(tests/servers/mcp_tee.py) or by a server that writes them down (mcp_hostile.py,
listing the tools a test gives it).
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _needs import need_module

# In-process: the words, exit codes and files are the same as a subprocess's
# (tests/_support/cli.py says when a subprocess is kept).
from _support.cli import fidelity_inprocess as fidelity
from _support.cli import start, stop
from _support.mcp import edit_file_schema, npm_server
from _support.processes import wait_for
from _support.servers import SERVERS, called, key_value_store, listed_tool, listing, probe_listing

REPO = Path(__file__).resolve().parents[2]
TEE = [sys.executable, str(SERVERS / "mcp_tee.py")]
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")


# -- the truth, apart from the probe ----------------------------------------------------


def _listed(command: list[str]) -> list[dict[str, Any]]:
    """The tools the server lists, from a plain MCP SDK session."""
    tools, _, _ = _session(command, reads=False)
    return tools


def _session(command: list[str], *, reads: bool) -> tuple[list[dict[str, Any]], Any, Any]:
    """The tools the server lists and (with ``reads``) its prompts and resource
    templates, from one plain MCP SDK session."""
    import anyio
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def listing() -> tuple[list[dict[str, Any]], Any, Any]:
        params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(REPO))
        # errlog given: its default is the sys.stderr of the moment mcp.client.stdio was
        # first imported, which may be an earlier test's closed capture.
        with open(os.devnull, "w", encoding="utf-8") as errlog:
            async with Client(stdio_client(params, errlog=errlog)) as client:
                result = await client.list_tools()
                tools = [t.model_dump(by_alias=True, exclude_none=True) for t in result.tools]
                if not reads:
                    return tools, [], []
                prompts = (await client.list_prompts()).prompts
                templates = (await client.list_resource_templates()).resource_templates
                return tools, list(prompts), list(templates)

    listed: tuple[list[dict[str, Any]], Any, Any] = anyio.run(listing)
    return listed


def _strings(schema: Any, path: str = "") -> Iterator[tuple[str, bool]]:
    """(path, free-form) of every string place of a JSON schema, written here."""
    if not isinstance(schema, dict):
        return
    kinds = schema.get("type")
    kinds = [kinds] if isinstance(kinds, str) else (kinds or [])
    if "string" in kinds and path:
        limits = ("enum", "const", "format", "pattern", "contentEncoding", "contentMediaType")
        yield path, not any(k in schema for k in limits)
    for name, sub in (schema.get("properties") or {}).items():
        yield from _strings(sub, f"{path}.{name}" if path else name)
    if isinstance(schema.get("items"), dict):
        yield from _strings(schema["items"], f"{path}[0]")
    for key in ("anyOf", "oneOf", "allOf"):
        for branch in schema.get(key) or []:
            yield from _strings(branch, path)


def _every_string(tools: list[dict[str, Any]]) -> dict[str, bool]:
    found: dict[str, bool] = {}
    for tool in tools:
        for path, free in _strings(tool.get("inputSchema") or {}):
            name = f"{tool['name']}.{path}"
            found[name] = found.get(name, False) or free
    return found


def _reads(prompts: Any, templates: Any) -> tuple[dict[str, bool], set[str]]:
    """The prompts' arguments and the resource templates' variables a server lists
    (``prompt:NAME.ARG``, ``resource:TEMPLATE.VAR``: all free-form text), and the
    prompts without arguments."""
    found = {f"prompt:{p.name}.{a.name}": True for p in prompts for a in p.arguments or ()}
    for t in templates:
        for var in re.findall(r"\{[+#]?([A-Za-z0-9_]+)\}", t.uri_template):
            found[f"resource:{t.uri_template}.{var}"] = True
    return found, {f"prompt:{p.name}" for p in prompts if not p.arguments}


@pytest.fixture(scope="module")
def everything() -> tuple[list[str], list[dict[str, Any]], dict[str, bool], set[str]]:
    """server-everything's command and the truth about it, from one plain MCP SDK
    session: its tools, its prompts' arguments and resource templates' variables, its
    prompts without arguments."""
    need_module("mcp")
    server = [npm_server("everything")]
    tools, prompts, templates = _session(server, reads=True)
    reads, no_arguments = _reads(prompts, templates)
    return server, tools, reads, no_arguments


#: The prompts' arguments of server-everything that come back (the others refuse the
#: calibration value, or need a resource id).
_EVERYTHING_PROMPTS = {
    "prompt:args-prompt.city",
    "prompt:args-prompt.state",
    "prompt:completable-prompt.department",
    "prompt:completable-prompt.name",
}


def _read_only(tool: dict[str, Any]) -> bool:
    return (tool.get("annotations") or {}).get("readOnlyHint") is True


def _accounted(result: Path) -> tuple[dict[str, str], dict[str, str]]:
    """From the JSON result: each surveyed tool.param (card name -> setup param) and each
    parameter not surveyed, with its reason."""
    document = json.loads(result.read_text())
    assert document["record"] == "param-fidelity.cards"
    surveyed = {
        f"{c['facts']['setup']['tool']}.{c['facts']['setup']['param']}": c["name"]
        for c in document["cards"]
    }
    skipped = {f"{s['tool']}.{s['param']}": s["reason"] for s in document["not_surveyed"]}
    return surveyed, skipped


# -- the two reference servers --------------------------------------------------------


def test_server_everything_every_string_parameter_accounted_for(
    tmp_path: Path, everything: tuple[list[str], list[dict[str, Any]], dict[str, bool], set[str]]
) -> None:
    server, tools, reads, no_arguments = everything
    by_name = {t["name"]: t for t in tools}
    strings = _every_string(tools)
    calls, out = tmp_path / "calls.txt", tmp_path / "r.json"
    result = fidelity(
        "probe", "--mcp", "--all-tools", "--families", "quotes,newlines", "--json", str(out),
        "--", *TEE, str(calls), "--", *server, cwd=REPO, timeout=300,
    )  # fmt: skip
    # Four prompt and resource parameters measured nothing: exit 3, the others kept.
    assert result.returncode == 3, result.stderr
    assert result.stderr.startswith("fidelity: 4 of the 9 tool parameters surveyed measured ")
    assert not RAW.search(result.stdout)
    surveyed, skipped = _accounted(out)
    # Every string parameter, exactly once: surveyed, or not surveyed with a reason;
    # the prompts' arguments and the resource templates' variables too.
    assert set(surveyed) | set(skipped) == set(strings) | set(reads)
    assert not set(surveyed) & set(skipped)
    for name, free in strings.items():
        tool = by_name[name.split(".", 1)[0]]
        if not free:
            assert skipped[name].startswith("constrained ("), (name, skipped.get(name))
        elif not _read_only(tool):
            assert skipped[name].startswith("needs --yes ("), (name, skipped.get(name))
    assert set(surveyed) == {"echo.message", *_EVERYTHING_PROMPTS}
    # The guard: only tools annotated read-only were called, and only those surveyed.
    made = called(calls)
    assert made
    assert set(made) == {"echo"}
    assert made.count("echo") == 3 + 29  # the three calibration calls and one per payload
    # Every tool without a string parameter is named and was never called.
    document = json.loads(out.read_text())
    without = {t["name"] for t in tools if not any(_strings(t.get("inputSchema") or {}))}
    assert set(document["tools_without_string_parameters"]) == without | no_arguments
    # The terminal: one row per tool.param, the others listed with their reason.
    assert re.search(r"^echo\.message +\. \.  -$", result.stdout, re.M)
    assert re.search(
        r"^  gzip-file-as-resource\.name +needs --yes \(annotated readOnlyHint: false\)$",
        result.stdout,
        re.M,
    )
    assert result.stdout.endswith(
        "145 payloads to 5 tool parameters: 145 preserved; 5 parameters measured, 4 measured "
        "nothing.\n"
    )


def test_server_everything_with_yes_calls_the_others_under_the_same_rules(
    tmp_path: Path, everything: tuple[list[str], list[dict[str, Any]], dict[str, bool], set[str]]
) -> None:
    server, tools, reads, _ = everything
    strings = _every_string(tools)
    calls, out = tmp_path / "calls.txt", tmp_path / "r.json"
    # gzip-file-as-resource fetches a URL from the network unless its data is given.
    data = '{"data": "data:text/plain;base64,SGVsbG8="}'
    result = fidelity(
        "probe", "--mcp", "--all-tools", "--yes", "--families", "quotes",
        "--args-for", f"gzip-file-as-resource={data}", "--json", str(out),
        "--", *TEE, str(calls), "--", *server, cwd=REPO, timeout=300,
    )  # fmt: skip
    # Two parameters surveyed measured nothing: exit 3, naming them; echo's card is kept.
    assert result.returncode == 3, result.stderr
    assert result.stderr.startswith(
        "fidelity: 6 of the 11 tool parameters surveyed measured nothing "
        "(gzip-file-as-resource.name, simulate-research-query.topic, "
    )
    assert result.stdout.endswith("; 5 parameters measured, 6 measured nothing.\n")
    surveyed, skipped = _accounted(out)
    assert set(surveyed) | set(skipped) == set(strings) | set(reads)
    assert set(surveyed) == {"echo.message", *_EVERYTHING_PROMPTS}
    # Called once each to locate the read-back, and listed with what they answered.
    assert skipped["gzip-file-as-resource.name"] == (
        "no read-back: the calibration value did not come back; the tool answered: no text "
        "content, only resource_link; no read tool paired (no read tool takes "
        "gzip-file-as-resource's arguments (data))"
    )
    assert skipped["simulate-research-query.topic"].startswith(
        "no read-back: the calibration call (the plain value 'fidelity-marker-"
    )
    assert (
        "failed: MCP error -32601: Tool simulate-research-query requires task augmentation"
        in (skipped["simulate-research-query.topic"])
    )
    made = called(calls)
    # Every calibration value was sent and none came back; the first one's failure ends it.
    assert made.count("gzip-file-as-resource") == 3
    assert made.count("simulate-research-query") == 1
    assert made.count("echo") == 3 + 17  # the three calibration calls and one per payload
    assert set(made) == {"echo", "gzip-file-as-resource", "simulate-research-query"}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A disposable root for server-filesystem, alone in a directory of its own."""
    (tmp_path / "box" / "root").mkdir(parents=True)
    return tmp_path / "box" / "root"


def test_server_filesystem_with_yes_in_a_temporary_root(root: Path, tmp_path: Path) -> None:
    need_module("mcp")
    server = [npm_server("filesystem"), str(root)]
    tools = _listed(server)
    by_name = {t["name"]: t for t in tools}
    strings = _every_string(tools)
    calls, out = tmp_path / "calls.txt", tmp_path / "r.json"
    result = fidelity(
        "probe", "--mcp", "--all-tools", "--yes", "--families", "quotes,bom",
        "--json", str(out), "--", *TEE, str(calls), "--", *server, cwd=REPO, timeout=600,
    )  # fmt: skip
    # Read tools given a path that does not exist measure nothing: exit 3, results kept.
    assert result.returncode == 3, result.stderr
    assert "tool parameters surveyed measured nothing" in result.stderr
    assert "Traceback" not in result.stderr
    assert not RAW.search(result.stdout)
    surveyed, skipped = _accounted(out)
    # edit_file's old and new texts are one row, probed with the apply check: seeded
    # with write_file, read back with a read tool paired with it.
    edit = "edit_file.edits[0].oldText"
    assert edit in surveyed
    assert set(surveyed) | set(skipped) | {"edit_file.edits[0].newText"} == set(strings)
    assert re.search(
        r"^paired: edit_file\.edits\[0\]\.oldText\+newText: seeded with write_file, read back "
        r"with read_(text_)?file, apply check$", result.stdout, re.M,
    )  # fmt: skip
    assert not set(surveyed) & set(skipped)
    assert surveyed  # some parameter came back and was surveyed
    for name, reason in skipped.items():
        assert reason.startswith(("constrained (", "no read-back: ", "not planned: ")), name
    # Every tool called has a free-form string parameter, and the ones not surveyed
    # were called by their calibration only: one to three calls each.
    made = called(calls)
    for tool in set(made):
        params = [n for n, free in strings.items() if n.startswith(f"{tool}.") and free]
        assert params, tool
        if not any(p in surveyed for p in params) and not _read_only(by_name[tool]):
            # (a read-only tool is also called to read back a paired write tool's value)
            unlocated = len([p for p in params if p in skipped])
            assert unlocated <= made.count(tool) <= 3 * unlocated, tool
    assert "list_allowed_directories" not in made
    # Nothing was written outside the root.
    assert [p.name for p in root.parent.iterdir()] == ["root"]
    rows = {line.split()[0] for line in result.stdout.splitlines() if line[:1].isalpha()}
    assert set(surveyed) - {edit} <= rows
    assert f"{edit}+newText" in rows
    del by_name


def test_server_filesystem_without_yes_calls_read_only_tools_only(
    root: Path, tmp_path: Path
) -> None:
    need_module("mcp")
    server = [npm_server("filesystem"), str(root)]
    tools = _listed(server)
    read_only = {t["name"] for t in tools if _read_only(t)}
    calls, out = tmp_path / "calls.txt", tmp_path / "r.json"
    result = fidelity(
        "probe", "--mcp", "--all-tools", "--families", "quotes", "--json", str(out),
        "--", *TEE, str(calls), "--", *server, cwd=REPO, timeout=600,
    )  # fmt: skip
    assert "Traceback" not in result.stderr
    made = called(calls)
    assert made
    assert set(made) <= read_only
    _, skipped = _accounted(out)
    for tool in tools:
        if _read_only(tool):
            continue
        for name, free in _every_string([tool]).items():
            if free:
                assert skipped[name].startswith("needs --yes (annotated "), name
    assert list(root.iterdir()) == []  # nothing was written


# -- a server whose tool list is given, and that writes down every call --------------


READ_ONLY = {"readOnlyHint": True}
_S = {"type": "string"}
TOOLS = [
    listed_tool(
        "note", READ_ONLY, {"type": "object", "properties": {"body": _S}, "required": ["body"]}
    ),
    listed_tool(
        "edit",
        READ_ONLY,
        edit_file_schema(
            path={"type": "string", "pattern": "^/"}, mode={"type": "string", "enum": ["a", "b"]}
        ),
    ),
    listed_tool("store", {"destructiveHint": True}, {"type": "object", "properties": {"text": _S}}),
    listed_tool("plain", None, {"type": "object", "properties": {"text": _S}}),
    listed_tool("count", READ_ONLY, {"type": "object", "properties": {"n": {"type": "integer"}}}),
]


def _annotated(tmp_path: Path, *options: str, tools: list[dict[str, Any]] = TOOLS) -> Any:
    calls, out = tmp_path / "calls.txt", tmp_path / "r.json"
    options = ("--all-tools", "--families", "quotes,bom", "--json", str(out), *options)
    return probe_listing(tools, calls, *options, timeout=300), out, calls


def test_nested_parameters_constraints_and_the_guard(tmp_path: Path) -> None:
    result, out, calls = _annotated(tmp_path)
    assert result.returncode == 0, result.stderr
    surveyed, skipped = _accounted(out)
    assert set(surveyed) == {"note.body", "edit.edits[0].oldText", "edit.edits[0].newText"}
    # Cards are named as a block name allows.
    assert surveyed["edit.edits[0].oldText"] == "edit.edits.0.oldText"
    assert skipped == {
        "edit.path": "constrained (pattern: ^/): not free-form text",
        "edit.mode": "constrained (enum): not free-form text",
        "store.text": "needs --yes (annotated destructiveHint: true)",
        "plain.text": "needs --yes (no annotations)",
    }
    made = called(calls)
    # note: 3 calibration calls + 23 payloads; edit: twice that (two parameters).
    assert made.count("note") == 26
    assert made.count("edit") == 52
    assert set(made) == {"note", "edit"}
    assert "tools without a string parameter (not called): count" in result.stdout
    # The nested value came back in the structured content (the server returns the
    # arguments), located by the calibration call.
    document = json.loads(out.read_text())
    reads = {c["name"]: c["facts"]["setup"]["read"] for c in document["cards"]}
    assert reads["edit.edits.0.oldText"] == "structured:edits[0].oldText"


def test_budget_is_spread_over_every_parameter(tmp_path: Path) -> None:
    result, out, calls = _annotated(tmp_path, "--max-requests", "15")
    assert result.returncode == 0, result.stderr
    document = json.loads(out.read_text())
    per_card = {c["name"]: len(c["observations"]) for c in document["cards"]}
    # 15 calls over three parameters: 5 each, three of them the calibration calls; and
    # each parameter got both families.
    assert per_card == {"note.body": 2, "edit.edits.0.oldText": 2, "edit.edits.0.newText": 2}
    for card in document["cards"]:
        assert {r["family"] for r in card["rows"]} == {"quotes", "bom"}
    assert len(called(calls)) == 15
    assert result.stdout.endswith(
        "6 payloads to 3 tool parameters: 6 preserved; 63 not sent within --max-requests 15; "
        "3 parameters measured.\n"
    )
    too_small = fidelity(
        "probe", "--mcp", "--all-tools", "--max-requests", "5",
        "--", *listing(TOOLS, tmp_path / "none.txt"),
    )  # fmt: skip
    assert too_small.returncode == 2
    assert too_small.stderr == (
        "fidelity: --max-requests 5 leaves less than the 4 calls each of the 3 tool parameters "
        "needs (3 calibration calls and one payload); raise it to at least 12.\n"
    )
    assert not (tmp_path / "none.txt").exists()


def test_args_for_pins_a_tools_arguments(tmp_path: Path) -> None:
    result, out, calls = _annotated(
        tmp_path, "--args-for", 'edit={"edits": [{"oldText": "x-{n}", "newText": "y"}]}'
    )
    assert result.returncode == 0, result.stderr
    assert called(calls).count("edit") == 52  # pinned, and surveyed as before
    document = json.loads(out.read_text())
    args = {c["name"]: c["facts"]["setup"].get("args") for c in document["cards"]}
    assert args["edit.edits.0.newText"] == {
        "edits": [{"newText": "y", "oldText": "x-{n}"}],
        "path": "/",  # made from the schema: the smallest string its pattern allows
    }
    unknown = fidelity(
        "probe", "--mcp", "--all-tools", "--args-for", 'nope={"a": 1}',
        "--", *listing(TOOLS, tmp_path / "none.txt"),
    )  # fmt: skip
    assert unknown.returncode == 2
    assert unknown.stderr.startswith(
        "fidelity: --args-for names 'nope', which this MCP server does not offer; its tools "
        "are: count, edit, note, plain, store."
    )
    assert not (tmp_path / "none.txt").exists()


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--tool", "note"], "--tool describes one tool's run; with --all-tools"),
        (["--read", "text"], "--read describes one tool's run"),
        (["--args-for", 'note={"a": 1}', "--no-all"], "--args-for pins a tool's arguments"),
        (["--args-for", "note"], "must be TOOL=JSON"),
        # A gate that would pass whatever the server does: refused, with the way to gate.
        (["--check", "TOOLS.md"], "then check them with fidelity card RESULT.json --check"),
    ],
)
def test_all_tools_usage_errors(tmp_path: Path, options: list[str], said: str) -> None:
    words = [o for o in options if o != "--no-all"]
    flag = [] if "--no-all" in options else ["--all-tools"]
    result = fidelity(
        "probe", "--mcp", *flag, *words, "--", *listing([], tmp_path / "c")
    )  # fmt: skip
    assert result.returncode == 2
    assert said in result.stderr
    assert len(result.stderr.splitlines()) == 1
    http = fidelity("probe", "http://127.0.0.1:9/", "--all-tools")
    assert http.returncode == 2
    assert "--all-tools surveys the tools of an MCP server" in http.stderr


def test_dry_run_lists_the_plan_and_calls_nothing(tmp_path: Path) -> None:
    result, _out, calls = _annotated(tmp_path, "--dry-run", "--max-requests", "30")
    assert result.returncode == 0, result.stderr
    assert called(calls) == []
    assert "dry run: no tool is called." in result.stdout
    assert "5 tools, 7 string parameters: 3 to survey, 4 not surveyed" in result.stdout
    assert "store.text" in result.stdout
    assert "about 10 calls each, the calibration call included" in result.stdout


def test_outputs_one_entry_per_tool_parameter(tmp_path: Path) -> None:
    doc = tmp_path / "TOOLS.md"
    doc.write_text("# Tools\n\nhand-written text\n")
    page = tmp_path / "r.html"
    result, out, calls = _annotated(tmp_path, "--card", str(doc), "--html", str(page))
    assert result.returncode == 0, result.stderr
    assert set(called(calls)) == {"note", "edit"}
    text = doc.read_text()
    assert text.startswith("# Tools\n\nhand-written text\n")
    blocks = re.findall(r"<!-- fidelity:begin (\S+) -->", text)
    assert blocks == ["note.body", "edit.edits.0.oldText", "edit.edits.0.newText"]
    html = page.read_text()
    # A section per tool, a table of contents linking each, the others listed.
    assert html.count('<section class="tool"') == 4  # note, edit, store, plain
    assert html.count('<section class="param"') == 3
    for anchor in re.findall(r'<section class="tool" id="([^"]+)"', html):
        assert f'href="#{anchor}"' in html
    assert "needs --yes (annotated destructiveHint: true)" in html
    assert ">69 payloads sent, 0 listed below (rewritten or failed)</span>" in html
    # `fidelity card` reads the collection: every card.
    cards = fidelity("card", str(out))
    assert cards.returncode == 0, cards.stderr
    assert cards.stdout.count("#### Parameter transformations:") == 3


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_run_keeps_what_it_saw(tmp_path: Path, signum: int, code: int) -> None:
    calls, out = tmp_path / "calls.txt", tmp_path / "r.json"
    slow = key_value_store(calls, "--delay", "0.05")
    proc = start("probe", "--mcp", "--all-tools", "--json", str(out), "--", *slow)
    assert wait_for(lambda: called(calls).count("echo") >= 6, bound=60)
    echoed = called(calls).count("echo")
    returncode, err = stop(proc, signum)
    assert returncode == code  # 128 + the signal, as the single-tool form
    assert "Traceback" not in err
    document = json.loads(out.read_text())
    assert document["complete"] is False
    (card,) = document["cards"]
    assert card["name"] == "echo.text"
    assert card["facts"]["complete"] is False
    # Every payload answered before the interrupt is kept: the calls the server got,
    # less the three calibration calls and the one in flight.
    assert echoed - 4 <= len(card["observations"]) < 298
    assert {o["status"] for o in card["observations"]} == {"preserved"}


def test_each_call_names_an_entry_of_its_own_deep_down_too(tmp_path: Path) -> None:
    # server-memory's create_entities ignores an entity whose name exists: a name made
    # empty, the same for every call, let only the first calibration value land (the
    # parameter measured nothing). Made names are unique to the row's run and payload,
    # nested ones too, so every parameter of the tool is measured. The server's one
    # tool that writes entities is enough (its 13 other parameters are left out).
    out = tmp_path / "r.json"
    result = fidelity(
        "probe", "--mcp", "--all-tools", "--yes", "--only-tool", "create_entities",
        "--families", "quotes", "--json", str(out),
        "--", "env", f"MEMORY_FILE_PATH={tmp_path / 'graph.jsonl'}", npm_server("memory"),
        timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == (
        "51 payloads to 3 tool parameters: 51 preserved; 3 parameters measured."
    ), result.stdout
    document = json.loads(out.read_text())
    cards = {c["name"] for c in document["cards"]}
    assert "create_entities.entities.0.entityType" in cards
    # The server's own file agrees: no entity named "", and the entities of the
    # entityType and observations rows each named for their run and payload.
    stored = [json.loads(line) for line in (tmp_path / "graph.jsonl").read_text().splitlines()]
    entities = [e for e in stored if e.get("type") == "entity"]
    assert not [e for e in entities if e["name"] == ""]
    named = [e for e in entities if re.fullmatch(r"fidelity-[0-9a-f]{8}-[0-9]+-name", e["name"])]
    # Per row: the calibration's three, then one per payload.
    assert len(named) == 2 * (3 + 17)


@pytest.mark.parametrize(
    ("tools", "said"),
    [
        (["w"], "the one string parameter (w.text) could not be surveyed"),
        (["w", "v"], "none of the 2 string parameters (of 2 tools) could be surveyed"),
    ],
)
def test_no_parameter_surveyed_is_exit_3_in_one_sentence(
    tmp_path: Path, tools: list[str], said: str
) -> None:
    # Tools without annotations need --yes: without it nothing is called.
    calls = tmp_path / "calls"
    listed = [listed_tool(name, None) for name in tools]
    result = probe_listing(listed, calls, "--all-tools", "--families", "quotes")
    assert result.returncode == 3
    assert result.stderr == (
        f"fidelity: nothing was measured: {said} (see 'not surveyed' above for why).\n"
    )
    assert called(calls) == []
