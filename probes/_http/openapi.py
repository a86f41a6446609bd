"""An OpenAPI document, read and resolved (``fidelity probe --openapi SPEC``).

:func:`load_openapi` reads SPEC (a file, or an http(s) URL fetched with a bounded
size and time), as JSON or YAML, checks that it is OpenAPI 3.0 or 3.1 and replaces
every local ``$ref`` (``#/components/...``) by what it points at (a cycle ends in
``{}``, as the MCP schemas' walk does). Whatever goes wrong is one sentence and a
``UsageError`` (exit 2): the file that cannot be read, the version, the ``$ref``
that does not resolve, the external ``$ref`` that is not followed.
:func:`openapi_base_url` is the positional URL, or the document's first server.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from fidelity._core.errors import UsageError
from fidelity._core.render import safe

__all__ = ["MAX_DOCUMENT", "load_openapi", "openapi_base_url"]

#: The largest document read (bytes).
MAX_DOCUMENT = 16 * 1024 * 1024
#: How deep references are followed before a chain is cut.
_MAX_DEPTH = 64


def _read_bytes(spec: str, timeout: float) -> bytes:
    if spec.lower().startswith(("http://", "https://")):
        return _fetch(spec, timeout)
    try:
        with open(spec, "rb") as handle:
            data = handle.read(MAX_DOCUMENT + 1)
    except OSError as exc:
        raise UsageError(
            f"--openapi {safe(spec)!r} cannot be read ({safe(exc.strerror or str(exc))}); "
            "give the path or the http(s) URL of an OpenAPI document."
        ) from None
    if len(data) > MAX_DOCUMENT:
        raise UsageError(f"--openapi {safe(spec)!r} is larger than {MAX_DOCUMENT} bytes.")
    return data


def _fetch(url: str, timeout: float) -> bytes:
    import httpx

    try:
        with (
            httpx.Client(timeout=timeout, follow_redirects=True) as client,
            client.stream("GET", url) as response,
        ):
            if response.status_code != 200:
                raise UsageError(
                    f"--openapi {safe(url)!r} answered HTTP {response.status_code}; give the "
                    "URL of the OpenAPI document (such as http://host/openapi.json)."
                )
            chunks: list[bytes] = []
            size = 0
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > MAX_DOCUMENT:
                    raise UsageError(
                        f"--openapi {safe(url)!r} is larger than {MAX_DOCUMENT} bytes."
                    )
                chunks.append(chunk)
            return b"".join(chunks)
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        reason = safe(str(exc) or type(exc).__name__)
        raise UsageError(
            f"--openapi {safe(url)!r} could not be fetched ({reason}); check the URL and "
            "that the service is running."
        ) from None


def _parse(spec: str, data: bytes) -> Any:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UsageError(f"--openapi {safe(spec)!r} is not UTF-8 text.") from None
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        import yaml
    except ImportError:
        raise UsageError(
            f"--openapi {safe(spec)!r} is not JSON, and reading YAML needs PyYAML: "
            "pip install 'param-fidelity[yaml]'."
        ) from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        line = f" (line {where.line + 1})" if where is not None else ""
        raise UsageError(
            f"--openapi {safe(spec)!r} is neither JSON nor YAML{line}; give an OpenAPI document."
        ) from None


def _pointer(root: Any, ref: str) -> Any:
    node = root
    for escaped in ref[2:].split("/") if ref != "#" else []:
        part = escaped.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise UsageError(
                f"the OpenAPI document's $ref {safe(ref)!r} does not resolve (no "
                f"{safe(part)!r} there); fix the reference or the component it names."
            )
    return node


def _resolve(root: Any, node: Any, seen: tuple[str, ...]) -> Any:
    if isinstance(node, list):
        return [_resolve(root, v, seen) for v in node]
    if not isinstance(node, Mapping):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        if not ref.startswith("#"):
            raise UsageError(
                f"the OpenAPI document's $ref {safe(ref)!r} points outside the document; "
                "only local references (#/components/...) are followed: bundle the "
                "document first (such as with redocly bundle)."
            )
        if ref in seen or len(seen) > _MAX_DEPTH:
            return {}  # a cycle: the schema ends here
        target = _pointer(root, ref)
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        resolved = _resolve(root, target, (*seen, ref))
        if siblings and isinstance(resolved, Mapping):
            return {**resolved, **_resolve(root, siblings, seen)}
        return resolved
    return {k: _resolve(root, v, seen) for k, v in node.items()}


def load_openapi(spec: str, *, timeout: float) -> dict[str, Any]:
    """Read, check and resolve the OpenAPI document at ``spec`` (file or URL)."""
    document = _parse(spec, _read_bytes(spec, timeout))
    if not isinstance(document, Mapping):
        raise UsageError(f"--openapi {safe(spec)!r} is not an OpenAPI document (not an object).")
    version = document.get("openapi")
    if not isinstance(version, str):
        swagger = document.get("swagger")
        was = f"Swagger {safe(str(swagger))}" if swagger is not None else "no 'openapi' version"
        raise UsageError(
            f"--openapi {safe(spec)!r} has {was}; OpenAPI 3.0 and 3.1 documents are read "
            "(convert a Swagger 2.0 document first, such as with swagger2openapi)."
        )
    if not version.startswith(("3.0", "3.1")):
        raise UsageError(
            f"--openapi {safe(spec)!r} is OpenAPI {safe(version)}; OpenAPI 3.0 and 3.1 "
            "documents are read."
        )
    paths = document.get("paths")
    if not isinstance(paths, Mapping) or not paths:
        raise UsageError(f"--openapi {safe(spec)!r} has no paths: there is no operation to probe.")
    resolved = _resolve(document, document, ())
    assert isinstance(resolved, dict)
    return resolved


def openapi_base_url(document: Mapping[str, Any], given: str | None, spec: str) -> str:
    """The URL the operations' paths are joined to: ``given``, else the first server
    of the document (a relative one taken against a SPEC URL)."""
    if given is not None:
        return given.rstrip("/")
    servers = document.get("servers")
    url = ""
    if isinstance(servers, list) and servers and isinstance(servers[0], Mapping):
        url = str(servers[0].get("url", ""))
        variables = servers[0].get("variables")
        if isinstance(variables, Mapping):
            for name, var in variables.items():
                if isinstance(var, Mapping) and "default" in var:
                    url = url.replace("{" + str(name) + "}", str(var["default"]))
    if url.lower().startswith(("http://", "https://")):
        return url.rstrip("/")
    if spec.lower().startswith(("http://", "https://")):
        import httpx

        return str(httpx.URL(spec).join(url or "/")).rstrip("/")
    raise UsageError(
        f"--openapi {safe(spec)!r} names no absolute server URL; give the API's base URL "
        "after the options, such as fidelity probe --openapi openapi.json http://127.0.0.1:8000."
    )
