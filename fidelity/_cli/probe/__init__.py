"""``fidelity probe``: sweep the payload catalogue through a deployed endpoint.

Targets: an HTTP endpoint (``fidelity probe URL``), an MCP server over Streamable
HTTP (``--mcp URL`` or ``mcp+http(s)://...``) or over stdio
(``fidelity probe --mcp -- COMMAND ARGS...``). Registration imports nothing heavy; the
work is in :mod:`fidelity._cli.probe.execute`.
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["register", "run"]

_EPILOG = """\
examples:
  fidelity probe http://127.0.0.1:8000/echo --send json:text --read json:text
  fidelity probe --mcp -- npx -y @modelcontextprotocol/server-everything
  fidelity probe mcp+http://127.0.0.1:9000/mcp --tool edit --param old_string \\
      --args '{"path": "/tmp/x"}' --families quotes,newlines --json result.json

exit codes: 0 nothing beyond --allow, 1 rewrites beyond --allow, 2 usage error,
3 target unreachable or protocol failure.
"""


def register(sub: Any) -> None:
    """Add the ``probe`` subcommand."""
    p: argparse.ArgumentParser = sub.add_parser(
        "probe",
        help="probe an HTTP endpoint or an MCP server with the payload catalogue",
        description=(
            "Push the payload catalogue through a deployed HTTP endpoint or MCP server, "
            "read each value back, and print what the chain preserves, rewrites or rejects."
        ),
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "target",
        nargs="*",
        metavar="URL | -- COMMAND ARGS",
        help="http(s) URL, mcp+http(s) URL, or (with --mcp, after --) a stdio server command",
    )
    target = p.add_argument_group("target")
    target.add_argument(
        "--mcp", action="store_true", help="the target is an MCP server (stdio command or URL)"
    )
    target.add_argument("--tool", help="MCP tool to call (default: echo)")
    target.add_argument(
        "--param", help="MCP tool argument that carries the payload (default: text)"
    )
    target.add_argument(
        "--args", metavar="JSON", help="MCP: the other tool arguments, a JSON object"
    )
    target.add_argument(
        "--send",
        metavar="WHERE",
        help="HTTP: where the payload goes: json:PATH, form:NAME, multipart:NAME, "
        "filename:NAME, query:NAME, header:NAME, body, or path / url (the URL holds "
        "{value}) (default json:text)",
    )
    target.add_argument(
        "--read",
        metavar="WHERE",
        help="where the value is read back: HTTP json:PATH, body, header:NAME, "
        "regex:PATTERN; MCP text, regex:PATTERN, structured:PATH, armored:PATH",
    )
    target.add_argument(
        "--read-tool", metavar="NAME", help="MCP: a second tool that reads the value back"
    )
    target.add_argument(
        "--read-args", metavar="JSON", help="MCP: arguments of --read-tool, a JSON object"
    )
    target.add_argument(
        "--yes", action="store_true", help="allow calling a tool annotated as destructive"
    )
    budget = p.add_argument_group("budget")
    budget.add_argument(
        "--families", metavar="LIST", help="comma-separated hazard families (default: all)"
    )
    # Numbers are checked by the plan, so a bad one is one sentence, not a usage dump.
    budget.add_argument("--examples", metavar="N", help="add N generated payloads (default 0)")
    budget.add_argument("--max-requests", metavar="N", help="send at most N requests (tool calls)")
    budget.add_argument("--rate", metavar="N/s", help="at most N requests per second")
    budget.add_argument("--concurrency", metavar="N", help="HTTP requests in flight (default 1)")
    budget.add_argument("--timeout", metavar="S", help="seconds per request (default 10)")
    budget.add_argument("--seed", metavar="N", help="seed for generated payloads")
    budget.add_argument(
        "--max-reply",
        metavar="BYTES",
        help="largest reply read, e.g. 65536, 512KiB, 8MiB (default 8MiB); a longer one is "
        "not read further and its payload is broken",
    )
    report = p.add_argument_group("report")
    report.add_argument(
        "--allow",
        action="append",
        metavar="KIND",
        help="a rewrite kind that does not fail the run (repeat, or separate with commas)",
    )
    report.add_argument(
        "--card", metavar="FILE.md", help="write (or update the block of) a contract card"
    )
    report.add_argument("--json", metavar="FILE", help="write the JSON result ('-' for stdout)")
    report.add_argument("--html", metavar="FILE", help="write a self-contained HTML report")
    report.add_argument("--quiet", action="store_true", help="no progress bar and no table")
    actions = p.add_argument_group("instead of probing")
    actions.add_argument(
        "--list-tools", action="store_true", help="MCP: list the server's tools and exit"
    )
    actions.add_argument(
        "--dry-run", action="store_true", help="print what would be sent, send nothing"
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Check the arguments, probe the target, write the reports; return the exit code."""
    from fidelity._cli.probe.execute import execute
    from fidelity._cli.probe.plan import plan_from_args

    return execute(plan_from_args(args))
