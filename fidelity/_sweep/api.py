"""``fidelity.sweep(...)``: what ``fidelity probe --all-tools``, ``--openapi`` and
``--config`` run,
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
from typing import TYPE_CHECKING, Any, Literal, overload

from fidelity._core.errors import ExitCode, TargetError, UsageError

if TYPE_CHECKING:
    from fidelity._report.errors import ErrorContract
    from fidelity._sweep.plan import ProbePlan
    from fidelity._sweep.result import Recorder, Sweep

__all__ = ["OPTION_NAMES", "sweep"]

#: The option values of ``fidelity probe`` (the names of its parsed arguments), every
#: one absent unless :func:`sweep` gives it; tests/cli pins them to the CLI's parser.
OPTION_NAMES = (
    "target", "mcp", "tool", "prompt", "resource", "param", "args", "before", "send",
    "header", "auth", "method", "read_method", "body", "name", "read", "read_tool",
    "read_args", "expect", "read_url", "id_from", "all_tools", "args_for", "skip_tool",
    "only_tool", "config_tools", "sandbox", "env", "openapi", "only_op", "skip_op",
    "default", "errors",
    "clients", "yes", "config", "server", "jobs", "families", "examples", "max_requests",
    "rate", "concurrency", "timeout", "seed", "max_reply", "allow", "card", "check", "json",
    "html", "junit", "quiet", "list_tools", "dry_run", "transport", "retries", "retry_writes",
    "form", "multipart", "login", "login_form", "login_body", "csrf_from", "csrf_to",
    "restart", "read_after_restart",
)  # fmt: skip
_FLAGS = {
    "mcp", "all_tools", "sandbox", "yes", "quiet", "list_tools", "dry_run", "errors",
    "retry_writes", "multipart", "read_after_restart",
}  # fmt: skip


@overload
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
    errors: Literal[False] = False,
) -> Sweep: ...


@overload
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
    errors: Literal[True],
) -> ErrorContract: ...


def sweep(
    *,
    mcp: Sequence[str] | str | None = None,
    openapi: str | None = None,
    base_url: str | None = None,
    config: str | None = None,
    server: Sequence[str] = (),
    jobs: int = 1,
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
    errors: bool = False,
) -> Sweep | ErrorContract:
    """Sweep every string parameter of a whole target; return the :class:`Sweep`.

    What ``fidelity probe --all-tools`` (``mcp=``: a server's command as a list of
    words, or its Streamable HTTP URL), ``fidelity probe --openapi`` (``openapi=``:
    the document's file or URL; ``base_url=`` the API's, else the document's first
    server) and ``fidelity probe --config`` (``config=``: an MCP client's configuration
    file; ``server=`` the names of the servers to sweep, else all; ``jobs=`` how many
    at once, each server in its own process, its rows named ``SERVER.TOOL.PARAM``) run,
    with the CLI's options under Python names: ``yes`` (``--yes``: call
    the tools not annotated read-only), ``sandbox``, ``families``, ``skip_tools`` and
    ``only_tools`` (globs), ``defaults`` (``--default``: a value per parameter name, or
    per field of an operation), ``args_for`` (``--args-for``: a tool's pinned
    arguments), ``allow`` (kinds of rewrite the exit code accepts), ``max_requests``,
    ``timeout`` (seconds per request), ``headers`` and ``auth`` (HTTP and MCP over
    HTTP; ``${VAR}`` in a header value is read from the environment, as the CLI
    does), ``examples``, ``seed``, ``rate`` (requests per second), ``max_reply``
    (bytes), ``only_ops`` and ``skip_ops`` (``--only-op``/``--skip-op``).

    With ``errors=True`` it checks the error contract instead, as ``fidelity probe
    --errors`` does (no payload is sent): each tool (or operation) gets the malformed
    calls made from its schema, and the result is an :class:`ErrorContract` (``calls``
    with their verdicts, ``counts``, ``exit_code()``: the CLI's for the same run);
    ``allow`` then takes the verdict ids (``error.accepted``...); ``families``,
    ``clients``, ``examples``, ``seed``, ``rate`` do not apply to it.

    Nothing is printed and no file is written: the result holds the rows, the exit
    code the CLI exits with for the same run, the ``--json`` document
    (:meth:`Sweep.to_json`) and writers for the card blocks, the HTML page and the
    JUnit cases. A bad option raises :class:`UsageError` and a target that cannot be
    reached :class:`TargetError` (both one sentence, in the CLI's words); a run that
    broke or measured nothing returns exit code 3 with ``message`` saying why.
    ``clients`` is checked as ``--clients`` is (with every tool swept, the CLI refuses
    it). With ``config=``, the exit code is the worst of the servers' (2 when a glob
    or an ``args_for`` tool matched no tool of any server reached, ``message`` says
    which) and :meth:`Sweep.to_json` is the document ``--config`` writes.
    """
    given = [
        name for name, value in (("mcp", mcp), ("openapi", openapi), ("config", config)) if value
    ]
    if len(given) != 1:
        raise UsageError(
            "give sweep() one target: mcp=[COMMAND, ...] or URL, openapi=SPEC, or config=FILE."
        )
    if (server or jobs != 1) and config is None:
        raise UsageError("server= and jobs= choose servers of a config= file; give it.")
    if base_url is not None and openapi is None:
        raise UsageError("base_url= is the base URL of an openapi= document; give openapi=.")
    verdicts: tuple[str, ...] = ()
    if errors:
        from fidelity._sweep.errors_plan import errors_allow

        verdicts, allow = errors_allow(_items(allow)), ()
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
    from fidelity._core.secrets import forget

    forget()  # the sweep's secrets (headers, auth) are masked in what it writes, then gone
    try:
        if errors:
            from fidelity._sweep.errors_api import errors_of

            if config is not None:
                raise UsageError(
                    "errors=True checks one server or API; for a config file run "
                    "fidelity probe --config FILE --errors."
                )

            values["allow"] = None
            if openapi is not None:
                return errors_of(_options(values, openapi=openapi), base_url, allow=verdicts)
            assert mcp is not None
            words = [mcp] if isinstance(mcp, str) else list(mcp)
            mcp_options = _options(values, target=words, mcp=True, errors=True)
            return errors_of(mcp_options, None, allow=verdicts)
        if config is not None:
            return _sweep_config(values, config, server, jobs, base_url=base_url)
        if openapi is not None:
            return _sweep_openapi(_options(values, openapi=openapi), base_url)
        assert mcp is not None
        words = [mcp] if isinstance(mcp, str) else list(mcp)
        return _sweep_mcp(_options(values, target=words, mcp=True, all_tools=True))
    finally:
        forget()


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


def _sweep_config(
    values: Mapping[str, Any],
    config: str,
    server: Sequence[str],
    jobs: int,
    *,
    base_url: str | None,
) -> Sweep:
    from fidelity._sweep.result import fleet_sweep
    from fidelity._sweep.servers import fleet_options, run_fleet

    # The options that describe one target (the file gives each server's own).
    given = [
        name
        for name, value in (
            ("base_url", base_url),
            ("clients", values["clients"]),
            ("headers", values["header"]),
            ("auth", values["auth"]),
            ("only_ops", values["only_op"]),
            ("skip_ops", values["skip_op"]),
        )
        if value
    ]
    if given:
        raise UsageError(
            f"sweep(config=...) sweeps every server of the file with the --all-tools rules; "
            f"{given[0]}= describes one target: drop it, or sweep that server on its own."
        )
    options = fleet_options(
        {**values, "config": config, "server": _items(server), "jobs": str(jobs)}
    )
    return fleet_sweep(run_fleet(options))


def _sweep_openapi(options: argparse.Namespace, base_url: str | None) -> Sweep:
    from fidelity._sweep.openapi_run import execute_openapi, openapi_target
    from fidelity._sweep.plan import plan_from_args
    from fidelity._sweep.result import Recorder

    openapi = openapi_target(options, base_url)
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
