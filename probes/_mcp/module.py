"""A Python MCP server by import path: ``probes.mcp_module("package.server:app", ...)``.

A tool author's server is usually an object in a module (``app = MCPServer(...)``,
``FastMCP(...)``). This probe spawns it in a subprocess over real stdio, with the same
interpreter, through :mod:`probes._mcp.serve_object`, so every payload crosses the
same serialization an agent's client uses; nothing is called in-process.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from fidelity._core.errors import UsageError

__all__ = ["RUNNER", "mcp_module", "module_argv"]

#: The module that imports the server object and runs it over stdio.
RUNNER = "probes._mcp.serve_object"


def _spec(value: object, option: str, example: str) -> str:
    text = value if isinstance(value, str) else ""
    module, colon, attribute = text.partition(":")
    if not colon or not module.strip() or not attribute.strip():
        raise UsageError(f"{option}={value!r}: name it as 'MODULE:ATTRIBUTE', such as {example!r}.")
    return text


def module_argv(spec: str, setup: str | None = None) -> list[str]:
    """The argv that serves ``spec`` (``MODULE:ATTRIBUTE``) over stdio, after calling
    ``setup`` (``MODULE:FUNCTION``) if given."""
    try:
        checked = _spec(spec, "mcp_module", "package.server:app")
    except UsageError:
        raise UsageError(
            f"mcp_module({spec!r}): name the server object as 'MODULE:ATTRIBUTE', "
            "such as 'package.server:app'."
        ) from None
    argv = [sys.executable, "-m", RUNNER, checked]
    if setup is not None:
        argv += ["--setup", _spec(setup, "setup", "package.server:init_db")]
    return argv


def mcp_module(spec: str, *, setup: str | None = None, **options: Any) -> Any:
    """A probe of the MCP server object ``spec`` (``"package.server:app"``), over stdio.

    The object is imported in a subprocess (from the current directory, or ``cwd=``)
    and run over stdio with its SDK (1.x or 2.x): an ``MCPServer``/``FastMCP`` object,
    a low-level ``Server``, or a function that returns one. The module's ``main()`` is
    not run: ``setup="package.server:init_db"`` names a function called (with no
    arguments, awaited if it is a coroutine function) after the object is loaded and
    before it serves, for what ``main()`` prepares (a database's tables, a data
    directory). Every other option is :func:`probes.mcp`'s (``tool``, ``param``,
    ``args``, ``read``, ``read_tool``, ``allow_destructive``, ``env``, ``sandbox``...);
    with ``sandbox=True`` the module is still imported from the current directory (or
    ``cwd=``) while the server works in its sandbox. The probe's name is made from
    ``spec``, never from a path. A spec that cannot be imported, or a setup that fails,
    fails when the probe opens, with the runner's sentence from the server's stderr.
    """
    from probes._mcp.probe import mcp
    from probes._mcp.serve_object import SERVE_FROM

    argv = module_argv(spec, setup)
    if options.get("sandbox"):
        home = options.pop("cwd", None)
        env = dict(options.get("env") or {})
        env.setdefault(SERVE_FROM, os.path.abspath(home if home is not None else os.getcwd()))
        options["env"] = env
    return mcp(argv, **options)
