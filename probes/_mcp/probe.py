"""``probes.mcp``: push payloads through a real MCP chain with the official Python SDK.

The target is a stdio server (an argv list, spawned by the SDK's stdio client) or a
Streamable HTTP server (an ``http(s)`` URL). The value goes into the arguments of
``tool`` at ``param`` (a path) and/or where ``args`` holds ``"{payload}"``, after the
setup calls of ``before``; the result is read back with ``read`` (``text``,
``regex:PATTERN``, ``json:PATH``, ``structured:PATH``; located by a calibration call
when ``None``), or from a second call (``read_tool``) for write-then-read chains. What
each call's arguments are is worked out in :mod:`probes._mcp.calls`.

One session is reused across a survey. Every call has a timeout; a call that timed
out is never retried, and a short health check (a fraction of the timeout) decides
whether the session is kept. A session that dies (the server crashed) makes that
payload ``broken``; the session is re-established and the survey goes on. A value the
SDK cannot serialize (a lone surrogate) is ``rejected`` with ``client_side`` set, as in
the HTTP probe: the client library refused it, the call that carried it fails before
anything is sent, and the session stays up. ``client`` names the client library the
probe speaks through (:mod:`probes._mcp.clients`): the Python SDK with either
handshake, or the TypeScript SDK in a driver process (:mod:`probes._mcp.node.session`);
both sessions fail a call in the same terms (:mod:`probes._mcp.failures`), so the same
situation is the same status whichever client met it. A session that is let go (it failed its
health check, or died) has its server process killed at once. Against the
reference reflector (tools ``reflect`` and ``emit``) the request path and the response
path are measured apart, in ``parts``.

The SDK's in-memory ``Client(server)`` path is deliberately not offered: it
serializes nothing, so it proves nothing about fidelity.
"""

from __future__ import annotations

import dataclasses
import os
import shlex
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from fidelity._core.errors import TargetError, UsageError
from fidelity._core.render import safe
from fidelity._probe.contract import PayloadPlace, Probe, factory
from fidelity._probe.observation import Direction, Observation
from fidelity._probe.setup import ProbeSetup, SetupStep
from probes._mcp.calibrate import CalibrationFailed, calibrate
from probes._mcp.call import CallStep
from probes._mcp.calls import ArgumentFiller, CallPlan, check_consent, listing_change, plan_calls
from probes._mcp.chain import (
    EMIT_TOOL,
    REFLECT_TOOL,
    chain,
    observe_request,
    observe_response,
    observe_tool,
)
from probes._mcp.clients import ClientInfo
from probes._mcp.lifecycle import ListingChanged, Sessions
from probes._mcp.name import target_label
from probes._mcp.options import McpOptions
from probes._mcp.read import Reader, parse_read
from probes._mcp.reply_limit import DEFAULT_MAX_REPLY
from probes._mcp.tools import DestructiveToolRefused, McpTool, consent_reason, tool_records
from probes._payload.locate import CALIBRATION_CALLS
from probes._payload.paths import ParamPath
from probes._payload.placeholders import Filled, new_run_id, payload_numbers

if TYPE_CHECKING:
    from probes._mcp.lifecycle import Session as _Session

__all__ = [
    "ArgumentFiller",
    "CalibrationFailed",
    "DestructiveToolRefused",
    "ListingChanged",
    "McpProbe",
    "McpTool",
    "mcp",
]


