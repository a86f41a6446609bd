"""Prompts and resource templates probed like tools (``tests/servers/mcp_prompts.py``):
the payload is a prompt's argument, read back from ``prompts/get``, or a template's
variable, read back from ``resources/read``; checked against raw SDK calls."""

from __future__ import annotations

import os
import sys
from typing import Any

import anyio
import pytest
from _support.cli import fidelity_inprocess as fidelity
from _support.cli import one_sentence
from _support.servers import SERVERS

import probes
from fidelity import Status
from fidelity._core.errors import UsageError
from probes._mcp.prompts import expand, variables

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

PROMPTS = [sys.executable, str(SERVERS / "mcp_prompts.py")]


#: The two requests the tests compare with: the prompt that collapses whitespace, and
#: the template's variable.
SPACED = "a  b\tc"
NOTE = "a/b “q” x%20y"


@pytest.fixture(scope="module")
def raw() -> dict[str, str]:
    """What a plain MCP SDK session reads back for those two requests (one session,
    one server, for the module): ``summarize`` given ``SPACED``, and ``notes://{name}``
    given ``NOTE``."""
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def ask() -> dict[str, str]:
        params = StdioServerParameters(command=PROMPTS[0], args=PROMPTS[1:])
        with open(os.devnull, "w", encoding="utf-8") as errlog:
            async with Client(stdio_client(params, errlog=errlog)) as client:
                prompt = await client.get_prompt("summarize", {"text": SPACED})
                uri = expand("notes://{name}", {"name": NOTE})
                resource = await client.read_resource(uri)
                return {
                    "summarize": prompt.messages[0].content.text,
                    "notes": resource.contents[0].text,
                }

    return anyio.run(ask)


def test_a_prompt_that_collapses_whitespace_is_measured(raw: dict[str, str]) -> None:
    with probes.mcp(PROMPTS, prompt="summarize", param="text") as probe:
        assert probe.tool_info.read_only
        collapsed = probe.observe(SPACED)
        plain = probe.observe("say “hi”")
        setup = probe.setup
    assert collapsed.status is Status.TRANSFORMED
    assert collapsed.received == raw["summarize"] == "a b c"
    assert "whitespace.collapse" in collapsed.kinds
    assert plain.status is Status.PRESERVED
    assert setup.tool == "prompt:summarize"
    command = setup.command()
    assert command[command.index("--prompt") + 1] == "summarize"
    assert "--tool" not in command


def test_a_resource_template_variable_is_measured(raw: dict[str, str]) -> None:
    with probes.mcp(PROMPTS, resource="notes://{name}", param="name") as probe:
        obs = probe.observe(NOTE)
    assert obs.status is Status.PRESERVED
    assert raw["notes"] == NOTE


def test_prompt_options_are_checked() -> None:
    with pytest.raises(UsageError, match="not both"):
        probes.mcp(PROMPTS, prompt="a", resource="b")
    with pytest.raises(UsageError, match="before= and read_tool="):
        probes.mcp(PROMPTS, prompt="a", read_tool="x")
    with (
        pytest.raises(UsageError, match="its prompts are: summarize, echo_prompt"),
        probes.mcp(PROMPTS, prompt="nope", param="text") as probe,
    ):
        probe.open()


def test_uri_templates_expand_as_rfc_6570_says() -> None:
    assert variables("notes://{name}/{+path}{?q,r}") == ("name", "path", "q", "r")
    assert expand("notes://{name}", {"name": "a/b c"}) == "notes://a%2Fb%20c"
    assert expand("files://{+path}", {"path": "a/b c"}) == "files://a/b%20c"
    assert expand("s://x{?q,r}", {"q": "1 2", "r": "&"}) == "s://x?q=1%202&r=%26"


def test_the_command_probes_a_prompt_without_yes(tmp_path: Any) -> None:
    result = fidelity(
        "probe", "--mcp", "--prompt", "summarize", "--param", "text",
        "--families", "whitespace", "--json", str(tmp_path / "r.json"), "--", *PROMPTS,
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    assert "whitespace.collapse" in result.stdout
    assert '"tool": "prompt:summarize"' in (tmp_path / "r.json").read_text()
    clash = fidelity("probe", "--mcp", "--prompt", "x", "--tool", "y", "--", *PROMPTS)
    assert clash.returncode == 2
    assert "leave out --tool" in one_sentence(clash)


def test_all_tools_covers_prompts_and_resource_templates(tmp_path: Any) -> None:
    result = fidelity(
        "probe", "--mcp", "--all-tools", "--families", "whitespace",
        "--card", str(tmp_path / "TOOLS.md"), "--", *PROMPTS,
    )  # fmt: skip
    # summarize ignores its style: that argument measures nothing, and says so; but the
    # rewrite of its text is a finding, which outranks it: exit 1 (every card is kept).
    assert result.returncode == 1, result.stderr
    assert result.stderr == (
        "fidelity: 1 of the 4 tool parameters surveyed measured nothing "
        "(prompt:summarize.style); the lines above say why, and the results of the others "
        "are kept.\n"
    )
    rows = {line.split()[0]: line for line in result.stdout.splitlines() if line[:1].isalpha()}
    assert "whitespace.collapse" in rows["prompt:summarize.text"]
    assert "resource:notes://{name}.name" in rows
    assert "prompt:echo_prompt.text" in rows
    card = (tmp_path / "TOOLS.md").read_text()
    assert "fidelity:begin prompt:summarize.text" in card
    assert "fidelity:begin resource:notes://name.name" in card


@pytest.mark.parametrize("client", ["python", "typescript"])
def test_prompts_and_templates_through_each_client(
    client: str, monkeypatch: Any, raw: dict[str, str]
) -> None:
    if client == "typescript":
        from _support.mcp import typescript_client

        typescript_client(monkeypatch)
    with probes.mcp(PROMPTS, prompt="summarize", param="text", client=client) as probe:
        collapsed = probe.observe(SPACED)
    assert collapsed.status is Status.TRANSFORMED
    assert collapsed.received == raw["summarize"] == "a b c"
    with probes.mcp(PROMPTS, resource="notes://{name}", param="name", client=client) as probe:
        obs = probe.observe(NOTE)
    assert obs.status is Status.PRESERVED
    assert obs.received == raw["notes"] == NOTE


def test_the_command_reads_prompts_and_templates_through_both_clients(
    tmp_path: Any, monkeypatch: Any
) -> None:
    from _support.mcp import typescript_client

    typescript_client(monkeypatch)
    for target in (("--prompt", "echo_prompt", "--param", "text"),
                   ("--resource", "notes://{name}", "--param", "name")):  # fmt: skip
        result = fidelity(
            "probe", "--mcp", *target, "--clients", "python,typescript", "--families",
            "quotes", "--json", str(tmp_path / "r.json"), "--", *PROMPTS,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        for client in ("python", "typescript"):
            line = next(x for x in result.stdout.splitlines() if x.startswith(f"{client}: "))
            assert " preserved" in line
            assert "rejected" not in line
            assert "transformed" not in line
