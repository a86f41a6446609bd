"""Load our sibling packages, ``strategies`` and ``probes``, and refuse impostors.

Users' repositories often have a ``strategies.py`` or a ``probes/`` of their own, and
with ``tests/`` or the repo root on ``sys.path`` that module shadows ours. Every
internal use goes through :func:`load`, which checks the module carries our marker and
otherwise says which file shadowed it.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from fidelity._core.errors import UsageError

__all__ = ["load"]

_MARKER = "__param_fidelity__"


def load(name: str) -> ModuleType:
    """Import param-fidelity's ``strategies`` or ``probes`` package, or raise ``UsageError``."""
    module = importlib.import_module(name)
    if not getattr(module, _MARKER, False):
        where = getattr(module, "__file__", None) or "a namespace package"
        raise UsageError(
            f"the module {name!r} imported from {where} is not param-fidelity's {name} "
            f"package: a local {name!r} module shadows it; rename the local module or "
            f"remove its directory from sys.path."
        )
    return module
