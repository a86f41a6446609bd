"""YAML read with a budget: an alias bomb is refused before it is built.

YAML aliases let a document of a few hundred bytes name a tree of billions of nodes
(``a: &a [x, x, ...]``, ``b: &b [*a, *a, ...]``, ...). PyYAML shares each aliased
node, so reading it is cheap, but anything that walks the result (resolving
``$ref``, finding fields) walks every copy. :func:`load_yaml` composes the document's
node graph first and counts the nodes it stands for once every alias is expanded (in
time linear in the graph); past ``max_nodes`` the document is refused
(:class:`YamlTooLarge`) before a single Python object is made. A node that contains
itself through an alias is refused too (:class:`YamlTooLarge` says so).
"""

from __future__ import annotations

from typing import Any

__all__ = ["YamlTooLarge", "load_yaml"]


class YamlTooLarge(Exception):
    """The document's aliases expand past the budget, or a node contains itself."""


def load_yaml(text: str, *, max_nodes: int) -> Any:
    """The YAML document ``text`` as plain data (PyYAML's safe constructors), refused
    with :class:`YamlTooLarge` when its aliases expand to more than ``max_nodes``
    nodes. ``yaml.YAMLError`` for a text that is not YAML; ``RecursionError`` for one
    nested deeper than the parser goes."""
    import yaml

    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _count(node, max_nodes)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _children(node: Any) -> list[Any]:
    import yaml

    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _count(root: Any, max_nodes: int) -> None:
    """Raise :class:`YamlTooLarge` when ``root`` stands for more than ``max_nodes`` nodes."""
    size: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            open_nodes.discard(key)
            total = 1 + sum(size[id(child)] for child in _children(node))
            if total > max_nodes:
                raise YamlTooLarge(f"its aliases expand to more than {max_nodes} nodes")
            size[key] = total
            continue
        if key in size:
            continue
        if key in open_nodes:
            raise YamlTooLarge("a node contains itself through an alias")
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in size)
