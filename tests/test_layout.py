"""The layout CONTRIBUTING.md describes is the layout of the code.

Read from the source (an AST walk, nothing imported): every module belongs to a layer
of CONTRIBUTING's table, imports only what its layer may import (function-local and
type-only imports included), and no module imports another that imports it back.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("fidelity", "probes", "strategies")
CONTRIBUTING = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
#: Files that may sit directly in fidelity/ or probes/, outside a subpackage: the faces
#: and the few small modules that are genuinely cross-cutting.
TOP_LEVEL = {
    "fidelity": {"__init__.py", "__main__.py"},
    "probes": {"__init__.py", "frontend.py", "_builtin.py", "_target.py", "_process.py"},
}


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The project module an imported name lives in (a package's name for its face)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(path: Path) -> Iterator[tuple[str, int]]:
    """Every imported name of the file, at any depth (functions, TYPE_CHECKING)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                yield f"{node.module}.{alias.name}", node.lineno


def _edges() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {m: set() for m in MODULES}
    for module, path in MODULES.items():
        for name, _ in _imports(path):
            target = _resolve(name)
            if target is not None and target != module:
                edges[module].add(target)
    return edges


def _layers() -> list[tuple[str, tuple[str, ...], set[str]]]:
    """(layer, packages, what it may import) from CONTRIBUTING's table, bottom up."""
    table = CONTRIBUTING.split("<!-- layers -->", 1)[1].split("<!-- /layers -->", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| ")][1:]
    layers = []
    for row in rows:
        layer, packages, allowed = (cell.strip() for cell in row.strip("|").split("|"))
        names = tuple(re.findall(r"`([\w.]+)`", packages))
        layers.append((layer, names, {a.strip().strip("`") for a in allowed.split(",")}))
    return layers


LAYERS = _layers()


def _layer_of(module: str) -> str:
    best = max(
        ((layer, p) for layer, packages, _ in LAYERS for p in packages if module == p
         or module.startswith(p + ".")),
        key=lambda found: len(found[1]),
        default=None,
    )  # fmt: skip
    assert best is not None, f"{module} belongs to no layer of CONTRIBUTING's table"
    return best[0]


def test_the_table_names_every_layer_once() -> None:
    names = [layer for layer, _, _ in LAYERS]
    assert len(names) == len(set(names)) >= 9
    for layer, _, allowed in LAYERS:
        for item in allowed - {"every layer"}:
            assert item in names or re.fullmatch(r"[a-z_][a-z0-9_]*", item), (layer, item)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_every_import_goes_down_the_table(module: str) -> None:
    layer = _layer_of(module)
    allowed = next(a for name, _, a in LAYERS if name == layer)
    order = [name for name, _, _ in LAYERS]
    wrong = []
    for name, line in _imports(MODULES[module]):
        top = name.split(".")[0]
        target = _resolve(name)
        if target is not None:
            other = _layer_of(target)
            if other != layer and other not in allowed and "every layer" not in allowed:
                wrong.append(f"line {line}: {name} ({other})")
            elif other != layer and order.index(other) > order.index(layer):
                wrong.append(f"line {line}: {name} ({other} is above {layer})")
        elif (
            top not in sys.stdlib_module_names
            and top not in allowed
            and "every layer" not in allowed
        ):
            wrong.append(f"line {line}: {name} (third-party, not in the table)")
    assert not wrong, f"{module} ({layer}) imports what its layer may not: {wrong}"


def test_no_module_imports_one_that_imports_it_back() -> None:
    edges = _edges()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in edges[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in sorted(edges):
        if module not in index:
            visit(module)
    assert not cycles, f"import cycles: {cycles}"


def test_modules_sit_in_a_subpackage() -> None:
    for package, allowed in TOP_LEVEL.items():
        loose = {p.name for p in (ROOT / package).glob("*.py")} - allowed
        assert not loose, f"{package}/ has modules outside a subpackage: {sorted(loose)}"


def test_the_layout_map_names_every_subpackage() -> None:
    layout = CONTRIBUTING.split("<!-- layout -->", 1)[1].split("```", 2)[1]
    for init in sorted(i for p in PACKAGES for i in (ROOT / p).rglob("__init__.py")):
        folder = init.parent.name + "/"
        assert folder in layout, f"CONTRIBUTING's layout map does not name {folder}"


#: The front ends and the sweep below the CLI: they reach ``probes`` through its public
#: faces only.
FRONT_ENDS = ("fidelity._cli", "fidelity._sweep", "fidelity._pytest")
#: The concrete probe classes a front end must not test for (it asks the contract).
CONCRETE_PROBES = {"McpProbe", "HttpProbe", "ChainProbe", "FunctionProbe", "RateLimited"}


def _front_end_modules() -> list[str]:
    return sorted(m for m in MODULES if m.startswith(FRONT_ENDS))


@pytest.mark.parametrize("module", _front_end_modules())
def test_front_ends_import_no_private_module_of_probes(module: str) -> None:
    private = [
        f"line {line}: {name}"
        for name, line in _imports(MODULES[module])
        if name.startswith("probes.") and any(p.startswith("_") for p in name.split(".")[1:])
    ]
    assert not private, f"{module} imports private modules of probes: {private}"


@pytest.mark.parametrize("module", _front_end_modules())
def test_front_ends_test_no_concrete_probe_class(module: str) -> None:
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("isinstance", "issubclass")
            and len(node.args) == 2
        ):
            names = {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)}
            names |= {n.attr for n in ast.walk(node.args[1]) if isinstance(n, ast.Attribute)}
            if names & CONCRETE_PROBES:
                found.append(f"line {node.lineno}: {sorted(names & CONCRETE_PROBES)}")
    assert not found, f"{module} tests concrete probe classes: {found}"
