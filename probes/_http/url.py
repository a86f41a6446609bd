"""The one check of a target URL, shared by the HTTP and MCP probes."""

from __future__ import annotations

import httpx

from fidelity._core.errors import UsageError
from fidelity._core.render import safe

__all__ = ["check_url", "shown_url"]


def shown_url(url: str) -> str:
    """``url`` with the password of its credentials (if any) as ``***``."""
    scheme, sep, rest = url.partition("://")
    authority, slash, tail = rest.partition("/")
    userinfo, at, host = authority.rpartition("@")
    if not (sep and at):
        return url
    user = userinfo.partition(":")[0]
    return f"{scheme}://{user}:***@{host}{slash}{tail}"


def check_url(name: str, url: str, *, parse_as: str | None = None) -> httpx.URL:
    """Return ``url`` parsed, or raise a :class:`UsageError` naming ``name``: the URL
    must parse, be absolute ``http://`` or ``https://`` with a host, and its port must
    be 1-65535. ``parse_as`` is the text to parse when it differs from the one shown
    (a template with its placeholder filled); the message hides credentials."""
    text = safe(shown_url(url))
    try:
        parsed = httpx.URL(url if parse_as is None else parse_as)
    except httpx.InvalidURL as exc:
        raise UsageError(f"{name}={text!r} is not a valid URL ({exc}).") from None
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise UsageError(f"{name}={text!r} must be an absolute http:// or https:// URL.")
    if parsed.port is not None and not 0 < parsed.port < 65536:
        raise UsageError(f"{name}={text!r} is not a valid URL (port {parsed.port} is not 1-65535).")
    return parsed
