"""The other arguments of a tool the probe calls: minimal valid values made from its
``inputSchema`` with ``strategies.from_schema`` (the CLI's ``fill_args`` for ``probes.mcp``).

``param`` is the key the payload goes under: a string argument, or, for a payload
deeper in the arguments (``entities[0].observations[0]``), the list or object that
leads to it; either way its own value is left out.

The example is Hypothesis' shrunk one, and shrinking costs a second or more per tool:
when the other required arguments are all plain strings (``{"type": "string"}`` with
annotations at most), the shrunk example is known without drawing (each of them ``""``,
the optional ones left out), so the schema is only compiled (its errors are the same)
and the example written down. Other schemas are shrunk once per run and remembered.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from fidelity._core.errors import UsageError
from fidelity._core.render import safe

if TYPE_CHECKING:
    from probes import McpTool

__all__ = ["plain_arguments"]

#: The keys of a property schema that leave its smallest value ``""``: its type, and
#: annotations ``from_schema`` ignores.
_PLAIN_STRING_KEYS = frozenset({"type", "title", "description", "default", "examples"})
#: The examples shrunk so far in this process, by (schema, param).
_SHRUNK: dict[tuple[str, str], dict[str, Any]] = {}


def plain_arguments(tool: McpTool, param: str) -> Mapping[str, Any]:
    """Fill ``tool``'s other required arguments with one plain, deterministic example."""
    required = tool.input_schema.get("required")
    others = [r for r in required if r != param] if isinstance(required, list) else []
    if not others:
        return {}
    from fidelity._core.siblings import load

    from_schema = load("strategies").from_schema
    from hypothesis.errors import NoSuchExample

    schema = dict(tool.input_schema)
    props = schema.get("properties")
    if isinstance(props, Mapping) and param in props:
        # The key is left out of the result: let it be a plain string while generating,
        # so a container (an array, an object) can stand where the payload's path starts.
        schema["properties"] = {**props, param: {"type": "string"}}
    key = (repr(schema), param)
    if key in _SHRUNK:
        return copy.deepcopy(_SHRUNK[key])
    strategy = from_schema(schema, param=param)
    try:
        strategy.validate()  # the schema's errors, as the search would raise them
        example = _plain(schema, others)
        if example is None:
            example = _shrunk(strategy)
    except (NoSuchExample, UsageError, ValueError, TypeError) as exc:
        raise UsageError(
            f"could not generate arguments for tool {safe(tool.name)!r} from its inputSchema "
            f"({safe(str(exc)[:200])}); pass them as args={{...}}."
        ) from None
    result = {k: v for k, v in dict(example).items() if k != param}
    _SHRUNK[key] = copy.deepcopy(result)
    return result


def _plain(schema: Mapping[str, Any], others: list[str]) -> dict[str, Any] | None:
    """The shrunk example of a compiled ``schema`` whose required ``others`` are all
    plain strings (each ``""``, in the order of its properties, the optional ones left
    out); None for any other schema."""
    props = schema.get("properties")
    if not isinstance(props, Mapping) or schema.get("minProperties", 0) != 0:
        return None
    for name in others:
        sub = props.get(name)
        if not isinstance(sub, Mapping) or sub.get("type") != "string":
            return None
        if not _PLAIN_STRING_KEYS.issuperset(sub):
            return None
    return {name: "" for name in props if name in others}


def _shrunk(strategy: Any) -> Any:
    """Hypothesis' smallest example of ``strategy`` (deterministic)."""
    from hypothesis import HealthCheck, Phase, find, settings

    return find(
        strategy,
        lambda _: True,
        settings=settings(
            database=None,
            derandomize=True,
            max_examples=50,
            # The minimal example is all we want: the explain phase (which reruns
            # the shrunk example to explain it) cost seconds per tool and told nothing.
            phases=[Phase.generate, Phase.shrink],
            suppress_health_check=list(HealthCheck),
        ),
    )
