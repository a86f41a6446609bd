"""An MCP stdio server whose tool list is given on the command line, and that counts calls.

``python mcp_annotated.py CALLS_FILE TOOLS_JSON``: ``TOOLS_JSON`` is the ``tools/list``
answer's list, verbatim (names may repeat, annotations may be missing or odd); every
``tools/call`` appends its tool name and a newline to ``CALLS_FILE`` before it is
answered: the call's first string argument as text, and all its arguments as the
structured content (a tool named ``reject`` answers ``isError`` instead). So a test
can count exactly which calls a probe made, whatever the server claims about its tools.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def _send(message: dict[str, Any]) -> None:
    sys.stdout.buffer.write(json.dumps(message, ensure_ascii=True).encode("ascii") + b"\n")
    sys.stdout.buffer.flush()


def main(calls_file: str, tools_json: str) -> int:
    tools = json.loads(tools_json)
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
                "serverInfo": {"name": "annotated", "version": "0"},
            }
        elif method == "tools/list":
            result = {"tools": tools}
        elif method == "tools/call":
            with open(calls_file, "a", encoding="utf-8") as calls:
                calls.write(f"{params.get('name')}\n")
            arguments = params.get("arguments") or {}
            text = next((v for v in arguments.values() if isinstance(v, str)), "")
            if params.get("name") == "reject":
                result = {"content": [{"type": "text", "text": "refused"}], "isError": True}
            else:
                result = {
                    "content": [{"type": "text", "text": text}],
                    "structuredContent": arguments,
                }
        else:
            error = {"code": -32601, "message": f"method not found: {method}"}
            _send({"jsonrpc": "2.0", "id": mid, "error": error})
            continue
        _send({"jsonrpc": "2.0", "id": mid, "result": result})
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1], sys.argv[2]))
