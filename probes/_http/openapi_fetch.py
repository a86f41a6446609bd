"""Fetching an OpenAPI document by URL, bounded as a probe's exchange is.

:func:`fetch_document` reads the document with the probe path's bounds: a total
deadline for the whole fetch (:mod:`probes._http.deadline`: a server that drips a
byte a second ends it at ``timeout``), and the body's content coding undone by the
probe's own bounded decoder (:mod:`probes._http.decoding`: one coding at most, never
more than ``max_size`` decoded bytes, so ``Content-Encoding: gzip, gzip`` is refused
and a gzip bomb is read no further than the cap).

The run's credentials (``headers`` and basic ``auth``) go with the request, to the
origin of the URL given and to no other: a redirect within that origin keeps them, a
redirect to another origin is followed without them.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

import httpx

from fidelity._core.errors import UsageError
from fidelity._core.render import safe
from fidelity._core.secrets import mask_url
from probes._http.deadline import DeadlineTransport, deadline
from probes._http.decoding import BodyDecoder, BodyTooLarge, CodingRefused, DecodeFailed

__all__ = ["fetch_document", "origin_of"]

#: Redirects followed before the fetch gives up.
_MAX_REDIRECTS = 5
#: The codings the bounded decoder undoes (and so the only ones asked for).
_ACCEPT_ENCODING = "gzip, deflate"


def origin_of(url: str | httpx.URL) -> tuple[str, str, int | None]:
    """The origin of ``url``: scheme, host and port (the scheme's default spelled out)."""
    parsed = httpx.URL(url) if isinstance(url, str) else url
    default = {"http": 80, "https": 443}.get(parsed.scheme)
    return parsed.scheme, parsed.host.lower(), parsed.port or default


def fetch_document(
    url: str,
    *,
    timeout: float,
    max_size: int,
    headers: Mapping[str, str] | None = None,
    auth: tuple[str, str] | None = None,
) -> bytes:
    """The body of ``url`` (a 200 answer), within ``timeout`` seconds in all and
    ``max_size`` decoded bytes; anything else is one sentence (``UsageError``)."""
    shown = safe(mask_url(url))
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=0)
    try:
        with (
            httpx.Client(
                transport=DeadlineTransport(limits=limits),
                timeout=timeout,
                follow_redirects=False,
                trust_env=False,
            ) as client,
            deadline(timeout),
        ):
            ends = time.monotonic() + timeout
            return _follow(client, url, shown, ends, max_size=max_size, headers=headers, auth=auth)
    except httpx.TimeoutException:
        raise UsageError(
            f"--openapi {shown!r} did not arrive within {timeout:g}s (the whole document, "
            "--timeout); check the URL, or raise --timeout for a slow service."
        ) from None
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        reason = safe(str(exc) or type(exc).__name__)
        raise UsageError(
            f"--openapi {shown!r} could not be fetched ({reason}); check the URL and "
            "that the service is running."
        ) from None


def _follow(
    client: httpx.Client,
    url: str,
    shown: str,
    ends: float,
    *,
    max_size: int,
    headers: Mapping[str, str] | None,
    auth: tuple[str, str] | None,
) -> bytes:
    named = origin_of(url)
    target = httpx.URL(url)
    for _ in range(_MAX_REDIRECTS + 1):
        same = origin_of(target) == named
        sent = {"Accept-Encoding": _ACCEPT_ENCODING}
        if same:
            sent.update(headers or {})
        else:  # another origin: no credentials of the run, the URL's own userinfo neither
            target = target.copy_with(username=None, password=None)
        request = client.build_request("GET", target, headers=sent)
        response = client.send(request, auth=auth if same else None, stream=True)
        try:
            if response.is_redirect and "location" in response.headers:
                target = target.join(response.headers["location"])
                continue
            if response.status_code != 200:
                raise UsageError(
                    f"--openapi {shown!r} answered HTTP {response.status_code}; give the "
                    "URL of the OpenAPI document (such as http://host/openapi.json)"
                    + (", and the credentials it needs (--header, --auth)." if same else ".")
                )
            return _body(response, shown, ends, max_size)
        finally:
            response.close()
    raise UsageError(
        f"--openapi {shown!r} redirects more than {_MAX_REDIRECTS} times; give the URL the "
        "document is served at."
    )


def _body(response: httpx.Response, shown: str, ends: float, max_size: int) -> bytes:
    try:
        decoder = BodyDecoder(response.headers.get("content-encoding"), max_size)
    except CodingRefused as exc:
        raise UsageError(f"--openapi {shown!r} was not read: {exc}.") from None
    chunks: list[bytes] = []
    try:
        for raw in response.iter_raw():
            chunks.append(decoder.feed(raw))
            if time.monotonic() > ends:
                raise httpx.ReadTimeout("the fetch's deadline passed while decoding")
        chunks.append(decoder.finish())
    except BodyTooLarge:
        raise UsageError(
            f"--openapi {shown!r} is larger than {max_size} bytes"
            f"{' once decoded' if decoder.coding else ''}; it was not read further."
        ) from None
    except DecodeFailed as exc:
        raise UsageError(
            f"--openapi {shown!r} is not valid {decoder.coding} ({safe(str(exc))})."
        ) from None
    return b"".join(chunks)
