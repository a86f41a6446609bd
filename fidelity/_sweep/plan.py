"""What ``fidelity probe`` was asked to do, checked before anything is sent.

:func:`plan_from_args` turns the parsed command line into a :class:`ProbePlan`:
which kind of target (HTTP endpoint, MCP over stdio, MCP over Streamable HTTP),
where the payload goes and where it is read back, the budget (families, examples,
request cap, rate, concurrency, timeout) and the outputs. Every bad argument raises
:class:`UsageError` with one sentence naming the valid choices, so a mistake costs no
request.
"""

from __future__ import annotations

import argparse
import math
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from fidelity._core.errors import UsageError
from fidelity._core.kinds import check_kinds, families_from_text
from fidelity._core.render import safe
from fidelity._sweep.http_flags import form_send, plan_fields
from fidelity._sweep.isolation import check_control, with_sandbox, work_dir
from fidelity._sweep.request_options import (
    body_send,
    default_method,
    expand_secrets,
    http_name,
    parse_auth,
    parse_env,
    parse_headers,
    parse_method,
)
from fidelity._sweep.templates import (
    check_all_tools,
    check_expect,
    check_mcp_options,
    check_read_url,
    parse_json_object,
    parse_step,
)
from probes.frontend import DEFAULT_MAX_REPLY, MIN_MAX_REPLY

__all__ = [
    "DEFAULT_MAX_REPLY",
    "DEFAULT_TIMEOUT",
    "ProbePlan",
    "TargetKind",
    "parse_bytes",
    "parse_count",
    "parse_families",
    "parse_rate",
    "parse_seconds",
    "parse_seed",
    "plan_from_args",
]

_MCP_ONLY = ("tool", "param", "args", "before", "read_tool", "read_args", "prompt", "resource")
_HTTP_ONLY = ("read_url", "id_from")
_HTTP_REQUEST = ("method", "read_method", "body")
_MCP_SCHEMES = {"mcp+http": "http", "mcp+https": "https"}
#: Seconds per request when ``--timeout`` is not given.
DEFAULT_TIMEOUT = 10.0
_SIZE = re.compile(r"\s*([0-9]{1,15})\s*(|B|KiB|MiB|GiB)\s*", re.IGNORECASE)
_RATE = re.compile(r"\s*([0-9]*\.?[0-9]+)\s*(?:/\s*s)?\s*")


class TargetKind(StrEnum):
    """How ``fidelity probe`` reaches its target."""

    HTTP = "http"
    MCP_STDIO = "mcp-stdio"
    MCP_HTTP = "mcp-http"


