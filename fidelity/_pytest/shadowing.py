"""The plugin's hint when a user's own ``strategies`` or ``probes`` owns the name.

With ``tests/`` or the repository root on ``sys.path``, ``import strategies`` finds the
user's module (the plugin itself still uses ours, see ``fidelity._core.siblings``), and
``strategies.text()`` fails with an obscure ``AttributeError``. The plugin then adds
one sentence saying which file owns the name and where ours is. It says so only when
the missing name is one of our package's public names: a typo in the user's own
module of the same name (``strategies.bulid``) is none of our business, and the
plugin stays silent in repositories that never use it.

Loaded only when a test or a collection fails with such an error.
"""

from __future__ import annotations

import ast
import functools
import re
import sys
from pathlib import Path

__all__ = ["shadowing_hint"]

_PACKAGES = ("strategies", "probes")
_MISSING = (
    re.compile(r"module '(?P<module>\w+)' has no attribute '(?P<name>\w+)'"),
    re.compile(r"cannot import name '(?P<name>\w+)' from '(?P<module>\w+)'"),
)


@functools.cache
def _public_names(package: str) -> frozenset[str] | None:
    """Names in ``__all__`` of our ``package``, read from its source, not imported.

    ``None`` when the source cannot be found or read (then any missing name counts).
    """
    root = Path(__file__).resolve().parents[2]  # our three packages are siblings
    try:
        tree = ast.parse((root / package / "__init__.py").read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return None
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
            and isinstance(node.value, ast.List | ast.Tuple)
        ):
            return frozenset(
                e.value
                for e in node.value.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str)
            )
    return None


def shadowing_hint(text: str) -> str | None:
    """The sentence naming the file that shadows ours, if ``text`` (an error message or
    a failure report) is about a public name of ours missing from a foreign module."""
    for pattern in _MISSING:
        for match in pattern.finditer(text):
            package, name = match["module"], match["name"]
            if package not in _PACKAGES:
                continue
            module = sys.modules.get(package)
            if module is None or getattr(module, "__param_fidelity__", False):
                continue
            ours = _public_names(package)
            if ours is not None and name not in ours:
                continue
            where = getattr(module, "__file__", None) or "a namespace package"
            return (
                f"the module {package!r} imported from {where} is the repository's own, "
                f"not param-fidelity's {package} package: a local {package!r} module owns "
                f"the name here. The fixture's `fidelity.{package}` is always "
                f"param-fidelity's; or rename the local module."
            )
    return None
