"""A misbehaving MCP stdio server, written by hand so it can misbehave precisely.

It speaks line-delimited JSON-RPC (legacy handshake; ``server/discover`` is answered
"method not found") and offers ``echo(text)``. Flags, combinable:

- ``--crash-after N``: exit without answering the (N+1)-th ``tools/call``;
- ``--noise``: before each answer, write a non-protocol line, a line with an ESC
  sequence and a bidi override, and a line of invalid UTF-8 on stdout;
- ``--log-stderr``: write every received text raw to stderr;
- ``--surrogate-reply``: answer every call with the JSON escape of a lone surrogate;
- ``--hang-on WORD``: never answer a call whose text contains WORD;
- ``--mute-on WORD``: once a call's text contains WORD, answer nothing more (not even
  ``tools/list``) until stdin closes, then exit;
- ``--freeze-on WORD``: on a call whose text contains WORD, stop reading and answering
  for good (a closed stdin does not end it either: only a signal does);
- ``--stall``: freeze at start-up, before the handshake;
- ``--pid-file PATH``: write this process's pid to PATH, and with ``--child`` also the
  pid of a child process it starts (which never exits by itself), one per line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import Any

ECHO = {
    "name": "echo",
    "description": "Return the text.",
    "inputSchema": {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    },
    "annotations": {"readOnlyHint": True},
}


def _send(out: Any, message: dict[str, Any]) -> None:
    # ensure_ascii: lone surrogates become \\udXXX escapes, as JSON encoders write them.
    out.write(json.dumps(message, ensure_ascii=True).encode("ascii") + b"\n")
    out.flush()


def _freeze() -> None:
    """Neither read nor answer, ever: only a signal ends this process."""
    while True:
        time.sleep(3600)


def main(argv: list[str]) -> int:
    crash_after = int(argv[argv.index("--crash-after") + 1]) if "--crash-after" in argv else -1
    noise = "--noise" in argv
    log_stderr = "--log-stderr" in argv
    surrogate = "--surrogate-reply" in argv
    hang_on = argv[argv.index("--hang-on") + 1] if "--hang-on" in argv else None
    mute_on = argv[argv.index("--mute-on") + 1] if "--mute-on" in argv else None
    freeze_on = argv[argv.index("--freeze-on") + 1] if "--freeze-on" in argv else None
    if "--pid-file" in argv:
        pids = [os.getpid()]
        if "--child" in argv:
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
            pids.append(child.pid)
        with open(argv[argv.index("--pid-file") + 1], "w", encoding="ascii") as f:
            f.write("".join(f"{pid}\n" for pid in pids))
    if "--stall" in argv:
        _freeze()
    muted = False
    out = sys.stdout.buffer
    calls = 0
    for raw in sys.stdin.buffer:
        message = json.loads(raw)
        method, mid = message.get("method"), message.get("id")
        if mid is None or muted:
            continue  # a notification, or the server went mute
        if method == "initialize":
            result: dict[str, Any] = {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "hostile", "version": "0"},
            }
        elif method == "tools/list":
            result = {"tools": [ECHO]}
        elif method == "tools/call":
            text = message["params"]["arguments"].get("text", "")
            if log_stderr:
                sys.stderr.buffer.write(
                    b"received: " + text.encode("utf-8", "surrogatepass") + b"\n"
                )
                sys.stderr.buffer.flush()
            if calls == crash_after:
                return 3
            calls += 1
            if hang_on is not None and hang_on in text:
                continue
            if freeze_on is not None and freeze_on in text:
                _freeze()
            if mute_on is not None and mute_on in text:
                muted = True
                continue
            if noise:
                out.write(b"this is not JSON-RPC\n")
                out.write(b"\x1b[2J\x1b[31mred \xe2\x80\xae override\n")
                out.write(b"\xff\xfe invalid utf-8 \xc3\x28\n")
                out.flush()
            if surrogate:
                text = "a\ud800b"
            result = {"content": [{"type": "text", "text": text}]}
        else:
            _send(
                out,
                {
                    "jsonrpc": "2.0",
                    "id": mid,
                    "error": {"code": -32601, "message": "method not found"},
                },
            )
            continue
        _send(out, {"jsonrpc": "2.0", "id": mid, "result": result})
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