@dataclass(frozen=True, slots=True, kw_only=True)
class ProbePlan:
    """A checked ``fidelity probe`` invocation.

    ``target`` is the URL (HTTP and MCP over Streamable HTTP) or the argv of the
    server command (MCP over stdio). ``send`` is ``None`` when the user left it to the
    probe's default; ``read`` ``None`` is located by a calibration call; ``param``
    ``None`` is taken from the tool's schema (or from ``"{payload}"`` in ``args``).
    ``before`` lists the setup calls, ``(tool, arguments)``; ``clients`` the MCP client
    libraries the same plan goes through (``--clients``; empty: the probe's own).
    """

    kind: TargetKind
    target: str | tuple[str, ...]
    tool: str
    param: str | None
    args: dict[str, Any] | None
    send: str | None
    read: str | None
    read_tool: str | None
    read_args: dict[str, Any] | None
    before: tuple[tuple[str, dict[str, Any]], ...] = ()
    clients: tuple[str, ...] = ()
    read_url: str | None = None
    id_from: str | None = None
    families: tuple[str, ...] | None
    examples: int
    max_requests: int | None
    rate: float | None
    concurrency: int
    timeout: float
    seed: int | None
    allow: tuple[str, ...]
    card: str | None
    check: str | None = None
    json: str | None
    html: str | None
    yes: bool
    list_tools: bool
    dry_run: bool
    quiet: bool
    max_reply: int = DEFAULT_MAX_REPLY
    all_tools: bool = False
    args_for: tuple[tuple[str, dict[str, Any]], ...] = ()
    skip_tools: tuple[str, ...] = ()
    only_tools: tuple[str, ...] = ()
    #: Set in a server's child of ``--config``: the file its tool names go to; a glob
    #: that matches none of them is the parent's to judge, over the whole file.
    config_tools: str | None = None
    defaults: tuple[tuple[str, Any], ...] = ()
    sandbox: str | None = None
    #: ``--env NAME=VALUE``: variables of a stdio server's environment (``${VAR}``
    #: expanded), merged over the minimal one the SDK gives it (or the sandbox's).
    env: tuple[tuple[str, str], ...] = ()
    #: The request options: headers (``${VAR}`` expanded), basic auth, the write's and
    #: the read-back's methods (HTTP; ``method`` resolved to its default), the body
    #: template (HTTP) and the name given with ``--name``.
    headers: tuple[tuple[str, str], ...] = ()
    auth: tuple[str, str] | None = None
    method: str = "POST"
    read_method: str = "GET"
    body: dict[str, Any] | None = None
    given_name: str | None = None
    expect: str | None = None
    prompt: str | None = None
    resource: str | None = None
    junit: str | None = None
    #: MCP over a URL: ``"sse"`` for the legacy HTTP+SSE transport only (``--transport``).
    transport: str | None = None
    #: HTTP: how often a "not now" answer is sent again, and whether a write is too.
    retries: int = 2
    retry_writes: bool = False
    #: HTTP: the ``--form`` fields (a template), sent as multipart with ``--multipart``,
    #: and the login step (``--login``...), as ``probes.http``'s ``login=`` takes it.
    form: tuple[tuple[str, str], ...] = ()
    multipart: bool = False
    login: dict[str, Any] | None = None
    #: HTTP: the command that restarts the service before a last read of every value.
    restart: str | None = None
    #: MCP stdio: read every value back again after the server restarted.
    read_after_restart: bool = False

    @property
    def is_mcp(self) -> bool:
        """True for an MCP target, over either transport."""
        return self.kind is not TargetKind.HTTP

    @property
    def shown_target(self) -> str:
        """The target as one line for messages (the caller makes it terminal-safe)."""
        if isinstance(self.target, tuple):
            import shlex

            return shlex.join(self.target)
        return self.target

    @property
    def name(self) -> str:
        """The card name as far as the options tell: ``--name``; else the tool and
        parameter for MCP (:func:`card_name` completes it once the probe resolved the
        parameter), for HTTP the method, the URL's path and the send place."""
        if self.given_name is not None:
            return self.given_name
        if self.is_mcp:
            return f"{self.tool}.{self.param}" if self.param else self.tool
        assert isinstance(self.target, str)
        return http_name(self.method, self.target, self.send)

    @property
    def calls_per_payload(self) -> int:
        """The calls one payload costs as planned: the setup steps, the call, the read."""
        if not self.is_mcp:
            return 2 if self.read_url else 1
        return len(self.before) + 1 + (1 if self.read_tool else 0)


def parse_families(value: str | None) -> tuple[str, ...] | None:
    """Parse ``--families a,b`` (commas and/or spaces); unknown ids are a usage error."""
    return None if value is None else families_from_text(value, option="--families")


def parse_rate(value: str | None) -> float | None:
    """Parse ``--rate N`` or ``--rate N/s`` into requests per second."""
    if value is None:
        return None
    match = _RATE.fullmatch(value)
    rate = float(match.group(1)) if match else math.nan
    if not rate > 0 or math.isinf(rate):
        raise UsageError(
            f"--rate {value!r} is not a request rate; give a positive number of requests "
            "per second, such as 5 or 0.5/s."
        )
    return rate


