"""Run a Python MCP server object over stdio: ``python -m probes._mcp.serve_object MOD:ATTR``.

The runner behind :func:`probes.mcp_module`. It imports ``MOD`` (from the current
directory first, as ``python -m`` does), takes ``ATTR`` (a dotted path inside the
module; a callable without a ``run`` method is called once to make the server) and runs
it over stdio with the server's own SDK: ``MCPServer``/``FastMCP`` objects (anything
with ``run(transport)``) through ``run("stdio")``, a low-level ``Server`` through the
SDK's ``stdio_server`` streams. A spec that cannot be loaded is one sentence on stderr
and exit code 2; the probe shows it with the server's stderr.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

__all__ = ["load", "main"]

#: Exit code of a spec that cannot be loaded (a usage error, as the CLI's).
_USAGE = 2


class SpecError(Exception):
    """The ``MOD:ATTR`` spec cannot be loaded (the message is one sentence)."""


def load(spec: str) -> Any:
    """The server object ``spec`` names (``package.module:attribute``)."""
    module_name, colon, attribute = spec.partition(":")
    if not colon or not module_name or not attribute:
        raise SpecError(
            f"{spec!r} is not a server spec: write MODULE:ATTRIBUTE, such as 'package.server:app'"
        )
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise SpecError(
            f"cannot import {module_name!r} ({exc}); run from the directory that "
            "holds it, or install its package"
        ) from None
    for part in attribute.split("."):
        if not hasattr(obj, part):
            raise SpecError(f"{module_name!r} has no attribute {attribute!r}")
        obj = getattr(obj, part)
    if callable(obj) and not hasattr(obj, "run"):
        obj = obj()  # a factory: make the server
    if not hasattr(obj, "run"):
        raise SpecError(
            f"{spec} is a {type(obj).__name__}, not an MCP server (an MCPServer or FastMCP "
            "object, a low-level Server, or a function that returns one)"
        )
    return obj


def _run_lowlevel(server: Any) -> None:
    import anyio
    from mcp.server.stdio import stdio_server

    async def serve() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(serve)


def main(argv: list[str] | None = None) -> int:
    """Load the spec in ``argv`` and serve it over stdio until the client hangs up."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m probes._mcp.serve_object MODULE:ATTRIBUTE", file=sys.stderr)
        return _USAGE
    try:
        server = load(args[0])
    except SpecError as exc:
        print(f"fidelity: {exc}.", file=sys.stderr)
        return _USAGE
    if hasattr(server, "create_initialization_options"):
        _run_lowlevel(server)
    else:
        server.run("stdio")
    return 0


if __name__ == "__main__":
    sys.exit(main())
