"""What an excerpt of an HTTP server's answer must not show: the credentials the probe
was given (header values and the token after their scheme, the basic password, a URL's
password)."""

from __future__ import annotations

from probes._http.options import HttpOptions

__all__ = ["credentials_of"]


def credentials_of(options: HttpOptions) -> tuple[str, ...]:
    """What an excerpt of a server's answer must not show: every header value given, the
    token after its scheme (``Bearer TOKEN``), the basic credentials and their password."""
    found: set[str] = set()
    for name, value in options.request_headers.items():
        if name.lower() in _PLAIN_HEADERS:
            continue
        found.add(value)
        found.add(value.rpartition(" ")[2])
    if options.auth is not None:
        found.add(options.auth[1])
    found.update(_url_password(options.url))
    # Longest first, so a token inside a longer value is not left half shown.
    return tuple(sorted((s for s in found if len(s) >= 4), key=len, reverse=True))


def _url_password(url: str) -> tuple[str, ...]:
    authority = url.partition("://")[2].partition("/")[0]
    userinfo, at, _ = authority.rpartition("@")
    if not at or ":" not in userinfo:
        return ()
    from urllib.parse import unquote

    return (unquote(userinfo.partition(":")[2]),)


#: Header values that hold no secret (kept readable in excerpts).
_PLAIN_HEADERS = frozenset({"accept", "content-type", "user-agent", "accept-language"})