def parse_count(option: str, value: str | None, *, default: int | None, minimum: int) -> int | None:
    """Parse a whole-number option such as ``--max-requests 5`` (``None`` when absent)."""
    if value is None:
        return default
    try:
        number = int(value.strip().replace("_", ""), 10)
    except ValueError:
        number = None
    if number is None or number < minimum:
        bound = "0 or more" if minimum == 0 else f"at least {minimum}"
        raise UsageError(f"{option} {value!r} is not a whole number {bound}.")
    return number


def parse_seconds(option: str, value: str | None, *, default: float) -> float:
    """Parse a positive, finite number of seconds such as ``--timeout 2.5``."""
    if value is None:
        return default
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not (seconds > 0 and math.isfinite(seconds)):
        raise UsageError(f"{option} {value!r} must be a positive number of seconds, such as 10.")
    return seconds


def parse_bytes(option: str, value: str | None, *, default: int) -> int:
    """Parse a size such as ``--max-reply 512KiB`` (``B``, ``KiB``, ``MiB``, ``GiB``)."""
    if value is None:
        return default
    match = _SIZE.fullmatch(value)
    scale = {"": 1, "b": 1, "kib": 1024, "mib": 1024**2, "gib": 1024**3}
    size = int(match.group(1)) * scale[match.group(2).lower()] if match else 0
    if size < MIN_MAX_REPLY:
        shown = safe(value[:40])
        raise UsageError(
            f"{option} {shown!r} is not a size of at least {MIN_MAX_REPLY} bytes (nor more "
            "than 15 digits); give a number of bytes, or KiB, MiB, such as 65536, 512KiB or 8MiB."
        )
    return size


def parse_seed(value: str | None) -> int | None:
    """Parse ``--seed N`` (any integer)."""
    if value is None:
        return None
    try:
        return int(value.strip(), 10)
    except ValueError:
        raise UsageError(f"--seed {value!r} is not an integer.") from None


def _parse_allow(values: list[str] | None) -> tuple[str, ...]:
    if not values:
        return ()
    kinds = tuple(dict.fromkeys(k for v in values for k in re.split(r"[,\s]+", v) if k))
    check_kinds(kinds, name="--allow")
    return kinds


def _parse_clients(value: str | None, kind: TargetKind) -> tuple[str, ...]:
    """Check ``--clients LIST`` (MCP targets only); ``()`` when not given."""
    if value is None:
        return ()
    if kind is TargetKind.HTTP:
        raise UsageError(
            "--clients applies to MCP targets; add --mcp or use an mcp+http(s):// URL for "
            "an MCP server."
        )
    from probes.frontend import check_clients

    return check_clients(value, name="--clients")


def _resolve_target(args: argparse.Namespace) -> tuple[TargetKind, str | tuple[str, ...]]:
    words: list[str] = list(args.target or ())
    if not words:
        raise UsageError(
            "give a target: an http(s) URL, an mcp+http(s) URL, or --mcp -- COMMAND ARGS..."
        )
    first = words[0]
    scheme, sep, rest = first.partition("://")
    if sep and scheme.lower() in _MCP_SCHEMES:
        if len(words) > 1:
            raise UsageError("give one URL, or --mcp -- COMMAND ARGS... for a stdio server.")
        return TargetKind.MCP_HTTP, f"{_MCP_SCHEMES[scheme.lower()]}://{rest}"
    is_url = bool(sep) and scheme.lower() in ("http", "https")
    if is_url and len(words) == 1:
        if not rest.split("/", 1)[0]:
            raise UsageError(f"{first!r} has no host; give a URL such as http://127.0.0.1:8000/.")
        return (TargetKind.MCP_HTTP if args.mcp else TargetKind.HTTP), first
    if args.mcp:
        return TargetKind.MCP_STDIO, tuple(words)
    if sep:
        raise UsageError(
            f"{scheme}:// is not a target scheme; use http://, https://, mcp+http://, "
            "mcp+https://, or --mcp -- COMMAND ARGS... for a stdio server."
        )
    raise UsageError(
        f"{first!r} is not a URL; give an http(s) URL, or --mcp -- COMMAND ARGS... to "
        "probe an MCP server over stdio."
    )


