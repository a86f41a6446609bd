"""Shared pieces of the MCP probe tests: payload sets, the npm servers, a silent port,
the quote-straightening edit server, a real server's schema, a committed card compared
undated."""

from __future__ import annotations

import re
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from _support.servers import QUOTE_EDIT_MCP, SERVERS
from fidelity import Payload

__all__ = [
    "NODE_MODULES",
    "NPM_BIN",
    "catalogue",
    "edit_file_schema",
    "node_ready",
    "npm_server",
    "one_per_family",
    "quote_edit",
    "silent_port",
    "typescript_client",
    "undated",
]

NODE_MODULES = SERVERS / "node_modules"
#: The installed entry points of the npm servers (``mcp-server-everything``...).
NPM_BIN = NODE_MODULES / ".bin"


def catalogue() -> tuple[Payload, ...]:
    """The payload catalogue (strategies.catalogue)."""
    from fidelity._core.siblings import load

    return tuple(load("strategies").catalogue())


def edit_file_schema(**properties: dict[str, Any]) -> dict[str, Any]:
    """The input schema @modelcontextprotocol/server-filesystem lists for ``edit_file``,
    in short: ``path``, ``edits[].oldText`` and ``.newText``, ``dryRun``; ``properties``
    adds properties, or replaces some."""
    string = {"type": "string"}
    edit = {
        "type": "object",
        "properties": {"oldText": string, "newText": string},
        "required": ["oldText", "newText"],
    }
    return {
        "type": "object",
        "properties": {
            "path": string,
            "edits": {"type": "array", "items": edit},
            "dryRun": {"type": "boolean", "default": False},
            **properties,
        },
        "required": ["path", "edits"],
    }


def one_per_family(payloads: tuple[Payload, ...], extra: int = 0) -> tuple[Payload, ...]:
    """The first ``1 + extra`` payloads of each family (for slow transports)."""
    seen: dict[str, int] = {}
    out = []
    for p in payloads:
        family = p.families[0]
        if seen.get(family, 0) <= extra:
            out.append(p)
            seen[family] = seen.get(family, 0) + 1
    return tuple(out)


def node_ready() -> bool:
    """True when ``npm ci --prefix tests/servers`` has installed the SDK and servers."""
    return (NODE_MODULES / "@modelcontextprotocol" / "sdk").is_dir() and all(
        (NPM_BIN / f"mcp-server-{name}").exists() for name in ("everything", "filesystem", "memory")
    )


def npm_server(name: str) -> str:
    """The installed command of ``@modelcontextprotocol/server-NAME``, as a path relative
    to the repository (so what a run records names no machine path); skips (fails in
    CI) when node or the package is missing."""
    from _needs import need, need_executable

    need_executable("node")
    need(node_ready(), "tests/servers/node_modules is missing: run npm ci --prefix tests/servers")
    return str((NPM_BIN / f"mcp-server-{name}").relative_to(SERVERS.parent.parent))


def quote_edit() -> Any:
    """``probes.mcp`` on the quote-straightening edit server (``QUOTE_EDIT_MCP``): the
    payload in ``old_string``, read back from what the tool searched for (the tool is
    annotated destructive: allowed); skips (fails in CI) without the MCP SDK."""
    from _needs import need_module

    import probes

    need_module("mcp")
    return probes.mcp(
        QUOTE_EDIT_MCP,
        tool="edit",
        param="old_string",
        args={"path": "notes.md", "new_string": "x"},
        read="armored:searched",
        allow_destructive=True,
    )


@contextmanager
def silent_port() -> Iterator[str]:
    """The URL of a loopback port that accepts connections and never answers."""
    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except TimeoutError:
                continue
            except OSError:
                return

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}/mcp"
    finally:
        stop.set()
        thread.join(2)
        for conn in held:
            conn.close()
        server.close()


def typescript_client(monkeypatch: Any) -> str:
    """Let the typescript client use ``tests/servers/node_modules`` (nothing installed);
    skips (fails in CI) without node or that folder. Returns the folder."""
    from _needs import need, need_executable

    need_executable("node")
    need(node_ready(), "tests/servers/node_modules is missing: run npm ci --prefix tests/servers")
    monkeypatch.setenv("FIDELITY_NODE_MODULES", str(NODE_MODULES))
    return str(NODE_MODULES)


def undated(markdown: str) -> str:
    """A card's Markdown without what changes from one run to the next (the date it was
    made, the version that made it), to compare with a committed card."""
    import fidelity

    markdown = re.sub(r" on \d{4}-\d{2}-\d{2}[^:]*:", " on DATE:", markdown)
    # Where it was measured (Python, libraries, the server's version) is not behaviour:
    # the drift check names it apart, and the suite runs on several Pythons.
    markdown = re.sub(r"^Measured on: .*$", "Measured on: ENVIRONMENT", markdown, flags=re.M)
    return markdown.replace(fidelity.__version__, "VERSION")
