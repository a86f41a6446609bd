"""``fidelity probe --mcp --clients``: one plan through the Python SDK (legacy handshake
and 2026-07-28) and the TypeScript SDK, against real servers, every difference checked
apart from the probe.

The servers: the project's Python reflector over stdio and over Streamable HTTP, its
TypeScript reflector over stdio, and @modelcontextprotocol/server-everything. A stdio
server runs behind tests/servers/stdio_tap.py, which logs the bytes each session
carried, so what a client sent (or did not send) and what the server answered (or did
not) is read off the wire. Over HTTP the same requests are made with plain httpx. Which
library wrote a request line shows in its bytes: the TypeScript SDK's
``JSON.stringify`` starts with ``{"method":``, pydantic's with ``{"jsonrpc":``.
"""

from __future__ import annotations

import base64
import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from _needs import need, need_executable, need_module
from _support.cli import fidelity_inprocess as fidelity
from _support.mcp import NODE_MODULES, node_ready, npm_server
from _support.servers import SERVERS
from _support.text import js_string

REPO = Path(__file__).resolve().parents[2]
CLIENTS = "python,python-2026,typescript"
ENV = {"FIDELITY_NODE_MODULES": str(NODE_MODULES)}


def _tap(wire: Path, *command: str) -> list[str]:
    """``command`` behind the logging relay, its sessions logged in ``wire``."""
    return [sys.executable, str(SERVERS / "stdio_tap.py"), str(wire), "--", *command]


PAIR = "surrogates/pair-as-code-points-mid"
_SURROGATE_ESCAPE = re.compile(rb"(?<!\\)\\ud[89a-f][0-9a-f]{2}")


@pytest.fixture(autouse=True)
def _needs() -> None:
    need_module("mcp")
    need_executable("node")
    need(node_ready(), "tests/servers/node_modules is missing: run npm ci --prefix tests/servers")


# -- reading the results ----------------------------------------------------------------


#: The request timeout where nothing is meant to time out: generous, so that a loaded
#: machine (a slow interpreter or Node start, a slow handshake) cannot make a timeout.
#: Where a timeout is the behaviour under test, the test passes its own, and only
#: ever asserts that the timeout happened, never how long it took.
GENEROUS = "10"


def _probe(
    tmp_path: Path, *target: str, families: str = "quotes,surrogates", timeout: str = GENEROUS
) -> Any:
    """Run the command with the three clients; the result, the JSON document."""
    out = tmp_path / "result.json"
    result = fidelity(
        "probe", "--mcp", "--clients", CLIENTS, "--families", families, "--timeout", timeout,
        "--json", str(out), "--card", str(tmp_path / "CARD.md"), *target,
        env=ENV, cwd=REPO,
    )  # fmt: skip
    assert "Traceback" not in result.stderr, result.stderr
    assert out.exists(), result.stdout + result.stderr
    return result, json.loads(out.read_text())


Shape = dict[str, tuple[str, bool, tuple[str, ...]]]


def _differences(doc: dict[str, Any]) -> dict[tuple[str, str], Shape]:
    """``(payload_id, direction)`` -> client -> (status, client_side, kinds)."""
    return {
        (d["payload_id"], d["direction"]): {
            o["client"]: (o["status"], o["client_side"], tuple(o["kinds"])) for o in d["outcomes"]
        }
        for d in doc["clients"]["differences"]
    }


def _surrogates() -> dict[str, str]:
    from fidelity._core.siblings import load

    return {p.id: p.text for p in load("strategies").catalogue(["surrogates"])}


def _expect(
    lone: Shape, pair: Shape, directions: tuple[str, ...] = ("round_trip",), first: int = 8
) -> dict[tuple[str, str], Shape]:
    """The differences when every lone-surrogate payload ends as ``lone`` and the pair of
    surrogate code points as ``pair``, in each of ``directions`` (``first`` payloads)."""
    return {
        (pid, where): pair if pid == PAIR else lone
        for pid in list(_surrogates())[:first]
        for where in directions
    }


REJECTED_BY_PYTHON = {
    "python": ("rejected", True, ()),
    "python-2026": ("rejected", True, ()),
}
MERGED_BY_TYPESCRIPT = {
    **REJECTED_BY_PYTHON,
    "typescript": ("transformed", False, ("encoding.surrogate_split",)),
}