class McpProbe(Probe):
    """A probe through one MCP tool (see :func:`mcp`). Use it as a context manager.

    ``list_tools()`` lists the server's tools (``tools`` too, once the chosen tool is
    checked) and ``tool_info`` describes the chosen one (its input schema and
    annotations). ``requests`` counts the ``tools/call`` requests sent (one the SDK
    cannot serialize is not: nothing leaves the client). ``param`` is the payload's
    place once the probe is open (taken from the schema when none was given),
    ``calibrate()`` locates the read-back when ``read`` is ``None``, and ``setup``
    records the whole plan.
    """

    def __init__(
        self,
        target: Sequence[str] | str,
        *,
        tool: str = "echo",
        param: str | None = None,
        args: Mapping[str, Any] | None = None,
        before: Sequence[Any] | None = None,
        read: str | None = "text",
        read_tool: str | None = None,
        read_args: Mapping[str, Any] | None = None,
        transport: Literal["stdio", "http", "sse"] | None = None,
        timeout: float = 10.0,
        allow_destructive: bool = False,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        reflector: bool | None = None,
        mode: str | None = None,
        fill_args: ArgumentFiller | None = None,
        client: str | None = None,
        max_reply: int = DEFAULT_MAX_REPLY,
        expect: str | None = None,
        prompt: str | None = None,
        resource: str | None = None,
        headers: Mapping[str, str] | None = None,
        inherit_env: bool = True,
        sandbox: bool = False,
    ) -> None:
        if tool == "echo" and (prompt or resource):
            tool = f"prompt:{prompt}" if prompt else f"resource:{resource}"
        options = McpOptions(
            target, tool=tool, param=param, args=args, before=before, read=read,
            read_tool=read_tool, read_args=read_args, transport=transport, timeout=timeout,
            allow_destructive=allow_destructive, env=env, cwd=cwd, reflector=reflector,
            mode=mode, fill_args=fill_args, client=client, max_reply=max_reply, expect=expect,
            prompt=prompt, resource=resource,
            headers=headers, inherit_env=inherit_env, sandbox=sandbox,
        )  # fmt: skip
        self.options = options
        self.transport = options.kind
        self.target: list[str] | str = options.where
        self.param_path = options.param_path
        self.template = options.template
        self.steps = options.steps
        self.read_template = options.read_template
        self.expected = options.expected
        self.max_reply = max_reply
        #: The ``{n}`` each payload was sent with (a read after a restart repeats it).
        self.numbers: dict[str, int] = {}
        self.tool = tool
        self.param = param
        self.args = dict(args) if args is not None else None
        # None: located by a calibration call (``calibrate``) before the first payload.
        self.reader: Reader | None = options.reader
        self.read_found = False
        self.read_tool = read_tool
        self.read_args = dict(read_args) if read_args is not None else None
        self.timeout = float(timeout)
        self.allow_destructive = allow_destructive
        self.env = dict(env) if env is not None else None
        self.cwd = str(cwd) if cwd is not None else None
        self.reflector = reflector
        self.client = client
        self.mode: str = options.python_mode
        self.fill_args = fill_args
        self.run_id = new_run_id()
        self._numbers = payload_numbers()
        self.name = self._default_name = self._name(param)
        self._sessions = Sessions(options, on_new=self._listed_again)
        self._calls = CallStep(self._sessions, self.timeout)
        self._tools: tuple[McpTool, ...] | None = None
        self._tools_cut = 0
        self._configured = False
        self._plan: CallPlan | None = None
        self._split = False

    # -- session management -------------------------------------------------------

    def open(self) -> McpProbe:
        """Start the session and check the tool (done on entry or first use)."""
        self._connect()
        if not self._configured:
            assert self._tools is not None
            try:
                self._configure(self._tools)
            except BaseException:
                self.close()
                raise
            self._configured = True
        return self

    def list_tools(self) -> tuple[McpTool, ...]:
        """The tools the server lists; starts the session if needed, checks no tool choice.

        Unlike ``tools``, this works when the server lacks the chosen tool (or it is
        destructive): it is how to look at a server before choosing.
        """
        self._connect()
        assert self._tools is not None
        return self._tools

    def list_reads(self) -> tuple[McpTool, ...]:
        """The server's prompts and resource templates as tool-shaped records
        (``prompt:NAME``, ``resource:TEMPLATE``; see :mod:`probes._mcp.prompts`), for a
        run that surveys a whole server; starts the session if needed. They are read
        without side effects, so they are annotated read-only."""
        from probes._mcp.prompts import prompt_tools, template_tools

        self._connect()
        session = self._sessions.connect()
        prompts, templates = session.prompts_and_templates(max(self.timeout, 2.5))
        return (*prompt_tools(prompts), *template_tools(templates))

    def _connect(self) -> None:
        """Start a session unless one is up; the first one records the tool list."""
        first = self._tools is None
        try:
            session = self._sessions.connect()
            if first:
                self._tools = self._records(session)
                self._tools_cut = getattr(session, "tools_cut", 0)
        except (TargetError, UsageError):
            if first:
                self.close()
            raise

    def _records(self, session: _Session) -> tuple[McpTool, ...]:
        """The tools the server lists or, when a prompt or a resource template is probed,
        the prompts' and templates' tool-shaped records (:mod:`probes._mcp.prompts`)."""
        options = self.options
        if not (options.prompt or options.resource):
            return tool_records(session.tools)
        from probes._mcp.prompts import prompt_tools, route_of, template_tools

        prompts, templates = session.prompts_and_templates(max(self.timeout, 2.5))
        records = (*prompt_tools(prompts), *template_tools(templates))
        if options.resource:  # a template may be named by its name as well as its URI
            named = [t for t in templates if getattr(t, "name", None) == options.resource]
            if named and f"resource:{options.resource}" not in {r.name for r in records}:
                self.tool = f"resource:{named[0].uri_template}"
        for record in records:
            route = route_of(record)
            if route is not None:
                self._calls.routes[record.name] = route
        if self.tool not in self._calls.routes:
            kind = "prompt" if options.prompt else "resource template"
            listed = (
                ", ".join(
                    safe(r.name.split(":", 1)[1])
                    for r in records
                    if r.name.startswith(kind.split(maxsplit=1)[0] + ":")
                )
                or "none"
            )
            raise UsageError(
                f"{kind} {safe(options.prompt or options.resource or '')!r} is not offered "
                f"by this MCP server; its {kind}s are: {listed}."
            )
        return records

    def _listed_again(self, session: _Session) -> None:
        """(A new session after the first.) List the tools again and check the plan
        against the new listing: a planned tool that vanished, or that lost the
        read-only annotation its consent rested on, stops every further call."""
        if self.options.prompt or self.options.resource:
            return  # prompts and templates: read-only by design, listed once
        tools = tool_records(session.tools)
        if self._plan is None:
            self._tools = tools  # not planned yet: the plan is made from this listing
            return
        changed = listing_change(self._plan.calls, tools, self.allow_destructive)
        if changed:
            raise ListingChanged(changed)

    @property
    def sandbox(self) -> str | None:
        """The working directory of the server's sandbox (``sandbox=True``), once the
        probe is open; ``None`` without one. It is removed when the probe closes."""
        from probes._mcp.sandbox import work_dir

        return work_dir(self._sessions.sandbox)

    @property
    def environment(self) -> Mapping[str, str]:
        """The client library, the server's ``serverInfo`` (name and version) and the
        negotiated protocol version of the current (or last) session."""
        found = {
            "library": self._sessions.library,
            "server": self._sessions.server_info,
            "protocol": self._sessions.protocol_version,
        }
        return {k: v for k, v in found.items() if v}

    @property
    def client_info(self) -> ClientInfo:
        """The client this probe speaks through: its name, library (with its version) and
        the protocol version of the current (or last) session (empty before the first)."""
        return ClientInfo(
            client=self.client or "",
            library=self._sessions.library,
            protocol_version=self._sessions.protocol_version,
        )

    def with_client(self, client: str | None, **changes: object) -> McpProbe:
        """A new probe with this one's options, speaking through ``client`` (and any
        option in ``changes`` replaced, e.g. the ``read`` this one located)."""
        options = {**self.options.given(), "client": client, **changes}
        if client is not None:
            options["mode"] = None
        return McpProbe(**options)

    @property
    def tools_cut(self) -> int:
        """How many tools the server listed when that was more than a run reads (5000:
        only the first are kept, even within one ``tools/list`` page); ``0`` otherwise."""
        return self._tools_cut

    @property
    def stdout_noise(self) -> tuple[int, str]:
        """How many lines the server wrote to stdout that are not JSON-RPC (a banner, log
        lines, bytes that are not UTF-8, shown as U+FFFD), and the first of them, raw
        (cut to 200 characters). This client skips them; stricter clients fail on them."""
        return self._sessions.noise_lines, self._sessions.noise_first

    def _name(self, label: str | None) -> str:
        from probes._mcp.plan_name import plan_suffix

        place = f"{safe(self.tool)}.{safe(label)}" if label else safe(self.tool)
        name = f"mcp {self.transport} {target_label(self.target)} {place}"
        return name + plan_suffix(
            args=self.template.value if self.template is not None else None,
            before=[(step.tool, step.arguments.value) for step in self.steps],
            read=self.options.read,
            read_tool=self.read_tool,
            read_args=self.read_template.value if self.read_template is not None else None,
        )

    def _configure(self, tools: tuple[McpTool, ...]) -> None:
        """Resolve the options against the tool list; check consent before any call."""
        by_name = {t.name: t for t in tools}
        reflect, emit = by_name.get(REFLECT_TOOL), by_name.get(EMIT_TOOL)
        looks_like_reflector = (
            self.tool == "echo"
            and reflect is not None
            and emit is not None
            and "text" in reflect.properties
            and "value" in emit.properties
        )
        if self.reflector and not looks_like_reflector:
            raise UsageError(
                "reflector=True but the server does not offer the reflector's 'reflect(text)' "
                "and 'emit(value)' tools."
            )
        plain = self.read_tool is None and not self.steps
        split = plain and (self.reflector if self.reflector is not None else looks_like_reflector)
        plan = plan_calls(
            tools,
            tool=self.tool,
            param=self.param_path,
            template=self.template,
            steps=self.steps,
            read_tool=self.read_tool,
            read_template=self.read_template,
            fill=self.fill_args,
            helpers=(REFLECT_TOOL, EMIT_TOOL) if split else (),
        )
        if split and plan.payload_paths != (ParamPath(("text",)),):
            split = bool(self.reflector)
            if split:
                raise UsageError(
                    "reflector=True measures the reflector's echo(text); the payload must go "
                    "into text alone."
                )
            plan = dataclasses.replace(
                plan, calls=tuple(c for c in plan.calls if c[1] != "reflector helper")
            )
        check_consent(plan.calls, self.allow_destructive)
        self._plan = plan
        self._split = split
        if split and self.reader is None:
            self.reader = parse_read("text")  # the reflector's echo answers the text itself
        self.param = plan.label
        if self.name == self._default_name:  # a name set by the caller is kept
            self.name = self._default_name = self._name(plan.label)

    @property
    def tools(self) -> tuple[McpTool, ...]:
        """The tools the server lists (opens the probe, so the chosen tool is checked)."""
        self.open()
        assert self._tools is not None
        return self._tools

    @property
    def tool_info(self) -> McpTool:
        """The chosen tool: its input schema and annotations."""
        return next(t for t in self.tools if t.name == self.tool)

    @property
    def plan(self) -> CallPlan:
        """The calls made for each payload, resolved against the tool list (opens the probe)."""
        self.open()
        assert self._plan is not None
        return self._plan

    @property
    def operation(self) -> str:
        """The tool each payload goes to."""
        return self.tool

    @property
    def payload_place(self) -> PayloadPlace:
        """Where the payload goes in the tool's arguments (resolved: opens the probe)."""
        plan = self.plan
        return PayloadPlace(label=plan.label, block_label=plan.block_label, found=plan.param_found)

    @property
    def read_spec(self) -> str | None:
        """The read-back as given or located."""
        return self.reader.spec if self.reader is not None else None

    @property
    def switches_clients(self) -> bool:
        """An MCP probe's plan runs through any client library (``with_client``)."""
        return True

    @property
    def arguments(self) -> dict[str, Any]:
        """The arguments sent besides the payload (from ``args``, or generated), as
        they are for the first payload."""
        arguments = self.plan.arguments(self._values("", 1))
        for path in self.plan.payload_paths:
            if len(path.segments) == 1:
                arguments.pop(str(path.top), None)
        return arguments

    @property
    def requests(self) -> int:
        """How many ``tools/call`` requests this probe has sent (a call the client library
        refused to encode is not counted: nothing was sent)."""
        return self._calls.requests

    @property
    def answers(self) -> int:
        """How many times the server answered so far: a call's result or JSON-RPC error,
        or a health check after a timeout. A timed-out payload that leaves it unchanged
        means the server stopped answering; one that raised it, only that payload."""
        return self._calls.answers

    @property
    def max_requests_per_observation(self) -> int:
        """The most ``tools/call`` requests one observation sends (opens the probe).

        Three against the reference reflector (``reflect``, ``emit``, then the tool);
        otherwise one, plus one per setup step, plus one with ``read_tool``.
        """
        self.open()
        if self._split:
            return 3
        return 1 + len(self.steps) + (1 if self.read_tool is not None else 0)

    def requests_to_start(self, observations: int) -> int:
        """The calibration's calls of the whole chain (one per calibration value, while
        the read-back is still to be located), then ``observations`` observations (opens
        the probe)."""
        per = self.max_requests_per_observation
        calibration = CALIBRATION_CALLS * per if self.needs_calibration else 0
        return calibration + observations * per

    @property
    def needs_calibration(self) -> bool:
        """True while the read-back is still to be located (``read=None``; opens the probe)."""
        self.open()
        return self.reader is None and not self._split

    def calibrate(self, pace: Callable[[], None] | None = None) -> str:
        """Locate the read-back with calls of the whole chain carrying calibration markers.

        Returns the read specification found (the one given when there is nothing to
        locate). The markers are unique to the run (plain ASCII, then one with a quote
        and a backslash, one with a line break); each goes through the setup steps, the
        tool and the read tool like a payload, with ``{n}`` = 0, 1000001, 1000002 (the
        payloads keep 1, 2, 3...), and counts in ``requests``. A marker that does not
        come back is a ``UsageError``; a chain that fails on it a ``UsageError``
        (refused) or ``TargetError`` (no answer). ``pace`` is called before each
        marker's chain (``--rate``).
        """
        return calibrate(self, pace)

    @property
    def setup(self) -> ProbeSetup:
        """The plan of this probe, for the JSON result and the card (opens the probe)."""
        plan = self.plan
        target = self.target if isinstance(self.target, str) else shlex.join(self.target)
        return ProbeSetup(
            transport=f"mcp {'sse' if self._sessions.sse else self.transport}",
            target=target,
            tool=self.tool,
            param=str(plan.param) if plan.param is not None else "",
            param_found=plan.param_found,
            args=plan.template.to_json() if plan.template is not None else "",
            before=tuple(SetupStep(tool=s.tool, args=s.arguments.to_json()) for s in self.steps),
            read=self.reader.spec if self.reader is not None else "",
            read_found=self.read_found,
            read_tool=self.read_tool or "",
            read_args=self.read_template.to_json() if self.read_template is not None else "",
            allow_destructive=self.allow_destructive
            and any(consent_reason(info) for info, _ in plan.calls),
            headers=tuple(str(k) for k in (self.options.headers or {})),
            expect="" if self.expected.is_default else self.expected.source,
        )

    @property
    def tolerates_timeouts(self) -> bool:
        """True when every tool the run calls is annotated ``readOnlyHint`` or
        ``idempotentHint`` true (opens the probe): a call that timed out then leaves
        nothing to fear from going on. Any other tool may have written, or still be
        writing, so a run should stop at its first timeout."""
        plan = self._plan if self._plan is not None else self.plan  # no new session
        return all(_harmless(info) for info, _ in plan.calls)

    @property
    def connected(self) -> bool:
        """True while a session is up: after a timeout, it answered its health check."""
        session = self._sessions.session
        return session is not None and not session.dead

    @property
    def splits_directions(self) -> bool:
        """True when request and response paths are measured apart (reflector targets)."""
        self.open()
        return self._split

    def __enter__(self) -> McpProbe:
        return self.open()

    def close(self) -> None:
        """End the session, stop the server process and the event loop."""
        self._sessions.close()

    # -- observing ----------------------------------------------------------------

    def observe(self, text: str) -> Observation:
        """Push ``text`` through the tool; against a reflector, measure both paths too."""
        self.open()
        if not self._split:
            if self.reader is None:
                self.calibrate()
            return observe_tool(self, text, self._values(text, next(self._numbers)))
        request = observe_request(self, text)
        response = observe_response(self, text)
        if request.client_side:
            # The SDK just showed it cannot encode this text in a tools/call; the round
            # trip would fail the same way.
            main = dataclasses.replace(
                request,
                direction=Direction.ROUND_TRIP,
                error=f"{request.error} (shown on the request path; not sent again)",
            )
        else:
            main = observe_tool(self, text, self._values(text, next(self._numbers)))
        return dataclasses.replace(main, parts=(request, response))

    def _values(self, payload: str, n: int) -> Filled:
        self.numbers[payload] = n
        return Filled(payload=payload, n=n, run=self.run_id)

    def _chain(self, text: str, values: Filled) -> Any:
        """The setup steps, the payload tool, the read tool: the result to read the value
        from, or how the chain failed as an ``Observation`` (see :func:`chain`)."""
        return chain(self, text, values)


