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

from probes._http.body import json_body
from probes._http.evidence import PLACEHOLDER
from probes._http.places import ReadSpec, SendSpec
from probes._http.session import form_fields
from probes._http.templated import fill_headers, fill_url, url_names
from probes._mcp.template import ArgumentTemplate
from probes._payload.placeholders import Filled, path_segment

__all__ = ["RequestPlan", "build_request"]

#: The send places that leave the request body free for a body template.
_BODY_FREE = frozenset({"json", "query", "path", "url", "header"})
#: Content of the file part when the value is sent as a multipart filename.
_FILE_CONTENT = b"param-fidelity"


@dataclass(frozen=True)
class RequestPlan:
    """What every request of a probe shares: ``method`` and ``url`` (a template when the
    value goes in it), the ``headers``, the ``send`` place, and for the reflector's echo
    the ``read`` place and the ``place`` its evidence holds the value at; ``body`` is
    the JSON body template (sent with every place that leaves the body free)."""

    method: str
    url: str
    headers: Mapping[str, str]
    send: SendSpec
    read: ReadSpec
    place: SendSpec
    body: ArgumentTemplate | None = None
    #: The form's other fields (a template, see :func:`probes._http.session.form_fields`),
    #: sent urlencoded, or as multipart with ``multipart``.
    form: Mapping[str, str] | None = None
    multipart: bool = False


def build_request(
    client: httpx.Client,
    plan: RequestPlan,
    text: str,
    *,
    echo: bool,
    values: Filled | None = None,
) -> httpx.Request:
    """The request that carries ``text`` at the send place (not yet encoded); with
    ``echo``, asking the reflector to echo the value back at the read place. ``values``
    fill the placeholders of the body template, the URL and the header values (``{n}``
    0 when not given)."""
    where, name = plan.send.where, plan.send.name
    kwargs: dict[str, Any] = {}
    filled = values if values is not None else Filled(payload=text, n=0, run="")
    headers = fill_headers(plan.headers, filled)
    # {n}, {run} and {payload} (one path segment) first: the send place's value, filled
    # after them, is never read as a placeholder.
    url = fill_url(plan.url, filled) if url_names(plan.url) else plan.url
    if where == "json" or (plan.body is not None and where in _BODY_FREE):
        # JSON written here, so a lone surrogate goes out as its \udXXX escape.
        kwargs["content"] = json_body(plan.body, name if where == "json" else None, text, filled)
        headers["content-type"] = "application/json"
    if plan.form is not None:
        fields = form_fields(plan.form, filled)
        if where in ("form", "multipart"):
            fields[name] = text
        if plan.multipart or where == "multipart":
            kwargs["files"] = {k: (None, v) for k, v in fields.items()}
        else:
            kwargs["data"] = fields
    if where == "json" or (plan.form is not None and where in ("form", "multipart")):
        pass
    elif where == "form":
        kwargs["data"] = {name: text}
    elif where == "multipart":
        kwargs["files"] = {name: (None, text)}
    elif where == "filename":
        kwargs["files"] = {name: (text, _FILE_CONTENT, "application/octet-stream")}
    elif where == "query":
        # Added to the URL's own query (params= would replace it: ?_extra=query lost).
        url = str(httpx.URL(url).copy_add_param(name, text))
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
