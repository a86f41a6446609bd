"""Control and isolation of ``fidelity probe``: which tools a whole-server run may call,
arguments every tool shares, and a sandbox for a stdio server.

- ``--skip-tool GLOB`` and ``--only-tool GLOB`` (repeatable, ``fnmatch`` globs on the
  tool's name): a tool left out is never called by ``--all-tools``, in any role (the
  payload's tool, a seed, a read-back); its parameters are listed as left out by the
  user, and do not count as unmeasured.
- ``--default NAME=JSON``: the argument ``NAME`` of every tool that has a parameter of
  that name (under its pins from ``--args-for``); ``{n}``, ``{run}`` and ``{sandbox}``
  in its strings, never ``{payload}``.
- ``--sandbox``: the stdio server runs with a fresh temporary ``HOME``, ``TMPDIR`` and
  working directory and a minimal environment, all removed when the run ends (however
  it ends); ``{sandbox}`` in the server's command and the JSON options names the
  working directory (``work`` beside ``home`` and ``tmp`` in one temporary
  directory). Its name is chosen when the options are checked, and it is created
  (exclusively) when the run starts. It keeps a run's files apart; it is not a
  security boundary (the server runs as the user).
"""

from __future__ import annotations

import contextvars
import dataclasses
import fnmatch
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from fidelity._core.errors import UsageError
from fidelity._core.render import safe
from probes.frontend import new_sandbox, sandbox_env, sandboxed, work_dir

__all__ = [
    "SANDBOX",
    "Control",
    "check_control",
    "left_out",
    "sandbox_env",
    "sandboxed",
    "spawn_options",
    "tool_globs",
    "with_sandbox",
    "work_dir",
]

#: The placeholder that names the sandbox's working directory.
SANDBOX = "{sandbox}"
_IN_TEMPLATE = re.compile(r"\{\{|\}\}|\{sandbox\}")


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Control:
    """The control options as checked: globs, defaults, and the sandbox's path
    (``None`` without ``--sandbox``)."""

    skip_tools: tuple[str, ...] = ()
    only_tools: tuple[str, ...] = ()
    defaults: tuple[tuple[str, Any], ...] = ()
    sandbox: str | None = None


def with_sandbox(value: Any, directory: str | None, *, template: bool = True) -> Any:
    """``value`` (a JSON value, or one string) with ``{sandbox}`` replaced by
    ``directory`` (in a template, its braces escaped and ``{{``/``}}`` kept); unchanged
    when there is no sandbox."""
    if directory is None:
        return value
    if isinstance(value, dict):
        return {k: with_sandbox(v, directory, template=template) for k, v in value.items()}
    if isinstance(value, list):
        return [with_sandbox(v, directory, template=template) for v in value]
    if isinstance(value, tuple):
        return tuple(with_sandbox(v, directory, template=template) for v in value)
    if not isinstance(value, str):
        return value
    if not template:
        return value.replace(SANDBOX, directory)
    shown = directory.replace("{", "{{").replace("}", "}}")
    return _IN_TEMPLATE.sub(lambda m: shown if m.group(0) == SANDBOX else m.group(0), value)


def tool_globs(option: str, given: Sequence[str] | None) -> tuple[str, ...]:
    """The globs of ``option`` as given (stripped); an empty one is a usage error."""
    globs = tuple(g.strip() for g in given or ())
    empty = [g for g in globs if not g]
    if empty:
        raise UsageError(f"{option} needs a tool name or a glob such as 'delete_*'.")
    return globs


