"""``fidelity probe --config FILE``: the MCP servers of a client's configuration.

Two forms are read: an ``mcpServers`` map (desktop and IDE clients: ``command``,
``args``, ``env``, ``cwd``, or ``url`` and ``headers``) and a ``servers`` map (editor
workspace files, each with ``type``: ``stdio``, ``http`` or ``sse``...). Such files
often hold comments (``//`` and ``/* */``) and trailing commas: both are accepted
outside strings. Variables are expanded from the environment (``${env:NAME}``,
``${NAME}``); ``${input:...}`` (a value only the editor can ask for) is refused with a
sentence naming them. The values of ``env`` and ``headers`` are secrets: every output
shows them as ``***`` (:func:`redact`).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from fidelity._core.errors import UsageError
from fidelity._core.render import safe

__all__ = [
    "HEADER_VARIABLE",
    "MAX_CONFIG",
    "ConfigServer",
    "read_config",
    "redact",
    "strip_jsonc",
]

#: The variables through which a child run gets a server's header values (its
#: ``--header 'Name: ${FIDELITY_CONFIG_HEADER_0}'``): never on its command line.
HEADER_VARIABLE = "FIDELITY_CONFIG_HEADER_"

#: Largest configuration file read.
MAX_CONFIG = 4 * 1024 * 1024
_VARIABLE = re.compile(r"\$\{([^}]*)\}")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: Secrets shorter than this are not searched for in outputs (too many false hits).
_SHORTEST_SECRET = 3


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfigServer:
    """One server of the file: its ``name``, and either a stdio ``command`` (with
    ``args``, ``env``, ``cwd``) or a ``url`` (with ``headers``)."""

    name: str
    command: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)

    @property
    def secrets(self) -> tuple[str, ...]:
        """The values every output hides: the env values and header values given."""
        values = {*self.env.values(), *self.headers.values()}
        return tuple(sorted((v for v in values if len(v) >= _SHORTEST_SECRET), key=len)[::-1])


def redact(text: str, secrets: Sequence[str]) -> str:
    """``text`` with every secret (and its JSON-escaped form) replaced by ``***``."""
    for secret in secrets:
        text = text.replace(secret, "***")
        escaped = json.dumps(secret)[1:-1]
        if escaped != secret:
            text = text.replace(escaped, "***")
    return text


def strip_jsonc(text: str) -> str:
    """``text`` without ``//`` and ``/* */`` comments and trailing commas outside strings."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise ValueError("a /* comment is not closed")
            out.append(" ")
            i = end + 2
        elif c in "]}":
            # A comma before a closing bracket (only spaces between) is dropped.
            k = len(out) - 1
            while k >= 0 and out[k].isspace():
                k -= 1
            if k >= 0 and out[k] == ",":
                out[k] = ""
            out.append(c)
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _expand(value: str, where: str, missing: list[str], inputs: list[str]) -> str:
    def one(match: re.Match[str]) -> str:
        inner = match.group(1)
        if inner.startswith("input:"):
            inputs.append(f"{where}: ${{{inner}}}")
            return ""
        name = inner[4:] if inner.startswith("env:") else inner
        if not _NAME.fullmatch(name):
            inputs.append(f"{where}: ${{{inner}}}")
            return ""
        if name not in os.environ:
            missing.append(name)
            return ""
        return os.environ[name]

    return _VARIABLE.sub(one, value)


def _strings(raw: object, what: str) -> list[str]:
    if not isinstance(raw, list) or not all(isinstance(v, str) for v in raw):
        raise UsageError(f"{what} must be a list of strings.")
    return list(raw)


def _map(raw: object, what: str) -> dict[str, str]:
    if not isinstance(raw, dict) or not all(isinstance(v, str) for v in raw.values()):
        raise UsageError(f"{what} must be an object of strings.")
    return dict(raw)


def _server(name: str, raw: object, path: str) -> ConfigServer:
    where = f"{safe(path)}: server {safe(name)!r}"
    if not isinstance(raw, dict):
        raise UsageError(f"{where} must be an object.")
    missing: list[str] = []
    inputs: list[str] = []

    def ex(value: str, field_name: str) -> str:
        return _expand(value, f"{name}.{field_name}", missing, inputs)

    kind = raw.get("type")
    url = raw.get("url", raw.get("serverUrl"))
    headers = {k: ex(v, "headers") for k, v in _map(raw.get("headers", {}), where).items()}
    env = {k: ex(v, "env") for k, v in _map(raw.get("env", {}), f"{where} env").items()}
    command = raw.get("command")
    cwd = raw.get("cwd")
    if isinstance(url, str) and command is None:
        server = ConfigServer(name=name, url=ex(url, "url"), headers=headers)
    elif isinstance(command, str) and kind in (None, "stdio"):
        args = [ex(a, "args") for a in _strings(raw.get("args", []), f"{where} args")]
        server = ConfigServer(
            name=name,
            command=(ex(command, "command"), *args),
            env=env,
            cwd=ex(cwd, "cwd") if isinstance(cwd, str) else None,
        )
    else:
        raise UsageError(
            f"{where} has neither a command (stdio) nor a url (Streamable HTTP); give one."
        )
    if inputs:
        raise UsageError(
            f"{where} uses {', '.join(safe(i) for i in inputs)}: a value only the editor can "
            "ask for; put it in an environment variable and write ${env:NAME}."
        )
    if missing:
        names = ", ".join(sorted(set(missing)))
        raise UsageError(f"{where} uses ${{env:{names}}}, not set in the environment; set it.")
    return server


def read_config(path: str, names: Sequence[str] = ()) -> tuple[ConfigServer, ...]:
    """The servers of the configuration file at ``path`` (only ``names``, in the file's
    order, when given); any problem is one sentence."""
    from fidelity._report.results import read_limited

    data = read_limited(path, "--config", limit=MAX_CONFIG)
    try:
        raw = json.loads(strip_jsonc(data.decode("utf-8")))
    except (UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"--config {safe(path)} is not JSON: {safe(str(exc))}.") from None
    servers = None
    if isinstance(raw, dict):
        servers = raw.get("mcpServers", raw.get("servers"))
        if servers is None and isinstance(raw.get("mcp"), dict):
            servers = raw["mcp"].get("servers")
    if not isinstance(servers, dict) or not servers:
        raise UsageError(
            f"--config {safe(path)} holds no server: expected an object with an "
            "'mcpServers' or 'servers' map."
        )
    unknown = [n for n in names if n not in servers]
    if unknown:
        raise UsageError(
            f"--server {', '.join(safe(n) for n in unknown)}: not in {safe(path)}; its "
            f"servers are {', '.join(safe(n) for n in servers)}."
        )
    chosen = [n for n in servers if not names or n in names]
    return tuple(_server(name, servers[name], path) for name in chosen)
