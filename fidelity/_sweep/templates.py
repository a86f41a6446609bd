"""The JSON options of ``fidelity probe`` and their placeholders, checked before anything
is sent.

``--args``, ``--read-args`` and each ``--before 'TOOL=JSON'`` are JSON objects whose
strings may hold placeholders (a whole ``"{payload}"``, ``{n}``, ``{run}``); ``--param``
is a path into the arguments; ``--read-url`` holds ``{id}``, ``{n}``, ``{run}`` and
``{payload}`` (the value as one path segment, for a resource keyed by it). Each
is parsed here, in the words of the command line, so a mistake is one sentence and
exit code 2 before the server is even started.
"""

from __future__ import annotations

import json
from typing import Any

from fidelity._core.errors import UsageError
from fidelity._core.render import safe
from fidelity._run.messages import as_options

__all__ = [
    "check_all_tools",
    "check_expect",
    "check_mcp_options",
    "check_read_url",
    "literal_braces",
    "parse_json_object",
    "parse_step",
]

_STEP_EXAMPLE = '--before \'git_add={"repo_path": "/tmp/repo", "files": ["f{n}.txt"]}\''


def parse_json_object(option: str, value: str | None) -> dict[str, Any] | None:
    """Parse an option's JSON object (``None`` when the option is absent)."""
    if value is None:
        return None
    try:
        parsed = json.loads(value)
    except (ValueError, RecursionError) as exc:
        reason = exc.args[0] if isinstance(exc, ValueError) and exc.args else "nested too deeply"
        raise UsageError(
            f"{option} is not valid JSON ({reason}); give a JSON object such as "
            '\'{"path": "/tmp/x"}\'.'
        ) from None
    if not isinstance(parsed, dict):
        raise UsageError(
            f"{option} must be a JSON object of tool arguments, not {type(parsed).__name__}; "
            'give e.g. \'{"path": "/tmp/x"}\'.'
        )
    return parsed


def parse_step(value: str) -> tuple[str, dict[str, Any]]:
    """Parse one ``--before 'TOOL=JSON'``: a setup call made before each payload."""
    tool, sep, arguments = value.partition("=")
    tool = tool.strip()
    if not sep or not tool or tool.startswith(("{", "[")):
        raise UsageError(
            f"--before {safe(value)!r} must be TOOL=JSON, the tool to call before each "
            f"payload and its arguments, such as {_STEP_EXAMPLE}."
        )
    parsed = parse_json_object(f"--before {safe(tool)}=...", arguments)
    assert parsed is not None
    return tool, parsed


def check_mcp_options(
    param: str | None,
    args: dict[str, Any] | None,
    before: tuple[tuple[str, dict[str, Any]], ...],
    read_args: dict[str, Any] | None,
    expect: str | None = None,
) -> None:
    """Check ``--param``, ``--expect`` and the placeholders of the JSON options, as the
    probe will (``{payload}`` inside a longer string only with ``--expect``)."""
    from probes.frontend import ArgumentTemplate, ParamPath

    if param is not None:
        try:
            path = ParamPath.parse(param)
        except UsageError as exc:
            raise UsageError(as_options(str(exc))) from None
        if not isinstance(path.top, str):
            raise UsageError(f"--param {safe(param)!r} must start with an argument name.")
    templates = [
        *([ArgumentTemplate.of(args, where="--args")] if args is not None else []),
        *(
            ArgumentTemplate.of(arguments, where=f"--before {safe(tool)}=... (step {i})")
            for i, (tool, arguments) in enumerate(before, 1)
        ),
        *([ArgumentTemplate.of(read_args, where="--read-args")] if read_args is not None else []),
    ]
    check_expect(expect)
    if expect is None:
        for template in templates:
            try:
                template.refuse_embedded()
            except UsageError as exc:
                raise UsageError(as_options(str(exc))) from None


def check_expect(expect: str | None) -> None:
    """Check ``--expect TEMPLATE``: it holds ``{payload}``, and may hold ``{mark}``,
    ``{n}``, ``{run}``."""
    from probes.frontend import Expectation

    if expect is not None:
        Expectation.parse(expect, where="--expect")


