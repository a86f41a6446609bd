"""The client side on either major version of the MCP Python SDK.

A project whose server is written with SDK 1.x (``FastMCP`` from ``mcp.server.fastmcp``)
keeps its SDK: the probe then speaks through 1.x's ``ClientSession`` instead of 2.x's
``mcp.Client``. :class:`LegacyClient` gives that session the surface the probe uses of
``mcp.Client`` (``protocol_version``, ``server_info``, ``list_tools``, ``call_tool``,
``get_prompt``, ``read_resource``, ``list_prompts``, ``list_resource_templates``) and
hands back every result as the ``mcp_types`` model of the same message, validated from
what the 1.x model holds under its wire names, so the rest of the probe reads one shape.
Nothing else changes: the same stdio transport (bounded, guarded), the same
serialization of each request by the SDK the project runs.

SDK 1.x speaks the initialize handshake only (protocol versions up to 2025-11-25):
``client="python-2026"`` and a pinned protocol ``mode`` need SDK 2.x; the default
``mode="auto"`` is the handshake there.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from datetime import timedelta
from types import TracebackType
from typing import Any

from fidelity._core.errors import UsageError

__all__ = ["LegacyClient", "check_mode", "error_types", "rpc_error", "sdk_major", "sdk_version"]


@functools.cache
def sdk_major() -> int:
    """The major version of the installed MCP SDK: 2 when it has ``mcp.Client``, else 1."""
    try:
        from mcp import Client  # noqa: F401
    except ImportError:
        return 1
    return 2


def sdk_version() -> str:
    """The installed ``mcp`` distribution's version (``"?"`` when it has no metadata)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mcp")
    except PackageNotFoundError:
        return "?"


def check_mode(client: str | None, mode: str) -> None:
    """Refuse what SDK 1.x cannot do: the 2026-07-28 client, or a pinned protocol version."""
    if sdk_major() >= 2:
        return
    if client == "python-2026" or (mode not in ("auto", "legacy")):
        asked = f"client={client!r}" if client == "python-2026" else f"mode={mode!r}"
        raise UsageError(
            f"{asked} needs the MCP SDK 2.x, and this environment has mcp {sdk_version()}, "
            "which speaks the initialize handshake only; use client='python' (or leave "
            "mode out), or install 'mcp>=2.3'."
        )


def error_types() -> tuple[type[BaseException], ...]:
    """The exception the SDK raises for a JSON-RPC error answer (2.x ``MCPError``,
    1.x ``McpError``)."""
    if sdk_major() >= 2:
        from mcp import MCPError

        return (MCPError,)
    exceptions: Any = importlib.import_module("mcp.shared.exceptions")
    return (exceptions.McpError,)


def rpc_error(exc: BaseException) -> tuple[int, str]:
    """The code and message of an SDK's JSON-RPC error (either version)."""
    error = getattr(exc, "error", None)  # 1.x: the ErrorData rides on the exception
    source = error if error is not None and hasattr(error, "code") else exc
    return int(getattr(source, "code", 0)), str(getattr(source, "message", exc))


def _as_v2(result: Any, model: str) -> Any:
    """The ``mcp_types`` model ``model`` of the 1.x ``result``: the same message, by its
    wire names (strings are handed over as they are, never re-encoded)."""
    import mcp_types

    cls = getattr(mcp_types, model)
    return cls.model_validate(result.model_dump(by_alias=True, exclude_unset=True))


class LegacyClient:
    """SDK 1.x's ``ClientSession`` over ``transport``, shaped as 2.x's ``mcp.Client``.

    ``transport`` is an async context manager giving ``(read, write)`` streams (the
    probe's guarded stdio or Streamable HTTP transport). Entering it opens the
    transport and completes the initialize handshake.
    """

    def __init__(
        self,
        transport: AbstractAsyncContextManager[tuple[Any, Any]],
        *,
        read_timeout_seconds: float,
        client_info: tuple[str, str],
        message_handler: Callable[[object], Awaitable[None]],
    ) -> None:
        self._transport = transport
        self._timeout = read_timeout_seconds
        self._info = client_info
        self._handler = message_handler
        self._stack = contextlib.AsyncExitStack()
        self._session: Any = None
        self.protocol_version = ""
        self.server_info: Any = None

    async def __aenter__(self) -> LegacyClient:
        sdk: Any = importlib.import_module("mcp")
        types: Any = importlib.import_module("mcp.types")
        name, version = self._info
        try:
            read, write = await self._stack.enter_async_context(self._transport)
            session = await self._stack.enter_async_context(
                sdk.ClientSession(
                    read,
                    write,
                    read_timeout_seconds=timedelta(seconds=self._timeout),
                    message_handler=self._handler,
                    client_info=types.Implementation(name=name, version=version),
                )
            )
            initialized: Any = await session.initialize()
        except BaseException:
            await self._stack.aclose()
            raise
        self._session = session
        self.protocol_version = str(initialized.protocolVersion)
        self.server_info = _as_v2(initialized.serverInfo, "Implementation")
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        return bool(await self._stack.__aexit__(exc_type, exc_val, exc_tb))

    async def _page(self, method: str, model: str, cursor: str | None) -> Any:
        lister = getattr(self._session, method)
        if cursor is None:
            return _as_v2(await lister(), model)
        types: Any = importlib.import_module("mcp.types")
        return _as_v2(await lister(params=types.PaginatedRequestParams(cursor=cursor)), model)

    async def list_tools(self, cursor: str | None = None) -> Any:
        """``tools/list`` (one page), as ``mcp_types.ListToolsResult``."""
        return await self._page("list_tools", "ListToolsResult", cursor)

    async def list_prompts(self, cursor: str | None = None) -> Any:
        """``prompts/list`` (one page), as ``mcp_types.ListPromptsResult``."""
        return await self._page("list_prompts", "ListPromptsResult", cursor)

    async def list_resource_templates(self, cursor: str | None = None) -> Any:
        """``resources/templates/list`` (one page), as ``mcp_types.ListResourceTemplatesResult``."""
        return await self._page("list_resource_templates", "ListResourceTemplatesResult", cursor)

    async def call_tool(
        self, name: str, arguments: dict[str, Any], read_timeout_seconds: float | None = None
    ) -> Any:
        """``tools/call``, as ``mcp_types.CallToolResult``."""
        timeout = timedelta(seconds=read_timeout_seconds) if read_timeout_seconds else None
        result = await self._session.call_tool(name, arguments, read_timeout_seconds=timeout)
        return _as_v2(result, "CallToolResult")

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> Any:
        """``prompts/get``, as ``mcp_types.GetPromptResult``."""
        return _as_v2(await self._session.get_prompt(name, arguments), "GetPromptResult")

    async def read_resource(self, uri: str) -> Any:
        """``resources/read``, as ``mcp_types.ReadResourceResult``."""
        from pydantic import AnyUrl

        return _as_v2(await self._session.read_resource(AnyUrl(uri)), "ReadResourceResult")
