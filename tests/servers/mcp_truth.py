"""An MCP server whose tools answer in the shapes that misled automatic read-back
location on real servers. Every tool but ``garble`` keeps every byte it is given (in
memory, or in files under the directory given as the first argument), so any kind a
probe reports against them is a false one, and so is any ``lost``.

``write_note(path, content)``   answers JSON text ``{"path": ..., "content": ...}``
``save(content)``               answers ``Saved /srv/notes/<slug>.txt`` and the content
                                on the next line: the value twice, once changed
``post(message)``               answers ``Posted to #<slug>: <message>``: a channel name
                                made from the value before it
``run_job(input)``              answers ``Job <id> RUNNING|COMPLETED: output=<input>``,
                                the status word changing from call to call
``commit(message)``             answers ``{"subject": first line, "body": the rest}``
``commit_full(message)``        the same, with the whole ``message`` too
``put(path, content)``          answers JSON text keyed by the file path (the path
                                holds ``{n}``): ``{"<path>": {"content": ...}}``
``append(entry)``               answers every entry so far, oldest first:
                                ``{"entries": [{"id": 1, "text": ...}, ...]}``
``garble(text)``                inserts U+FFFD in the middle of what it echoes
``write_file(path, content)``   writes ``content`` to the file ``path`` in the directory
``read_file(path)``             answers the file's text with CRLF read as LF (the
                                write kept it: the read tool rewrites line breaks)

Run over stdio: ``python mcp_truth.py [DIR]``.
"""

from __future__ import annotations

import itertools
import json
import re
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

server: MCPServer = MCPServer("truth", log_level="WARNING")
_WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True)
_ROOT = Path(sys.argv[1]) if len(sys.argv) > 1 else None
_jobs = itertools.count(1001)
_entries: list[dict[str, object]] = []
_notes: dict[str, str] = {}


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40] or "untitled"


@server.tool(annotations=_WRITES, structured_output=False)
def write_note(path: str, content: str) -> str:
    """Store a note; answers the stored note as JSON."""
    _notes[path] = content
    return json.dumps({"path": path, "content": _notes[path]})


@server.tool(annotations=_WRITES, structured_output=False)
def save(content: str) -> str:
    """Save a note under a name made from its text."""
    _notes[_slug(content)] = content
    return f"Saved /srv/notes/{_slug(content)}.txt\n{content}"


@server.tool(annotations=_WRITES, structured_output=False)
def post(message: str) -> str:
    """Post a message to a channel named after it."""
    return f"Posted to #{_slug(message)}: {message}"


@server.tool(annotations=_WRITES, structured_output=False)
def run_job(input: str) -> str:
    """Run a job on the input."""
    job = next(_jobs)
    status = "RUNNING" if job % 2 else "COMPLETED"
    return f"Job {job} {status}: output={input}"


@server.tool(annotations=_WRITES, structured_output=False)
def commit(message: str) -> str:
    """Commit; answers the commit's subject and body."""
    subject, _, body = message.partition("\n")
    return json.dumps({"sha": f"{abs(hash(message)):x}", "subject": subject, "body": body})


@server.tool(annotations=_WRITES, structured_output=False)
def commit_full(message: str) -> str:
    """Commit; answers the subject, the body and the whole message."""
    subject, _, body = message.partition("\n")
    return json.dumps({"subject": subject, "body": body, "message": message})


@server.tool(annotations=_WRITES, structured_output=False)
def put(path: str, content: str) -> str:
    """Store a file; answers it keyed by its path."""
    _notes[path] = content
    return json.dumps({path: {"content": _notes[path], "size": len(content)}})


@server.tool(annotations=_WRITES, structured_output=False)
def append(entry: str) -> str:
    """Append an entry to the log; answers the whole log."""
    _entries.append({"id": len(_entries) + 1, "text": entry})
    return json.dumps({"entries": _entries})


@server.tool(annotations=_WRITES, structured_output=False)
def garble(text: str) -> str:
    """Echo the text (with a byte of noise in the middle)."""
    half = len(text) // 2
    return f"Echo: {text[:half]}\ufffd{text[half:]}"


@server.tool(annotations=_WRITES, structured_output=False)
def write_file(path: str, content: str) -> str:
    """Write a file."""
    assert _ROOT is not None
    (_ROOT / path).write_bytes(content.encode("utf-8", "surrogatepass"))
    return f"Wrote {len(content)} characters to {path}"


@server.tool(annotations=ToolAnnotations(read_only_hint=True), structured_output=False)
def read_file(path: str) -> str:
    """Read a file as text."""
    assert _ROOT is not None
    return (_ROOT / path).read_bytes().decode("utf-8", "replace").replace("\r\n", "\n")


if __name__ == "__main__":
    server.run()
