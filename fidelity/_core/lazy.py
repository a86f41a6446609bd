"""The package faces' lazy exports: a public name loads its module on first use.

``fidelity``, ``probes`` and ``strategies`` list their public names in ``__all__`` and
say which private module holds each; importing the package stays cheap (the pytest
plugin imports ``fidelity`` in every session of every user's repository).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping, MutableMapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str,
    modules: Mapping[str, Iterable[str]],
    namespace: MutableMapping[str, Any],
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``, whose names live in ``modules``
    (module name -> the names it provides).

    A name is imported on first access and kept in ``namespace`` (the package's
    ``globals()``), so each module loads once; an unknown name is an ``AttributeError``
    in the words Python uses.
    """
    where = {name: module for module, names in modules.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(where))

    return __getattr__, __dir__
