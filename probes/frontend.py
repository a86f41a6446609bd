"""The face of ``probes`` that the front ends use beyond its public API.

The command line and the pytest plugin plan a run before any probe exists: they parse
the places a payload goes and is read back, check argument templates and client names,
list a server's string parameters and the consent rule, start the reference
reflectors. They reach those through this module only, never a private module of
``probes`` (``tests/test_layout.py`` checks it). Every name loads its module on first
use, as the package face does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from fidelity._core.errors import UsageError
from fidelity._core.lazy import lazy_exports

if TYPE_CHECKING:
    from fidelity._probe.observation import Observation
    from probes._builtin import builtin_targets
    from probes._http.openapi import load_openapi, openapi_base_url
    from probes._http.places import ReadSpec, SendSpec
    from probes._http.raw_request import RawHttpAnswer, raw_request
    from probes._mcp.calls import other_arguments
    from probes._mcp.clients import check_clients
    from probes._mcp.inventory import Inventory, ToolParam, inventory
    from probes._mcp.node.setup import install_needed, typescript_client
    from probes._mcp.prompts import PROMPT, Route, route_of
    from probes._mcp.raw_call import RawAnswer, RawOutcome, raw_call
    from probes._mcp.read import Reader
    from probes._mcp.reply_limit import DEFAULT_MAX_REPLY, MIN_MAX_REPLY
    from probes._mcp.sandbox import new_sandbox, sandbox_env, sandboxed, work_dir
    from probes._mcp.schema import schema_at, string_params
    from probes._mcp.sdk import sdk_major, sdk_version
    from probes._mcp.template import ArgumentTemplate
    from probes._mcp.tool_cap import MAX_TOOLS
    from probes._mcp.tools import consent_reason
    from probes._payload.calibration import CalibrationFailed
    from probes._payload.expect import Expectation
    from probes._payload.locate import CALIBRATION_CALLS
    from probes._payload.paths import ParamPath
    from probes._payload.placeholders import TextTemplate
    from probes._process import contained

__all__ = [
    "CALIBRATION_CALLS",
    "DEFAULT_MAX_REPLY",
    "MAX_TOOLS",
    "MIN_MAX_REPLY",
    "PROMPT",
    "ArgumentTemplate",
    "CalibrationFailed",
    "Expectation",
    "Inventory",
    "ParamPath",
    "RawAnswer",
    "RawHttpAnswer",
    "RawOutcome",
    "Route",
    "TextTemplate",
    "ToolParam",
    "builtin_targets",
    "check_clients",
    "consent_reason",
    "contained",
    "install_needed",
    "inventory",
    "load_openapi",
    "new_sandbox",
    "openapi_base_url",
    "other_arguments",
    "parse_http_read",
    "parse_http_send",
    "parse_mcp_read",
    "raw_call",
    "raw_request",
    "read_after_restart",
    "route_of",
    "sandbox_env",
    "sandboxed",
    "schema_at",
    "sdk_major",
    "sdk_version",
    "serve_http_reflector",
    "serve_mcp_reflector",
    "string_params",
    "typescript_client",
    "work_dir",
]

_MODULES = {
    "probes._builtin": ("builtin_targets",),
    "probes._http.openapi": ("load_openapi", "openapi_base_url"),
    "probes._http.raw_request": ("RawHttpAnswer", "raw_request"),
    "probes._mcp.calls": ("other_arguments",),
    "probes._mcp.clients": ("check_clients",),
    "probes._mcp.inventory": ("Inventory", "ToolParam", "inventory"),
    "probes._mcp.tool_cap": ("MAX_TOOLS",),
    "probes._process": ("contained",),
    "probes._mcp.node.setup": ("install_needed", "typescript_client"),
    "probes._payload.paths": ("ParamPath",),
    "probes._payload.calibration": ("CalibrationFailed",),
    "probes._payload.locate": ("CALIBRATION_CALLS",),
    "probes._mcp.prompts": ("PROMPT", "Route", "route_of"),
    "probes._mcp.raw_call": ("RawAnswer", "RawOutcome", "raw_call"),
    "probes._mcp.reply_limit": ("DEFAULT_MAX_REPLY", "MIN_MAX_REPLY"),
    "probes._mcp.sandbox": ("new_sandbox", "sandbox_env", "sandboxed", "work_dir"),
    "probes._mcp.schema": ("schema_at", "string_params"),
    "probes._mcp.sdk": ("sdk_major", "sdk_version"),
    "probes._mcp.template": ("ArgumentTemplate",),
    "probes._mcp.tools": ("consent_reason",),
    "probes._payload.expect": ("Expectation",),
    "probes._payload.placeholders": ("TextTemplate",),
}

__getattr__, __dir__ = lazy_exports(__name__, _MODULES, globals())


def parse_http_read(spec: object) -> ReadSpec:
    """Parse an HTTP ``--read`` (``json:PATH``, ``body``, ``header:NAME``, ``regex:P``)."""
    from probes._http.places import parse_read

    return parse_read(spec)


def parse_http_send(spec: object) -> SendSpec:
    """Parse an HTTP ``--send`` (``json:PATH``, ``form:NAME``, ``query:NAME``...)."""
    from probes._http.places import parse_send

    return parse_send(spec)


def parse_mcp_read(spec: str) -> Reader:
    """Parse an MCP ``--read`` (``text``, ``json:PATH``, ``structured:PATH``...)."""
    from probes._mcp.read import parse_read

    return parse_read(spec)


def serve_http_reflector(host: str = "127.0.0.1", port: int = 0) -> None:
    """Run the HTTP reference reflector until interrupted."""
    from probes._http.reflector import serve

    serve(host, port)


def serve_mcp_reflector(transport: str = "stdio", host: str = "127.0.0.1", port: int = 0) -> None:
    """Run the MCP reference reflector (``stdio`` or ``http``) until interrupted."""
    from probes._mcp.reflector import serve

    serve(transport, host, port)


def read_after_restart(
    probe: object, command: str | None, observations: Sequence[Observation]
) -> list[Observation]:
    """Every value read back once more after a restart: of the HTTP service by the
    shell ``command`` (``--restart``), or of the stdio MCP server the probe started
    (``command`` ``None``: ``--read-after-restart``)."""
    if command is not None:
        from probes._http.restart import read_after_restart as http_again

        return http_again(probe, command, observations)
    from probes._mcp.probe import McpProbe
    from probes._mcp.restart import read_after_restart as mcp_again

    if not isinstance(probe, McpProbe):
        raise UsageError(
            "--read-after-restart restarts a stdio MCP server; for HTTP give --restart CMD."
        )
    return mcp_again(probe, observations)
