"""The HTTP options of ``fidelity probe`` that read like curl and httpie: retries of
answers that mean "not now", form bodies (``--form``, ``--multipart``) and a login
step whose session the run keeps (``--login``, ``--login-form``, ``--login-body``,
``--csrf-from``, ``--csrf-to``).

:func:`register` adds them to the parser's target group; :func:`plan_fields` checks
them against the kind of target and gives the :class:`ProbePlan` fields they set.
"""

from __future__ import annotations

import argparse
import json
import os
import re
from typing import Any

from fidelity._core.errors import UsageError

__all__ = ["form_send", "plan_fields", "register"]

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_LOGIN = ("login", "login_form", "login_body", "csrf_from", "csrf_to")

#: ``--retries`` when not given, and the most it takes.
DEFAULT_RETRIES = 2
_MAX_RETRIES = 10


def register(group: Any) -> None:
    """Add the options to ``group`` (the ``target`` group of ``fidelity probe``)."""
    group.add_argument(
        "--retries",
        metavar="N",
        help="HTTP: send a request again up to N times (default 2) when it is answered 429 "
        "or 503, or its connection is reset before the answer began, for GET, HEAD, PUT, "
        "DELETE and OPTIONS; Retry-After is honoured up to --timeout (0: never)",
    )
    group.add_argument(
        "--retry-writes",
        action="store_true",
        help="HTTP: retry a POST or PATCH too (it may then take effect twice); without it, "
        "its answer stands and says the server refused it for now",
    )
    group.add_argument(
        "--form",
        action="append",
        metavar="FIELD=VALUE",
        help="HTTP: a field of a form body (repeat for several; application/x-www-form-"
        "urlencoded); FIELD={payload} is where the payload goes, {n} and {run} are filled",
    )
    group.add_argument(
        "--multipart",
        action="store_true",
        help="HTTP: send the --form fields as multipart/form-data",
    )
    group.add_argument(
        "--login",
        metavar="URL",
        help="HTTP: log in first with a POST of URL (--login-form or --login-body); the "
        "cookies it sets go with every request of the run, shown as *** everywhere",
    )
    group.add_argument(
        "--login-form",
        action="append",
        metavar="FIELD=VALUE",
        help="HTTP: a field of the --login form (repeat; ${VAR} is taken from the "
        "environment); its value is shown as *** everywhere",
    )
    group.add_argument(
        "--login-body",
        metavar="JSON",
        help="HTTP: the --login request's JSON body instead of a form (${VAR} expanded)",
    )
    group.add_argument(
        "--csrf-from",
        metavar="WHERE",
        help="HTTP: where the CSRF token comes from: cookie:NAME (set by the login) or "
        "field:NAME (a form field or meta tag of the --login page, read with a GET first)",
    )
    group.add_argument(
        "--restart",
        metavar="CMD",
        help="HTTP with --read-url: after the run, run CMD (a shell command that restarts "
        "the service, on the same port), wait for the service, and read every value back "
        "once more: a value that reads differently only then is reported as read after "
        "the restart, both reads as its hops",
    )
    group.add_argument(
        "--read-after-restart",
        action="store_true",
        help="MCP stdio with --read-tool: after the run, restart the server (its session "
        "closed, the server started again) and call the read tool once more for every "
        "value: a value that reads differently only then is reported as read after the "
        "restart",
    )
    group.add_argument(
        "--csrf-to",
        metavar="WHERE",
        help="HTTP: where the CSRF token goes back: header:NAME (every request) or "
        "form:NAME (the login form and every --form)",
    )


def _count(option: str, value: str | None, default: int, most: int) -> int:
    if value is None:
        return default
    try:
        number = int(value.strip(), 10)
    except ValueError:
        number = -1
    if not 0 <= number <= most:
        raise UsageError(f"{option} {value!r} is not a whole number from 0 to {most}.")
    return number


def _expanded(option: str, value: str) -> str:
    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in os.environ:
            raise UsageError(
                f"{option} refers to ${{{name}}}, which is not set in the environment; "
                f"export {name} or write the value itself."
            )
        return os.environ[name]

    return _VAR.sub(one, value)


def _fields(option: str, values: list[str] | None, *, expand: bool) -> dict[str, str]:
    fields: dict[str, str] = {}
    for value in values or ():
        name, sep, text = value.partition("=")
        if not sep or not name.strip():
            raise UsageError(
                f"{option} {value[:40]!r} must be FIELD=VALUE, such as {option} title={{payload}}."
            )
        fields[name.strip()] = _expanded(option, text) if expand else text
    return fields