def _check_places(
    kind: TargetKind, target: str | tuple[str, ...], send: str | None, read: str | None
) -> None:
    """Check ``--send`` and ``--read`` before anything is started or sent."""
    from fidelity._run.messages import as_options

    try:
        if kind is TargetKind.HTTP:
            from probes.frontend import parse_http_read, parse_http_send

            if send is not None:
                parse_http_send(send)
            if read is not None:
                parse_http_read(read)
        elif read is not None:
            from probes.frontend import parse_mcp_read

            parse_mcp_read(read)
    except UsageError as exc:
        raise UsageError(as_options(str(exc))) from None
    if kind is TargetKind.HTTP and send in ("path", "url"):
        assert isinstance(target, str)
        count = target.count("{value}")
        if send == "path" and not count and target.count("{payload}") == 1:
            count = 1  # {payload} in the path is the send place of --send path
        if count != 1:
            raise UsageError(
                f"--send {send} needs the URL to hold {{value}} exactly once, where the "
                "payload goes, such as http://127.0.0.1:8000/items/{value}"
                f"{' (or {payload}, as one path segment)' if send == 'path' else ''}."
            )


def _check_option(args: argparse.Namespace) -> str | None:
    """``--check DOC.md``: a file the run reads and never writes."""
    check: str | None = getattr(args, "check", None)
    if check is None:
        return None
    if check == "-":
        raise UsageError("--check needs a file name: the document that holds the card block.")
    import os

    if args.card is not None and os.path.abspath(args.card) == os.path.abspath(check):
        raise UsageError(
            f"--card and --check name the same document ({check}); --check compares with "
            "the committed card and never rewrites it: give one of them."
        )
    return check


def _read_only_target(args: argparse.Namespace) -> tuple[str | None, str | None]:
    """Check ``--prompt NAME`` and ``--resource TEMPLATE``: one of them, instead of a
    tool, read in one request (no --before, no --read-tool, one client library)."""
    prompt: str | None = getattr(args, "prompt", None)
    resource: str | None = getattr(args, "resource", None)
    if prompt is None and resource is None:
        return None, None
    given = "--prompt" if prompt is not None else "--resource"
    if prompt is not None and resource is not None:
        raise UsageError("give --prompt NAME or --resource TEMPLATE, not both.")
    if not (prompt or resource):
        raise UsageError(f"{given} needs a name.")
    clash = [
        o for o, v in (("--tool", args.tool), ("--before", args.before),
                       ("--read-tool", args.read_tool)) if v is not None
    ]  # fmt: skip
    if clash:
        raise UsageError(
            f"{given} is probed instead of a tool, in one request with no side effect; "
            f"leave out {', '.join(clash)}."
        )
    return prompt, resource


def _check_transport_options(args: argparse.Namespace, kind: TargetKind) -> None:
    """Options of the other transport are a usage error, in its words."""
    if kind is TargetKind.HTTP:
        given = [f"--{o.replace('_', '-')}" for o in _MCP_ONLY if getattr(args, o) is not None]
        if given or args.list_tools:
            options = ", ".join([*given, *(["--list-tools"] if args.list_tools else [])])
            raise UsageError(
                f"{options} appl{'ies' if len(given) + args.list_tools == 1 else 'y'} to MCP "
                "targets only; add --mcp or use an mcp+http(s):// URL for an MCP server."
            )
    else:
        request = [
            f"--{o.replace('_', '-')}" for o in _HTTP_REQUEST if getattr(args, o) is not None
        ]
        if request:
            raise UsageError(
                f"{', '.join(request)} shape{'s' if len(request) == 1 else ''} an HTTP "
                "endpoint's request; an MCP tool's arguments are --args JSON."
            )
        given = [f"--{o.replace('_', '-')}" for o in _HTTP_ONLY if getattr(args, o) is not None]
        if given:
            raise UsageError(
                f"{' and '.join(given)} read an HTTP endpoint's value back; for an MCP tool "
                "name the tool that reads it back with --read-tool (and --read-args)."
            )


