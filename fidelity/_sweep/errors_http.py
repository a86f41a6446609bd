"""The error contract of an HTTP API (``fidelity probe --openapi SPEC --errors``).

For each operation of the document (``--only-op``/``--skip-op`` choose them; one
other than GET, HEAD and OPTIONS only with ``--yes``), the request with every
required value made valid (:func:`fidelity._sweep.openapi_ops.valid_request`), then
one value made malformed at a time:

- ``missing:query.NAME``, ``missing:header.NAME`` for each required query or header
  parameter, ``missing:body.NAME`` for each required property of a JSON body;
- ``type:query.NAME`` for each integer or number query parameter (given
  ``fidelity``), ``type:body.NAME`` for each string property of a JSON body (given
  12345) and each integer or number one (given ``fidelity``);
- ``extra``: the JSON body with ``fidelity_unexpected_argument`` added (an unknown
  query parameter is not made: HTTP servers ignore them by custom);
- ``empty``: the empty JSON object, when the body requires a property.

An operation whose body is a form is not checked, nor one with nothing of these. Each
answer's verdict: no answer in time ``timeout``, no connection ``crashed``; a status
below 400 ``accepted``; 500 and above ``leaky``; a 4xx whose body is over 2,000
characters or holds a stack trace, a file path or an exception dump ``leaky``; a 4xx
whose body names the field (or the problem in the case's words, as for MCP)
``structured``; any other 4xx ``unnamed``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from fidelity._report.errors import ErrorCall, ErrorContract, ErrorSkip, Verdict
from fidelity._sweep.errors_cases import EXTRA_ARGUMENT, NOT_A_STRING, ErrorCase
from fidelity._sweep.errors_verdict import excerpt, leak, named

if TYPE_CHECKING:
    from fidelity._sweep.openapi_model import Fill, Operation
    from fidelity._sweep.openapi_ops import ValidRequest
    from probes.frontend import RawHttpAnswer

__all__ = ["HttpCase", "http_cases", "judge_http", "run_http_errors"]

#: What a number parameter or property is given in ``type:``.
NOT_A_NUMBER = "fidelity"


@dataclass(frozen=True, slots=True, kw_only=True)
class HttpCase:
    """One malformed request: its ``case``, ``url``, ``headers``, JSON ``body`` (None:
    no body) and the ``names`` an answer may name."""

    case: str
    url: str
    headers: Mapping[str, str] = field(default_factory=dict)
    body: Any = None
    names: tuple[str, ...] = ()


def _with_query(url: str, change: Mapping[str, str | None]) -> str:
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k not in change]
    query += [(k, v) for k, v in change.items() if v is not None]
    return urlunsplit(parts._replace(query=urlencode(query)))


def _kinds(schema: Mapping[str, Any]) -> set[str]:
    kind = schema.get("type")
    kinds = {kind} if isinstance(kind, str) else set(kind) if isinstance(kind, list) else set()
    return {k for k in kinds if isinstance(k, str)} - {"null"}


def _param_cases(op: Operation, valid: ValidRequest) -> list[HttpCase]:
    out: list[HttpCase] = []
    for param in op.parameters:
        where, name = str(param.get("in", "")), str(param.get("name", ""))
        schema = param.get("schema") if isinstance(param.get("schema"), Mapping) else {}
        assert isinstance(schema, Mapping)
        if where == "query" and param.get("required"):
            url = _with_query(valid.url, {name: None})
            out.append(HttpCase(case=f"missing:query.{name}", url=url, headers=valid.headers,
                                body=valid.body, names=(name,)))  # fmt: skip
        elif where == "header" and param.get("required"):
            headers = {k: v for k, v in valid.headers.items() if k.lower() != name.lower()}
            out.append(HttpCase(case=f"missing:header.{name}", url=valid.url, headers=headers,
                                body=valid.body, names=(name,)))  # fmt: skip
    for param in op.parameters:
        where, name = str(param.get("in", "")), str(param.get("name", ""))
        schema = param.get("schema") if isinstance(param.get("schema"), Mapping) else {}
        assert isinstance(schema, Mapping)
        if where == "query" and _kinds(schema) & {"integer", "number"}:
            url = _with_query(valid.url, {name: NOT_A_NUMBER})
            out.append(HttpCase(case=f"type:query.{name}", url=url, headers=valid.headers,
                                body=valid.body, names=(name,)))  # fmt: skip
    return out


def _body_cases(valid: ValidRequest) -> list[HttpCase]:
    schema = valid.schema
    props = schema.get("properties") if isinstance(schema.get("properties"), Mapping) else {}
    assert isinstance(props, Mapping)
    listed = schema.get("required")
    required = [r for r in listed if isinstance(r, str)] if isinstance(listed, list) else []
    body = dict(valid.body) if isinstance(valid.body, Mapping) else {}
    out: list[HttpCase] = []

    def add(case: str, sent: Any, names: Sequence[str]) -> None:
        out.append(HttpCase(case=case, url=valid.url, headers=valid.headers, body=sent,
                            names=tuple(names)))  # fmt: skip

    for name in required:
        add(f"missing:body.{name}", {k: v for k, v in body.items() if k != name}, [name])
    for name, sub in props.items():
        kinds = _kinds(sub) if isinstance(sub, Mapping) else set()
        if kinds == {"string"}:
            add(f"type:body.{name}", {**body, name: NOT_A_STRING}, [name])
        elif kinds and kinds <= {"integer", "number"}:
            add(f"type:body.{name}", {**body, name: NOT_A_NUMBER}, [name])
    add("extra", {**body, EXTRA_ARGUMENT: "fidelity"}, [EXTRA_ARGUMENT])
    if required:
        add("empty", {}, required)
    return out


def http_cases(op: Operation, valid: ValidRequest) -> list[HttpCase]:
    """The malformed requests of ``op``, in the documented order."""
    cases = _param_cases(op, valid)
    if valid.media == "application/json":
        return cases + _body_cases(valid)
    return cases


def judge_http(answer: RawHttpAnswer, case: HttpCase) -> tuple[Verdict, str]:
    """The verdict of ``answer`` to ``case``, and why in a few words."""
    if answer.outcome == "timeout":
        return Verdict.TIMEOUT, "no answer within the timeout"
    if answer.outcome != "response":
        return Verdict.CRASHED, "no connection, or it was dropped"
    if answer.status < 400:
        return Verdict.ACCEPTED, f"answered {answer.status}"
    if answer.status >= 500:
        return Verdict.LEAKY, f"answered {answer.status}: a server error"
    why = leak(answer.text, answer.length, case.body)
    if why:
        return Verdict.LEAKY, f"{answer.status} with {why}"
    like = ErrorCase(tool="", case=case.case.split(".", 1)[0], arguments={}, names=case.names)
    if named(answer.text, like):
        return Verdict.STRUCTURED, f"{answer.status}, naming what was wrong"
    return Verdict.UNNAMED, f"{answer.status}, without saying what was wrong"


def run_http_errors(
    ops: Sequence[Operation],
    fill: Fill,
    *,
    name: str,
    shown: str,
    timeout: float,
    secrets: Sequence[str] = (),
) -> ErrorContract:
    """Send each operation's malformed requests and judge each answer."""
    from fidelity._sweep.openapi_ops import consent, valid_request
    from probes.frontend import raw_request

    calls: list[ErrorCall] = []
    skipped: list[ErrorSkip] = []
    for op in ops:
        refused = consent(op, fill)
        valid = valid_request(op, fill)
        if refused:
            skipped.append(ErrorSkip(tool=op.name, why=refused))
            continue
        if valid.media is not None and valid.media != "application/json":
            skipped.append(ErrorSkip(tool=op.name, why=f"its body is {valid.media}: not checked"))
            continue
        cases = http_cases(op, valid)
        if not cases:
            why = "no required parameter, number parameter or JSON body to make malformed"
            skipped.append(ErrorSkip(tool=op.name, why=why))
            continue
        for case in cases:
            answer = raw_request(
                op.method, case.url, headers=case.headers, json_body=case.body, timeout=timeout
            )
            verdict, why = judge_http(answer, case)
            label = f"HTTP {answer.status}" if answer.outcome == "response" else answer.outcome
            calls.append(
                ErrorCall(tool=op.name, case=case.case, verdict=verdict, answer=label, why=why,
                          excerpt=excerpt(answer.text, secrets), length=answer.length)
            )  # fmt: skip
    return ErrorContract(name=name, target=shown, calls=tuple(calls), skipped=tuple(skipped))


