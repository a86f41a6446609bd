"""The MCP client libraries a probe can speak through, by name.

``python``
    the official Python SDK (``mcp``) with the initialize handshake of the protocol
    versions up to 2025-11-25 (``mode="legacy"``), which every server speaks.
``python-2026``
    the same SDK speaking protocol 2026-07-28 where the server supports it: it asks
    with ``server/discover`` and falls back to the handshake otherwise
    (``mode="auto"``, what ``probes.mcp`` does when no client is named). The
    version it settled on is recorded per run.
``typescript``
    the official TypeScript SDK (``@modelcontextprotocol/sdk``) in Node.js, driven by
    the small program ``probes/_mcp/node/driver.mjs`` (see
    :mod:`probes._mcp.node.setup` for what it needs and installs).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from fidelity._core.errors import UsageError
from fidelity._core.render import safe
from fidelity._probe.contract import ClientInfo

__all__ = ["CLIENTS", "PYTHON_MODES", "ClientInfo", "check_clients"]

CLIENTS = ("python", "python-2026", "typescript")
#: The Python SDK's ``mode`` for each Python client.
PYTHON_MODES = {"python": "legacy", "python-2026": "auto"}


def check_clients(value: str | Iterable[str], *, name: str = "clients") -> tuple[str, ...]:
    """The client names of ``value`` (a list, or names separated by commas), checked.

    An unknown or repeated name, or none at all, is a ``UsageError`` naming the
    valid ones.
    """
    names = [n for n in re.split(r"[,\s]+", value) if n] if isinstance(value, str) else list(value)
    valid = ", ".join(CLIENTS)
    bad = [n for n in names if not isinstance(n, str) or n not in CLIENTS]
    if bad:
        shown = ", ".join(repr(safe(str(n))) for n in bad)
        raise UsageError(f"{name}: {shown} is not an MCP client; the clients are: {valid}.")
    if not names:
        raise UsageError(f"{name} names no client; the clients are: {valid}.")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UsageError(f"{name} names {', '.join(map(repr, twice))} more than once.")
    return tuple(names)
