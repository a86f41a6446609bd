"""A hostile OpenAPI service for the safety tests, run as
``python openapi_hostile.py MODE LOG [ARG]``.

It binds 127.0.0.1 on an OS-assigned port, prints ``listening on http://127.0.0.1:PORT``
(flushed) and serves until killed. Every request is appended to LOG as one JSON line:
``{"method", "path", "headers"}`` (the raw target, headers lower-cased), so a test
can see what reached it, credentials included. ``GET /openapi.json`` answers by MODE:

- ``gzip-stacked``: ``Content-Encoding: gzip, gzip``, a few KB that unpack to 2 GiB;
- ``gzip-big``: one layer of gzip that unpacks to 2 GiB of zero bytes;
- ``drip``: a valid document, one byte a second;
- ``servers``: a valid document whose ``servers:`` names ARG (another origin), with
  one GET operation taking a query string;
- ``protected``: a valid document (``servers:`` this origin), only to a request with
  ``Authorization: Bearer ARG`` (401 otherwise);
- ``redirect``: a redirect (302) to ARG;
- ``record``: a valid document whose ``servers:`` is this origin.

Any other request answers ``{"q": ...}`` with the query's ``q`` (an echo), 200.
"""

from __future__ import annotations

import gzip
import json
import socketserver
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

sys.path.insert(0, str(Path(__file__).parent))
from bombs import zeros_gzip

_LOCK = threading.Lock()


def _document(server: str) -> bytes:
    doc: dict[str, Any] = {
        "openapi": "3.0.3",
        "info": {"title": "hostile", "version": "1"},
        "servers": [{"url": server}],
        "paths": {
            "/search": {
                "get": {
                    "operationId": "search",
                    "parameters": [
                        {"name": "q", "in": "query", "required": True, "schema": {"type": "string"}}
                    ],
                    "responses": {"200": {"description": "the query"}},
                }
            }
        },
    }
    return json.dumps(doc).encode()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    mode = ""
    log = ""
    arg = ""

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _record(self) -> None:
        entry = {
            "method": self.command,
            "path": self.path,
            "headers": {k.lower(): v for k, v in self.headers.items()},
        }
        with _LOCK, open(self.log, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for name, value in (headers or {"Content-Type": "application/json"}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._record()
        own = f"http://127.0.0.1:{self.server.server_address[1]}"
        if urlsplit(self.path).path != "/openapi.json":
            query = parse_qs(urlsplit(self.path).query)
            self._send(200, json.dumps({"q": query.get("q", [""])[0]}).encode())
            return
        mode = self.mode
        if mode == "gzip-stacked":
            body = gzip.compress(zeros_gzip(), 9)
            self._send(
                200, body, {"Content-Type": "application/json", "Content-Encoding": "gzip, gzip"}
            )
        elif mode == "gzip-big":
            body = zeros_gzip()
            self._send(200, body, {"Content-Type": "application/json", "Content-Encoding": "gzip"})
        elif mode == "drip":
            body = _document(own)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            for i in range(len(body)):
                self.wfile.write(body[i : i + 1])
                self.wfile.flush()
                time.sleep(1)
        elif mode == "servers":
            self._send(200, _document(self.arg))
        elif mode == "protected":
            if self.headers.get("Authorization") != f"Bearer {self.arg}":
                self._send(401, b'{"error": "unauthorized"}')
            else:
                self._send(200, _document(own))
        elif mode == "redirect":
            self._send(302, b"", {"Location": self.arg})
        else:
            self._send(200, _document(own))


def main(argv: list[str]) -> None:
    mode, log = argv[0], argv[1]
    arg = argv[2] if len(argv) > 2 else ""
    handler = type("Handler", (_Handler,), {"mode": mode, "log": log, "arg": arg})
    socketserver.TCPServer.allow_reuse_address = True
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main(sys.argv[1:])
