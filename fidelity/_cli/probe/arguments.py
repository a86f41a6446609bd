"""The other arguments of a tool the probe calls: minimal valid values made from its
``inputSchema`` with ``strategies.from_schema`` (the CLI's ``fill_args`` for ``probes.mcp``).

``param`` is the key the payload goes under: a string argument, or, for a payload
deeper in the arguments (``entities[0].observations[0]``), the list or object that
leads to it; either way its own value is left out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from fidelity._core.errors import UsageError
from fidelity._core.render import safe

if TYPE_CHECKING:
    from probes import McpTool

__all__ = ["plain_arguments"]


def plain_arguments(tool: McpTool, param: str) -> Mapping[str, Any]:
    """Fill ``tool``'s other required arguments with one plain, deterministic example."""
    required = tool.input_schema.get("required")
    others = [r for r in required if r != param] if isinstance(required, list) else []
    if not others:
        return {}
    from fidelity._core.siblings import load

    from_schema = load("strategies").from_schema
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis.errors import NoSuchExample

    schema = dict(tool.input_schema)
    props = schema.get("properties")
    if isinstance(props, Mapping) and param in props:
        # The key is left out of the result: let it be a plain string while generating,
        # so a container (an array, an object) can stand where the payload's path starts.
        schema["properties"] = {**props, param: {"type": "string"}}
    try:
        example = find(
            from_schema(schema, param=param),
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
    except (NoSuchExample, UsageError, ValueError, TypeError) as exc:
        raise UsageError(
            f"could not generate arguments for tool {safe(tool.name)!r} from its inputSchema "
            f"({safe(str(exc)[:200])}); pass them as args={{...}}."
        ) from None
    return {k: v for k, v in dict(example).items() if k != param}
