"""A Python MCP server by import path: ``probes.mcp_module("package.server:app", ...)``.

A tool author's server is usually an object in a module (``app = MCPServer(...)``,
``FastMCP(...)``). This probe spawns it in a subprocess over real stdio, with the same
interpreter, through :mod:`probes._mcp.serve_object`, so every payload crosses the
same serialization an agent's client uses; nothing is called in-process.
"""

from __future__ import annotations

import sys
from typing import Any

from fidelity._core.errors import UsageError

__all__ = ["RUNNER", "mcp_module", "module_argv"]

#: The module that imports the server object and runs it over stdio.
RUNNER = "probes._mcp.serve_object"


def module_argv(spec: str) -> list[str]:
    """The argv that serves ``spec`` (``MODULE:ATTRIBUTE``) over stdio."""
    module, colon, attribute = spec.partition(":")
    if not isinstance(spec, str) or not colon or not module.strip() or not attribute.strip():
        raise UsageError(
            f"mcp_module({spec!r}): name the server object as 'MODULE:ATTRIBUTE', "
            "such as 'package.server:app'."
        )
    return [sys.executable, "-m", RUNNER, spec]


def mcp_module(spec: str, **options: Any) -> Any:
    """A probe of the MCP server object ``spec`` (``"package.server:app"``), over stdio.

    The object is imported in a subprocess (from the current directory, or ``cwd=``)
    and run over stdio with its SDK: an ``MCPServer``/``FastMCP`` object, a low-level
    ``Server``, or a function that returns one. Every other option is
    :func:`probes.mcp`'s (``tool``, ``param``, ``args``, ``read``, ``read_tool``,
    ``allow_destructive``...). The probe's name is made from ``spec``, never from a
    path. A spec that cannot be imported fails when the probe opens, with the runner's
    sentence from the server's stderr.
    """
    from probes._mcp.probe import mcp

    return mcp(module_argv(spec), **options)
