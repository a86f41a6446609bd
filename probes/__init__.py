"""Probes: push payload texts through real chains and report what arrived.

In-process chains of real serialization libraries (``json``, ``yaml``, ``xml_text``,
...), any callable (``function``), compositions that blame the first hop that changed
a value (``chain``), HTTP endpoints (``http``, over httpx) and MCP servers (``mcp``,
over the official SDK), plus the reference reflector servers. Every name loads its
module on first use, so importing ``probes`` costs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fidelity._core.lazy import lazy_exports

if TYPE_CHECKING:
    from probes._chains.chain import ChainHop, ChainProbe, chain, function, hop
    from probes._chains.hops import (
        argv,
        builtin_hops,
        csv,
        email_header,
        env,
        form,
        json,
        pipe,
        query,
        text_file,
        toml,
        xml_attr,
        xml_text,
        yaml,
    )
    from probes._http.probe import HttpProbe, http
    from probes._http.reflector import HttpReflector, http_reflector
    from probes._mcp.module import mcp_module
    from probes._mcp.probe import DestructiveToolRefused, McpProbe, McpTool, mcp
    from probes._mcp.reflector import McpReflector, mcp_reflector
    from probes._target import BuiltinTarget

__all__ = [
    "BuiltinTarget",
    "ChainHop",
    "ChainProbe",
    "DestructiveToolRefused",
    "HttpProbe",
    "HttpReflector",
    "McpProbe",
    "McpReflector",
    "McpTool",
    "argv",
    "builtin_hops",
    "chain",
    "csv",
    "email_header",
    "env",
    "form",
    "function",
    "hop",
    "http",
    "http_reflector",
    "json",
    "mcp",
    "mcp_module",
    "mcp_reflector",
    "pipe",
    "query",
    "text_file",
    "toml",
    "xml_attr",
    "xml_text",
    "yaml",
]

#: Marks this package as param-fidelity's, so a shadowing local ``probes`` is detected.
__param_fidelity__ = True

_MODULES = {
    "probes._chains.chain": ("ChainHop", "ChainProbe", "chain", "function", "hop"),
    "probes._chains.hops": (
        "argv", "builtin_hops", "csv", "email_header", "env", "form", "json", "pipe",
        "query", "text_file", "toml", "xml_attr", "xml_text", "yaml",
    ),
    "probes._http.probe": ("HttpProbe", "http"),
    "probes._http.reflector": ("HttpReflector", "http_reflector"),
    "probes._mcp.module": ("mcp_module",),
    "probes._mcp.probe": ("DestructiveToolRefused", "McpProbe", "McpTool", "mcp"),
    "probes._mcp.reflector": ("McpReflector", "mcp_reflector"),
    "probes._target": ("BuiltinTarget",),
}  # fmt: skip


__getattr__, __dir__ = lazy_exports(__name__, _MODULES, globals())
