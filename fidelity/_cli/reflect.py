"""``fidelity reflect http|mcp``: run a reference reflector server."""

from __future__ import annotations

import argparse
from typing import Any

from fidelity._core.errors import ExitCode, UsageError

__all__ = ["register"]


def register(sub: Any) -> None:
    """Add the ``reflect`` subcommand."""
    p: argparse.ArgumentParser = sub.add_parser(
        "reflect",
        help="run a reference reflector that reports exactly what it received",
        description=(
            "Run a reference reflector. It answers with what it received in an armored "
            "form (base64 of the bytes and the code points), so the request path is "
            "measured alone, and can emit an armored value to measure the response path."
        ),
    )
    p.add_argument("kind", choices=("http", "mcp"), help="which protocol to reflect")
    p.add_argument(
        "--transport",
        choices=("stdio", "http"),
        default="stdio",
        help="MCP transport: stdio (default) or Streamable HTTP",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=0, help="port to bind (default: OS-assigned)")
    p.add_argument(
        "--allow-remote",
        action="store_true",
        help="permit binding to an address other than loopback",
    )
    p.set_defaults(run=run)


def _check_host(host: str, allow_remote: bool) -> None:
    import ipaddress

    if host == "localhost":
        return
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback and not allow_remote:
        raise UsageError(
            f"--host {host} is not a loopback address; "
            "pass --allow-remote to expose the reflector to other machines."
        )


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted."""
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port} is not a port number (0-65535, 0 picks a free one).")
    if args.kind == "http":
        _check_host(args.host, args.allow_remote)
        from probes.frontend import serve_http_reflector

        serve_http_reflector(host=args.host, port=args.port)
        return ExitCode.OK
    if args.transport == "http":
        _check_host(args.host, args.allow_remote)
    from probes.frontend import serve_mcp_reflector

    serve_mcp_reflector(transport=args.transport, host=args.host, port=args.port)
    return ExitCode.OK