def _harmless(tool: McpTool) -> bool:
    """A tool whose call may time out without harm: read-only or idempotent (hints)."""
    hints = tool.annotations
    return hints.get("readOnlyHint") is True or hints.get("idempotentHint") is True


def _cancelled() -> tuple[type[BaseException], ...]:
    import asyncio
    import concurrent.futures

    return (asyncio.CancelledError, concurrent.futures.CancelledError)


mcp = factory(
    McpProbe,
    name="mcp",
    doc="""A probe that sends each payload into the arguments of an MCP ``tool`` and reads it back.

    ``target``: an argv list (a stdio server the SDK spawns; its stderr is kept in a
    bounded buffer, never shown raw) or an ``http(s)`` URL (Streamable HTTP; when its
    handshake POST gets a 4xx such as 404 or 405, the legacy HTTP+SSE transport, as the
    MCP spec's backwards compatibility says; ``transport="sse"`` goes straight to it).
    ``param``: where the payload goes, a path into the arguments (``message``,
    ``edits[0].oldText``, ``entities[0].observations[0]``); by default the tool's only
    free-form string parameter (several, or none, is a ``UsageError`` listing them).
    ``args``: the tool's arguments, a template: a string value that is exactly
    ``"{payload}"`` becomes the payload (``param`` is then not needed), ``{n}`` in a
    string a number unique to the payload (1, 2, 3... in the order sent; 0, 1000001
    and 1000002 for the calibration calls) and ``{run}`` an id unique to the run;
    ``{{`` and ``}}`` are literal braces. Containers along ``param`` come from
    ``args`` or are created.
    Without ``args``, ``fill_args(tool, key)`` makes the tool's other required
    arguments (the CLI fills them from the ``inputSchema`` with
    ``strategies.from_schema``), and a tool that requires others is a ``UsageError``.
    ``before``: setup calls made before each payload, ``[(tool, args), ...]`` with the
    same placeholders; one that fails makes the payload ``broken``, naming the step.
    ``read``: ``text``, ``regex:PATTERN`` (one group), ``json:PATH`` (JSON in the text
    content), ``structured:PATH`` or ``armored:PATH`` (armored evidence of what the
    tool received: the observation is then of the request path); ``None``: located
    by one calibration call with a plain marker before the first payload
    (``calibrate()``). With ``read_tool`` it applies to a second call,
    ``read_tool(**read_args)`` (a template too; by default the tool's arguments the
    read tool accepts, e.g. the same ``path``). ``setup`` records the whole plan.
    ``timeout`` bounds every call (timeouts are never retried); the handshake gets
    ``max(timeout + 0.5, 2.5)`` seconds, room for a server process to start. A server
    that stops answering is killed (stdio) or dropped (HTTP) at once. A tool is called
    only when annotated ``readOnlyHint: true`` unless ``allow_destructive`` (every tool
    of the run is checked before the first call; annotations are the server's hints,
    not guarantees); a tool name listed twice is a ``TargetError``. ``reflector`` forces
    (``True``) or disables (``False``) the separate request/response measurement that
    is automatic when the server offers the reflector's ``reflect`` and ``emit``.
    ``mode`` is the Python SDK's protocol negotiation (``auto``, the default: protocol
    2026-07-28 where the server supports it; ``legacy``; or a version). ``client``
    names the client library instead: ``python`` (the Python SDK, legacy handshake),
    ``python-2026`` (the Python SDK, ``mode="auto"``) or ``typescript`` (the official
    TypeScript SDK in Node.js: it needs ``node``, and installs its npm dependency on
    first use into ``~/.cache/param-fidelity``, or uses the ``node_modules`` that
    ``FIDELITY_NODE_MODULES`` names). ``client_info`` says which client, library and
    protocol version a session used; ``with_client`` makes the same probe for another
    client.
    ``max_reply`` bounds every message from the server in bytes (8 MiB by default:
    a stdio line, an HTTP body or server-sent event); a longer one is not read
    further, its call is ``broken`` and the server is let go. ``headers`` (Streamable
    HTTP, the Python clients) go with every request: credentials, API keys.
    A stdio server starts with the caller's ``os.environ`` as it is when the probe
    opens, ``env`` (a mapping of strings) added on top; ``inherit_env=False`` gives it
    ``env`` alone on the SDK's minimal environment (``HOME``, ``PATH``... as
    ``fidelity probe`` does), and ``cwd`` its working directory. ``sandbox=True`` runs
    it with its own ``HOME``, ``TMPDIR`` and working directory in a temporary directory
    (``sandbox`` names the working directory while the probe is open), removed when
    the probe closes, or when the process exits at the latest.

    Use it as a context manager; bad arguments and an unknown tool raise
    ``UsageError``, an unreachable server ``TargetError``.
    """,
)