def _protocols(doc: dict[str, Any]) -> dict[str, str]:
    return {r["client"]: r["protocol_version"] for r in doc["clients"]["runs"]}


# -- reading the wire -------------------------------------------------------------------


@dataclass
class Session:
    """What one stdio session carried: the lines the client wrote and the server wrote."""

    sent: list[bytes]
    answered: list[bytes]

    def answer(self, request: bytes) -> bytes | None:
        """The server's line answering ``request`` (by its id), if it wrote one."""
        ident = json.loads(request)["id"]
        for line in self.answered:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if message.get("id") == ident and ("result" in message or "error" in message):
                return line
        return None


def _sessions(folder: Path) -> list[Session]:
    sessions = []
    for path in sorted(folder.glob("*.jsonl")):
        data = {"in": b"", "out": b""}
        for line in path.read_text().splitlines():
            record = json.loads(line)
            data[record["dir"]] += base64.b64decode(record["b64"])
        sessions.append(Session(data["in"].split(b"\n"), data["out"].split(b"\n")))
    return sessions


def _calls(sessions: list[Session], typescript: bool) -> Iterator[tuple[Session, bytes]]:
    """The ``tools/call`` requests one library wrote (by how its JSON starts)."""
    start = b'{"method":"tools/call"' if typescript else b'{"jsonrpc":"2.0"'
    for session in sessions:
        for line in session.sent:
            if line.startswith(start) and b'"tools/call"' in line:
                yield session, line


def _typescript_request(sessions: list[Session], text: str) -> tuple[Session, bytes]:
    """The TypeScript client's call of the echo tool (or the reflector's) carrying ``text``."""
    wanted = js_string(text)
    for session, line in _calls(sessions, typescript=True):
        if re.search(rb'"(text|message)":' + re.escape(wanted), line):
            return session, line
    raise AssertionError(f"no TypeScript tools/call carried {text!r}")


def _python_cannot_encode(text: str) -> None:
    """The Python SDK's own message model cannot write ``text`` as JSON."""
    from mcp_types import JSONRPCRequest

    request = JSONRPCRequest(
        jsonrpc="2.0",
        id=1,
        method="tools/call",
        params={"name": "echo", "arguments": {"text": text}},
    )
    with pytest.raises(Exception, match="surrogates not allowed"):
        request.model_dump_json(by_alias=True, exclude_unset=True)


def _python_sent_no_surrogate(sessions: list[Session]) -> None:
    """No request the Python SDK wrote carries a surrogate's escape: nothing was sent."""
    python_calls = list(_calls(sessions, typescript=False))
    assert python_calls
    assert not [line for _, line in python_calls if _SURROGATE_ESCAPE.search(line)]


# -- the servers --------------------------------------------------------------------------


def test_python_reflector_over_stdio(tmp_path: Path) -> None:
    # The Python server starts slowly (the handshake gets --timeout plus half a second:
    # 4.5 s, room for two cold interpreters, this relay's and the server's) and
    # each lone surrogate the TypeScript client sends costs two timeouts (the server
    # drops the line) and a crash (emitting one): two payloads (nine calls each, over
    # the three clients) show it.
    wire = tmp_path / "wire"
    wire.mkdir()
    reflector = _tap(wire, sys.executable, "-m", "probes._mcp")
    result, doc = _probe(
        tmp_path, "--max-requests", "18", "--", *reflector, families="surrogates", timeout="4"
    )
    # Nothing came back through the TypeScript client (two timeouts), and the Python
    # clients sent nothing (both refused before sending): the run measured nothing.
    assert result.returncode == 3, result.stderr
    assert result.stderr.startswith(
        "fidelity: through typescript: nothing was measured: none of the 2 payloads sent to "
        "the target came back (2 timeout)"
    )
    assert result.stdout.splitlines()[-1] == "the clients disagree on 2 payloads beyond --allow."
    assert _protocols(doc) == {
        "python": "2025-11-25",
        "python-2026": "2026-07-28",  # the Python SDK's server speaks it
        "typescript": "2025-11-25",
    }
    # The request path decides; the response path (emit) ends the same for all: the
    # server process crashes writing a lone surrogate.
    lone = {**REJECTED_BY_PYTHON, "typescript": ("timeout", False, ())}
    expected = _expect(lone, MERGED_BY_TYPESCRIPT, ("round_trip", "request"), first=2)
    assert _differences(doc) == expected
    sessions = _sessions(wire)
    _python_sent_no_surrogate(sessions)
    for pid in sorted({pid for pid, _ in expected}):
        text = _surrogates()[pid]
        _python_cannot_encode(text)
        # The escape went out, and the server never answered it: hence the timeout.
        session, request = _typescript_request(sessions, text)
        assert _SURROGATE_ESCAPE.search(request)
        assert session.answer(request) is None