def form_send(args: argparse.Namespace) -> str | None:
    """The send place ``--form`` gives: the field that is ``{payload}`` (``None``
    without ``--form``, or when no field is)."""
    fields = _fields("--form", getattr(args, "form", None), expand=False)
    named = [name for name, value in fields.items() if value == "{payload}"]
    if len(named) > 1:
        raise UsageError(f"--form puts {{payload}} in {len(named)} fields; give it to one.")
    if not named:
        return None
    return f"{'multipart' if getattr(args, 'multipart', False) else 'form'}:{named[0]}"


def _login(args: argparse.Namespace) -> dict[str, Any] | None:
    url = getattr(args, "login", None)
    form = _fields("--login-form", getattr(args, "login_form", None), expand=True)
    body_text = getattr(args, "login_body", None)
    csrf_from, csrf_to = getattr(args, "csrf_from", None), getattr(args, "csrf_to", None)
    if url is None:
        given = [f"--{o.replace('_', '-')}" for o in _LOGIN[1:] if getattr(args, o, None)]
        if given:
            raise UsageError(f"{', '.join(given)} shape the login step; give --login URL.")
        return None
    if form and body_text is not None:
        raise UsageError("the login step sends --login-form fields or --login-body, not both.")
    body = None
    if body_text is not None:
        try:
            body = json.loads(_expanded("--login-body", body_text))
        except ValueError as exc:
            raise UsageError(f"--login-body is not valid JSON ({exc.args[0]}).") from None
        if not isinstance(body, dict):
            raise UsageError("--login-body must be a JSON object.")
    if not form and body is None:
        raise UsageError(
            "--login needs what to send: --login-form FIELD=VALUE (repeat) or --login-body JSON."
        )
    login: dict[str, Any] = {"url": url, "form": form or None, "body": body}
    if csrf_from is not None or csrf_to is not None:
        login.update(csrf_from=csrf_from, csrf_to=csrf_to)
    for option, value, kinds in (
        ("--csrf-from", csrf_from, ("cookie", "field")),
        ("--csrf-to", csrf_to, ("header", "form")),
    ):
        kind, sep, name = (value or "").partition(":")
        if value is None or (sep and kind in kinds and name):
            continue
        raise UsageError(f"{option} {value!r} must be {kinds[0]}:NAME or {kinds[1]}:NAME.")
    if (csrf_from is None) != (csrf_to is None):
        raise UsageError(
            "a CSRF token needs --csrf-from (cookie:NAME or field:NAME) and --csrf-to "
            "(header:NAME or form:NAME)."
        )
    return login


def plan_fields(args: argparse.Namespace, http: bool) -> dict[str, Any]:
    """The plan's fields these options set; for an MCP target (``http`` false) any of
    them given is a usage error."""
    retries = getattr(args, "retries", None)
    retry_writes = bool(getattr(args, "retry_writes", False))
    form = _fields("--form", getattr(args, "form", None), expand=False)
    multipart = bool(getattr(args, "multipart", False))
    again = bool(getattr(args, "read_after_restart", False))
    if again and (http or getattr(args, "read_tool", None) is None):
        raise UsageError(
            "--read-after-restart restarts a stdio MCP server and calls its --read-tool again; "
            "give --mcp, --read-tool and the server command (for HTTP: --restart CMD)."
        )
    if not http:
        given = [
            o
            for o, v in (
                ("--retries", retries), ("--retry-writes", retry_writes), ("--form", form),
                ("--multipart", multipart), ("--login", getattr(args, "login", None)),
                ("--restart", getattr(args, "restart", None)),
            )
            if v
        ]  # fmt: skip
        if given:
            raise UsageError(
                f"{' and '.join(given)} appl{'ies' if len(given) == 1 else 'y'} to HTTP "
                "targets; an MCP tool's arguments are --args JSON, and an MCP call that "
                "timed out or failed is never sent again."
            )
        return {"read_after_restart": again}
    if form and getattr(args, "body", None) is not None:
        raise UsageError("--form and --body are both a request body; give one of them.")
    if multipart and not form:
        raise UsageError("--multipart encodes the --form fields; give --form FIELD=VALUE.")
    restart = getattr(args, "restart", None)
    if restart is not None and (not restart.strip() or getattr(args, "read_url", None) is None):
        raise UsageError(
            "--restart CMD reads every value back again after CMD restarted the service: "
            "give the command, and --read-url, the request that reads a value back."
        )
    return {
        "retries": _count("--retries", retries, DEFAULT_RETRIES, _MAX_RETRIES),
        "retry_writes": retry_writes,
        "form": tuple(form.items()),
        "multipart": multipart,
        "login": _login(args),
        "restart": restart,
    }
