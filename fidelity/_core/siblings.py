"""Load our sibling packages, ``strategies`` and ``probes``, even beside a user's own.

Users' repositories often have a ``strategies.py`` or a ``probes/`` of their own (common
Hypothesis and pytest layouts), and with ``tests/`` or the repository root on
``sys.path`` that module owns the name: ``import strategies`` in the user's tests finds
theirs, as it should. Every internal use goes through :func:`load`, which returns ours
whatever owns the name. When the name is taken (or would be, by the first entry of
``sys.path``), ours is loaded from the directory beside ``fidelity`` with every one of
its modules, and the name is handed back to the user's module: our modules then live in
``sys.modules`` under their full names (``probes._mcp.probe``), so our own imports
find them without going through the name the user owns.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import sys
from pathlib import Path
from types import ModuleType

from fidelity._core.errors import UsageError

__all__ = ["load", "ours"]

_MARKER = "__param_fidelity__"
#: Our packages loaded beside a user's module of the same name.
_ASIDE: dict[str, ModuleType] = {}


def ours(module: object) -> bool:
    """True for param-fidelity's own ``strategies`` or ``probes`` package."""
    return bool(getattr(module, _MARKER, False))


def _home(name: str) -> Path:
    """Where our package ``name`` lives: beside ``fidelity``."""
    return Path(__file__).resolve().parents[2] / name


def load(name: str) -> ModuleType:
    """Import param-fidelity's ``strategies`` or ``probes`` package, whatever owns the name."""
    cached = sys.modules.get(name)
    if cached is not None and ours(cached):
        return cached
    aside = _ASIDE.get(name)
    if aside is not None:
        return aside
    if cached is None and _found_first_is_ours(name):
        module = importlib.import_module(name)
        if ours(module):
            return module
    return _load_aside(name)


def _found_first_is_ours(name: str) -> bool:
    """True when ``import name`` would find our package (without importing anything)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return False
    if spec is None or not spec.origin:
        return False
    return Path(spec.origin).resolve().parent == _home(name).resolve()


def _load_aside(name: str) -> ModuleType:
    """Load our package ``name`` from beside ``fidelity``; give the name back after."""
    init = _home(name) / "__init__.py"
    if not init.is_file():
        raise UsageError(
            f"param-fidelity's {name!r} package is missing from {init.parent}: "
            f"reinstall param-fidelity."
        )
    prefix = name + "."
    theirs = {k: m for k, m in sys.modules.items() if k == name or k.startswith(prefix)}
    for key in theirs:
        del sys.modules[key]
    try:
        spec = importlib.util.spec_from_file_location(
            name, init, submodule_search_locations=[str(init.parent)]
        )
        if spec is None or spec.loader is None:  # pragma: no cover - a file we just found
            raise UsageError(f"param-fidelity's {name!r} package cannot be loaded from {init}.")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        _import_all(module, prefix)
    finally:
        # The name goes back to whoever had it; our modules keep their full names,
        # except where the user's own package has a module of the same name.
        sys.modules.pop(name, None)
        sys.modules.update(theirs)
    _ASIDE[name] = module
    return module


def _import_all(package: ModuleType, prefix: str) -> None:
    """Import every module of our ``package`` (a module that needs a missing extra is
    left out: using it names the extra as usual)."""
    for info in pkgutil.walk_packages(package.__path__, prefix, onerror=lambda _name: None):
        if info.name.rsplit(".", 1)[-1] == "__main__":
            continue  # runs a server
        try:
            importlib.import_module(info.name)
        except ImportError:
            continue