def test_python_reflector_over_streamable_http(tmp_path: Path) -> None:
    import probes
    from fidelity._core.armor import armor

    need_module("uvicorn")
    with probes.mcp_reflector("http") as url:
        assert isinstance(url, str)
        # The TypeScript client waits out each reply that never comes (the response
        # path): a timeout is expected there, so it is short, but past the handshake floor.
        # Two payloads (nine calls each, over the three clients) show it; the whole
        # catalogue of quotes and surrogates on this reflector over HTTP is docs/cli.md's
        # reflector transcript (its map and card, through the same three clients).
        result, doc = _probe(tmp_path, "--max-requests", "18", url, families="surrogates",
                             timeout="3")  # fmt: skip
        legacy, modern = _raw_http(url, armor)
    # Through TypeScript the server refused both escapes (the request path), and the
    # Python clients sent nothing (both refused before sending): nothing measured.
    assert result.returncode == 3, result.stderr
    assert result.stderr.startswith(
        "fidelity: through typescript: nothing was measured: none of the 2 payloads sent to "
        "the target came back (2 rejected); the most common error (1 of 2): MCPError -32700"
    )
    assert result.stdout.splitlines()[-1] == "the clients disagree on 2 payloads beyond --allow."
    assert _protocols(doc)["python-2026"] == "2026-07-28"
    lone = {**REJECTED_BY_PYTHON, "typescript": ("rejected", False, ())}
    expected = _expect(lone, MERGED_BY_TYPESCRIPT, ("round_trip", "request"), first=2)
    # The response path: a reply holding a lone surrogate. The legacy session's answer
    # never comes (python: the stream closed; typescript: no answer in time); the
    # 2026 answer comes, escaped, and the Python SDK cannot parse it (a reply the client
    # cannot parse is a protocol failure of the chain: broken).
    expected |= _expect(
        {"python": ("broken", False, ()), "python-2026": ("broken", False, ()),
         "typescript": ("timeout", False, ())},
        {"python": ("broken", False, ()),
         "python-2026": ("transformed", False, ("encoding.surrogate_split",)),
         "typescript": ("timeout", False, ())},
        ("response",),
        first=2,
    )  # fmt: skip
    assert _differences(doc) == expected
    errors = {
        (d["payload_id"], d["direction"], o["client"]): o["error_type"]
        for d in doc["clients"]["differences"]
        for o in d["outcomes"]
    }
    assert errors[("surrogates/lone-high-mid", "request", "typescript")] == "MCPError -32700"
    assert errors[("surrogates/lone-high-mid", "response", "python-2026")] == "UnparsableReply"
    for text in _surrogates().values():
        _python_cannot_encode(text)
    # Apart from the clients: the server's own answers to the same requests.
    assert legacy["request"] == (400, -32700)  # a lone surrogate's escape: parse error
    assert legacy["response"] == (200, "")  # the reply stream ends without the answer
    body = modern["response"]
    assert b'"text":"\\ud800beta"' in body
    from mcp_types import jsonrpc_message_adapter

    with pytest.raises(ValueError, match="hex escape"):
        jsonrpc_message_adapter.validate_json(body, by_name=False)


