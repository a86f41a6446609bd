"""The client side on either major version of the MCP Python SDK.

A project whose server is written with SDK 1.x (``FastMCP`` from ``mcp.server.fastmcp``)
keeps its SDK: the probe then speaks through 1.x's ``ClientSession`` instead of 2.x's
``mcp.Client``. :class:`LegacyClient` gives that session the surface the probe uses of
``mcp.Client`` (``protocol_version``, ``server_info``, ``list_tools``, ``call_tool``,
``get_prompt``, ``read_resource``, ``list_prompts``, ``list_resource_templates``) and
hands back every result seen through :class:`V1View`, which answers 2.x's attribute
names, so the rest of the probe reads one shape and nothing more is installed beside
1.x (2.x's ``mcp_types`` would need a newer ``pydantic`` than older 1.x releases run on).
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

__all__ = [
    "LegacyClient",
    "V1View",
    "check_mode",
    "error_types",
    "rpc_error",
    "sdk_major",
    "sdk_version",
]


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


def rpc_error(exc: BaseException) -> tuple[int, str, object]:
    """The code, message and data (``None`` when it had none) of an SDK's JSON-RPC
    error (either version)."""
    error = getattr(exc, "error", None)  # 1.x: the ErrorData rides on the exception
    source = error if error is not None and hasattr(error, "code") else exc
    code, message = int(getattr(source, "code", 0)), str(getattr(source, "message", exc))
    return code, message, getattr(source, "data", None)


def _camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(part[:1].upper() + part[1:] for part in rest)


class V1View:
    """A 1.x result (a pydantic model) read by 2.x's attribute names.

    SDK 2.x names the fields of a message in snake case (``is_error``,
    ``structured_content``, ``input_schema``), 1.x by their wire names (``isError``,
    ``structuredContent``, ``inputSchema``). The view answers either, and views the
    models and lists inside it the same way; every value is the 1.x model's own (a
    string is handed over as it is, never re-encoded or re-validated).
    """

    __slots__ = ("_model",)

    def __init__(self, model: Any) -> None:
        object.__setattr__(self, "_model", model)

    def __getattr__(self, name: str) -> Any:
        model = object.__getattribute__(self, "_model")
        try:
            value = getattr(model, name)
        except AttributeError:
            value = getattr(model, _camel(name))
        return _view(value)

    def model_dump(self, **options: Any) -> Any:
        """The 1.x model's ``model_dump``."""
        return object.__getattribute__(self, "_model").model_dump(**options)

    def __repr__(self) -> str:
        return f"V1View({object.__getattribute__(self, '_model')!r})"


def _view(value: Any) -> Any:
    """``value`` with its pydantic models (in lists too) seen through :class:`V1View`."""
    if hasattr(type(value), "model_fields") and hasattr(value, "model_dump"):  # pydantic
        return V1View(value)
    if isinstance(value, list):
        return [_view(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_view(v) for v in value)
    return value


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
        self.server_info = _view(initialized.serverInfo)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        return bool(await self._stack.__aexit__(exc_type, exc_val, exc_tb))

    async def _page(self, method: str, cursor: str | None) -> Any:
        lister = getattr(self._session, method)
        if cursor is None:
            return _view(await lister())
        types: Any = importlib.import_module("mcp.types")
        if hasattr(types, "PaginatedRequestParams"):
            return _view(await lister(params=types.PaginatedRequestParams(cursor=cursor)))
        return _view(await lister(cursor))  # before 1.21

    async def list_tools(self, cursor: str | None = None) -> Any:
        """``tools/list`` (one page)."""
        return await self._page("list_tools", cursor)

    async def list_prompts(self, cursor: str | None = None) -> Any:
        """``prompts/list`` (one page)."""
        return await self._page("list_prompts", cursor)

    async def list_resource_templates(self, cursor: str | None = None) -> Any:
        """``resources/templates/list`` (one page)."""
        return await self._page("list_resource_templates", cursor)

    async def call_tool(
        self, name: str, arguments: dict[str, Any], read_timeout_seconds: float | None = None
    ) -> Any:
        """``tools/call``."""
        timeout = timedelta(seconds=read_timeout_seconds) if read_timeout_seconds else None
        result = await self._session.call_tool(name, arguments, read_timeout_seconds=timeout)
        return _view(result)

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> Any:
        """``prompts/get``."""
        return _view(await self._session.get_prompt(name, arguments))

    async def read_resource(self, uri: str) -> Any:
        """``resources/read``."""
        types: Any = importlib.import_module("mcp.types")  # 1.x takes the URI as AnyUrl
        return _view(await self._session.read_resource(types.AnyUrl(uri)))