def _check_stdout(args: argparse.Namespace) -> None:
    """Only ``--json`` may write to ``-``, and only one output goes to stdout."""
    if args.json == "-" and (args.card == "-" or args.html == "-"):
        raise UsageError("only one output can go to standard output; --json - is already there.")
    for option in ("card", "html", "junit"):
        if getattr(args, option, None) == "-":
            raise UsageError(f"--{option} needs a file name; only --json can write to '-'.")


def _budget(args: argparse.Namespace, kind: TargetKind) -> dict[str, Any]:
    """The plan's budget: examples, ``--max-requests``, concurrency, timeout, seed."""
    examples = parse_count("--examples", args.examples, default=0, minimum=0) or 0
    max_requests = parse_count("--max-requests", args.max_requests, default=None, minimum=1)
    concurrency = parse_count("--concurrency", args.concurrency, default=1, minimum=1) or 1
    timeout = parse_seconds("--timeout", args.timeout, default=DEFAULT_TIMEOUT)
    seed = parse_seed(args.seed)
    if concurrency > 1 and kind is not TargetKind.HTTP:
        raise UsageError(
            "--concurrency applies to HTTP targets; an MCP session carries one call at a time."
        )
    return {
        "examples": examples,
        "max_requests": max_requests,
        "concurrency": concurrency,
        "timeout": timeout,
        "seed": seed,
    }


def _check_target_options(
    args: argparse.Namespace, kind: TargetKind, target: str | tuple[str, ...], send: str | None
) -> None:
    """The options that fit one kind of target only, against the kind given."""
    if kind is not TargetKind.HTTP and args.send is not None:
        raise UsageError(
            f"--send {args.send!r} places the payload in an HTTP request; for an MCP tool "
            "name the argument with --param NAME (and the others with --args JSON)."
        )
    _check_places(kind, target, send, args.read)
    if kind is TargetKind.MCP_STDIO and (args.header or args.auth is not None):
        raise UsageError(
            "--header and --auth apply to HTTP targets and MCP over Streamable HTTP; a stdio "
            "server takes its secrets from its environment (--env NAME=VALUE)."
        )
    if (args.header or args.auth is not None) and "typescript" in (args.clients or ""):
        raise UsageError(
            "--header and --auth are sent by the Python MCP clients; leave typescript out of "
            "--clients for a server that needs them."
        )


def _request(args: argparse.Namespace, target: str | tuple[str, ...]) -> dict[str, Any]:
    """The HTTP request's shape: ``--body``, where the payload is sent, the methods.
    A URL that holds ``{payload}`` is the send place (``--send path``) unless
    ``--send`` or a ``"{payload}"`` in ``--body`` says another."""
    body = parse_json_object("--body", args.body)
    send = body_send(body, args.send, getattr(args, "expect", None))
    if send is None:
        send = form_send(args)
    if send is None and isinstance(target, str) and "{payload}" in target:
        send = "path"
    method = parse_method("--method", args.method) or default_method(send, body)
    read_method = parse_method("--read-method", args.read_method) or "GET"
    if args.read_method is not None and args.read_url is None:
        raise UsageError("--read-method needs --read-url, the request that reads the value back.")
    if args.name is not None and not args.name.strip():
        raise UsageError("--name needs a name for the result and the card block.")
    return {"body": body, "send": send, "method": method, "read_method": read_method}


