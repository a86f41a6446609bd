"""An MCP stdio server with a key-value store whose writes can hang, and that counts calls.

``python mcp_slow_store.py CALLS_FILE [--hang-on WORD] [--lose-on WORD]``. Tools:

- ``put(key, value)``: annotated destructive (not idempotent); stores ``value`` under
  ``key`` and answers ``stored: VALUE``;
- ``put_idempotent(key, value)``: the same, annotated ``idempotentHint: true``;
- ``get(key)``: read-only; answers the value stored under ``key`` (an error if none);
- ``echo(text)``: read-only; answers ``text``.

``--hang-on WORD``: a call whose value (or text) contains WORD is carried out (the
value is stored), but never answered; ``--lose-on WORD``: the same, without storing;
``--garble-on WORD``: such a call is answered with a JSON escape of a lone surrogate
as its text, a reply the Python client library cannot parse; ``--delay S``: every
call is answered S seconds late (a slow server, to interrupt a run in the middle).
The server keeps reading and answering everything else (``tools/list`` included), so
a client's health check passes. Every ``tools/call`` appends ``NAME VALUE`` (the value
JSON-encoded) and a newline to ``CALLS_FILE`` before anything else, so a test can count
exactly which calls were made, and that none was sent twice.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

_STRING = {"type": "string"}
_TOOLS = [
    {
        "name": "put",
        "description": "Store a value under a key.",
        "inputSchema": {
            "type": "object",
            "properties": {"key": _STRING, "value": _STRING},
            "required": ["key", "value"],
        },
        "annotations": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False},
    },
    {
        "name": "put_idempotent",
        "description": "Store a value under a key (the same call twice stores the same).",
        "inputSchema": {
            "type": "object",
            "properties": {"key": _STRING, "value": _STRING},
            "required": ["key", "value"],
        },
        "annotations": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True},
    },
    {
        "name": "get",
        "description": "The value stored under a key.",
        "inputSchema": {"type": "object", "properties": {"key": _STRING}, "required": ["key"]},
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "echo",
        "description": "Return the text.",
        "inputSchema": {"type": "object", "properties": {"text": _STRING}, "required": ["text"]},
        "annotations": {"readOnlyHint": True},
    },
]


def _send(message: dict[str, Any]) -> None:
    sys.stdout.buffer.write(json.dumps(message, ensure_ascii=True).encode("ascii") + b"\n")
    sys.stdout.buffer.flush()


def _option(argv: list[str], name: str) -> str | None:
    return argv[argv.index(name) + 1] if name in argv else None


def main(argv: list[str]) -> int:
    calls_file = argv[0]
    hang_on, lose_on = _option(argv, "--hang-on"), _option(argv, "--lose-on")
    garble_on = _option(argv, "--garble-on")
    delay = float(_option(argv, "--delay") or 0)
    store: dict[str, str] = {}
    for raw in sys.stdin.buffer:
        try:
            message = json.loads(raw)
        except ValueError:
            continue
        method, mid = message.get("method"), message.get("id")
        if mid is None:
            continue
        params = message.get("params") or {}
        if method == "initialize":
            result: dict[str, Any] = {
                "protocolVersion": params.get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "slow-store", "version": "0"},
            }
        elif method == "tools/list":
            result = {"tools": _TOOLS}
        elif method == "tools/call":
            name = params.get("name")
            arguments = params.get("arguments") or {}
            value = arguments.get("value", arguments.get("text", arguments.get("key", "")))
            with open(calls_file, "a", encoding="utf-8") as calls:
                calls.write(f"{name} {json.dumps(value)}\n")
            hang = hang_on is not None and hang_on in value
            lose = lose_on is not None and lose_on in value
            text, error = "", False
            if name in ("put", "put_idempotent"):
                if not lose:
                    store[arguments["key"]] = value
                text = f"stored: {value}"
            elif name == "get":
                key = arguments.get("key", "")
                text, error = (store[key], False) if key in store else (f"no key {key}", True)
            else:
                text = value
            if hang or lose:
                continue  # carried out (or not), never answered
            if garble_on is not None and garble_on in value:
                text = "a\ud800b"  # written as the escape \\ud800 (ensure_ascii)
            result = {"content": [{"type": "text", "text": text}], "isError": error}
            time.sleep(delay)
        else:
            error_body = {"code": -32601, "message": f"method not found: {method}"}
            _send({"jsonrpc": "2.0", "id": mid, "error": error_body})
            continue
        _send({"jsonrpc": "2.0", "id": mid, "result": result})
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
