"""An MCP stdio server written by hand whose tools answer malformed calls in every way
the error contract tells apart (``fidelity probe --errors``).

It speaks line-delimited JSON-RPC (the legacy handshake, as mcp_hostile.py; the
answers to everything but ``tools/call`` are mcp_wire.py's). Its tools, each with the
same input schema unless said otherwise (``text``: a required string):

- ``validate(path, mode, name, id, count)``, read-only: checks its arguments against
  its schema (required, types, no other argument, ``mode`` one of ``r``/``w``, ``name``
  2 to 8 characters, ``id`` matching ``^[a-z]+$``) and refuses a bad call with
  ``isError`` and one sentence naming the argument and the problem;
- ``trace``, read-only: refuses every call with a Python traceback;
- ``anything``, read-only: answers every call ``ok`` (never ``isError``);
- ``vague``, read-only: refuses every call with ``Something went wrong.``;
- ``huge``, read-only: refuses naming the argument, in 5,000 characters;
- ``pathy``, read-only: refuses naming the argument and an internal file path;
- ``rpc``, read-only: answers every call with a JSON-RPC error (-32602) naming ``text``;
- ``noisy``, read-only: refuses naming the argument, with an ESC sequence, a bidi
  override, a token (``token=supersecret99``) and the value of its environment
  variable ``ERRORS_SECRET`` in its text;
- ``die``, read-only: the process exits without answering;
- ``slow``, read-only: never answers (the server stops reading until killed);
- ``wipe(target)``, annotated destructive: validates as ``validate`` does;
- ``note(text)``, without annotations: validates as ``validate`` does.

A call to a tool it does not list is a JSON-RPC error (-32602, ``Unknown tool: NAME``).
``--calls PATH`` appends each ``tools/call``'s tool name and a newline to PATH when it
arrives (``_support.servers.called`` reads them).
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from typing import Any

from mcp_wire import answer, option

_READ_ONLY = {"readOnlyHint": True}
_TEXT = {
    "type": "object",
    "properties": {"text": {"type": "string"}},
    "required": ["text"],
    "additionalProperties": False,
}
_VALIDATE = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "mode": {"type": "string", "enum": ["r", "w"]},
        "name": {"type": "string", "minLength": 2, "maxLength": 8},
        "id": {"type": "string", "pattern": "^[a-z]+$"},
        "count": {"type": "integer"},
    },
    "required": ["path"],
    "additionalProperties": False,
}
_TARGET = {
    "type": "object",
    "properties": {"target": {"type": "string"}},
    "required": ["target"],
    "additionalProperties": False,
}
_TRACEBACK = """Traceback (most recent call last):
  File "/srv/tools/server.py", line 88, in handle
    return TOOLS[name](**arguments)
  File "/srv/tools/trace.py", line 12, in trace
    query = arguments["query"]
KeyError: 'query'"""


def _tool(name: str, schema: dict[str, Any], annotations: dict[str, Any] | None) -> dict[str, Any]:
    tool: dict[str, Any] = {"name": name, "description": f"The {name} tool.", "inputSchema": schema}
    if annotations is not None:
        tool["annotations"] = annotations
    return tool


TOOLS = [
    _tool("validate", _VALIDATE, _READ_ONLY),
    *(
        _tool(name, _TEXT, _READ_ONLY)
        for name in ("trace", "anything", "vague", "huge", "pathy", "rpc", "noisy", "die", "slow")
    ),
    _tool("wipe", _TARGET, {"readOnlyHint": False, "destructiveHint": True}),
    _tool("note", _TEXT, None),
]
_SCHEMAS = {t["name"]: t["inputSchema"] for t in TOOLS}
_TYPES = {"string": str, "integer": int}


def problem(schema: dict[str, Any], arguments: dict[str, Any]) -> str:
    """What is wrong with ``arguments`` under ``schema``, as one sentence ("" if nothing)."""
    props = schema["properties"]
    for name in schema["required"]:
        if name not in arguments:
            return f"missing required argument '{name}'"
    for name, value in arguments.items():
        if name not in props:
            return f"unknown argument '{name}'"
        sub = props[name]
        kind = _TYPES[sub["type"]]
        if not isinstance(value, kind) or isinstance(value, bool):
            return f"argument '{name}' must be a {sub['type']}"
        if "enum" in sub and value not in sub["enum"]:
            return f"argument '{name}' must be one of: {', '.join(sub['enum'])}"
        if len(str(value)) < sub.get("minLength", 0):
            return f"argument '{name}' must be at least {sub['minLength']} characters"
        if "maxLength" in sub and len(value) > sub["maxLength"]:
            return f"argument '{name}' must be at most {sub['maxLength']} characters"
        if "pattern" in sub and not re.search(sub["pattern"], value):
            return f"argument '{name}' does not match the pattern {sub['pattern']}"
    return ""


def _result(mid: object, text: str, error: bool) -> dict[str, Any]:
    result = {"content": [{"type": "text", "text": text}], "isError": error}
    return {"jsonrpc": "2.0", "id": mid, "result": result}


def _error(mid: object, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": mid, "error": {"code": code, "message": message}}


def call(mid: object, name: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
    """The response to one ``tools/call`` (None: none is sent)."""
    if name not in _SCHEMAS:
        return _error(mid, -32602, f"Unknown tool: {name}")
    if name == "die":
        os._exit(3)
    if name == "slow":
        time.sleep(3600)
    if name in ("validate", "wipe", "note"):
        wrong = problem(_SCHEMAS[name], arguments)
        return _result(mid, wrong or "done", bool(wrong))
    replies = {
        "trace": (_TRACEBACK, True),
        "anything": ("ok", False),
        "vague": ("Something went wrong.", True),
        "huge": ("invalid argument 'text': " + "x" * 5000, True),
        "pathy": ("cannot load /srv/tools/config/rules.json to check argument 'text'", True),
        "noisy": (
            "argument 'text' refused \x1b[2J\u202e token=supersecret99 "
            + os.environ.get("ERRORS_SECRET", ""),
            True,
        ),
    }
    if name == "rpc":
        return _error(mid, -32602, "Invalid params: 'text' must be a string")
    text, error = replies[name]
    return _result(mid, text, error)


def main(argv: list[str]) -> int:
    calls = option(argv, "--calls")
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict) or "id" not in message:
            continue  # a notification
        if message.get("method") != "tools/call":
            reply: dict[str, Any] | None = answer(message, TOOLS, "mcp-errors")
        else:
            params = message.get("params") or {}
            name = str(params.get("name", ""))
            if calls:
                with open(calls, "a", encoding="utf-8") as log:
                    log.write(f"{name}\n")
            arguments = params.get("arguments") or {}
            reply = call(message.get("id"), name, arguments)
        if reply is not None:
            out.write(json.dumps(reply).encode() + b"\n")
            out.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
