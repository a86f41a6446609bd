"""The reflector's MCP server (imports the ``mcp`` SDK; loaded only when serving).

Kept apart from ``probes._mcp.reflector`` so that module imports without the SDK and
``builtin_targets()`` can say why the chain is unavailable.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent, ToolAnnotations

from fidelity._core.armor import armor, unarmor
from fidelity._core.errors import UsageError

__all__ = ["ECHO_TOOL", "EMIT_TOOL", "REFLECT_TOOL", "build_server"]

#: The tools of the reflector, by role.
ECHO_TOOL = "echo"
REFLECT_TOOL = "reflect"
EMIT_TOOL = "emit"

_READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)


def _echo(text: str) -> CallToolResult:
    """Return ``text`` unchanged as text content (the round trip)."""
    return CallToolResult(content=[TextContent(type="text", text=text)])


def _reflect(text: str) -> CallToolResult:
    """Return the armored form of the ``text`` this function received (the request path)."""
    evidence = armor(text)
    return CallToolResult(
        content=[TextContent(type="text", text=evidence["base64"])],
        structured_content=evidence,
    )


def _emit(value: dict[str, Any]) -> CallToolResult:
    """Return the armored ``value`` as text content and as ``{"text": ...}`` (response path)."""
    try:
        text = unarmor(value)
    except UsageError as exc:
        return CallToolResult(content=[TextContent(type="text", text=str(exc))], is_error=True)
    if isinstance(text, bytes):
        message = "emit needs UTF-8 bytes: an MCP text value cannot carry other bytes."
        return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content={"text": text},
    )


def build_server() -> MCPServer:
    """Return the reflector as an ``MCPServer`` with the tools ``echo``, ``reflect``, ``emit``."""
    server: MCPServer = MCPServer(
        "param-fidelity-reflector",
        instructions="Reports what it received: echo, reflect (armored out), emit (armored in).",
        log_level="WARNING",
    )
    server.add_tool(_echo, name=ECHO_TOOL, annotations=_READ_ONLY)
    server.add_tool(_reflect, name=REFLECT_TOOL, annotations=_READ_ONLY)
    server.add_tool(_emit, name=EMIT_TOOL, annotations=_READ_ONLY)
    return server


async def run_stdio() -> None:
    """Serve the reflector over stdio; exit the process at once if the transport fails.

    The SDK's stdio server cannot write a reply it cannot encode (a lone surrogate in
    ``emit``'s output): its writer task fails, the session is cancelled, and its stdin
    reader thread then keeps the process alive until the client gives up. Exiting at
    once lets the client see the connection close (``broken``) instead of a timeout.
    """
    import os
    import sys

    import anyio
    from mcp.server.stdio import stdio_server

    lowlevel = build_server()._lowlevel_server
    async with stdio_server() as (read_stream, write_stream):
        try:
            await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
        except anyio.get_cancelled_exc_class():
            print(
                "mcp reflector: the MCP SDK's stdio transport failed (it could not write a "
                "reply); exiting.",
                file=sys.stderr,
            )
            sys.stderr.flush()
            os._exit(1)
