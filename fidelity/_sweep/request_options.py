"""The request options of ``fidelity probe``: headers, basic auth, methods, the body
template and the default name, checked before anything is sent.

``--header 'Name: value'`` takes ``${VAR}`` from the environment; ``--auth USER:PASS``
is basic auth (as are credentials in the URL). Secrets never reach an output: records
keep the header names and the user of ``--auth``, the probes show a URL's password as
``***``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from typing import Any, Protocol
from urllib.parse import urlsplit

from fidelity._core.errors import UsageError
from fidelity._core.render import safe


class _Planned(Protocol):
    """What the request options need of a plan (``ProbePlan`` has it)."""

    @property
    def headers(self) -> tuple[tuple[str, str], ...]: ...
    @property
    def auth(self) -> tuple[str, str] | None: ...
    @property
    def method(self) -> str: ...
    @property
    def read_method(self) -> str: ...
    @property
    def body(self) -> dict[str, Any] | None: ...
    @property
    def read(self) -> str | None: ...
    @property
    def max_requests(self) -> int | None: ...
    @property
    def concurrency(self) -> int: ...
    @property
    def retries(self) -> int: ...
    @property
    def retry_writes(self) -> bool: ...
    @property
    def form(self) -> tuple[tuple[str, str], ...]: ...
    @property
    def multipart(self) -> bool: ...
    @property
    def login(self) -> dict[str, Any] | None: ...


__all__ = [
    "body_send",
    "default_method",
    "expand_secrets",
    "http_name",
    "mcp_headers",
    "parse_auth",
    "parse_env",
    "parse_headers",
    "parse_method",
    "request_options",
]

_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: Header values that hold no secret (never masked everywhere).
_PLAIN_HEADERS = frozenset(
    {"accept", "accept-encoding", "accept-language", "content-type", "user-agent"}
)
_IN_QUERY_PATH_HEADER = ("query", "path", "url", "header")


def _expand(value: str, environ: Mapping[str, str], option: str = "--header") -> str:
    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in environ:
            raise UsageError(
                f"{option} refers to ${{{name}}}, which is not set in the environment; "
                f"export {name} or write the value itself."
            )
        return environ[name]

    return _VAR.sub(one, value)


def _expand_url(url: str, option: str, environ: Mapping[str, str]) -> str:
    """``url`` with ``${VAR}`` expanded in its userinfo and its query."""
    if "${" not in url:
        return url
    scheme, sep, rest = url.partition("://")
    authority, slash, tail = rest.partition("/")
    userinfo, at, host = authority.rpartition("@")
    if at:
        authority = f"{_expand(userinfo, environ, option)}@{host}"
    path, mark, query = tail.partition("?")
    if mark:
        tail = f"{path}?{_expand(query, environ, option)}"
    if not slash and "?" in authority:  # http://host?token=${T}
        host_part, _, query = authority.partition("?")
        authority = f"{host_part}?{_expand(query, environ, option)}"
    return f"{scheme}{sep}{authority}{slash}{tail}"


def _basic(credentials: str) -> str:
    """The token of basic auth for ``USER:PASS`` (what the ``Authorization`` header holds)."""
    import base64

    return base64.b64encode(credentials.encode("utf-8")).decode("ascii")


def expand_secrets(args: Any, environ: Mapping[str, str] | None = None) -> None:
    """Expand ``${VAR}`` in ``--auth`` and in the target URL's and ``--read-url``'s
    userinfo and query (as ``--header`` does), in ``args``; then remember every secret
    the command line holds (:mod:`fidelity._core.secrets`): header values and the
    token after their scheme, the password of ``--auth`` and of a URL, a URL's
    secret-looking query values, the value of a secret-looking ``NAME=VALUE`` word of
    a stdio server's command, and ``--env`` values."""
    from fidelity._core.secrets import looks_secret, remember, remember_env, remember_url

    environ = os.environ if environ is None else environ
    if getattr(args, "auth", None) is not None:
        args.auth = _expand(args.auth, environ, "--auth")
        remember(args.auth.partition(":")[2], _basic(args.auth))
    if getattr(args, "read_url", None):
        args.read_url = _expand_url(args.read_url, "--read-url", environ)
        remember_url(args.read_url)
    words = list(getattr(args, "target", None) or ())
    if words and "://" in words[0] and len(words) == 1:
        words[0] = _expand_url(words[0], "the target URL", environ)
        args.target = words
        remember_url(words[0])
        userinfo = words[0].partition("://")[2].partition("/")[0].rpartition("@")[0]
        if ":" in userinfo:
            from urllib.parse import unquote

            remember(_basic(unquote(userinfo)))
    else:
        for word in words:
            name, sep, value = word.partition("=")
            if sep and looks_secret(name.lstrip("-")):
                remember(value)
            elif sep and _ENV_NAME.fullmatch(name):
                remember_env([(name, value)])
    for value in getattr(args, "header", None) or ():
        name, _, text = value.partition(":")
        if name.strip().lower() in _PLAIN_HEADERS:
            continue
        text = _expand(text.strip(), environ)
        remember(text, text.rpartition(" ")[2])
        if name.strip().lower() == "cookie":  # each cookie's value on its own
            remember(*(pair.partition("=")[2].strip() for pair in text.split(";")))
    env = [value.partition("=") for value in getattr(args, "env", None) or ()]
    remember_env([(name, _expand(text, environ, "--env")) for name, _, text in env])


