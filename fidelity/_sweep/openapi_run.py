"""``fidelity probe --openapi SPEC [URL]``: every string field of every operation.

The document is read (:func:`probes.frontend.load_openapi`), its operations and
their string fields found (:mod:`~fidelity._sweep.openapi_ops`), and each field
surveyed as one HTTP endpoint would be (``probes.http`` with the operation's method,
URL, body template and send place): a calibration call that finds the read-back, the
payloads within its share of ``--max-requests``, the verdict. The rows, outputs and
verdict rules are those of ``--all-tools`` (:mod:`~fidelity._sweep.rows`, whose
loop runs both): one row ``POST /notes body.title`` per field.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from fidelity._core.errors import ExitCode, TargetError, UsageError
from fidelity._core.render import safe
from fidelity._core.secrets import mask_url
from fidelity._run.messages import as_options, one_line
from fidelity._sweep.execute import catalogue_payloads, with_seed
from fidelity._sweep.openapi_model import Fill, OpField, OpInventory
from fidelity._sweep.openapi_ops import fields, operations
from fidelity._sweep.rows import Listen, run_param, run_rows
from fidelity._sweep.rows_model import ParamRun
from probes.frontend import CALIBRATION_CALLS

if TYPE_CHECKING:
    import argparse

    from fidelity._core.payload import Payload
    from fidelity._sweep.plan import ProbePlan

__all__ = ["OpenApiOptions", "execute_openapi", "openapi_target", "parse_defaults"]

#: What one field costs at least: its calibration call and one payload.
_LEAST = CALIBRATION_CALLS + 1
_NOUN = "operation field"


@dataclass(frozen=True, slots=True)
class OpenApiOptions:
    """The options only ``--openapi`` reads."""

    spec: str
    only: tuple[str, ...] = ()
    skip: tuple[str, ...] = ()
    defaults: Mapping[str, Any] = dataclasses.field(default_factory=dict)


def parse_defaults(values: Sequence[str] | None) -> dict[str, Any]:
    """``--default NAME=JSON`` (repeated): a parameter's or a body field's value."""
    out: dict[str, Any] = {}
    for value in values or ():
        name, sep, text = value.partition("=")
        if not sep or not name.strip():
            raise UsageError(
                f"--default {safe(value)!r} is not NAME=JSON; give such as --default bid=3 or "
                "--default 'title=\"a\"'."
            )
        try:
            out[name.strip()] = json.loads(text)
        except ValueError:
            out[name.strip()] = text  # a bare word is a string: --default lang=en
    return out


def _request_probe(plan: ProbePlan, field: OpField) -> Any:
    from fidelity._core.siblings import load

    http = load("probes").http  # ours, beside a local probes too

    request = field.request
    assert request is not None
    kwargs: dict[str, Any] = {
        "method": request.method,
        "send": request.send,
        "read": None,
        "timeout": plan.timeout,
        "concurrency": plan.concurrency,
        "max_body": plan.max_reply,
        "read_url": request.read_url,
        "id_from": request.id_from,
        "retries": plan.retries,
        "retry_writes": plan.retry_writes,
    }
    if request.body is not None:
        kwargs["body"] = dict(request.body)
    headers = {**dict(plan.headers), **dict(request.headers or {})}  # --header, then the op's
    if headers:
        kwargs["headers"] = headers
    if plan.auth is not None:
        kwargs["auth"] = plan.auth
    if plan.rate is not None:
        kwargs["rate"] = plan.rate
    return http(request.url, **kwargs)


def _survey_field(
    plan: ProbePlan, field: OpField, payloads: Sequence[Payload], share: int | None
) -> ParamRun:
    request = field.request
    assert request is not None
    sub = dataclasses.replace(
        plan,
        target=request.url,
        send=request.send,
        read=None,
        read_url=request.read_url,
        id_from=request.id_from,
        max_requests=share,
        json=None,
        card=None,
        html=None,
    )
    try:
        manager = _request_probe(plan, field)
        probe = manager.__enter__()
    except UsageError as exc:
        reason = one_line(as_options(str(exc))).rstrip(".")
        return ParamRun(param=field, skipped=f"not planned: {reason}; pin it with --default")
    except TargetError as exc:
        return ParamRun(param=field, failure=one_line(str(exc)), fatal=True)
    try:
        return run_param(sub, field, probe, payloads, name=field.block_name)
    finally:
        with suppress(Exception):  # closing a client that failed: nothing more to learn
            manager.__exit__(None, None, None)


def inventory_of(plan: ProbePlan, options: OpenApiOptions) -> OpInventory:
    """Read the document and find the fields to survey (nothing is sent)."""
    from probes.frontend import load_openapi

    document = load_openapi(
        options.spec, timeout=plan.timeout, headers=dict(plan.headers), auth=plan.auth
    )
    assert isinstance(plan.target, str)
    catalogue = tuple(operations(document))
    chosen = operations(document, options.only, options.skip)
    if not chosen:
        names = ", ".join(safe(op.name) for op in catalogue[:12])
        raise UsageError(
            f"--only-op/--skip-op leave no operation of the document; its operations are: {names}."
        )
    fill = Fill(
        base=plan.target.rstrip("/"),
        defaults=options.defaults,
        seed=plan.seed,
        yes=plan.yes,
        catalogue=catalogue,
        sent_headers=dict(plan.headers),
    )
    return fields(chosen, fill)


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = None
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), port or {"http": 80, "https": 443}.get(scheme)


def resolve_base(
    spec: str,
    given: str | None,
    timeout: float,
    *,
    headers: Sequence[tuple[str, str]] = (),
    auth: tuple[str, str] | None = None,
) -> str:
    """The base URL: ``given``, or the document's first server. The document is fetched
    with the run's ``headers`` and ``auth`` (to its own origin only); with credentials,
    a server of another origin than the document's URL needs to be ``given``: they go
    only to an origin named on the command line."""
    from probes.frontend import load_openapi, openapi_base_url

    document = load_openapi(spec, timeout=timeout, headers=dict(headers), auth=auth)
    base = openapi_base_url(document, given, spec)
    named = spec.lower().startswith(("http://", "https://"))
    credentials = bool(headers) or auth is not None
    if given is None and credentials and (not named or _origin(base) != _origin(spec)):
        where = f"another origin than {safe(mask_url(spec))}" if named else "a file"
        raise UsageError(
            f"--openapi's document names the server {safe(mask_url(base))} and came "
            f"from {where}; --header and --auth are sent only to an origin named on "
            f"the command line: give the base URL after the options to send them there "
            f"(such as fidelity probe --openapi SPEC {safe(mask_url(base))})."
        )
    return base


def openapi_target(args: argparse.Namespace, base_url: str | None) -> OpenApiOptions:
    """The operations' options of an ``--openapi`` run from its option values, with
    ``args.target`` set to the API's base URL (``base_url``, or the document's server,
    the document fetched with the run's credentials: :func:`resolve_base`)."""
    from fidelity._sweep.plan import DEFAULT_TIMEOUT, parse_seconds
    from fidelity._sweep.request_options import parse_auth, parse_headers

    options = OpenApiOptions(
        spec=args.openapi,
        only=tuple(args.only_op or ()),
        skip=tuple(args.skip_op or ()),
        defaults=parse_defaults(args.default),
    )
    timeout = parse_seconds("--timeout", args.timeout, default=DEFAULT_TIMEOUT)
    headers, auth = parse_headers(args.header), parse_auth(args.auth)
    args.target = [resolve_base(options.spec, base_url, timeout, headers=headers, auth=auth)]
    return options


