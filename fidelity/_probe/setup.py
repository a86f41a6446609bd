"""How a probe sends each payload and reads it back: what a run needs to be repeated.

A :class:`ProbeSetup` is what ``probes.mcp`` and ``probes.http`` were told and what
they found out before the first payload (the payload's argument when it was taken
from the tool's schema, the read-back when a calibration call located it). The
JSON result and the contract card record it; :meth:`ProbeSetup.command` is the
``fidelity probe`` command line that repeats the run. Argument templates are kept as
JSON text on one line, keys sorted (as the card's JSON writes them, so a record reads
back equal), placeholders (``{payload}``, ``{n}``, ``{run}``) as written.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from typing import Any

from fidelity._core.secrets import mask, mask_url, mask_words

__all__ = ["ProbeSetup", "SetupStep"]


@dataclass(frozen=True, slots=True, kw_only=True)
class SetupStep:
    """A tool called before each payload, with its argument template (JSON text)."""

    tool: str
    args: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "args", _canonical(self.args))


@dataclass(frozen=True, slots=True, kw_only=True)
class ProbeSetup:
    """The plan of a probe: where each payload goes and where it is read back.

    ``transport`` is ``mcp stdio``, ``mcp http`` or ``http``; ``target`` the server
    command (shell-quoted) or URL. MCP: ``tool``, ``param`` (the payload's path, or
    ``""`` when only ``{payload}`` in ``args`` places it; ``param_found`` when it was
    taken from the tool's schema), ``args`` and ``read_args`` (templates as JSON
    text), ``before`` (setup steps), ``read_tool``. HTTP: ``method``, ``send``,
    ``read_url``, ``id_from``. Both: ``read`` and ``read_found`` (located by a
    calibration call rather than given). ``allow_destructive``: the run called tools
    that are not annotated read-only, with the caller's consent (``--yes``).
    ``clients``: the MCP client libraries the same plan went through, in order
    (``--clients``; empty when the probe's own client was used). ``expect``: what the
    read-back had to equal when not the payload itself (``{payload}{mark}`` for an
    edit that must apply; empty for the default ``{payload}``).
    """

    transport: str
    target: str
    tool: str = ""
    param: str = ""
    param_found: bool = False
    args: str = ""
    before: tuple[SetupStep, ...] = ()
    read: str = ""
    read_found: bool = False
    read_tool: str = ""
    read_args: str = ""
    method: str = ""
    send: str = ""
    read_url: str = ""
    id_from: str = ""
    allow_destructive: bool = False
    clients: tuple[str, ...] = ()
    #: HTTP: the names of the headers sent (never their values), the user of basic
    #: auth (never the password), the body template (JSON text), the read-back's method.
    headers: tuple[str, ...] = ()
    auth: str = ""
    body: str = ""
    read_method: str = ""
    expect: str = ""

    def __post_init__(self) -> None:
        for key in ("args", "read_args", "body"):
            object.__setattr__(self, key, _canonical(getattr(self, key)))
        # A record never holds a secret: the values of secret-looking NAME=VALUE words of
        # a server's command, a URL's password and secret-looking query values.
        object.__setattr__(self, "target", _masked_target(self.transport, self.target))
        if self.read_url:
            object.__setattr__(self, "read_url", mask_url(self.read_url))

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: empty fields left out, templates as JSON values."""
        out: dict[str, Any] = {"transport": self.transport, "target": self.target}
        for key in (
            "tool", "param", "read", "read_tool", "method", "send", "read_url", "id_from",
            "auth", "read_method",
            "expect",
        ):  # fmt: skip
            value = getattr(self, key)
            if value:
                out[key] = value
        for key in ("param_found", "read_found", "allow_destructive"):
            if getattr(self, key):
                out[key] = True
        for key in ("args", "read_args", "body"):
            value = getattr(self, key)
            if value:
                out[key] = json.loads(value)
        if self.headers:
            out["headers"] = list(self.headers)
        if self.before:
            out["before"] = [{"tool": s.tool, "args": json.loads(s.args)} for s in self.before]
        if self.clients:
            out["clients"] = list(self.clients)
        return out

    @classmethod
    def from_dict(cls, raw: object) -> ProbeSetup:
        """Read the JSON form; a malformed one raises ``ValueError``."""
        if not isinstance(raw, dict):
            raise ValueError("the probe setup must be a JSON object")
        text: dict[str, str] = {}
        for key in (
            "transport", "target", "tool", "param", "read", "read_tool", "method", "send",
            "read_url", "id_from", "auth", "read_method", "expect",
        ):  # fmt: skip
            value = raw.get(key, "")
            if not isinstance(value, str):
                raise ValueError(f"the probe setup's {key} must be a string")
            text[key] = value
        flags: dict[str, bool] = {}
        for key in ("param_found", "read_found", "allow_destructive"):
            value = raw.get(key, False)
            if not isinstance(value, bool):
                raise ValueError(f"the probe setup's {key} must be true or false")
            flags[key] = value
        templates: dict[str, str] = {}
        for key in ("args", "read_args", "body"):
            value = raw.get(key)
            if value is not None and not isinstance(value, dict):
                raise ValueError(f"the probe setup's {key} must be a JSON object")
            templates[key] = "" if value is None else _compact(value)
        steps = raw.get("before", [])
        if not isinstance(steps, list):
            raise ValueError("the probe setup's before must be a list")
        before = []
        for step in steps:
            if (
                not isinstance(step, dict)
                or not isinstance(step.get("tool"), str)
                or not isinstance(step.get("args"), dict)
            ):
                raise ValueError("each setup step must be an object with a tool and args")
            before.append(SetupStep(tool=step["tool"], args=_compact(step["args"])))
        clients = raw.get("clients", [])
        if not isinstance(clients, list) or not all(isinstance(c, str) and c for c in clients):
            raise ValueError("the probe setup's clients must be a list of client names")
        headers = raw.get("headers", [])
        if not isinstance(headers, list) or not all(isinstance(h, str) and h for h in headers):
            raise ValueError("the probe setup's headers must be a list of header names")
        return cls(
            headers=tuple(headers),
            auth=text["auth"],
            body=templates["body"],
            read_method=text["read_method"],
            transport=text["transport"],
            target=text["target"],
            tool=text["tool"],
            param=text["param"],
            param_found=flags["param_found"],
            args=templates["args"],
            before=tuple(before),
            read=text["read"],
            read_found=flags["read_found"],
            read_tool=text["read_tool"],
            read_args=templates["read_args"],
            method=text["method"],
            send=text["send"],
            read_url=text["read_url"],
            id_from=text["id_from"],
            allow_destructive=flags["allow_destructive"],
            clients=tuple(clients),
            expect=text["expect"],
        )

    def command(self) -> tuple[str, ...]:
        """The ``fidelity probe`` arguments that repeat this plan (target included)."""
        args: list[str] = ["fidelity", "probe"]
        if self.transport == "http":
            args.append(self.target)
            where = self.send.partition(":")[0]
            in_body = where not in ("query", "path", "url", "header") or self.body
            usual = "POST" if in_body else "GET"
            for option, value in (
                ("--method", self.method if self.method != usual else ""),
                ("--body", self.body),
                ("--send", self.send),
                ("--read-url", self.read_url),
                ("--read-method", self.read_method if self.read_method != "GET" else ""),
                ("--id-from", self.id_from),
                ("--read", self.read),
                ("--expect", self.expect),
            ):
                if value:
                    args += [option, value]
            return (*args, *self._secrets())
        args += self._secrets()
        if self.transport == "mcp http":
            args += ["--mcp", self.target]
        else:
            args.append("--mcp")
        kind, _, name = self.tool.partition(":")
        if kind in ("prompt", "resource") and name:
            args += [f"--{kind}", name]
        elif self.tool:
            args += ["--tool", self.tool]
        if self.param:
            args += ["--param", self.param]
        if self.args:
            args += ["--args", self.args]
        for step in self.before:
            args += ["--before", f"{step.tool}={step.args}"]
        if self.read_tool:
            args += ["--read-tool", self.read_tool]
        if self.read_args:
            args += ["--read-args", self.read_args]
        if self.read:
            args += ["--read", self.read]
        if self.expect:
            args += ["--expect", self.expect]
        if self.allow_destructive:
            args.append("--yes")
        if self.clients:
            args += ["--clients", ",".join(self.clients)]
        if self.transport == "mcp stdio":
            args += ["--", *shlex.split(self.target)]
        return tuple(args)

    def _secrets(self) -> list[str]:
        """``--header`` and ``--auth`` as a record shows them: values as ``***``."""
        args: list[str] = []
        for name in self.headers:
            args += ["--header", f"{name}: ***"]
        if self.auth:
            args += ["--auth", f"{self.auth}:***"]
        return args

    def command_line(self) -> str:
        """:meth:`command` as one shell-quoted line."""
        return shlex.join(self.command())


def _compact(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=True)


def _masked_target(transport: str, target: str) -> str:
    if transport != "mcp stdio":
        return mask_url(target)
    try:
        return shlex.join(mask_words(shlex.split(target)))
    except ValueError:  # not a shell-quoted command: masked as text
        return mask(target)


def _canonical(text: str) -> str:
    """A template's JSON text with sorted keys (``""`` stays empty)."""
    return _compact(json.loads(text)) if text else ""