def _default(value: str, directory: str | None) -> tuple[str, Any]:
    from probes.frontend import ArgumentTemplate

    name, sep, text = value.partition("=")
    name = name.strip()
    if not sep or not name or name.startswith(("{", "[")):
        raise UsageError(
            f"--default {safe(value)!r} must be NAME=JSON, a parameter name and its value, "
            "such as --default 'repo_path=\"{sandbox}\"'."
        )
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        raise UsageError(
            f"--default {safe(name)}=... is not valid JSON; quote a string value, such as "
            f"--default '{safe(name)}=\"value\"'."
        ) from None
    parsed = with_sandbox(parsed, directory)
    checked = ArgumentTemplate.of({name: parsed}, where=f"--default {safe(name)}=...")
    if checked.payload_paths:
        raise UsageError(
            f"--default {safe(name)}=... holds {{payload}}; a default is an argument every "
            "tool shares, never the payload (its placeholders are {n}, {run}, {sandbox})."
        )
    return name, parsed


def check_control(args: Any, kind: object) -> Control:
    """Check ``--skip-tool``, ``--only-tool``, ``--default`` and ``--sandbox``."""
    all_tools = bool(getattr(args, "all_tools", False))
    skip = tool_globs("--skip-tool", getattr(args, "skip_tool", None))
    only = tool_globs("--only-tool", getattr(args, "only_tool", None))
    # --default also serves --openapi, which reads it itself.
    given = list(getattr(args, "default", None) or ()) if all_tools else []
    for option, used in (("--skip-tool", skip), ("--only-tool", only)):
        if used and not all_tools:
            raise UsageError(
                f"{option} applies to an --all-tools run; for one tool name it with --tool "
                "and give its arguments with --args."
            )
    directory: str | None = None
    if getattr(args, "sandbox", False):
        if str(kind) != "mcp-stdio":
            raise UsageError(
                "--sandbox starts a stdio MCP server in a temporary directory; give the "
                "server's command after --, not a URL."
            )
        directory = new_sandbox()
    defaults: dict[str, Any] = {}
    for value in given:
        name, parsed = _default(value, work_dir(directory))
        if name in defaults:
            raise UsageError(f"--default names {safe(name)!r} twice; give it once.")
        defaults[name] = parsed
    return Control(
        skip_tools=skip, only_tools=only, defaults=tuple(defaults.items()), sandbox=directory
    )


def left_out(name: str, skip: Sequence[str], only: Sequence[str]) -> str:
    """Why tool ``name`` is left out by the user's globs (``""`` when it is not)."""
    hit = next((g for g in skip if fnmatch.fnmatchcase(name, g)), None)
    if hit is not None:
        return f"--skip-tool {hit}"
    if only and not any(fnmatch.fnmatchcase(name, g) for g in only):
        return "not matched by --only-tool"
    return ""


#: Set by the pytest plugin around ``fidelity.sweep`` (the variables the test's probe
#: adds): a server swept from a test gets the test's environment, as a probe's does.
TEST_ENV: contextvars.ContextVar[Mapping[str, str] | None] = contextvars.ContextVar(
    "fidelity_sweep_test_env", default=None
)


def spawn_options(
    root: str | None, env: Sequence[tuple[str, str]] | Mapping[str, str] = ()
) -> dict[str, Any]:
    """The environment of the server as ``probes.mcp`` takes it: from the command line,
    the SDK's minimal environment, not the caller's (``inherit_env=False``: such a
    server is often a third-party package, and the shell's variables, tokens included,
    are not its business; the same server gets the same variables from any shell); in
    a test (``TEST_ENV``), the test's environment with the probe's ``env`` on top. In a
    sandbox, its ``env`` and ``cwd`` there. ``env`` (``--env``) goes over all of them."""
    options = _spawn_options(root)
    given = dict(env)
    if given:
        options["env"] = {**options.get("env", {}), **given}
    return options


def _spawn_options(root: str | None) -> dict[str, Any]:
    extra = TEST_ENV.get()
    if extra is None:
        if root is None:
            return {"inherit_env": False}
        return {"inherit_env": False, "env": sandbox_env(root), "cwd": work_dir(root)}
    if root is None:
        return {"env": dict(extra)} if extra else {}
    env = {**sandbox_env(root, inherit=True), **extra}
    return {"inherit_env": False, "env": env, "cwd": work_dir(root)}
