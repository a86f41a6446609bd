"""Run a Python MCP server object over stdio: ``python -m probes._mcp.serve_object MOD:ATTR``.

The runner behind :func:`probes.mcp_module`. It imports ``MOD`` (from the current
directory first, as ``python -m`` does, or from the directory in ``FIDELITY_SERVE_FROM``
when the server runs in a sandbox), takes ``ATTR`` (a dotted path inside the module; a
callable without a ``run`` method is called once to make the server) and runs it over
stdio with the server's own SDK, 1.x or 2.x: ``MCPServer``/``FastMCP`` objects (anything
with ``run(transport)``) through ``run("stdio")``, a low-level ``Server`` through the
SDK's ``stdio_server`` streams. ``--setup MOD:FUNC`` calls ``FUNC()`` (awaited if it is
a coroutine function) after the server object is loaded and before it serves: what the
module's ``main()`` does before ``app.run()`` (``main()`` itself is never run). A spec
that cannot be loaded is one sentence on stderr and exit code 2, a setup that fails one
sentence and exit code 1; the probe shows it with the server's stderr.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
from pathlib import Path
from typing import Any

__all__ = ["SERVE_FROM", "load", "main", "prepare"]

#: Exit code of a spec that cannot be loaded (a usage error, as the CLI's).
_USAGE = 2
#: Exit code of a setup function that failed.
_SETUP_FAILED = 1
#: The variable naming the directory the module is imported from, when the server's
#: working directory is elsewhere (a sandbox).
SERVE_FROM = "FIDELITY_SERVE_FROM"


class SpecError(Exception):
    """The ``MOD:ATTR`` spec cannot be loaded (the message is one sentence)."""


def _attribute(spec: str, example: str, what: str = "server spec") -> Any:
    """The object ``spec`` (``package.module:attribute``) names."""
    module_name, colon, attribute = spec.partition(":")
    if not colon or not module_name or not attribute:
        raise SpecError(f"{spec!r} is not a {what}: write MODULE:ATTRIBUTE, such as {example!r}")
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise SpecError(_import_advice(module_name, exc)) from None
    for part in attribute.split("."):
        if not hasattr(obj, part):
            raise SpecError(f"{module_name!r} has no attribute {attribute!r}")
        obj = getattr(obj, part)
    return obj


def load(spec: str) -> Any:
    """The server object ``spec`` names (``package.module:attribute``)."""
    obj = _attribute(spec, "package.server:app")
    if callable(obj) and not hasattr(obj, "run"):
        obj = obj()  # a factory: make the server
    if not hasattr(obj, "run"):
        raise SpecError(
            f"{spec} is a {type(obj).__name__}, not an MCP server (an MCPServer or FastMCP "
            "object, a low-level Server, or a function that returns one)"
        )
    return obj


def _import_advice(module_name: str, exc: ImportError) -> str:
    """Why ``module_name`` cannot be imported, and what to do.

    The usual cause is the directory: the module is elsewhere. But when its top-level
    package was found somewhere else (a ``tests`` package some installed distribution
    put into site-packages takes the name before a ``tests/`` folder without
    ``__init__.py``), running from the right directory does not help: say which one.
    """
    top = module_name.partition(".")[0]
    found = sys.modules.get(top)
    where = _location(found) if top != module_name and found is not None else None
    here = Path.cwd().resolve()
    if where is not None and not where.is_relative_to(here):
        local = here / top
        if local.is_dir() and not (local / "__init__.py").exists():
            fix = f"add an __init__.py to {top}/ here, so that this directory's {top!r} wins"
        else:
            fix = "uninstall the distribution that installed it, or rename the local package"
        return (
            f"cannot import {module_name!r} ({exc}): {top!r} was imported from {where}, "
            f"not from {here}: an installed package takes the name; {fix}"
        )
    return (
        f"cannot import {module_name!r} ({exc}); run from the directory that holds it, "
        "or install its package"
    )


def _location(module: Any) -> Path | None:
    """The directory a module or package was imported from (``None`` when unknown)."""
    file = getattr(module, "__file__", None)
    if file:
        return Path(file).resolve().parent
    paths = list(getattr(module, "__path__", []) or [])
    return Path(paths[0]).resolve() if paths else None


def prepare(spec: str) -> None:
    """Call the setup function ``spec`` names (``package.module:function``) with no
    arguments, and await what it returns if it is awaitable."""
    setup = _attribute(spec, "package.server:init_db", "setup spec")
    if not callable(setup):
        raise SpecError(f"setup {spec} is a {type(setup).__name__}, not a function")
    result = setup()
    if inspect.isawaitable(result):
        import anyio

        async def wait() -> None:
            await result

        anyio.run(wait)


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
    setup = None
    if len(args) == 3 and args[1] == "--setup":
        setup = args[2]
    elif len(args) != 1:
        print(
            "usage: python -m probes._mcp.serve_object MODULE:ATTRIBUTE [--setup MODULE:FUNCTION]",
            file=sys.stderr,
        )
        return _USAGE
    home = os.environ.get(SERVE_FROM)
    if home:
        sys.path.insert(0, home)
    try:
        server = load(args[0])
        if setup is not None:
            _attribute(setup, "package.server:init_db", "setup spec")  # a bad spec is a usage error
    except SpecError as exc:
        print(f"fidelity: {exc}.", file=sys.stderr)
        return _USAGE
    if setup is not None:
        try:
            prepare(setup)
        except Exception as exc:  # the author's code: one sentence, its traceback kept out
            print(
                f"fidelity: the setup {setup} failed ({type(exc).__name__}: {exc}).",
                file=sys.stderr,
            )
            return _SETUP_FAILED
    if hasattr(server, "create_initialization_options"):
        _run_lowlevel(server)
    else:
        server.run("stdio")
    return 0


if __name__ == "__main__":
    sys.exit(main())
