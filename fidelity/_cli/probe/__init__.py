"""``fidelity probe``: sweep the payload catalogue through a deployed endpoint.

Targets: an HTTP endpoint (``fidelity probe URL``), an MCP server over Streamable
HTTP (``--mcp URL`` or ``mcp+http(s)://...``) or over stdio
(``fidelity probe --mcp -- COMMAND ARGS...``). Registration imports nothing heavy; the
work is in :mod:`fidelity._sweep.execute`.
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["register", "run"]

_EPILOG = """\
placeholders (in --args, --read-args, --before, --read-url, --expect, --body, --form,
--default, header values and the target URL):
  "{payload}"  a string value that is exactly this becomes the payload ("{payload}{mark}"
               inside a longer string only with --expect, which says what to read back);
               in the URL's path and --read-url, the payload as one path segment
  {n}          a number unique to the payload: 1, 2, 3... (0, 1000001, 1000002 for the
               calibration calls when the read-back is located)
  {run}        an id unique to the run;  {{ and }} are literal braces
  {mark}       a plain-ASCII token unique to the payload: an edit that must apply writes
               it, and a read-back without it is rejected (silent: no error flag, but
               the edit did not apply; the tool's answer is quoted)

tools are called without --yes only when the server annotates them readOnlyHint: true;
annotations are the server's hints, not guarantees: point the run at disposable data.

examples (npx fetches each server unless it is installed where you run the command):
  # the echo tool: its argument (message) and where the value comes back are found
  fidelity probe --mcp -- npx -y @modelcontextprotocol/server-everything

  # an edit that must apply: seed a file with the payload, edit it to payload + mark,
  # read it back; an edit that answers "no match" without an error flag is caught
  mkdir -p /tmp/fidelity-root && fidelity probe --mcp --yes --tool edit_file \\
    --before 'write_file={"path": "/tmp/fidelity-root/f{n}.txt", "content": "{payload}"}' \\
    --args '{"path": "/tmp/fidelity-root/f{n}.txt", "edits": [{"oldText": "{payload}", "newText": "{payload}{mark}"}]}' \\
    --read-tool read_text_file --read-args '{"path": "/tmp/fidelity-root/f{n}.txt"}' \\
    --expect '{payload}{mark}' \\
    --families newlines,whitespace -- npx -y @modelcontextprotocol/server-filesystem /tmp/fidelity-root

  # a payload deep in the arguments, read back from the JSON text open_nodes answers
  fidelity probe --mcp --yes --tool create_entities --param 'entities[0].observations[0]' \\
    --args '{"entities": [{"name": "note-{run}-{n}", "entityType": "note"}]}' \\
    --read-tool open_nodes --read-args '{"names": ["note-{run}-{n}"]}' \\
    -- env MEMORY_FILE_PATH=/tmp/fidelity-memory.jsonl npx -y @modelcontextprotocol/server-memory

  # write-then-read over HTTP: an endpoint whose POST answers {"id": ...}
  fidelity probe http://127.0.0.1:8000/items --send json:text \\
    --read-url 'http://127.0.0.1:8000/items/{id}' --id-from json:id

  # a prompt's argument, read back from the messages prompts/get answers
  fidelity probe --mcp --prompt args-prompt --param city \\
    -- npx -y @modelcontextprotocol/server-everything

  # an API behind a bearer token, with a required field beside the payload's
  fidelity probe http://127.0.0.1:8001/notes --header 'Authorization: Bearer ${API_TOKEN}' \\
    --body '{"owner": "probe-{run}"}' --send json:title

  # a PATCH endpoint, with basic auth
  fidelity probe http://127.0.0.1:8001/notes/1 --method PATCH --auth alice:secret --send json:title

  # a GET filter (GET is the default for query:NAME)
  fidelity probe "http://127.0.0.1:8001/search?scope=notes" --send query:title --auth alice:secret

  # every free-form string parameter of every tool (read-only ones without --yes)
  fidelity probe --mcp --all-tools -- npx -y @modelcontextprotocol/server-everything

  # the same plan through three MCP client libraries, side by side
  fidelity probe --mcp --clients python,python-2026,typescript \\
    -- npx -y @modelcontextprotocol/server-everything

exit codes:
  0  payloads came back, and no rewrite beyond --allow
  1  rewrites beyond --allow (the map names them); with --clients, also when the
     clients disagree beyond --allow
  2  usage error, in one sentence; nothing was sent (with --config, also a
     --skip-tool/--only-tool glob or an --args-for tool that matched no tool of any
     server reached: said after the run, its results kept)
  3  the target is unreachable or broke; or the calibration request was sent and
     refused, or did not bring the value back (the outputs are written); or a protocol failure: the client could not
     parse the replies to more than half of the payloads sent; or a timeout on a tool
     not annotated readOnlyHint or idempotentHint true (the run stops at once); or
     nothing was measured: no payload sent came back (the most common error is
     quoted). Results gathered so far are kept.
  With --all-tools and --openapi, one rule for the exit code, --junit and --json:
  1 when any finding beyond --allow exists (a rewrite, a payload lost among values
  that came back, an edit that never applied), even if other parameters measured
  nothing; 3 only when nothing was found and the server or a parameter's run broke,
  or a parameter surveyed measured nothing (no read-back, arguments not made, every
  payload lost or rejected; the others' results are kept); 0 otherwise. Tools left
  out with --skip-tool or --only-tool are not counted. With --config, a server's
  finding outranks another's exit 3.
  With --clients: these rules hold for each client's run; one client that measured
  nothing is exit 3.
  With --check: 0 when the endpoint behaves as its card says, 1 on drift.
  With --errors: 1 when an answer's verdict other than structured is beyond --allow
  (error.unnamed, error.leaky, error.accepted, error.crashed, error.timeout), 3 when
  the server could not be reached or none of its tools could be called, else 0.

warnings (one line each, kept in the JSON result; the exit code is unchanged): more
than half of the payloads sent rejected by the target (with the most common error);
replies the client could not parse, for fewer than half; lines of a stdio server's
stdout that are not JSON-RPC; the same prefix or suffix around every value (with the
--read that removes it); most values that came back one and the same text for
different payloads (a read-back of a stale entry). A value read back that is the
calibration marker is lost, not a rewrite. Values the client library refused before
sending count toward none of these rules.

timeouts follow the tool: annotated readOnlyHint or idempotentHint true, a timeout is
recorded, the session checked, and the run goes on (the payload is never resent; five
timeouts in a row stop it); any other tool stops the run, after one read with
--read-tool that says whether the write landed (effect: landed, absent or unknown).
"""  # noqa: E501


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
    target.add_argument(
        "--transport",
        choices=("http", "sse"),
        help="MCP over a URL: http (Streamable HTTP, falling back to the legacy SSE "
        "transport when the URL answers its handshake with a 4xx; the default) or sse "
        "(the legacy HTTP+SSE transport only)",
    )
    target.add_argument("--tool", help="MCP tool to call (default: echo)")
    target.add_argument(
        "--prompt",
        metavar="NAME",
        help="MCP: probe a prompt instead of a tool: the payload is its argument --param "
        "ARG, read back from prompts/get's messages (no side effect: no --yes needed)",
    )
    target.add_argument(
        "--resource",
        metavar="TEMPLATE",
        help="MCP: probe a resource template (its URI template or name): the payload fills "
        "its variable --param VAR, read back from resources/read (no --yes needed)",
    )
    target.add_argument(
        "--param",
        metavar="PATH",
        help="MCP: where the payload goes in the tool's arguments: a name or a path such as "
        "edits[0].oldText (default: the tool's only free-form string parameter, unless "
        '--args holds "{payload}")',
    )
    target.add_argument(
        "--args",
        metavar="JSON",
        help="MCP: the tool's arguments, a JSON object with placeholders (see below)",
    )
    target.add_argument(
        "--before",
        action="append",
        metavar="TOOL=JSON",
        help="MCP: a setup call made before each payload, such as a seed file's write_file "
        "(repeat for several, in order; same placeholders)",
    )
    target.add_argument(
        "--send",
        metavar="WHERE",
        help="HTTP: where the payload goes: json:PATH, form:NAME, multipart:NAME, "
        "filename:NAME, query:NAME, header:NAME, body, or path / url (the URL holds "
        "{value}) (default json:text)",
    )
    target.add_argument(
        "--header",
        action="append",
        metavar="'NAME: VALUE'",
        help="HTTP and MCP over HTTP: a header sent with every request (repeat for several; "
        "${VAR} is taken from the environment); its value is shown as *** everywhere",
    )
    target.add_argument(
        "--auth",
        metavar="USER:PASS",
        help="HTTP and MCP over HTTP: basic auth (credentials in the URL work too); the "
        "password is shown as *** everywhere",
    )
    from fidelity._sweep.http_flags import register as register_http_flags

    register_http_flags(target)
    target.add_argument(
        "--method",
        metavar="METHOD",
        help="HTTP: the write request's method (default POST when the payload or --body "
        "goes in the body, GET when the payload goes in the query, the path or a header)",
    )
    target.add_argument(
        "--read-method",
        metavar="METHOD",
        help="HTTP: the method of the --read-url request (default GET)",
    )
    target.add_argument(
        "--body",
        metavar="JSON",
        help='HTTP: the request body, a JSON object with placeholders ("{payload}", {n}, '
        "{run}); --send json:PATH places the payload at PATH in it, creating what is missing",
    )
    target.add_argument(
        "--name",
        metavar="NAME",
        help="the result's and the card block's name (default: HTTP the method, the URL's "
        "path and the send place, such as 'POST /notes json:title'; MCP the tool and "
        "parameter)",
    )
    target.add_argument(
        "--read",
        metavar="WHERE",
        help="where the value is read back: HTTP json:PATH, body, header:NAME, "
        "regex:PATTERN; MCP text, regex:PATTERN, json:PATH (JSON in the text), "
        "structured:PATH, armored:PATH (default: located by three calibration calls, a "
        "plain marker, one with a quote and a backslash, one with a line break, and "
        "printed so you can pin it)",
    )
    target.add_argument(
        "--read-tool", metavar="NAME", help="MCP: a second tool that reads the value back"
    )
    target.add_argument(
        "--read-args",
        metavar="JSON",
        help="MCP: arguments of --read-tool, a JSON object with placeholders",
    )
    target.add_argument(
        "--expect",
        metavar="TEMPLATE",
        help="what the read-back must equal after the calls (default {payload}); with "
        "{mark}, a read-back without the payload's mark means the edit did not apply: "
        "that payload is rejected (silent), the tool's answer quoted",
    )
    target.add_argument(
        "--read-url",
        metavar="URL",
        help="HTTP: read the value back with a GET of URL after each write; it may hold "
        "{id}, {n}, {run}",
    )
    target.add_argument(
        "--id-from",
        metavar="WHERE",
        help="HTTP: where the write response holds the {id} of --read-url: json:PATH, "
        "header:NAME or regex:PATTERN",
    )
    target.add_argument(
        "--all-tools",
        action="store_true",
        help="MCP: survey every free-form string parameter of every tool (instead of "
        "--tool); constrained strings and tools that need --yes are listed as skipped; a "
        "write tool is read back through a paired read tool, and an edit tool (old/new "
        "texts) is seeded through a write tool and must apply its edit",
    )
    target.add_argument(
        "--args-for",
        action="append",
        metavar="TOOL=JSON",
        help="with --all-tools: pin some arguments of TOOL (repeat for several tools; the "
        "others are made from its schema; same placeholders)",
    )
    target.add_argument(
        "--skip-tool",
        action="append",
        metavar="GLOB",
        help="with --all-tools: never call the tools matching GLOB, in any role (repeat)",
    )
    target.add_argument(
        "--only-tool",
        action="append",
        metavar="GLOB",
        help="with --all-tools: call only the tools matching GLOB (repeat)",
    )
    # Given by a --config run to each server's child (never by a user): where to write
    # the server's tool names, with which the parent judges the globs over the whole file.
    target.add_argument("--config-tools", metavar="FILE", help=argparse.SUPPRESS)
    target.add_argument(
        "--sandbox",
        action="store_true",
        help="MCP stdio: run the server in a fresh temporary directory (its working "
        "directory, {sandbox} in the command and arguments) with its own HOME and TMPDIR "
        "and a minimal environment, all removed afterwards",
    )
    target.add_argument(
        "--env",
        action="append",
        metavar="NAME=VALUE",
        help="MCP stdio: a variable in the server's environment (repeat for several; "
        "${VAR} is taken from your environment): the way to pass a secret, whose value is "
        "shown as *** everywhere and never recorded",
    )
    target.add_argument(
        "--openapi",
        metavar="SPEC",
        help="HTTP: survey every string field of every operation of this OpenAPI 3.0/3.1 "
        "document (a file or URL, JSON or YAML); the base URL is the URL given, else the "
        "document's first server; only GET, HEAD and OPTIONS run without --yes",
    )
    target.add_argument(
        "--only-op",
        action="append",
        metavar="GLOB",
        help="with --openapi: survey only the operations matching 'METHOD /path' globs, "
        "such as 'POST /notes*' (repeat for several)",
    )
    target.add_argument(
        "--skip-op",
        action="append",
        metavar="GLOB",
        help="with --openapi: leave out the operations matching 'METHOD /path' globs",
    )
    target.add_argument(
        "--default",
        action="append",
        metavar="NAME=JSON",
        help="with --openapi: the value of a path, query or header parameter or a body "
        "field NAME in every request, such as --default bid=3 (the others are made from "
        "the schema); with --all-tools: the argument NAME (JSON) of every tool that has a "
        "parameter of that name ({n}, {run}, {sandbox} in its strings)",
    )
    target.add_argument(
        "--clients",
        metavar="LIST",
        help="MCP: run the same plan through each of these clients and show them side by "
        "side: python (the Python SDK, legacy handshake), python-2026 (the Python SDK, "
        "protocol 2026-07-28 where the server supports it), typescript (the TypeScript "
        "SDK; needs node)",
    )
    target.add_argument(
        "--yes",
        action="store_true",
        help="allow calling tools that are not annotated readOnlyHint: true (annotations "
        "are hints from an untrusted server, not guarantees)",
    )
    target.add_argument(
        "--errors",
        action="store_true",
        help="check the error contract instead of sending payloads: each tool (or --tool's) "
        "gets malformed calls made from its schema (a required argument missing, a string "
        "given a number, an extra argument, a value outside a declared enum, minLength, "
        "maxLength or pattern, an empty object), plus one call to a tool that does not "
        "exist; each answer is structured, unnamed, leaky, accepted, crashed or timeout "
        "(--allow error.accepted... lets a verdict pass)",
    )
    servers = p.add_argument_group("several servers")
    servers.add_argument(
        "--config",
        metavar="FILE",
        help="survey every MCP server of a client's configuration file (an mcpServers or a "
        "servers map; comments allowed) with the --all-tools rules, one process per server",
    )
    servers.add_argument(
        "--server",
        action="append",
        metavar="NAME",
        help="with --config: only this server (repeat for several)",
    )
    servers.add_argument(
        "--jobs", metavar="N", help="with --config: servers surveyed at once (default 1)"
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
    report.add_argument(
        "--check",
        metavar="DOC.md",
        help="compare the run with the card block of the same name in DOC.md (as fidelity "
        "card --check does): exit 1 on drift, 0 when the endpoint still behaves as its card "
        "says, rewrites it documents included; DOC.md is not rewritten",
    )
    report.add_argument("--json", metavar="FILE", help="write the JSON result ('-' for stdout)")
    report.add_argument("--html", metavar="FILE", help="write a self-contained HTML report")
    report.add_argument(
        "--junit",
        metavar="FILE.xml",
        help="write JUnit XML for a CI system: a testsuite per target, a testcase per "
        "parameter (a failure names the rewrites beyond --allow, an error a run that broke "
        "or measured nothing)",
    )
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
    from fidelity._sweep.isolation import sandboxed
    from fidelity._sweep.plan import plan_from_args

    if getattr(args, "errors", False) and args.config is None and args.openapi is None:
        from fidelity._cli.probe.errors_cli import run_errors_cli

        return run_errors_cli(args)
    if getattr(args, "errors", False) and args.config is not None:
        from fidelity._cli.probe.errors_cli import run_errors_config

        return run_errors_config(args)
    if args.config is not None:
        from fidelity._cli.probe.config_cli import run_config

        return run_config(args)
    if args.server or args.jobs is not None:
        from fidelity._core.errors import UsageError

        raise UsageError("--server and --jobs choose servers of --config FILE; give it.")
    if getattr(args, "openapi", None) is not None:
        from fidelity._cli.probe.openapi_cli import run_openapi

        return run_openapi(args)
    from fidelity._cli.probe.openapi_cli import refuse_openapi_options

    refuse_openapi_options(args)
    plan = plan_from_args(args)
    with sandboxed(plan.sandbox):
        if plan.list_tools:
            from fidelity._cli.probe.preview import list_tools

            return list_tools(plan)
        if plan.all_tools:
            from fidelity._cli.probe.listeners import terminal
            from fidelity._sweep.alltools import execute_all

            return execute_all(plan, terminal(plan))
        if plan.dry_run:
            from fidelity._cli.probe.preview import dry_run

            return dry_run(plan)
        if plan.clients:
            from fidelity._cli.probe.listeners import ClientsPrinter
            from fidelity._sweep.clients import execute_clients

            return execute_clients(plan, ClientsPrinter)
        from fidelity._cli.probe.listeners import MapPrinter
        from fidelity._sweep.execute import execute

        return execute(plan, reporters=(MapPrinter(plan),))