def _raw_http(url: str, armor: Any) -> tuple[dict[str, Any], dict[str, bytes]]:
    """The server's answers, over plain HTTP, to a call carrying a lone surrogate's escape
    (legacy session) and to emitting one (legacy session, then protocol 2026-07-28)."""
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    call = '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s","arguments":%s}}'
    with httpx.Client(timeout=10) as client:
        opened = client.post(
            url,
            headers=headers,
            json={
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "0"},
                },
            },
        )
        session = {**headers, "mcp-session-id": opened.headers["mcp-session-id"]}
        session["mcp-protocol-version"] = "2025-11-25"
        ready = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        client.post(url, headers=session, json=ready)
        escaped = '{"text":"\\ud800beta"}'  # what the TypeScript client sends
        sent = client.post(url, headers=session, content=call % (1, "reflect", escaped))
        value = json.dumps({"value": armor("\ud800beta")})
        emitted = client.post(url, headers=session, content=call % (2, "emit", value))
        meta = {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": {},
        }
        modern = client.post(
            url,
            headers={**headers, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call",
                     "mcp-name": "emit"},
            json={"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                  "params": {"name": "emit", "arguments": {"value": armor("\ud800beta")},
                             "_meta": meta}},
        )  # fmt: skip
    legacy = {
        "request": (sent.status_code, sent.json()["error"]["code"]),
        "response": (emitted.status_code, emitted.text),
    }
    return legacy, {"response": modern.content}


def test_typescript_reflector_over_stdio(tmp_path: Path) -> None:
    wire = tmp_path / "wire"
    wire.mkdir()
    reflector = str(SERVERS / "mcp_reflector.mjs")
    result, doc = _probe(tmp_path, "--", *_tap(wire, "node", reflector))
    assert result.returncode == 1, result.stderr
    assert set(_protocols(doc).values()) == {"2025-11-25"}  # no 2026 in the TypeScript SDK
    preserved = {**REJECTED_BY_PYTHON, "typescript": ("preserved", False, ())}
    expected = _expect(preserved, MERGED_BY_TYPESCRIPT, ("round_trip", "request"))
    # Emitted by the TypeScript server, a lone surrogate comes back escaped: the
    # TypeScript client reads it, the Python SDK's parser refuses the line (broken: a
    # reply the client cannot parse is a protocol failure of the chain).
    unparsable = {
        "python": ("broken", False, ()),
        "python-2026": ("broken", False, ()),
        "typescript": ("preserved", False, ()),
    }
    expected |= {(pid, "response"): unparsable for pid in _surrogates() if pid != PAIR}
    assert _differences(doc) == expected
    sessions = _sessions(wire)
    _python_sent_no_surrogate(sessions)
    for pid, text in _surrogates().items():
        _python_cannot_encode(text)
        if pid == PAIR:
            continue
        session, request = _typescript_request(sessions, text)
        answer = session.answer(request)
        assert answer is not None
        if b'"name":"echo"' in request:
            assert js_string(text)[1:-1] in answer  # the same escape came back
    from mcp_types import jsonrpc_message_adapter

    emitted = [
        answer
        for session, request in _calls(sessions, typescript=False)
        if b'"name":"emit"' in request and (answer := session.answer(request)) is not None
    ]
    refused = [line for line in emitted if _SURROGATE_ESCAPE.search(line)]
    assert len(refused) == 2 * 7  # seven payloads, python and python-2026
    for line in refused:
        with pytest.raises(ValueError, match=r"surrogate|hex escape"):
            jsonrpc_message_adapter.validate_json(line, by_name=False)


def test_server_everything(tmp_path: Path) -> None:
    wire = tmp_path / "wire"
    wire.mkdir()
    server = npm_server("everything")
    result, doc = _probe(tmp_path, "--", *_tap(wire, server))
    assert result.returncode == 1, result.stderr
    assert set(_protocols(doc).values()) == {"2025-11-25"}  # python-2026 fell back
    preserved = {**REJECTED_BY_PYTHON, "typescript": ("preserved", False, ())}
    assert _differences(doc) == _expect(preserved, MERGED_BY_TYPESCRIPT)
    sessions = _sessions(wire)
    _python_sent_no_surrogate(sessions)
    for pid, text in _surrogates().items():
        _python_cannot_encode(text)
        session, request = _typescript_request(sessions, text)
        answer = session.answer(request)
        assert answer is not None
        if pid != PAIR:
            assert b'"text":"Echo: ' + js_string(text)[1:] in answer
    card = (tmp_path / "CARD.md").read_text()
    row = (
        "| surrogates | round trip | rejected (8) | rejected (8) | mixed: 7 preserved, 1 "
        "transformed `encoding.surrogate_split` | **differ** (8) |"
    )
    assert row in card
    assert "--clients python,python-2026,typescript" in card