def parse_headers(
    values: Sequence[str] | None, environ: Mapping[str, str] | None = None
) -> tuple[tuple[str, str], ...]:
    """Parse each ``--header 'Name: value'`` (``${VAR}`` from the environment)."""
    environ = os.environ if environ is None else environ
    headers: list[tuple[str, str]] = []
    for value in values or ():
        name, sep, text = value.partition(":")
        name = name.strip()
        if not sep or not _TOKEN.fullmatch(name):
            raise UsageError(
                f"--header {safe(name[:40])!r}... must be 'Name: value' with a header name "
                "such as Authorization or X-Api-Key."
            )
        text = _expand(text.strip(), environ)
        if any(c in text for c in "\r\n\0"):
            raise UsageError(
                f"--header {name}: the value holds a line break or NUL, which no header "
                "value may hold."
            )
        headers.append((name, text))
    return tuple(headers)


def parse_env(
    values: Sequence[str] | None, kind: object, environ: Mapping[str, str] | None = None
) -> tuple[tuple[str, str], ...]:
    """Parse each ``--env NAME=VALUE`` (``${VAR}`` from the environment): a stdio
    server's variables."""
    if not values:
        return ()
    if str(kind) != "mcp-stdio":
        raise UsageError(
            "--env sets variables of a stdio MCP server's environment; give it with "
            "--mcp -- COMMAND ARGS..."
        )
    environ = os.environ if environ is None else environ
    found: list[tuple[str, str]] = []
    for value in values:
        name, sep, text = value.partition("=")
        if not sep or not _ENV_NAME.fullmatch(name):
            raise UsageError(
                f"--env {safe(name[:40])!r}... must be NAME=VALUE with a variable name such "
                "as API_TOKEN."
            )
        found.append((name, _expand(text, environ, "--env")))
    return tuple(found)


def parse_auth(value: str | None) -> tuple[str, str] | None:
    """Parse ``--auth USER:PASS`` (basic auth)."""
    if value is None:
        return None
    user, sep, password = value.partition(":")
    if not sep or not user:
        raise UsageError("--auth must be USER:PASS, the user name and password of basic auth.")
    return user, password