def openapi_errors(plan: Any, options: Any, *, name: str) -> ErrorContract:
    """The error contract of the API ``plan`` targets, as ``options`` (the document,
    ``--only-op``, ``--skip-op``, ``--default``) choose its operations."""
    from fidelity._core.errors import UsageError
    from fidelity._core.render import safe
    from fidelity._sweep.openapi_model import Fill
    from fidelity._sweep.openapi_ops import operations
    from fidelity._sweep.request_options import mcp_headers
    from probes.frontend import load_openapi

    document = load_openapi(
        options.spec, timeout=plan.timeout, headers=dict(plan.headers), auth=plan.auth
    )
    catalogue = tuple(operations(document))
    chosen = operations(document, options.only, options.skip)
    if not chosen:
        names = ", ".join(safe(op.name) for op in catalogue[:12])
        raise UsageError(
            f"--only-op/--skip-op leave no operation of the document; its operations are: {names}."
        )
    headers = mcp_headers(plan) or {}  # --header, and --auth as basic auth
    secrets = tuple(v for _, v in plan.headers) + ((plan.auth[1],) if plan.auth else ())
    fill = Fill(
        base=str(plan.target).rstrip("/"),
        defaults=options.defaults,
        seed=plan.seed,
        yes=plan.yes,
        headers=headers,
        catalogue=catalogue,
        sent_headers=dict(plan.headers),
    )
    return run_http_errors(
        chosen, fill, name=name, shown=plan.shown_target, timeout=plan.timeout, secrets=secrets
    )