def test_clients_that_agree_exit_0_and_the_card_checks(tmp_path: Path) -> None:
    server = npm_server("everything")
    result, doc = _probe(tmp_path, "--", server, families="quotes,newlines")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "the clients agree (beyond what --allow accepts)."
    assert doc["clients"]["differences"] == []
    assert [r["complete"] for r in doc["clients"]["runs"]] == [True, True, True]
    card = (tmp_path / "CARD.md").read_text()
    assert "The clients agree on every row (2)." in card
    check = fidelity("card", str(tmp_path / "result.json"), "--check", str(tmp_path / "CARD.md"))
    assert check.returncode == 0, check.stdout + check.stderr


def test_max_requests_is_shared_by_the_clients(tmp_path: Path) -> None:
    wire = tmp_path / "wire"
    wire.mkdir()
    server = npm_server("everything")
    out = tmp_path / "r.json"
    result = fidelity(
        "probe", "--mcp", "--clients", "python,typescript", "--read", "regex:(?s)\\AEcho: (.*)\\Z",
        "--families", "quotes", "--max-requests", "10", "--json", str(out),
        "--", *_tap(wire, server), env=ENV, cwd=REPO,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    runs = json.loads(out.read_text())["clients"]["runs"]
    assert [len(r["observations"]) for r in runs] == [5, 5]
    sent = [line for s in _sessions(wire) for line in s.sent if b'"tools/call"' in line]
    assert len(sent) == 10  # counted by the server's side of the wire


# -- bad input ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--mcp", "--clients", "python,java", "--", "node", "x.mjs"],
            "fidelity: --clients: 'java' is not an MCP client; the clients are: python, "
            "python-2026, typescript.",
        ),
        (
            ["--mcp", "--clients", "python,python", "--", "node", "x.mjs"],
            "fidelity: --clients names 'python' more than once.",
        ),
        (
            ["http://127.0.0.1:9/items", "--clients", "python"],
            "fidelity: --clients applies to MCP targets; add --mcp or use an mcp+http(s):// "
            "URL for an MCP server.",
        ),
    ],
)
def test_bad_clients_are_one_sentence(args: list[str], message: str) -> None:
    result = fidelity("probe", *args)
    assert result.returncode == 2
    assert result.stderr.strip() == message
    assert result.stdout == ""


def test_no_node_is_one_sentence_and_nothing_is_started(tmp_path: Path) -> None:
    wire = tmp_path / "wire"
    wire.mkdir()
    bin_dir = str(Path(sys.executable).parent)
    result = fidelity(
        "probe", "--mcp", "--clients", "python,typescript",
        "--", *_tap(wire, sys.executable, "-m", "probes._mcp"),
        env={"PATH": bin_dir, "FIDELITY_NODE_MODULES": ""},
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "fidelity: the typescript client needs Node.js 18 or later, and node is not on PATH; "
        "install Node.js, or probe without the typescript client."
    )
    assert list(wire.iterdir()) == []  # not even the python client's server was started


