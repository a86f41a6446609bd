"""A byte-exact stdio relay that logs what passes: ``stdio_tap.py DIR -- COMMAND ARGS...``.

It runs COMMAND and relays its stdin and stdout unchanged (stderr goes straight
through), writing every chunk to ``DIR/PID.jsonl`` (one file per session: the relay's
process id) as one JSON line ``{"dir": "in"|"out", "b64": ...}``: ``in`` is what the
client wrote to the server, ``out`` what the server wrote back. A test reads the log
to see the very bytes an MCP client put on the wire, apart from what any client
reports. The relay ends when the server's stdout closes; a closed stdin is passed on;
SIGTERM is passed on to the server.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
import threading


def main(argv: list[str]) -> int:
    folder, separator, *command = argv
    if separator != "--" or not command:
        raise SystemExit("usage: stdio_tap.py DIR -- COMMAND ARGS...")
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None
    assert child.stdout is not None
    lock = threading.Lock()
    log = open(os.path.join(folder, f"{os.getpid()}.jsonl"), "a", encoding="ascii")  # noqa: SIM115

    def note(direction: str, chunk: bytes) -> None:
        with lock:
            log.write(json.dumps({"dir": direction, "b64": base64.b64encode(chunk).decode()}))
            log.write("\n")
            log.flush()

    def inbound() -> None:
        assert child.stdin is not None
        while chunk := os.read(0, 65536):
            note("in", chunk)
            try:
                child.stdin.write(chunk)
                child.stdin.flush()
            except OSError:
                return
        child.stdin.close()

    signal.signal(signal.SIGTERM, lambda *_: child.terminate())
    threading.Thread(target=inbound, daemon=True).start()
    while chunk := os.read(child.stdout.fileno(), 65536):
        note("out", chunk)
        os.write(1, chunk)
    return child.wait()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