def _templates(
    args: argparse.Namespace, kind: TargetKind, target: str | tuple[str, ...], work: str | None
) -> dict[str, Any]:
    """The JSON options and the server command with the sandbox's directory in place
    (``{sandbox}``), checked against the kind of target."""
    if isinstance(target, tuple):
        target = with_sandbox(target, work, template=False)
    arguments = with_sandbox(parse_json_object("--args", args.args), work)
    read_arguments = with_sandbox(parse_json_object("--read-args", args.read_args), work)
    before = tuple((t, with_sandbox(a, work)) for t, a in map(parse_step, args.before or ()))
    args_for = tuple((t, with_sandbox(a, work)) for t, a in check_all_tools(args, kind, work))
    expect: str | None = getattr(args, "expect", None)
    if kind is TargetKind.HTTP:
        check_read_url(args.read_url, args.id_from)
        check_expect(expect)
    else:
        check_mcp_options(args.param, arguments, before, read_arguments, expect)
    return {
        "target": target,
        "args": arguments,
        "read_args": read_arguments,
        "before": before,
        "args_for": args_for,
        "expect": expect,
    }


def plan_from_args(args: argparse.Namespace) -> ProbePlan:
    """Check the parsed ``fidelity probe`` arguments and return the plan."""
    expand_secrets(args)
    kind, target = _resolve_target(args)
    _check_transport_options(args, kind)
    if args.read_args is not None and args.read_tool is None:
        raise UsageError("--read-args needs --read-tool, the tool that reads the value back.")
    budget = _budget(args, kind)
    _check_stdout(args)
    request = _request(args, target) if kind is TargetKind.HTTP else _request(args, ())
    _check_target_options(args, kind, target, request["send"])
    control = check_control(args, kind)
    templates = _templates(args, kind, target, work_dir(control.sandbox))
    prompt, resource = _read_only_target(args)
    tool = f"prompt:{prompt}" if prompt else f"resource:{resource}" if resource else args.tool
    return ProbePlan(
        kind=kind,
        **budget,
        **request,
        **templates,
        tool=tool or "echo",
        param=args.param,
        read=args.read,
        read_tool=args.read_tool,
        clients=_parse_clients(args.clients, kind),
        read_url=args.read_url,
        id_from=args.id_from,
        families=parse_families(args.families),
        rate=parse_rate(args.rate),
        allow=_parse_allow(args.allow),
        card=args.card,
        check=_check_option(args),
        json=args.json,
        html=args.html,
        junit=args.junit,
        yes=args.yes,
        list_tools=args.list_tools,
        dry_run=args.dry_run,
        quiet=args.quiet,
        max_reply=parse_bytes("--max-reply", args.max_reply, default=DEFAULT_MAX_REPLY),
        all_tools=bool(getattr(args, "all_tools", False)),
        skip_tools=control.skip_tools,
        only_tools=control.only_tools,
        config_tools=getattr(args, "config_tools", None),
        defaults=control.defaults,
        sandbox=control.sandbox,
        env=parse_env(getattr(args, "env", None), kind),
        headers=parse_headers(args.header),
        auth=parse_auth(args.auth),
        given_name=args.name,
        prompt=prompt,
        resource=resource,
        transport=_mcp_transport(args, kind),
        **plan_fields(args, kind is TargetKind.HTTP),
    )


def _mcp_transport(args: argparse.Namespace, kind: TargetKind) -> str | None:
    """``--transport http|sse``: MCP over a URL only."""
    transport: str | None = getattr(args, "transport", None)
    if getattr(args, "read_after_restart", False) and kind is TargetKind.MCP_HTTP:
        raise UsageError(
            "--read-after-restart restarts a stdio server the run started; a server at a URL "
            "is restarted by its own means."
        )
    if transport is not None and kind is not TargetKind.MCP_HTTP:
        raise UsageError(
            f"--transport {transport} chooses how an MCP server at a URL is reached; give "
            "--mcp and an http(s) URL (or an mcp+http(s) URL)."
        )
    if transport == "sse" and "typescript" in (args.clients or ""):
        raise UsageError(
            "--transport sse goes through the Python MCP clients; leave typescript out of "
            "--clients."
        )
    return transport
