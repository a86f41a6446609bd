"""Building the request that carries a value to an HTTP endpoint at its send place.

The places are those of :mod:`probes._http.places`: ``json:PATH``, ``form:NAME``,
``multipart:NAME``, ``filename:NAME``, ``query:NAME``, ``path`` and ``url`` (the URL
holds ``{value}``), ``header:NAME`` and ``body``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import httpx

from probes._http.evidence import PLACEHOLDER
from probes._http.places import put_path

if TYPE_CHECKING:
    from probes._http.probe import HttpProbe

__all__ = ["build_request"]

#: Content of the file part when the value is sent as a multipart filename.
_FILE_CONTENT = b"param-fidelity"


def build_request(probe: HttpProbe, text: str, *, echo: bool) -> httpx.Request:
    """The request that carries ``text`` at the probe's send place (not yet encoded);
    with ``echo``, asking the reflector to echo the value back at the read place."""
    assert probe._client is not None
    where, name = probe.send.where, probe.send.name
    headers = dict(probe.headers)
    kwargs: dict[str, Any] = {}
    url = probe.url
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
        url = url.replace(PLACEHOLDER, quote(text, safe=""))
    elif where == "url":
        url = url.replace(PLACEHOLDER, text)
    elif where == "header":
        headers[name] = text
    else:  # body
        kwargs["content"] = text  # httpx encodes it as UTF-8 (or refuses)
        headers["content-type"] = "text/plain; charset=utf-8"
    if echo and probe.read.where == "json" and probe.place.where != "path":
        headers["x-fidelity-place"] = str(probe.place)
        headers["x-fidelity-echo"] = probe.read.name
    return probe._client.build_request(probe.method, url, headers=headers, **kwargs)
