"""An HTTP service that echoes the caller's credentials back, run as
``python echo_secret.py MODE``: it binds 127.0.0.1 on an OS-assigned port, prints
``listening on http://127.0.0.1:PORT`` (flushed) and serves until killed.

Every request (any path, any method) answers 200 ``{"text": ...}``: the ``text`` of its
JSON body (or of its query), followed by every credential it was sent, in MODE:

- ``raw``: as they came; ``percent``: percent-encoded; ``base64``: base64 of their UTF-8
  bytes; ``hex``: hex of their UTF-8 bytes;

the credentials being the ``Authorization`` and ``X-Api-Key`` headers, the password of
basic auth, the ``token`` query parameter and the ``Cookie`` header. With ``error``
the answer is HTTP 400 with the credentials in ``{"error": ...}`` instead.
"""

from __future__ import annotations

import base64
import json
import socketserver
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit


def _encode(value: str, mode: str) -> str:
    data = value.encode("utf-8")
    if mode == "percent":
        return quote(value, safe="")
    if mode == "base64":
        return base64.b64encode(data).decode("ascii")
    if mode == "hex":
        return data.hex()
    return value


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    mode = "raw"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _credentials(self) -> list[str]:
        found = [self.headers.get(h, "") for h in ("Authorization", "X-Api-Key", "Cookie")]
        auth = self.headers.get("Authorization", "")
        if auth.startswith("Basic "):
            found.append(base64.b64decode(auth[6:]).decode("utf-8").partition(":")[2])
        query = parse_qs(urlsplit(self.path).query)
        found += query.get("token", [])
        return [f for f in found if f]

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            text = json.loads(raw)["text"] if raw else ""
        except (ValueError, KeyError, TypeError):
            text = ""
        if not raw:
            text = parse_qs(urlsplit(self.path).query).get("text", [""])[0]
        echoed = " ".join(_encode(c, self.mode.removeprefix("error-")) for c in self._credentials())
        if self.mode.startswith("error"):
            body = json.dumps({"error": f"refused, you sent {echoed}"}).encode()
            status = 400
        else:
            body = json.dumps({"text": f"{text} {echoed}"}).encode()
            status = 200
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = _answer


def main(mode: str) -> None:
    handler = type("Handler", (_Handler,), {"mode": mode})
    socketserver.TCPServer.allow_reuse_address = True
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "raw")
