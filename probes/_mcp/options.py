"""The options of an MCP probe, validated once: :class:`McpOptions`.

The record keeps every option as given (so a probe can be made again with one of them
changed, see ``McpProbe.with_client``) and, beside them, what they resolve to: the
transport, the target in its normal form, the parsed ``param`` path, the argument
templates and setup steps, and the Python SDK's protocol mode. A bad option is a
``UsageError`` in one sentence.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from fidelity._core.errors import UsageError
from fidelity._core.render import safe
from probes._http.url import check_url
from probes._mcp.calls import ArgumentFiller
from probes._mcp.clients import CLIENTS, PYTHON_MODES
from probes._mcp.read import Reader, parse_read
from probes._mcp.reply_limit import DEFAULT_MAX_REPLY, MIN_MAX_REPLY
from probes._mcp.template import ArgumentTemplate, Step, steps_of
from probes._payload.expect import Expectation
from probes._payload.paths import ParamPath

__all__ = ["McpOptions", "transport_of"]

#: The longest call timeout accepted, in seconds.
_MAX_TIMEOUT = 3600


@dataclasses.dataclass(frozen=True)
class McpOptions:
    """The options of :func:`probes.mcp` as given, checked, and what they resolve to.

    The fields up to ``headers`` are the options as given; the rest (``kind``,
    ``where``, ``param_path``, ``template``, ``steps``, ``read_template``,
    ``reader``, ``python_mode``, ``expected``) are worked out from them. Creating one
    with a bad option raises ``UsageError``.
    """

    target: Sequence[str] | str
    tool: str = "echo"
    param: str | None = None
    args: Mapping[str, Any] | None = None
    before: Sequence[Any] | None = None
    read: str | None = "text"
    read_tool: str | None = None
    read_args: Mapping[str, Any] | None = None
    transport: Literal["stdio", "http", "sse"] | None = None
    timeout: float = 10.0
    allow_destructive: bool = False
    env: Mapping[str, str] | None = None
    cwd: str | os.PathLike[str] | None = None
    reflector: bool | None = None
    mode: str | None = None
    fill_args: ArgumentFiller | None = None
    client: str | None = None
    max_reply: int = DEFAULT_MAX_REPLY
    expect: str | None = None
    prompt: str | None = None
    resource: str | None = None
    #: Streamable HTTP: headers sent with every request (credentials, API keys).
    headers: Mapping[str, str] | None = None
    #: stdio: the server gets the caller's ``os.environ`` (as it is when the probe
    #: opens) under ``env``; ``False``: ``env`` alone on the SDK's minimal environment.
    inherit_env: bool = True
    #: stdio: the server runs with its own ``HOME``, ``TMPDIR`` and working directory,
    #: in a temporary directory removed when the probe closes.
    sandbox: bool = False
    kind: Literal["stdio", "http"] = dataclasses.field(init=False)
    where: list[str] | str = dataclasses.field(init=False)
    param_path: ParamPath | None = dataclasses.field(init=False)
    template: ArgumentTemplate | None = dataclasses.field(init=False)
    steps: tuple[Step, ...] = dataclasses.field(init=False)
    read_template: ArgumentTemplate | None = dataclasses.field(init=False)
    reader: Reader | None = dataclasses.field(init=False)
    python_mode: str = dataclasses.field(init=False)
    expected: Expectation = dataclasses.field(init=False)

    def __post_init__(self) -> None:
        kind = transport_of(self.target, self.transport)
        self._resolve("kind", kind)
        if self.headers and kind == "stdio":
            raise UsageError(
                "headers= applies to MCP over Streamable HTTP; a stdio server takes its "
                "secrets from env=."
            )
        self._resolve("where", list(self.target) if kind == "stdio" else str(self.target))
        if self.transport == "sse" and self.client == "typescript":
            raise UsageError(
                "transport='sse' (the legacy HTTP+SSE transport) goes through the Python MCP "
                "clients; leave out client='typescript'."
            )
        self._check_spawn(kind)
        self._check_calls()
        self._check_session()
        self._check_reads()
        self._resolve("reader", parse_read(self.read) if self.read is not None else None)
        self._resolve("python_mode", PYTHON_MODES.get(self.client or "", self.mode or "auto"))

    def given(self) -> dict[str, Any]:
        """The options as given, as keyword arguments of :func:`probes.mcp`."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.init}

    def _resolve(self, name: str, value: object) -> None:
        object.__setattr__(self, name, value)

    def _check_spawn(self, kind: str) -> None:
        """``env``, ``cwd``, ``inherit_env`` and ``sandbox``: how a stdio server starts."""
        env, sandbox = self.env, self.sandbox
        if env is not None and (
            not isinstance(env, Mapping)
            or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items())
        ):
            raise UsageError("env= must map variable names to string values.")
        for name in ("inherit_env", "sandbox"):
            if not isinstance(getattr(self, name), bool):
                raise UsageError(f"{name}={getattr(self, name)!r} must be True or False.")
        if sandbox and kind != "stdio":
            raise UsageError(
                "sandbox=True starts a stdio server in a temporary directory; a Streamable "
                "HTTP server runs where it was started."
            )
        if sandbox and self.cwd is not None:
            raise UsageError(
                "sandbox=True gives the server its own working directory; leave out cwd= "
                "(relative paths in env= and args= then land in the sandbox)."
            )

    def _check_calls(self) -> None:
        """The options that say which calls carry the payload and read it back."""
        tool, param, read_tool, read_args = self.tool, self.param, self.read_tool, self.read_args
        if not isinstance(tool, str) or not tool:
            raise UsageError(f"tool={tool!r} must be a tool name.")
        param_path = ParamPath.parse(param) if param is not None else None
        if param_path is not None and not isinstance(param_path.top, str):
            raise UsageError(f"param={param!r} must start with an argument name.")
        self._resolve("param_path", param_path)
        args = self.args
        self._resolve(
            "template", ArgumentTemplate.of(args, where="args") if args is not None else None
        )
        self._resolve("steps", steps_of(self.before))
        if read_tool is not None and (not isinstance(read_tool, str) or not read_tool):
            raise UsageError(f"read_tool={read_tool!r} must be a tool name.")
        if read_args is not None and read_tool is None:
            raise UsageError("read_args is given without read_tool; name the tool that reads back.")
        self._resolve(
            "read_template",
            ArgumentTemplate.of(read_args, where="read_args") if read_args is not None else None,
        )
        self._resolve("expected", Expectation.parse(self.expect, where="expect"))
        if self.expect is None:
            for template in (self.template, *(s.arguments for s in self.steps), self.read_template):
                if template is not None:
                    template.refuse_embedded()

    def _check_reads(self) -> None:
        """``prompt`` and ``resource``: one prompt or one resource template, read in one
        request (no setup steps, no read tool), through the Python SDK."""
        from probes._mcp.prompts import PROMPT, RESOURCE

        given = [(k, v) for k, v in ((PROMPT, self.prompt), (RESOURCE, self.resource)) if v]
        if not given:
            return
        if len(given) > 1:
            raise UsageError("give prompt='NAME' or resource='TEMPLATE', not both.")
        kind, name = given[0]
        if not isinstance(name, str):
            raise UsageError(f"{kind}={name!r} must be a name.")
        if self.tool not in ("echo", f"{kind}:{name}"):
            raise UsageError(
                f"{kind}={safe(name)!r} is probed instead of a tool; leave out tool={self.tool!r}."
            )
        if self.before or self.read_tool is not None:
            raise UsageError(
                f"a {kind} is read in one request, with no side effect: before= and read_tool= "
                "do not apply to it."
            )

    def _check_session(self) -> None:
        """The options of the session: timeout, protocol mode, client, reply bound."""
        timeout, mode, client, max_reply = self.timeout, self.mode, self.client, self.max_reply
        if not isinstance(timeout, (int, float)) or not 0 < timeout <= _MAX_TIMEOUT:
            raise UsageError(f"timeout={timeout!r} must be a number of seconds in (0, 3600].")
        if mode is not None and mode not in ("auto", "legacy") and not str(mode)[:1].isdigit():
            raise UsageError(f"mode={mode!r} must be 'auto', 'legacy' or a protocol version.")
        if client is not None and client not in CLIENTS:
            raise UsageError(
                f"client={client!r} is not an MCP client; the clients are: {', '.join(CLIENTS)}."
            )
        if client is not None and mode is not None:
            raise UsageError(
                f"mode={mode!r} applies when no client is named; client={client!r} has its "
                "own (python: the legacy handshake; python-2026: 2026-07-28 where the server "
                "supports it)."
            )
        if type(max_reply) is not int or max_reply < MIN_MAX_REPLY:
            raise UsageError(
                f"max_reply={max_reply!r} must be a whole number of bytes, "
                f"at least {MIN_MAX_REPLY}."
            )


