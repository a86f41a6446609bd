"""Building the request that carries a value to an HTTP endpoint at its send place.

The places are those of :mod:`probes._http.places`: ``json:PATH``, ``form:NAME``,
``multipart:NAME``, ``filename:NAME``, ``query:NAME``, ``path`` and ``url`` (the URL
holds ``{value}``), ``header:NAME`` and ``body``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from probes._http.evidence import PLACEHOLDER
from probes._http.places import ReadSpec, SendSpec, put_path
from probes._payload.placeholders import path_segment

__all__ = ["RequestPlan", "build_request"]

#: Content of the file part when the value is sent as a multipart filename.
_FILE_CONTENT = b"param-fidelity"


@dataclass(frozen=True)
class RequestPlan:
    """What every request of a probe shares: ``method`` and ``url`` (a template when the
    value goes in it), the ``headers``, the ``send`` place, and for the reflector's echo
    the ``read`` place and the ``place`` its evidence holds the value at."""

    method: str
    url: str
    headers: Mapping[str, str]
    send: SendSpec
    read: ReadSpec
    place: SendSpec


def build_request(
    client: httpx.Client, plan: RequestPlan, text: str, *, echo: bool
) -> httpx.Request:
    """The request that carries ``text`` at the send place (not yet encoded); with
    ``echo``, asking the reflector to echo the value back at the read place."""
    where, name = plan.send.where, plan.send.name
    headers = dict(plan.headers)
    kwargs: dict[str, Any] = {}
    url = plan.url
    if where == "json":
        kwargs["json"] = put_path(name, text)
    elif where == "form":
        kwargs["data"] = {name: text}
    elif where == "multipart":
        kwargs["files"] = {name: (None, text)}
    elif where == "filename":
        kwargs["files"] = {name: (text, _FILE_CONTENT, "application/octet-stream")}
    elif where == "query":
        kwargs["params"] = {name: text}
    elif where == "path":
        url = url.replace(PLACEHOLDER, path_segment(text))
    elif where == "url":
        url = url.replace(PLACEHOLDER, text)
    elif where == "header":
        headers[name] = text
    else:  # body
        kwargs["content"] = text  # httpx encodes it as UTF-8 (or refuses)
        headers["content-type"] = "text/plain; charset=utf-8"
    if echo and plan.read.where == "json" and plan.place.where != "path":
        headers["x-fidelity-place"] = str(plan.place)
        headers["x-fidelity-echo"] = plan.read.name
    return client.build_request(plan.method, url, headers=headers, **kwargs)