def body_send(
    body: Mapping[str, Any] | None, send: str | None, expect: str | None = None
) -> str | None:
    """Check ``--body`` against ``--send``; return the send place in force: ``--send``,
    or where ``"{payload}"`` stands in the body when ``--send`` is not given."""
    if body is None:
        return send
    from fidelity._run.messages import as_options
    from probes.frontend import ArgumentTemplate

    try:
        template = ArgumentTemplate.of(body, where="body")
        if expect is None:
            template.refuse_embedded()
    except UsageError as exc:
        raise UsageError(as_options(str(exc)).replace("body", "--body", 1)) from None
    where = (send or "").partition(":")[0]
    if where in ("form", "multipart", "filename", "body"):
        raise UsageError(
            f"--body is a JSON body; --send {send} puts the payload in a body of its own: "
            "give --send json:PATH to place it inside --body, or query:NAME, header:NAME, path."
        )
    if send is not None:
        return send
    if not template.payload_paths:
        return send  # the payload goes in at json:text
    segments = template.payload_paths[0].segments
    if not all(isinstance(k, str) and k and "." not in k for k in segments):
        raise UsageError(
            '--body holds "{payload}" at a place a json:PATH cannot name (a list item or a '
            "key with a dot); give --send json:PATH for it."
        )
    return "json:" + ".".join(str(k) for k in segments)


def parse_method(option: str, value: str | None) -> str | None:
    """Parse ``--method`` or ``--read-method``: an HTTP method token, upper-cased."""
    if value is None:
        return None
    if not _TOKEN.fullmatch(value.strip()):
        raise UsageError(
            f"{option} {safe(value[:40])!r} is not an HTTP method; give one such as GET, "
            "POST, PUT or PATCH."
        )
    return value.strip().upper()


def default_method(send: str | None, body: object) -> str:
    """POST when the payload or a body template goes in the body, GET when the payload
    goes in the query, the path or a header and there is no body."""
    where = (send or "json:text").partition(":")[0]
    return "GET" if where in _IN_QUERY_PATH_HEADER and body is None else "POST"


def http_name(method: str, url: str, send: str | None) -> str:
    """The default name of an HTTP target: method, the URL's path and the send place,
    such as ``POST /notes json:title``."""
    try:
        path = urlsplit(url).path or "/"
    except ValueError:
        path = "/"
    return f"{method} {path} {send or 'json:text'}"


#: The most requests one payload may cost against the reference reflector (the request,
#: the emit for the round trip and for the response path).
_REFLECTOR_COST = 3


def mcp_headers(plan: _Planned) -> dict[str, str] | None:
    """The headers of an MCP server over Streamable HTTP: ``--header`` and ``--auth``
    (as basic auth); ``None`` when neither was given."""
    headers = dict(plan.headers)
    if plan.auth is not None and not any(k.lower() == "authorization" for k in headers):
        import base64

        token = base64.b64encode(":".join(plan.auth).encode()).decode("ascii")
        headers["Authorization"] = f"Basic {token}"
    return headers or None


def request_options(plan: _Planned) -> dict[str, Any]:
    """The keyword arguments of ``probes.http`` that the request options give.

    Under a ``--max-requests`` that cannot pay for the reference reflector's
    measurement in both directions, the probe measures every target as a plain
    endpoint (one request a payload, the read-back's added), so a small budget is
    spent on what this target really costs.
    """
    options: dict[str, Any] = {
        "headers": dict(plan.headers),
        "auth": plan.auth,
        "method": plan.method,
        "read_method": plan.read_method,
        "body": plan.body,
        "retries": plan.retries,
        "retry_writes": plan.retry_writes,
        "request_limit": plan.max_requests,
    }
    if plan.form:
        options.update(form=dict(plan.form), multipart=plan.multipart)
    if plan.login is not None:
        options["login"] = plan.login
    calibration = 0 if plan.read is not None else 1
    budget = plan.max_requests
    if budget is not None and budget - calibration < _REFLECTOR_COST * plan.concurrency:
        options["reflector"] = False
    return options
