"""``fidelity.sweep(...)``: what ``fidelity probe --all-tools`` and ``--openapi`` run,
called from Python, returning a :class:`~fidelity._sweep.result.Sweep` and printing
nothing.

The options are the CLI's, under Python names, and they are checked by the same code
(:func:`~fidelity._sweep.plan.plan_from_args` reads them as the option values the
command line would give), so a sweep and a ``fidelity probe`` with the same options make
the same plan, the same rows and the same exit code; a bad option raises
:class:`~fidelity.UsageError` with the sentence the CLI prints (in the CLI's words).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from fidelity._core.errors import ExitCode, TargetError, UsageError

if TYPE_CHECKING:
    from fidelity._sweep.plan import ProbePlan
    from fidelity._sweep.result import Recorder, Sweep

__all__ = ["OPTION_NAMES", "sweep"]

#: The option values of ``fidelity probe`` (the names of its parsed arguments), every
#: one absent unless :func:`sweep` gives it; tests/cli pins them to the CLI's parser.
OPTION_NAMES = (
    "target", "mcp", "tool", "prompt", "resource", "param", "args", "before", "send",
    "header", "auth", "method", "read_method", "body", "name", "read", "read_tool",
    "read_args", "expect", "read_url", "id_from", "all_tools", "args_for", "skip_tool",
    "only_tool", "config_tools", "sandbox", "openapi", "only_op", "skip_op", "default",
    "clients", "yes", "config", "server", "jobs", "families", "examples", "max_requests",
    "rate", "concurrency", "timeout", "seed", "max_reply", "allow", "card", "check", "json",
    "html", "junit", "quiet", "list_tools", "dry_run",
)  # fmt: skip
_FLAGS = {"mcp", "all_tools", "sandbox", "yes", "quiet", "list_tools", "dry_run"}


def sweep(
    *,
    mcp: Sequence[str] | str | None = None,
    openapi: str | None = None,
    base_url: str | None = None,
    config: str | None = None,
    yes: bool = False,
    sandbox: bool = False,
    families: Sequence[str] | None = None,
    skip_tools: Sequence[str] = (),
    only_tools: Sequence[str] = (),
    defaults: Mapping[str, Any] | None = None,
    args_for: Mapping[str, Mapping[str, Any]] | None = None,
    allow: Sequence[str] = (),
    clients: Sequence[str] = (),
    max_requests: int | None = None,
    timeout: float | None = None,
    headers: Mapping[str, str] | None = None,
    auth: tuple[str, str] | None = None,
    examples: int = 0,
    seed: int | None = None,
    rate: float | None = None,
    max_reply: int | None = None,
    only_ops: Sequence[str] = (),
    skip_ops: Sequence[str] = (),
) -> Sweep:
    """Sweep every string parameter of a whole target; return the :class:`Sweep`.

    What ``fidelity probe --all-tools`` (``mcp=``: a server's command as a list of
    words, or its Streamable HTTP URL) and ``fidelity probe --openapi`` (``openapi=``:
    the document's file or URL; ``base_url=`` the API's, else the document's first
    server) run, with the CLI's options under Python names: ``yes`` (``--yes``: call
    the tools not annotated read-only), ``sandbox``, ``families``, ``skip_tools`` and
    ``only_tools`` (globs), ``defaults`` (``--default``: a value per parameter name, or
    per field of an operation), ``args_for`` (``--args-for``: a tool's pinned
    arguments), ``allow`` (kinds of rewrite the exit code accepts), ``max_requests``,
    ``timeout`` (seconds per request), ``headers`` and ``auth`` (HTTP and MCP over
    HTTP; ``${VAR}`` in a header value is read from the environment, as the CLI
    does), ``examples``, ``seed``, ``rate`` (requests per second), ``max_reply``
    (bytes), ``only_ops`` and ``skip_ops`` (``--only-op``/``--skip-op``).

    Nothing is printed and no file is written: the result holds the rows, the exit
    code the CLI exits with for the same run, the ``--json`` document
    (:meth:`Sweep.to_json`) and writers for the card blocks, the HTML page and the
    JUnit cases. A bad option raises :class:`UsageError` and a target that cannot be
    reached :class:`TargetError` (both one sentence, in the CLI's words); a run that
    broke or measured nothing returns exit code 3 with ``message`` saying why.
    ``clients`` is checked as ``--clients`` is (with every tool swept, the CLI refuses
    it). ``config=`` (a client's configuration file, ``--config``) is not supported
    yet: it raises :class:`UsageError`.
    """
    given = [name for name, value in (("mcp", mcp), ("openapi", openapi)) if value]
    if config is not None:
        raise UsageError(
            "sweep(config=...) is not supported yet; run fidelity probe --config FILE, or "
            "sweep each server of the file with mcp=[COMMAND, ...]."
        )
    if len(given) != 1:
        raise UsageError("give sweep() one target: mcp=[COMMAND, ...] or URL, or openapi=SPEC.")
    if base_url is not None and openapi is None:
        raise UsageError("base_url= is the base URL of an openapi= document; give openapi=.")
    values: dict[str, Any] = {
        "yes": yes,
        "sandbox": sandbox,
        "families": None if families is None else ",".join(_items(families)),
        "skip_tool": _items(skip_tools) or None,
        "only_tool": _items(only_tools) or None,
        "default": _pairs(defaults),
        "args_for": _pairs(args_for),
        "allow": _items(allow) or None,
        "clients": ",".join(_items(clients)) if clients else None,
        "max_requests": _text(max_requests),
        "timeout": _text(timeout),
        "header": [f"{k}: {v}" for k, v in headers.items()] if headers else None,
        "auth": None if auth is None else f"{auth[0]}:{auth[1]}",
        "examples": _text(examples or None),
        "seed": _text(seed),
        "rate": _text(rate),
        "max_reply": _text(max_reply),
        "only_op": _items(only_ops) or None,
        "skip_op": _items(skip_ops) or None,
        "quiet": True,
    }
    if openapi is not None:
        return _sweep_openapi(_options(values, openapi=openapi), base_url)
    assert mcp is not None
    words = [mcp] if isinstance(mcp, str) else list(mcp)
    return _sweep_mcp(_options(values, target=words, mcp=True, all_tools=True))


def _options(values: Mapping[str, Any], **more: Any) -> argparse.Namespace:
    """The option values as ``fidelity probe`` parses them: absent unless given."""
    options = {name: (False if name in _FLAGS else None) for name in OPTION_NAMES}
    options.update(values)
    options.update(more)
    return argparse.Namespace(**options)


def _items(values: Sequence[str]) -> list[str]:
    """A list of names; one name given as a string is one item, not its letters."""
    return [values] if isinstance(values, str) else list(values)


def _pairs(values: Mapping[str, Any] | None) -> list[str] | None:
    """``NAME=JSON`` for each item (``--default``, ``--args-for``)."""
    if not values:
        return None
    return [f"{name}={json.dumps(value)}" for name, value in values.items()]


def _text(value: float | None) -> str | None:
    return None if value is None else str(value)


def _sweep_mcp(options: argparse.Namespace) -> Sweep:
    from fidelity._sweep.alltools import execute_all
    from fidelity._sweep.isolation import sandboxed
    from fidelity._sweep.plan import plan_from_args
    from fidelity._sweep.result import Recorder

    plan = plan_from_args(options)
    recorder = Recorder()
    with sandboxed(plan.sandbox):
        return _ended(recorder, plan, lambda: execute_all(plan, recorder.listen))


def _sweep_openapi(options: argparse.Namespace, base_url: str | None) -> Sweep:
    from fidelity._sweep.openapi_run import (
        OpenApiOptions,
        execute_openapi,
        parse_defaults,
        resolve_base,
    )
    from fidelity._sweep.plan import DEFAULT_TIMEOUT, parse_seconds, plan_from_args
    from fidelity._sweep.result import Recorder

    spec = options.openapi
    openapi = OpenApiOptions(
        spec=spec,
        only=tuple(options.only_op or ()),
        skip=tuple(options.skip_op or ()),
        defaults=parse_defaults(options.default),
    )
    timeout = parse_seconds("--timeout", options.timeout, default=DEFAULT_TIMEOUT)
    options.target = [resolve_base(spec, base_url, timeout)]
    plan = plan_from_args(options)
    recorder = Recorder()
    return _ended(recorder, plan, lambda: execute_openapi(plan, openapi, recorder.listen))


def _ended(recorder: Recorder, plan: ProbePlan, run: Callable[[], int]) -> Sweep:
    """Run, and keep the exit code: the CLI's verdict of a run that ended is its exit
    code or the :class:`TargetError` it raises (exit 3, its sentence kept); an error
    before the run ended is raised."""
    try:
        code = int(run())
    except TargetError as exc:
        if recorder.done is None:
            raise
        return recorder.sweep(plan, ExitCode.TARGET, str(exc))
    return recorder.sweep(plan, code, "")