def execute_openapi(plan: ProbePlan, options: OpenApiOptions, listen: Listen | None = None) -> int:
    """Run ``fidelity probe --openapi`` as planned; return the exit code (``listen``:
    who hears the run, see :func:`~fidelity._sweep.rows.run_rows`)."""
    from fidelity._sweep.outputs import check_outputs

    check_outputs(plan)
    inv = inventory_of(plan, options)
    check_outputs(plan, more=[p.block_name for p in inv.surveyed])
    payloads = catalogue_payloads(plan)
    plan = with_seed(plan)
    surveyed = inv.surveyed
    if plan.max_requests is not None and plan.max_requests < _LEAST * len(surveyed):
        raise UsageError(
            f"--max-requests {plan.max_requests} leaves less than the {_LEAST} requests each "
            f"of the {len(surveyed)} operation fields needs ({CALIBRATION_CALLS} calibration "
            f"requests and one payload); raise it to at least {_LEAST * len(surveyed)}."
        )
    if plan.dry_run:
        return _dry_run(plan, inv, payloads)

    def survey_one(field: Any, share: int | None) -> ParamRun:
        return _survey_field(plan, field, payloads, share)

    return run_rows(plan, inv, survey_one, payloads, noun=_NOUN, listen=listen)


def _dry_run(plan: ProbePlan, inv: OpInventory, payloads: Sequence[Payload]) -> int:
    out = sys.stdout
    out.write("dry run: no request is sent.\n")
    out.write(f"  target: HTTP API at {safe(plan.shown_target)}\n")
    ops = len({p.tool.name for p in inv.params}) + len(inv.without_strings)
    out.write(
        f"  {ops} operations, {len(inv.params)} string fields: {len(inv.surveyed)} to survey, "
        f"{len(inv.skipped)} not surveyed\n"
    )
    width = max((len(safe(p.name)) for p in inv.params), default=10)
    if inv.surveyed:
        out.write("  to survey (three calibration calls each, then the payloads):\n")
        for p in inv.surveyed:
            assert p.request is not None
            out.write(f"    {safe(p.name):<{width}}  read-back: {safe(p.request.read_how)}\n")
    if inv.skipped:
        out.write("  not surveyed:\n")
        for p in inv.skipped:
            out.write(f"    {safe(p.name):<{width}}  {safe(p.skipped)}\n")
    if inv.without_strings:
        names = ", ".join(safe(op.name) for op in inv.without_strings)
        out.write(f"  operations without a string field (not called): {names}\n")
    out.write(f"  {len(payloads)} payloads per field\n")
    out.flush()
    return ExitCode.OK
