"""The optional parts of param-fidelity and what installs them, for messages.

param-fidelity is installed from a checkout or a wheel built from it (it is not on a
package index yet), so a message that says what to install names the packages an
extra brings, which pip finds anywhere, and the extra itself as a checkout installs it.
``tests/test_readme.py`` keeps this table equal to pyproject.toml's extras.
"""

from __future__ import annotations

__all__ = ["EXTRAS", "install_hint"]

#: pyproject.toml's optional dependencies, by extra.
EXTRAS: dict[str, tuple[str, ...]] = {
    "mcp": ("mcp>=1.12,<3",),
    "yaml": ("PyYAML>=6",),
    "toml": ("tomli-w>=1.0",),
    "reflector": ("starlette>=0.40", "uvicorn>=0.30", "h11>=0.14", "python-multipart>=0.0.9"),
}


def install_hint(extra: str) -> str:
    """What installs ``extra``: ``pip install 'PKG' ...`` (or the extra from a checkout)."""
    packages = " ".join(f"'{p}'" for p in EXTRAS[extra])
    return f"pip install {packages} (or, in param-fidelity's checkout, pip install -e '.[{extra}]')"
