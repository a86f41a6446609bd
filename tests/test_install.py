"""What an install of param-fidelity puts on ``sys.path``: its three packages, no more.

The README tells a tool author to ``pip install -e`` this checkout. An editable install
that put the checkout root on ``sys.path`` would make its ``tests/``, ``benchmarks/``
and ``docs/`` importable in the author's environment, where this ``tests`` takes the
name from the author's own ``tests/`` folder without ``__init__.py``. Nothing it depends
on may install a top-level ``tests`` package either.
"""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Run in the fresh environment, from a directory holding the author's own tests/.
CHECK = """
import importlib.util, pathlib
import fidelity, probes, strategies
print(*(pathlib.Path(m.__file__).resolve() for m in (fidelity, probes, strategies)))
for name in ("benchmarks", "docs", "_support"):
    print(name, importlib.util.find_spec(name))
import tests
print("tests", list(tests.__path__))
"""


@pytest.mark.timeout(300)
def test_an_editable_install_exposes_only_our_packages(tmp_path: Path) -> None:
    from hatchling.build import build_editable

    wheel = tmp_path / build_editable(str(tmp_path))
    env = tmp_path / "env"
    venv.create(env, with_pip=False)
    python = env / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q",
         "--no-deps", "--no-index", str(wheel)],
        check=True, timeout=240, capture_output=True,
    )  # fmt: skip
    author = tmp_path / "author"
    (author / "tests").mkdir(parents=True)  # the author's tests/, no __init__.py
    done = subprocess.run(
        [str(python), "-c", CHECK],
        cwd=author,
        env={"PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        f"{ROOT / 'fidelity' / '__init__.py'} {ROOT / 'probes' / '__init__.py'} "
        f"{ROOT / 'strategies' / '__init__.py'}",
        "benchmarks None",
        "docs None",
        "_support None",
        f"tests [{str(author / 'tests')!r}]",
    ]


def _requirements(dist: str, extras: frozenset[str], seen: set[str]) -> None:
    """Add ``dist`` and what it requires (with ``extras``) to ``seen``, recursively."""
    key = re.sub(r"[-_.]+", "-", dist).lower()
    if key in seen:
        return
    seen.add(key)
    try:
        requires = importlib.metadata.requires(dist) or []
    except importlib.metadata.PackageNotFoundError:
        return
    for line in requires:
        name = re.match(r"[A-Za-z0-9._-]+", line)
        assert name is not None
        marker = line.partition(";")[2]
        wanted = re.findall(r"extra\s*==\s*['\"]([^'\"]+)['\"]", marker)
        if wanted and not set(wanted) & extras:
            continue
        if not wanted and marker.strip() and not _marker_holds(marker):
            continue
        inner = re.search(r"\[([^\]]+)\]", line.partition(";")[0])
        more = frozenset(e.strip() for e in inner.group(1).split(",")) if inner else frozenset()
        _requirements(name.group(0), more, seen)


def _marker_holds(marker: str) -> bool:
    from packaging.markers import Marker

    return Marker(marker).evaluate()


def test_nothing_we_install_puts_a_tests_package_into_site_packages() -> None:
    seen: set[str] = set()
    _requirements("param-fidelity", frozenset({"all"}), seen)
    seen.discard("param-fidelity")
    assert "rapidfuzz" in seen  # the walk reaches the dependencies
    offenders = {}
    for name in sorted(seen):
        try:
            files = importlib.metadata.distribution(name).files or []
        except importlib.metadata.PackageNotFoundError:
            continue
        top = {f.parts[0] for f in files if len(f.parts) > 1 and f.parts[-1] == "__init__.py"}
        if "tests" in top or "test" in top:
            offenders[name] = sorted(top & {"tests", "test"})
    assert offenders == {}
