"""A transparent stdio proxy in front of an MCP server that records every tool call.

``python mcp_tee.py CALLS_FILE -- COMMAND ARGS...`` starts the server command and
forwards bytes both ways unchanged (stderr too); each line the client sends that is a
``tools/call`` request appends the tool's name and a newline to ``CALLS_FILE`` before it
is forwarded (``_support.servers.called`` reads them). So a test counts the calls a
probe made to a server it did not write, apart from the probe's own account.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading


def _pump_out(source: object, sink: object) -> None:
    while True:
        chunk = source.read1(65536)  # type: ignore[attr-defined]
        if not chunk:
            break
        sink.write(chunk)  # type: ignore[attr-defined]
        sink.flush()  # type: ignore[attr-defined]


def main(argv: list[str]) -> int:
    calls_file, command = argv[0], argv[argv.index("--") + 1 :]
    server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert server.stdin is not None
    assert server.stdout is not None
    out = threading.Thread(target=_pump_out, args=(server.stdout, sys.stdout.buffer), daemon=True)
    out.start()
    for line in sys.stdin.buffer:
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        if isinstance(message, dict) and message.get("method") == "tools/call":
            name = (message.get("params") or {}).get("name")
            with open(calls_file, "a", encoding="utf-8") as calls:
                calls.write(f"{name}\n")
        try:
            server.stdin.write(line)
            server.stdin.flush()
        except BrokenPipeError:
            break
    with contextlib.suppress(BrokenPipeError):
        server.stdin.close()
    code = server.wait()
    out.join(5)
    return code


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
