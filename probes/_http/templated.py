"""The placeholders of an HTTP probe's URLs and header values, filled per request.

The target URL and ``read_url`` may hold ``{n}`` (a number unique to the payload),
``{run}`` (an id unique to the run) and ``{payload}`` (the payload percent-encoded as
one path segment, as ``send='path'`` places it: a resource keyed by the value, such as
a wiki page stored under its title, is written and read back at its own URL). Header
values may hold ``{n}`` and ``{run}``. Only these names are placeholders: any other
brace in a URL is left as it is (a URL with braces of its own keeps working), and the
send place's ``{value}`` is filled apart (see :mod:`probes._http.request`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from probes._payload.placeholders import Filled, path_segment

__all__ = ["URL_NAMES", "fill_headers", "fill_url", "sample_url", "url_names"]

#: The placeholders of a target URL (``read_url`` adds ``{id}``).
URL_NAMES = ("payload", "n", "run")
_NAMES = re.compile(r"\{(payload|n|run|id)\}")
_PER_REQUEST = re.compile(r"\{(n|run)\}")


def url_names(url: str) -> frozenset[str]:
    """The placeholders ``url`` holds (``{payload}``, ``{n}``, ``{run}``, ``{id}``)."""
    return frozenset(_NAMES.findall(url))


def fill_url(url: str, values: Filled, *, ident: str | None = None) -> str:
    """``url`` with ``{n}``, ``{run}``, ``{payload}`` (one path segment) and, given
    ``ident``, ``{id}`` filled in one pass (a value filled in is never read again as a
    placeholder)."""

    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name == "payload":
            return path_segment(values.payload)
        if name == "id":
            return ident if ident is not None else match.group(0)
        return values.value(name)

    return _NAMES.sub(one, url)


def sample_url(url: str) -> str:
    """``url`` with its placeholders filled with plain samples, to check it parses."""
    return fill_url(url, Filled(payload="v", n=1, run="r"), ident="1")


def fill_headers(headers: Mapping[str, str], values: Filled) -> dict[str, str]:
    """The header values with ``{n}`` and ``{run}`` filled."""
    return {
        name: _PER_REQUEST.sub(lambda m: values.value(m.group(1)), value) if "{" in value else value
        for name, value in headers.items()
    }
