"""The command line of ``fidelity probe --openapi SPEC [URL]``: its options checked,
the base URL found, then the run (:mod:`~fidelity._sweep.openapi_run`)."""

from __future__ import annotations

import argparse

from fidelity._core.errors import UsageError

__all__ = ["refuse_openapi_options", "run_openapi"]

_OWN = (("only_op", "--only-op"), ("skip_op", "--skip-op"), ("default", "--default"))
_NOT_WITH = (
    ("mcp", "--mcp"),
    ("all_tools", "--all-tools"),
    ("send", "--send"),
    ("read", "--read"),
    ("read_url", "--read-url"),
    ("id_from", "--id-from"),
    ("clients", "--clients"),
    ("list_tools", "--list-tools"),
)


def refuse_openapi_options(args: argparse.Namespace) -> None:
    """``--only-op``, ``--skip-op`` and ``--default`` without ``--openapi``."""
    # --default also gives every tool's shared argument in an --all-tools run.
    given = [
        option
        for key, option in _OWN
        if getattr(args, key, None) and not (key == "default" and getattr(args, "all_tools", False))
    ]
    if given:
        raise UsageError(
            f"{', '.join(given)} select{'s' if len(given) == 1 else ''} the operations of an "
            "OpenAPI document; add --openapi SPEC."
        )


def run_openapi(args: argparse.Namespace) -> int:
    """Check the ``--openapi`` command line, find the base URL, run the survey."""
    from fidelity._cli.probe.listeners import terminal
    from fidelity._sweep.openapi_run import execute_openapi, openapi_target
    from fidelity._sweep.plan import plan_from_args

    errors = bool(getattr(args, "errors", False))
    allow: tuple[str, ...] = ()
    if errors:
        from fidelity._sweep.errors_plan import errors_allow

        allow = errors_allow(args.allow)
        args.allow = None
    if getattr(args, "check", None) is not None and not errors:
        raise UsageError(
            "--check compares one endpoint's run with its card block; with --openapi write "
            "the blocks with --card and the result with --json, then check them with "
            "fidelity card RESULT.json --check DOC.md."
        )
    given = [option for key, option in _NOT_WITH if getattr(args, key, None)]
    if given:
        raise UsageError(
            f"--openapi finds every field's place and read-back itself; drop "
            f"{', '.join(given)} (select operations with --only-op/--skip-op)."
        )
    words = list(args.target or ())
    if len(words) > 1:
        raise UsageError("--openapi takes at most one URL: the API's base URL.")
    if words and not words[0].lower().startswith(("http://", "https://")):
        raise UsageError(
            f"{words[0]!r} is not a base URL; give the API's http(s) URL after the options, "
            "or none to use the document's first server."
        )
    options = openapi_target(args, words[0] if words else None)
    if errors:
        from fidelity._cli.probe.errors_cli import run_errors_http

        return run_errors_http(args, options, allow)
    plan = plan_from_args(args)
    return execute_openapi(plan, options, terminal(plan))
