"""A misbehaving MCP stdio server, written by hand so it can misbehave precisely.

It speaks line-delimited JSON-RPC (legacy handshake; ``server/discover`` is answered
"method not found") and offers ``echo(text)`` (annotated read-only unless
``--echo-annotations`` says otherwise), ``store(path, content)`` annotated destructive,
and ``ping_tool()`` annotated read-only. Flags, combinable:

- ``--echo-annotations readonly|destructive|none``: how ``echo`` is annotated;
- ``--crash-after N``: exit without answering the (N+1)-th ``tools/call``;
- ``--arrivals PATH``: append to PATH when each ``tools/call`` arrives (this process's
  ``time.monotonic()``, one per line);
- ``--noise``: before each answer, write a non-protocol line, a line with an ESC
  sequence and a bidi override, and a line of invalid UTF-8 on stdout;
- ``--log-stderr``: write every received text raw to stderr;
- ``--surrogate-reply``: answer every call with the JSON escape of a lone surrogate;
- ``--reject``: answer every call ``isError`` with the received text, raw;
- ``--mangle``: answer with the text minus its second code point;
- ``--hang``: on the first ``tools/call``, stop reading and answering for good;
- ``--hang-on WORD``: never answer a call whose text contains WORD (keep reading);
- ``--mute-on WORD``: once a call's text contains WORD, answer nothing more (not even
  ``tools/list``) until stdin closes, then exit;
- ``--freeze-on WORD``: on a call whose text contains WORD, stop reading and answering
  for good (a closed stdin does not end it either: only a signal does);
- ``--stall``: freeze at start-up, before the handshake;
- ``--pid-file PATH``: write this process's pid to PATH, and with ``--child`` also the
  pid of a child process it starts (which never exits by itself), one per line;
- ``--call-file PATH``: create PATH when a ``tools/call`` arrives (before acting on it);
- ``--big-reply N``: answer every call with a text of N bytes (``x``), written in
  pieces so the server never holds it whole;
- ``--deep-reply N``: answer every call with a result whose ``structuredContent``
  nests N arrays deep;
- ``--many-tools N``: list N more tools (``tool00000``...), each with a long
  name, many arguments and a long description;
- ``--wire-log PATH``: append every line received, byte for byte, to PATH.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import Any

_ANNOTATIONS = {
    "readonly": {"readOnlyHint": True},
    "destructive": {"destructiveHint": True, "readOnlyHint": False},
    "none": None,
}


def _tools(echo_annotations: str) -> list[dict[str, Any]]:
    echo: dict[str, Any] = {
        "name": "echo",
        "description": "Return the text.",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    }
    if _ANNOTATIONS[echo_annotations] is not None:
        echo["annotations"] = _ANNOTATIONS[echo_annotations]
    return [
        echo,
        {
            "name": "store",
            "description": "Overwrite a file.",
            "inputSchema": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"],
            },
            "annotations": _ANNOTATIONS["destructive"],
        },
        {
            "name": "ping_tool",
            "description": "Answer pong.",
            "inputSchema": {"type": "object", "properties": {}},
            "annotations": _ANNOTATIONS["readonly"],
        },
    ]


def _many_tools(count: int) -> list[dict[str, Any]]:
    properties = {f"argument_{i:02d}": {"type": "string"} for i in range(30)}
    return [
        {
            "name": f"tool{i:05d}_" + "n" * 200,
            "description": "A tool. " * 60,
            "inputSchema": {"type": "object", "properties": properties},
        }
        for i in range(count)
    ]


def _send_big(out: Any, mid: object, size: int) -> None:
    """A reply whose text is ``size`` bytes, written a piece at a time."""
    head = json.dumps({"jsonrpc": "2.0", "id": mid, "result": {"content": [{"type": "text"}]}})
    out.write(head[: -len("}]}}")].encode("ascii") + b', "text": "')
    piece = b"x" * 65536
    left = size
    while left > 0:
        out.write(piece[:left])
        left -= len(piece)
    out.write(b'"}]}}\n')
    out.flush()


def _send_deep(out: Any, mid: object, depth: int) -> None:
    """A reply whose ``structuredContent`` nests ``depth`` arrays."""
    head = json.dumps({"jsonrpc": "2.0", "id": mid, "result": {"content": []}})
    body = b'"structuredContent": {"v": ' + b"[" * depth + b"]" * depth + b"}"
    out.write(head[:-2].encode("ascii") + b", " + body + b"}}\n")
    out.flush()


def _send(out: Any, message: dict[str, Any]) -> None:
    # ensure_ascii: lone surrogates become \\udXXX escapes, as JSON encoders write them.
    out.write(json.dumps(message, ensure_ascii=True).encode("ascii") + b"\n")
    out.flush()


def _freeze() -> None:
    """Neither read nor answer, ever: only a signal ends this process."""
    while True:
        time.sleep(3600)


def _option(argv: list[str], name: str) -> str | None:
    return argv[argv.index(name) + 1] if name in argv else None


def main(argv: list[str]) -> int:
    crash_after = int(_option(argv, "--crash-after") or -1)
    arrivals = _option(argv, "--arrivals")
    noise = "--noise" in argv
    log_stderr = "--log-stderr" in argv
    surrogate = "--surrogate-reply" in argv
    reject = "--reject" in argv
    mangle = "--mangle" in argv
    hang = "--hang" in argv
    hang_on = _option(argv, "--hang-on")
    mute_on = _option(argv, "--mute-on")
    freeze_on = _option(argv, "--freeze-on")
    tools = _tools(_option(argv, "--echo-annotations") or "readonly")
    tools += _many_tools(int(_option(argv, "--many-tools") or 0))
    big = int(_option(argv, "--big-reply") or -1)
    deep = int(_option(argv, "--deep-reply") or 0)
    pid_file = _option(argv, "--pid-file")
    call_file = _option(argv, "--call-file")
    if pid_file is not None:
        pids = [os.getpid()]
        if "--child" in argv:
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
            pids.append(child.pid)
        with open(pid_file, "w", encoding="ascii") as f:
            f.write("".join(f"{pid}\n" for pid in pids))
    if "--stall" in argv:
        _freeze()
    muted = False
    out = sys.stdout.buffer
    calls = 0
    wire_log = _option(argv, "--wire-log")
    for raw in sys.stdin.buffer:
        if wire_log is not None:
            with open(wire_log, "ab") as log:
                log.write(raw)
        try:
            message = json.loads(raw)
        except ValueError:
            continue
        method, mid = message.get("method"), message.get("id")
        if mid is None or muted:
            continue  # a notification, or the server went mute
        params = message.get("params") or {}
        if method == "initialize":
            result: dict[str, Any] = {
                "protocolVersion": params.get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "hostile", "version": "0"},
            }
        elif method == "tools/list":
            result = {"tools": tools}
        elif method == "ping":
            result = {}
        elif method == "tools/call":
            if arrivals is not None:
                with open(arrivals, "a", encoding="ascii") as f:
                    f.write(f"{time.monotonic()!r}\n")
            arguments = params.get("arguments") or {}
            text = arguments.get("text", arguments.get("content", "pong"))
            text = text if isinstance(text, str) else str(text)
            if call_file is not None:
                with open(call_file, "a", encoding="ascii") as f:
                    f.write("call\n")
            if log_stderr:
                sys.stderr.buffer.write(
                    b"received: " + text.encode("utf-8", "surrogatepass") + b"\n"
                )
                sys.stderr.buffer.flush()
            if calls == crash_after:
                return 3
            calls += 1
            if hang or (freeze_on is not None and freeze_on in text):
                _freeze()
            if hang_on is not None and hang_on in text:
                continue
            if mute_on is not None and mute_on in text:
                muted = True
                continue
            if noise:
                out.write(b"this is not JSON-RPC\n")
                out.write(b"\x1b[2J\x1b[31mred \xe2\x80\xae override\n")
                out.write(b"\xff\xfe invalid utf-8 \xc3\x28\n")
                out.flush()
            if big >= 0:
                _send_big(out, mid, big)
                continue
            if deep:
                _send_deep(out, mid, deep)
                continue
            if surrogate:
                text = "a\ud800b"
            elif mangle:
                text = text[:1] + text[2:]
            shown = f"refused: {text}" if reject else text
            result = {"content": [{"type": "text", "text": shown}], "isError": reject}
        else:
            _send(
                out,
                {
                    "jsonrpc": "2.0",
                    "id": mid,
                    "error": {"code": -32601, "message": f"method not found: {method}"},
                },
            )
            continue
        _send(out, {"jsonrpc": "2.0", "id": mid, "result": result})
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