def test_dry_run_names_the_clients() -> None:
    result = fidelity(
        "probe", "--mcp", "--clients", "python,typescript", "--families", "quotes",
        "--max-requests", "8", "--read", "text", "--dry-run", "--", "node", "x.mjs",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "  through each client in turn: python, typescript\n" in result.stdout
    assert "  4 payloads (--max-requests 8, 2 call(s) per payload)\n" in result.stdout


def test_list_tools_goes_through_the_first_client(tmp_path: Path) -> None:
    wire = tmp_path / "wire"
    wire.mkdir()
    result = fidelity(
        "probe", "--mcp", "--clients", "typescript,python", "--list-tools",
        "--", *_tap(wire, "node", str(SERVERS / "mcp_reflector.mjs")),
        env=ENV,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "3 tools on " in result.stdout
    (session,) = _sessions(wire)
    assert session.sent[0].startswith(b'{"method":"initialize"')  # the TypeScript SDK's


def test_a_client_that_cannot_start_leaves_the_others_results(tmp_path: Path) -> None:
    # The server starts once: the python client's session works, the typescript
    # client's server exits at once. Its run is kept, marked incomplete: exit 3.
    from _support.servers import HOSTILE_MCP

    flag = tmp_path / "started"
    once = f'[ -e "{flag}" ] && exit 7; touch "{flag}"; exec "$@"'
    out = tmp_path / "r.json"
    result = fidelity(
        "probe", "--mcp", "--clients", "python,typescript", "--families", "quotes",
        "--read", "text", "--json", str(out), "--", "sh", "-c", once, "sh", *HOSTILE_MCP,
        env=ENV,
    )  # fmt: skip
    assert result.returncode == 3
    assert result.stderr.startswith(
        "fidelity: the run through typescript did not finish (typescript: could not open an "
        "MCP session through the TypeScript client"
    ), result.stderr
    assert result.stderr.rstrip().endswith("the results hold what every client saw.")
    runs = json.loads(out.read_text())["clients"]["runs"]
    assert [(r["client"], r["complete"], len(r["observations"])) for r in runs] == [
        ("python", True, 17),
        ("typescript", False, 0),
    ]
    assert "could not open an MCP session" in runs[1]["error"]
    assert "typescript: 0 payloads: none; incomplete: " in result.stdout


def test_server_filesystem_stores_what_only_the_typescript_client_can_send(tmp_path: Path) -> None:
    # The identity edit of a seeded file: the Python SDK cannot send a lone surrogate
    # (the seeding step fails in the client), the TypeScript SDK sends it, and the
    # server writes it to disk as U+FFFD, so the edit then finds no match.
    root = tmp_path / "root"
    root.mkdir()
    path = f"{root}/f{{run}}-{{n}}.txt"
    identity = {"oldText": "{payload}", "newText": "{payload}"}
    result, doc = _probe(
        tmp_path, "--yes", "--tool", "edit_file",
        "--before", f'write_file={{"path": "{path}", "content": "{{payload}}"}}',
        "--args", json.dumps({"path": path, "edits": [identity]}),
        "--read-tool", "read_text_file", "--read-args", f'{{"path": "{path}"}}', "--read", "text",
        "--", npm_server("filesystem"), str(root), families="surrogates",
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    refused = {**REJECTED_BY_PYTHON, "typescript": ("rejected", False, ())}
    assert _differences(doc) == _expect(refused, MERGED_BY_TYPESCRIPT)
    errors = {
        d["payload_id"]: d["outcomes"][2]["error"]
        for d in doc["clients"]["differences"]
        if d["payload_id"] != PAIR
    }
    assert all(e.startswith("Could not find exact match for edit:") for e in errors.values())
    # On disk, apart from the server's answers: only the TypeScript client's files exist,
    # and each lone surrogate became the 3 bytes of U+FFFD.
    stored = {p.name.rsplit("-", 1)[1]: p.read_bytes() for p in root.iterdir()}
    assert len(stored) == len(_surrogates())
    for n, (pid, text) in enumerate(_surrogates().items(), 1):
        expected = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)
        if pid == PAIR:
            expected = "alpha\U0001f600beta"
        assert stored[f"{n}.txt"] == expected.encode("utf-8"), pid


def test_a_client_that_measured_nothing_fails_the_run(tmp_path: Path) -> None:
    # The verdict rules of one client's run hold for each client: a server that refuses
    # every call measured nothing, however much the clients agree on that.
    from _support.servers import HOSTILE_MCP

    need_module("mcp")
    out = tmp_path / "result.json"
    result = fidelity(
        "probe", "--mcp", "--clients", "python,python-2026", "--read", "text",
        "--families", "quotes", "--json", str(out), "--", *HOSTILE_MCP, "--reject",
    )  # fmt: skip
    assert result.returncode == 3, result.stdout + result.stderr
    assert result.stderr == (
        "fidelity: through python: nothing was measured: none of the 17 payloads sent to the "
        "target came back (17 rejected); the most common error (17 of 17): isError: refused: "
        "<payload>.\n"
    )
    assert "python-2026: 17 payloads: 17 rejected." in result.stdout  # the map is kept
    runs = json.loads(out.read_text())["clients"]["runs"]
    assert [r["client"] for r in runs] == ["python", "python-2026"]


def test_each_clients_warnings_are_printed() -> None:
    # server-everything's echo answers "Echo: <message>": read as the whole text, every
    # value carries that prefix, and each client's run says so.
    need_module("mcp")
    result = fidelity(
        "probe", "--mcp", "--clients", "python,python-2026", "--read", "text",
        "--families", "quotes", "--", npm_server("everything"),
    )  # fmt: skip
    assert result.returncode == 1, result.stdout + result.stderr
    advice = (
        "every value came back after the same prefix 'Echo: ': --read "
        "'regex:(?s)\\AEcho: (.*)\\Z' reads the value alone (or leave --read out to locate "
        "the read-back automatically)."
    )
    lines = result.stdout.splitlines()
    assert f"warning: python: {advice}" in lines, result.stdout
    assert f"warning: python-2026: {advice}" in lines


def test_a_reply_too_deep_for_python_is_unparsable_through_every_client(tmp_path: Path) -> None:
    # Node parses 3000 nested arrays; the driver writes on no record deeper than every
    # supported Python's json reads (3.13's would read these, 3.11's would not), so the
    # call in flight is an unparsable reply on every Python, as through the Python client
    # (whose parser stops near 200 levels), not a dead reader thread with a traceback.
    from _support.servers import HOSTILE_MCP

    out = tmp_path / "result.json"
    result = fidelity(
        "probe", "--mcp", "--clients", "python,typescript", "--read", "text",
        "--families", "quotes", "--max-requests", "4", "--json", str(out),
        "--", *HOSTILE_MCP, "--deep-reply", "3000", env=ENV, cwd=REPO,
    )  # fmt: skip
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 3, result.stdout + result.stderr
    runs = json.loads(out.read_text())["clients"]["runs"]
    for run in runs:
        statuses = {(o["status"], o["error_type"]) for o in run["observations"]}
        assert statuses == {("broken", "UnparsableReply")}, (run["client"], statuses)
        errors = {o["error"] for o in run["observations"]}
        assert all("nested too deeply to be read" in e for e in errors), errors


def test_a_few_unparsable_replies_are_a_warning_per_client_as_for_one_client() -> None:
    # Two of the 17 replies hold a lone-surrogate escape the Python client cannot
    # parse: fewer than half, so a warning (as for a single client), not exit 3.
    from _support.servers import HOSTILE_MCP

    one = fidelity(
        "probe", "--mcp", "--read", "text", "--families", "quotes",
        "--", *HOSTILE_MCP, "--surrogate-on", "don",
    )  # fmt: skip
    many = fidelity(
        "probe", "--mcp", "--clients", "python,python-2026", "--read", "text",
        "--families", "quotes", "--", *HOSTILE_MCP, "--surrogate-on", "don",
    )  # fmt: skip
    assert one.returncode == many.returncode == 0, many.stdout + many.stderr
    assert "17 payloads: 15 preserved, 2 broken." in one.stdout
    for client in ("python", "python-2026"):
        assert f"{client}: 17 payloads: 15 preserved, 2 broken." in many.stdout
        assert f"warning: {client}: the target's reply to 2 of the 17 payloads" in many.stdout


@pytest.mark.parametrize("failing", ["python", "python-2026"])
def test_a_client_that_cannot_open_hides_no_other_clients_results(
    tmp_path: Path, failing: str
) -> None:
    # A server that starts once only (the second start exits at once), or fails its first
    # start only: one client cannot open it; the other's table, JSON and card stand.
    mark = tmp_path / "started"
    serve = f"exec {sys.executable} -m probes._mcp"
    once = f"if [ -e {mark} ]; then exit 1; else touch {mark}; {serve}; fi"
    later = f"if [ -e {mark} ]; then {serve}; else touch {mark}; exit 1; fi"
    out, card = tmp_path / "r.json", tmp_path / "CARD.md"
    result = fidelity(
        "probe", "--mcp", "--clients", "python,python-2026", "--families", "quotes",
        "--json", str(out), "--card", str(card),
        "--", "sh", "-c", once if failing == "python-2026" else later,
        cwd=REPO, timeout=300,
    )  # fmt: skip
    other = "python" if failing == "python-2026" else "python-2026"
    assert result.returncode == 3, result.stderr
    assert result.stderr.startswith(
        f"fidelity: the run through {failing} did not finish ({failing}: could not open an "
        "MCP session"
    )
    assert f"{other}: 17 payloads: 17 preserved.\n" in result.stdout
    document = json.loads(out.read_text())
    runs = {r["client"]: r for r in document["clients"]["runs"]}
    assert runs[other]["complete"] is True
    assert runs[failing]["complete"] is False
    assert runs[failing]["error"].startswith("could not open an MCP session")
    assert len(document["observations"]) == 17
    assert "preserved" in card.read_text()
