"""The chains ``fidelity survey`` runs by default in this environment.

Every built-in hop alone, a few realistic compositions (a serialized value saved to a
text file), then the HTTP and MCP reflector targets when those modules are present.
Each chain has a group: ``serialization``, ``files and processes`` (a hop through a
file or another process), ``HTTP`` or ``MCP``.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

from fidelity._core.errors import UsageError, ended
from fidelity._probe.contract import Probe
from probes._chains import hops as _hops
from probes._chains.chain import ChainHop, ChainProbe
from probes._target import BuiltinTarget

__all__ = ["builtin_targets"]

#: The reflector modules whose chains the survey adds, and the group of those chains.
_REFLECTOR_MODULES = {"probes._http.reflector": "HTTP", "probes._mcp.reflector": "MCP"}
#: Hops that go through a file or another process: a chain with one is in that group.
_FILE_HOPS = frozenset({"text_file", "pipe", "argv", "env"})


def _opener(
    make: Callable[[], tuple[ChainHop, ...]], name: str
) -> Callable[[], AbstractContextManager[Probe]]:
    @contextmanager
    def open_chain() -> Iterator[Probe]:
        probe = ChainProbe(make(), name=name)
        try:
            yield probe
        finally:
            probe.close()

    return open_chain


def _target(name: str, *make: Callable[[], ChainHop]) -> BuiltinTarget:
    hops = tuple(m() for m in make)
    unavailable = next((h.unavailable for h in hops if h.unavailable), "")
    return BuiltinTarget(
        name=name,
        description="; then ".join(h.description for h in hops),
        open=_opener(lambda: tuple(m() for m in make), " -> ".join(h.name for h in hops)),
        unavailable=unavailable,
        group=(
            "files and processes" if any(h.name in _FILE_HOPS for h in hops) else "serialization"
        ),
    )


def _chains() -> list[BuiltinTarget]:
    return [
        _target("json", _hops.json),
        _target("json_utf8", lambda: _hops.json(ensure_ascii=False)),
        _target("yaml_block", _hops.yaml),
        _target("yaml_flow", lambda: _hops.yaml(style="flow")),
        _target("toml", _hops.toml),
        _target("xml_text", _hops.xml_text),
        _target("xml_attr", _hops.xml_attr),
        _target("xml_attr_minidom", lambda: _hops.xml_attr(writer="minidom")),
        _target("csv", _hops.csv),
        _target("form", _hops.form),
        _target("query", _hops.query),
        _target("email_header", _hops.email_header),
        _target("text_file", _hops.text_file),
        _target("json+text_file", lambda: _hops.json(ensure_ascii=False), _hops.text_file),
        _target("csv+text_file", _hops.csv, _hops.text_file),
        _target("yaml+text_file", _hops.yaml, _hops.text_file),
        _target("pipe", _hops.pipe),
        _target("argv", _hops.argv),
        _target("env", _hops.env),
    ]


def _fail(reason: str) -> Callable[[], AbstractContextManager[Probe]]:
    def open_nothing() -> AbstractContextManager[Probe]:
        raise UsageError(reason)

    return open_nothing


def _reflector_targets(module_name: str, group: str) -> list[BuiltinTarget]:
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:  # not part of this installation
            return []
        reason = f"{module_name} cannot be imported: {ended(str(exc))}"
        return [
            BuiltinTarget(
                name=module_name.split("_", 1)[1],
                description="",
                open=_fail(reason),
                unavailable=reason,
                group=group,
            )
        ]
    found = getattr(module, "builtin_targets", None)
    return [dataclasses.replace(t, group=group) for t in found()] if callable(found) else []


def builtin_targets() -> list[BuiltinTarget]:
    """The chains of this environment, unavailable ones included and marked."""
    targets = _chains()
    for module_name, group in _REFLECTOR_MODULES.items():
        targets.extend(_reflector_targets(module_name, group))
    return targets
