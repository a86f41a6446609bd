"""``python -m probes._mcp``: run the reference MCP reflector (stdio, or Streamable HTTP
on loopback).

The probes start their reflector subprocess through this module, never through the
``fidelity`` command above them. ``fidelity reflect mcp`` is the user's entry point
(with its ``--allow-remote`` check).
"""

from __future__ import annotations

import argparse

from probes._mcp.reflector import serve

parser = argparse.ArgumentParser(prog="python -m probes._mcp")
parser.add_argument("--transport", choices=("stdio", "http"), default="stdio")
parser.add_argument("--host", default="127.0.0.1")
parser.add_argument("--port", type=int, default=0)
options = parser.parse_args()
serve(transport=options.transport, host=options.host, port=options.port)