def check_read_url(read_url: str | None, id_from: str | None) -> None:
    """Check ``--read-url``'s placeholders and ``--id-from`` as the HTTP probe will."""
    from probes.frontend import TextTemplate
    from probes.frontend import parse_http_read as parse_read

    names: frozenset[str] = frozenset()
    if read_url is not None:
        parsed = TextTemplate.parse(
            read_url, allowed=("id", "n", "run", "payload"), where="--read-url"
        )
        names = parsed.names
    if id_from is not None:
        if read_url is None:
            raise UsageError(
                "--id-from names where the write response holds the id for --read-url; "
                "add --read-url."
            )
        try:
            where = parse_read(id_from).where
        except UsageError:
            where = ""
        if where not in ("json", "header", "regex"):
            raise UsageError(
                f"--id-from {safe(id_from)!r} must say where the write response holds the id: "
                "json:PATH, header:NAME or regex:PATTERN (one group)."
            )
    if read_url is not None and ("id" in names) != (id_from is not None):
        raise UsageError(
            "--read-url with {id} needs --id-from (json:PATH, header:NAME or regex:PATTERN: "
            "where the write response holds the id), and --id-from needs a --read-url that "
            "holds {id}."
        )


#: Options that name one tool's plan; ``--all-tools`` makes each tool's plan itself.
_ONE_TOOL = (
    "tool", "param", "args", "before", "read", "read_tool", "read_args", "expect", "prompt",
    "resource",
)  # fmt: skip


def check_all_tools(
    args: Any, kind: object, sandbox: str | None = None
) -> tuple[tuple[str, dict[str, Any]], ...]:
    """Check ``--all-tools`` and ``--args-for 'TOOL=JSON'``; return the pinned arguments
    per tool, in the order given (``{sandbox}`` checked as ``sandbox`` names it; the
    caller replaces it)."""
    from fidelity._sweep.isolation import with_sandbox
    from probes.frontend import ArgumentTemplate

    all_tools = bool(getattr(args, "all_tools", False))
    given = list(getattr(args, "args_for", None) or ())
    if given and not all_tools:
        raise UsageError(
            "--args-for pins a tool's arguments in an --all-tools run; for one tool give "
            "its arguments with --args."
        )
    if not all_tools:
        return ()
    if str(kind) == "http":
        raise UsageError(
            "--all-tools surveys the tools of an MCP server; add --mcp or use an "
            "mcp+http(s):// URL."
        )
    if getattr(args, "clients", None) is not None:
        raise UsageError(
            "--clients runs one tool's plan through several clients and --all-tools every "
            "tool through one; probe the tool you want with --clients, or drop --clients."
        )
    if getattr(args, "check", None) is not None:
        raise UsageError(
            "--check compares one tool's run with its card block; with --all-tools write "
            "the blocks with --card, then check them with fidelity card RESULT.json --check."
        )
    one = [f"--{o.replace('_', '-')}" for o in _ONE_TOOL if getattr(args, o, None) is not None]
    if one:
        raise UsageError(
            f"{', '.join(one)} describe{'s' if len(one) == 1 else ''} one tool's run; with "
            "--all-tools every tool's parameters, arguments and read-back are found for it "
            "(pin a tool's arguments with --args-for 'TOOL=JSON')."
        )
    pinned: dict[str, dict[str, Any]] = {}
    for value in given:
        tool, sep, text = value.partition("=")
        tool = tool.strip()
        if not sep or not tool or tool.startswith(("{", "[")):
            raise UsageError(
                f"--args-for {safe(value)!r} must be TOOL=JSON, a tool and the arguments to "
                'pin, such as --args-for \'write_file={"path": "/tmp/root/f{n}.txt"}\'.'
            )
        if tool in pinned:
            raise UsageError(
                f"--args-for names tool {safe(tool)!r} twice; give its arguments in one object."
            )
        parsed = parse_json_object(f"--args-for {safe(tool)}=...", text)
        assert parsed is not None
        ArgumentTemplate.of(with_sandbox(parsed, sandbox), where=f"--args-for {safe(tool)}=...")
        pinned[tool] = parsed
    return tuple(pinned.items())


def literal_braces(value: Any) -> Any:
    """Made values (generated arguments, a request's other fields) as template text:
    their braces are literal, not placeholders."""
    if isinstance(value, dict):
        return {k: literal_braces(v) for k, v in value.items()}
    if isinstance(value, list):
        return [literal_braces(v) for v in value]
    if isinstance(value, str):
        return value.replace("{", "{{").replace("}", "}}")
    return value
