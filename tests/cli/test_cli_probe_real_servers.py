"""``fidelity probe`` against servers nobody here wrote, as a new user would run it.

@modelcontextprotocol/server-everything with no other option (the argument and the
read-back are found), @modelcontextprotocol/server-memory with the payload deep in
the arguments and read back as JSON text, mcp-server-git (PyPI) with a ``git_add``
setup step before each commit, and an HTTP endpoint that is written, then read back
by the id it returned. Each time the truth is established apart from the probe: the
memory file, ``git cat-file``, a plain GET. (The identity edit through
server-filesystem is in test_cli_probe_edit_file.py.)
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from _needs import need_module
from _support.cli import fidelity_inprocess as fidelity
from _support.git import git, git_repository, git_server
from _support.mcp import catalogue, npm_server
from _support.servers import http_server

REPO = Path(__file__).resolve().parents[2]
#: Families for the slower servers (a git commit per payload): one of each hazard kind
#: a text store is known to rewrite, and the client-side failure.
SOME = "quotes,whitespace,control,nul,newlines,separators,bom,surrogates"


def _sent(families: str | None = None) -> list[Any]:
    """The payloads the command sends, in the order it sends them."""
    from fidelity._core.siblings import load

    chosen = None if families is None else families.split(",")
    return list(load("strategies").catalogue(chosen))


def _observations(path: Path) -> dict[str, dict[str, Any]]:
    return {o["payload_id"]: o for o in json.loads(path.read_text())["observations"]}


def _client_side_only(observations: dict[str, dict[str, Any]]) -> None:
    """Every payload came back intact, except those the client library cannot encode."""
    for payload_id, obs in observations.items():
        if payload_id.startswith("surrogates/"):
            assert obs["status"] == "rejected", payload_id
            assert re.search(r"client .*encode", obs["error"]), obs["error"]
        else:
            assert obs["status"] == "preserved", (payload_id, obs["status"], obs["error"])


def test_server_everything_with_no_other_option(tmp_path: Path) -> None:
    need_module("mcp")
    out = tmp_path / "r.json"
    result = fidelity(
        "probe", "--mcp", "--json", str(out), "--", npm_server("everything"), cwd=REPO
    )
    assert result.returncode == 0, result.stderr
    found, located = result.stdout.splitlines()[:2]
    assert found == (
        "payload argument: message (the only free-form string parameter of 'echo'; "
        "pin it with --param)"
    )
    assert located == (
        "read back at: 'regex:(?s)\\AEcho: (.*)\\Z' (located by calibration calls; "
        "pin it with --read)"
    )
    observations = _observations(out)
    assert len(observations) == len(catalogue())
    _client_side_only(observations)
    setup = json.loads(out.read_text())["facts"]["setup"]
    assert setup == {
        "transport": "mcp stdio",
        "target": "tests/servers/node_modules/.bin/mcp-server-everything",
        "tool": "echo",
        "param": "message",
        "param_found": True,
        "read": "regex:(?s)\\AEcho: (.*)\\Z",
        "read_found": True,
    }
    # Pinned as printed, the run is the same, without the calibration call.
    pinned = fidelity(
        "probe", "--mcp", "--param", "message", "--read", "regex:(?s)\\AEcho: (.*)\\Z",
        "--families", "quotes", "--quiet", "--", npm_server("everything"), cwd=REPO,
    )  # fmt: skip
    assert pinned.returncode == 0, pinned.stderr
    assert pinned.stdout == f"{len(_sent('quotes'))} payloads: {len(_sent('quotes'))} preserved.\n"


def _memory(tmp_path: Path, *options: str, families: str | None = None) -> Any:
    need_module("mcp")
    memory = tmp_path / "memory.jsonl"
    out = tmp_path / "r.json"
    server = ["env", f"MEMORY_FILE_PATH={memory}", npm_server("memory")]
    chosen = ["--families", families] if families else []
    result = fidelity(
        "probe", "--mcp", "--yes", "--tool", "create_entities", *options, *chosen,
        "--json", str(out), "--", *server, cwd=REPO, timeout=300,
    )  # fmt: skip
    # One JSON document a line; a U+2028 in a payload is written raw, so split on LF only.
    lines = memory.read_text(encoding="utf-8").split("\n")
    records = [json.loads(line) for line in lines if line]
    return result, _observations(out), [r for r in records if r.get("type") == "entity"]


def test_server_memory_observation_deep_in_the_arguments(tmp_path: Path) -> None:
    result, observations, entities = _memory(
        tmp_path,
        "--param", "entities[0].observations[0]",
        "--args", '{"entities": [{"name": "note-{run}-{n}", "entityType": "note"}]}',
        "--read-tool", "open_nodes", "--read-args", '{"names": ["note-{run}-{n}"]}',
        "--read", "json:entities[0].observations[0]",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "read back at" not in result.stdout  # --read given: no calibration call
    _client_side_only(observations)
    # The memory file holds payload n, as it was sent, in the entity note-RUN-n.
    run = entities[0]["name"].split("-")[1]
    stored = {e["name"]: e["observations"] for e in entities}
    expected = {
        f"note-{run}-{n}": [p.text]
        for n, p in enumerate(catalogue(), 1)
        if "surrogates" not in p.families
    }
    assert stored == expected


def test_server_memory_entity_name_located_automatically(tmp_path: Path) -> None:
    families = "quotes,whitespace,newlines,invisible,surrogates"
    entity = {"name": "{payload}", "entityType": "probe", "observations": []}
    result, observations, entities = _memory(
        tmp_path,
        "--args", json.dumps({"entities": [entity]}),
        "--read-tool", "open_nodes", "--read-args", '{"names": ["{payload}"]}',
        families=families,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(
        "read back at: 'json:entities[0].name' (located by calibration calls"
    )
    _client_side_only(observations)
    sent = {p.text for p in _sent(families) if "surrogates" not in p.families}
    names = {e["name"] for e in entities}
    # The calibration values' three entities, and the payloads' own.
    markers = names - sent
    assert len(markers) == 3
    assert all(m.startswith("fidelity-marker-") for m in markers)
    assert sent <= names


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """A git repository with a file per payload to stage (f0.txt for the calibration)."""
    repo = git_repository(tmp_path / "repo")
    for n in range(len(_sent(SOME)) + 1):
        (repo / f"f{n}.txt").write_text(f"{n}\n")
    return repo


def test_mcp_server_git_commit_messages(repository: Path, tmp_path: Path) -> None:
    server = git_server()
    repo = str(repository)
    out = tmp_path / "r.json"
    result = fidelity(
        "probe", "--mcp", "--yes", "--families", SOME,
        "--before", "git_add=" + json.dumps({"repo_path": repo, "files": ["f{n}.txt"]}),
        "--tool", "git_commit", "--param", "message", "--args", json.dumps({"repo_path": repo}),
        "--read-tool", "git_log", "--read-args", json.dumps({"repo_path": repo, "max_count": 1}),
        "--json", str(out), "--", server, "--repository", repo, timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(
        "read back at: 'regex:(?s)Message: (.*)\\n\\Z' (located by calibration calls"
    )
    observations = _observations(out)
    _client_side_only(observations)
    # The truth from git itself: each commit's message, byte for byte, in order.
    shas = git("-C", repo, "rev-list", "--reverse", "HEAD").stdout.decode().split()
    messages = []
    for sha in shas:
        raw = git("-C", repo, "cat-file", "commit", sha).stdout
        messages.append(raw.split(b"\n\n", 1)[1])
    assert messages[0].startswith(b"fidelity-marker-")  # the calibration commit
    sent = [p for p in _sent(SOME) if "surrogates" not in p.families]
    assert messages[1:] == [p.text.encode("utf-8") for p in sent]
    # And git log shows the same message the probe read back.
    last = git("-C", repo, "log", "-1", "--format=%B").stdout
    assert last == messages[-1] + b"\n"


@pytest.fixture
def store() -> Any:
    need_module("starlette")
    with http_server("store") as url:
        yield url


def test_http_write_then_read_by_the_id_the_write_returned(store: str, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    result = fidelity(
        "probe", f"{store}items", "--read-url", f"{store}items/{{id}}", "--id-from", "json:id",
        "--json", str(out),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("read back at: json:text (located by calibration calls")
    observations = _observations(out)
    # A lone surrogate goes out as its JSON escape and this store keeps it; only a high
    # surrogate followed by a low one (no JSON form but the character) stays the client's.
    for payload_id, obs in observations.items():
        if obs["status"] == "rejected":
            assert payload_id.startswith("surrogates/"), payload_id
            assert obs["client_side"] is True, obs
            assert "high surrogate followed by a low one" in obs["error"], obs["error"]
        else:
            assert obs["status"] == "preserved", (payload_id, obs["status"], obs["error"])
    assert any(
        o["status"] == "preserved" for i, o in observations.items() if i.startswith("surrogates/")
    )
    setup = json.loads(out.read_text())["facts"]["setup"]
    assert (setup["read_url"], setup["id_from"], setup["read"]) == (
        f"{store}items/{{id}}",
        "json:id",
        "json:text",
    )
    # The truth, fetched apart from the probe: what the server stored under each id
    # (0 to 2 are the calibration requests'; what the client refused was never sent).
    sent = [p.text for p in catalogue() if observations[p.id]["status"] != "rejected"]
    with httpx.Client(timeout=10) as client:
        stored = [client.get(f"{store}items/{i}").json()["text"] for i in range(len(sent) + 3)]
    assert all(text.startswith("fidelity-marker-") for text in stored[:3])
    assert stored[3:] == sent


def test_http_id_from_a_header_and_a_prefixed_text_read_back(store: str, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    result = fidelity(
        "probe", f"{store}items", "--families", "quotes,newlines,whitespace",
        "--read-url", f"{store}items/{{id}}.txt", "--id-from", "header:x-item-id",
        "--json", str(out),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    # "item 12: TEXT": the number changes from item to item, so it anchors as a word
    # holding a digit, never as its text.
    assert result.stdout.startswith(
        "read back at: 'regex:(?s)\\w*\\d\\w*: (.*)\\Z' (located by calibration calls"
    )
    _client_side_only(_observations(out))
