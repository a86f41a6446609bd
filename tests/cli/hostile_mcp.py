"""A misbehaving MCP stdio server for the CLI's robustness tests.

It speaks JSON-RPC line by line by hand (so it can misbehave precisely) and offers
``echo(text)`` (returns the text), ``store(path, content)`` annotated destructive, and
``ping_tool()``. Flags, combinable:

- ``--crash-after N``: exit without answering the (N+1)-th ``tools/call``;
- ``--noise``: before each answer, write a non-protocol line, a line with an ESC
  sequence and a line of invalid UTF-8 on stdout;
- ``--log-stderr``: write every received text raw to stderr;
- ``--surrogate``: answer every call with the JSON escape of a lone surrogate;
- ``--hang``: never answer ``tools/call``;
- ``--reject``: answer every call ``isError`` with the received text, raw;
- ``--mangle``: answer with the text minus its second code point.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

TOOLS = [
    {
        "name": "echo",
        "description": "Return the text.",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    },
    {
        "name": "store",
        "description": "Overwrite a file.",
        "inputSchema": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["path", "content"],
        },
        "annotations": {"destructiveHint": True, "readOnlyHint": False},
    },
    {
        "name": "ping_tool",
        "description": "Answer pong.",
        "inputSchema": {"type": "object", "properties": {}},
        "annotations": {"readOnlyHint": True},
    },
]


def _send(out: Any, message: dict[str, Any]) -> None:
    out.write(json.dumps(message).encode("ascii") + b"\n")
    out.flush()


def main(argv: list[str]) -> int:
    crash_after = int(argv[argv.index("--crash-after") + 1]) if "--crash-after" in argv else -1
    noise = "--noise" in argv
    log_stderr = "--log-stderr" in argv
    surrogate = "--surrogate" in argv
    hang = "--hang" in argv
    reject = "--reject" in argv
    mangle = "--mangle" in argv
    out = sys.stdout.buffer
    calls = 0
    for raw in sys.stdin.buffer:
        try:
            message = json.loads(raw)
        except ValueError:
            continue
        method = message.get("method")
        ident = message.get("id")
        if ident is None:
            continue  # a notification
        params = message.get("params") or {}
        if method == "initialize":
            result: dict[str, Any] = {
                "protocolVersion": params.get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "hostile", "version": "0"},
            }
        elif method == "tools/list":
            result = {"tools": TOOLS}
        elif method == "ping":
            result = {}
        elif method == "tools/call":
            calls += 1
            if 0 <= crash_after < calls:
                return 1
            if hang:
                time.sleep(3600)
            arguments = params.get("arguments") or {}
            text = arguments.get("text", arguments.get("content", "pong"))
            if log_stderr:
                sys.stderr.buffer.write(
                    b"received: " + str(text).encode("utf-8", "surrogatepass") + b"\n"
                )
                sys.stderr.buffer.flush()
            if noise:
                out.write(b"hostile server says hello\n")
                out.write(b"\x1b[31mRED\x1b[0m \xe2\x80\xae evil\n")
                out.write(b"\xff\xfe\xc3( invalid utf-8\n")
                out.flush()
            if surrogate:
                line = (
                    b'{"jsonrpc": "2.0", "id": ' + json.dumps(ident).encode() + b', "result": '
                    b'{"content": [{"type": "text", "text": "a\\ud800b"}], "isError": false}}\n'
                )
                out.write(line)
                out.flush()
                continue
            if mangle and isinstance(text, str):
                text = text[:1] + text[2:]
            content = [{"type": "text", "text": f"refused: {text}" if reject else text}]
            result = {"content": content, "isError": reject}
        else:
            _send(
                out,
                {
                    "jsonrpc": "2.0",
                    "id": ident,
                    "error": {"code": -32601, "message": f"method not found: {method}"},
                },
            )
            continue
        _send(out, {"jsonrpc": "2.0", "id": ident, "result": result})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
