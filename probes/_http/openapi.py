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
from fidelity._core.secrets import mask_url

__all__ = ["MAX_DOCUMENT", "load_openapi", "openapi_base_url"]

#: The largest document read (bytes).
MAX_DOCUMENT = 16 * 1024 * 1024
#: How deep references are followed before a chain is cut.
_MAX_DEPTH = 64
#: The most nodes the resolved document may hold (every ``$ref`` expanded): a few
#: hundred bytes of references to references can name billions, so resolution stops
#: here with one sentence; so does YAML alias expansion.
MAX_NODES = 500_000
#: The deepest nesting read, references expanded (an OpenAPI document goes a few
#: dozen levels deep; Python's own recursion would fail near a thousand).
MAX_NESTING = 300


def _shown(spec: str) -> str:
    """``spec`` as a message shows it: its secrets masked, terminal-safe."""
    return safe(mask_url(spec))


def _read_bytes(
    spec: str, timeout: float, headers: Mapping[str, str] | None, auth: tuple[str, str] | None
) -> bytes:
    if spec.lower().startswith(("http://", "https://")):
        from probes._http.openapi_fetch import fetch_document

        return fetch_document(
            spec, timeout=timeout, max_size=MAX_DOCUMENT, headers=headers, auth=auth
        )
    try:
        with open(spec, "rb") as handle:
            data = handle.read(MAX_DOCUMENT + 1)
    except OSError as exc:
        raise UsageError(
            f"--openapi {_shown(spec)!r} cannot be read ({safe(exc.strerror or str(exc))}); "
            "give the path or the http(s) URL of an OpenAPI document."
        ) from None
    if len(data) > MAX_DOCUMENT:
        raise UsageError(f"--openapi {_shown(spec)!r} is larger than {MAX_DOCUMENT} bytes.")
    return data


def _parse(spec: str, data: bytes) -> Any:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UsageError(f"--openapi {_shown(spec)!r} is not UTF-8 text.") from None
    try:
        return json.loads(text)
    except ValueError:
        pass
    except RecursionError:
        raise UsageError(_too_deep(spec)) from None
    try:
        import yaml
    except ImportError:
        raise UsageError(
            f"--openapi {_shown(spec)!r} is not JSON, and reading YAML needs PyYAML: "
            "pip install 'param-fidelity[yaml]'."
        ) from None
    from probes._http.openapi_yaml import YamlTooLarge, load_yaml

    try:
        return load_yaml(text, max_nodes=MAX_NODES)
    except RecursionError:
        raise UsageError(_too_deep(spec)) from None
    except YamlTooLarge as exc:
        raise UsageError(
            f"--openapi {_shown(spec)!r} is refused: {exc} (a YAML alias bomb?); give a "
            "document without such aliases."
        ) from None
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        line = f" (line {where.line + 1})" if where is not None else ""
        raise UsageError(
            f"--openapi {_shown(spec)!r} is neither JSON nor YAML{line}; give an OpenAPI document."
        ) from None


def _too_deep(spec: str) -> str:
    return (
        f"--openapi {_shown(spec)!r} is nested more than {MAX_NESTING} levels deep, deeper "
        "than an OpenAPI document goes; give the API's document."
    )


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


class _Resolver:
    """Resolve the local ``$ref``s of ``root``, counting the nodes of the result.

    A reference resolved without cutting a cycle is resolved once and shared where it
    is used again, but counted every time: the result may hold at most ``MAX_NODES``
    nodes, references expanded, whatever the document's size.
    """

    __slots__ = ("done", "root", "size", "spec")

    def __init__(self, root: Any, spec: str) -> None:
        self.root = root
        self.spec = spec
        self.size = 0
        #: A reference resolved without a cycle cut: its value and node count.
        self.done: dict[str, tuple[Any, int]] = {}

    def count(self, nodes: int) -> None:
        self.size += nodes
        if self.size > MAX_NODES:
            raise UsageError(
                f"--openapi {_shown(self.spec)!r} is refused: its $refs expand to more than "
                f"{MAX_NODES} schema nodes (a schema referenced many times at many levels); "
                "give a document whose references expand to less."
            )

    def resolve(self, node: Any, seen: tuple[str, ...], depth: int) -> tuple[Any, bool]:
        """``node`` resolved, and whether a cycle was cut inside it."""
        self.count(1)
        if depth > MAX_NESTING:
            raise UsageError(_too_deep(self.spec))
        if isinstance(node, list):
            items = [self.resolve(v, seen, depth + 1) for v in node]
            return [v for v, _ in items], any(c for _, c in items)
        if not isinstance(node, Mapping):
            return node, False
        ref = node.get("$ref")
        if isinstance(ref, str):
            return self._ref(node, ref, seen, depth)
        pairs = {k: self.resolve(v, seen, depth + 1) for k, v in node.items()}
        return {k: v for k, (v, _) in pairs.items()}, any(c for _, c in pairs.values())

    def _ref(
        self, node: Mapping[str, Any], ref: str, seen: tuple[str, ...], depth: int
    ) -> tuple[Any, bool]:
        if not ref.startswith("#"):
            raise UsageError(
                f"the OpenAPI document's $ref {safe(ref)!r} points outside the document; "
                "only local references (#/components/...) are followed: bundle the "
                "document first (such as with redocly bundle)."
            )
        if ref in seen or len(seen) > _MAX_DEPTH:
            return {}, True  # a cycle: the schema ends here
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        if ref in self.done:
            resolved, nodes = self.done[ref]
            self.count(nodes)
            cut = False
        else:
            before = self.size
            resolved, cut = self.resolve(_pointer(self.root, ref), (*seen, ref), depth + 1)
            if not cut:
                self.done[ref] = (resolved, self.size - before)
        if siblings and isinstance(resolved, Mapping):
            more, cut_more = self.resolve(siblings, seen, depth + 1)
            return {**resolved, **more}, cut or cut_more
        return resolved, cut


def load_openapi(
    spec: str,
    *,
    timeout: float,
    headers: Mapping[str, str] | None = None,
    auth: tuple[str, str] | None = None,
) -> dict[str, Any]:
    """Read, check and resolve the OpenAPI document at ``spec`` (file or URL; a URL is
    fetched with ``headers`` and basic ``auth``, sent to its own origin only)."""
    document = _parse(spec, _read_bytes(spec, timeout, headers, auth))
    if not isinstance(document, Mapping):
        raise UsageError(f"--openapi {_shown(spec)!r} is not an OpenAPI document (not an object).")
    version = document.get("openapi")
    if not isinstance(version, str):
        swagger = document.get("swagger")
        was = f"Swagger {safe(str(swagger))}" if swagger is not None else "no 'openapi' version"
        raise UsageError(
            f"--openapi {_shown(spec)!r} has {was}; OpenAPI 3.0 and 3.1 documents are read "
            "(convert a Swagger 2.0 document first, such as with swagger2openapi)."
        )
    if not version.startswith(("3.0", "3.1")):
        raise UsageError(
            f"--openapi {_shown(spec)!r} is OpenAPI {safe(version)}; OpenAPI 3.0 and 3.1 "
            "documents are read."
        )
    paths = document.get("paths")
    if not isinstance(paths, Mapping) or not paths:
        raise UsageError(
            f"--openapi {_shown(spec)!r} has no paths: there is no operation to probe."
        )
    resolved, _ = _Resolver(document, spec).resolve(document, (), 0)
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
        f"--openapi {_shown(spec)!r} names no absolute server URL; give the API's base URL "
        "after the options, such as fidelity probe --openapi openapi.json http://127.0.0.1:8000."
    )