def transport_of(target: object, transport: str | None) -> Literal["stdio", "http"]:
    """The transport of ``target`` (an argv list: stdio; an http(s) URL: http), checked
    against the ``transport`` named, if any (``sse`` names the legacy HTTP+SSE
    transport of an http(s) URL)."""
    if isinstance(target, (list, tuple)):
        if not target or not all(isinstance(a, str) for a in target):
            raise UsageError("an MCP stdio target must be a non-empty list of strings (the argv).")
        kind: Literal["stdio", "http"] = "stdio"
    elif isinstance(target, str) and target.lower().startswith(("http://", "https://")):
        check_url("target", target)
        kind = "http"
    elif isinstance(target, str):
        raise UsageError(
            f"target {safe(target)!r} is neither an http(s) URL nor an argv list; "
            "pass a stdio server command as a list, e.g. ['npx', 'my-server']."
        )
    else:
        raise UsageError(f"target={target!r} must be an argv list (stdio) or an http(s) URL.")
    if transport is not None and transport != kind and not (kind, transport) == ("http", "sse"):
        raise UsageError(
            f"transport={transport!r} does not fit the target: an argv list is 'stdio', "
            "an http(s) URL is 'http' (Streamable HTTP, falling back to the legacy SSE "
            "transport when the URL does not answer it) or 'sse' (the legacy SSE transport "
            "only)."
        )
    return kind
