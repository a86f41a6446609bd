"""Cost of the other arguments ``fidelity probe --all-tools`` makes for each tool parameter.

Run: ``.venv/bin/python benchmarks/bench_plain_arguments.py``. Prints a table and exits
1 when a target is missed.

Each surveyed parameter needs its tool's other required arguments, the smallest example
of ``strategies.from_schema``: Hypothesis' search and shrink cost 0.1 to 1.5 s per tool
(issue 28: about 5 s of a 40 s ``--all-tools`` run against a four-tool file server).
``plain_arguments`` writes the example down when the other required arguments are plain
strings, and remembers the examples it searched. Measured in the same process, for tool
schemas shaped like those of the reference servers (file, edit and git tools):

- plain-string schemas, ``plain_arguments`` (first call: the schema compiled) vs the bare
  search (``hypothesis.find`` as ``plain_arguments`` runs it): target >= 20x faster, and
  the same example, key order included;
- other schemas (an array, an integer with a minimum), asked twice as a run asks for a
  write tool's seed and its parameters: target >= 1.5x faster than searching twice.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from fidelity._sweep import arguments
from fidelity._sweep.arguments import plain_arguments
from probes import McpTool

ROUNDS = 5
PLAIN_TARGET = 20.0
REMEMBERED_TARGET = 1.5

_S: dict[str, Any] = {"type": "string"}
#: (tool, payload parameter): their other required arguments are plain strings.
PLAIN = [
    (
        McpTool(
            name="write_file",
            input_schema={
                "type": "object",
                "properties": {"path": {**_S, "description": "where"}, "content": _S},
                "required": ["path", "content"],
            },
        ),
        "content",
    ),
    (
        McpTool(
            name="edit_block",
            input_schema={
                "type": "object",
                "properties": {
                    "file_path": _S,
                    "old_string": _S,
                    "new_string": _S,
                    "expected_replacements": {"type": "integer", "minimum": 1},
                },
                "required": ["file_path", "old_string", "new_string"],
            },
        ),
        "old_string",
    ),
    (
        McpTool(
            name="git_commit",
            input_schema={
                "type": "object",
                "title": "GitCommit",
                "properties": {
                    "repo_path": {**_S, "title": "Repo Path"},
                    "message": {**_S, "title": "Message"},
                },
                "required": ["repo_path", "message"],
            },
        ),
        "message",
    ),
]
#: Tools whose other required arguments are not plain strings: searched.
SEARCHED = [
    (
        McpTool(
            name="edit_file",
            input_schema={
                "type": "object",
                "properties": {
                    "path": _S,
                    "edits": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {"oldText": _S, "newText": _S},
                            "required": ["oldText", "newText"],
                        },
                    },
                    "dryRun": {"type": "boolean", "default": False},
                },
                "required": ["path", "edits"],
            },
        ),
        "path",
    ),
    (
        McpTool(
            name="git_log",
            input_schema={
                "type": "object",
                "properties": {"repo_path": _S, "max_count": {"type": "integer", "minimum": 1}},
                "required": ["repo_path", "max_count"],
            },
        ),
        "repo_path",
    ),
]


def _bare(tool: McpTool, param: str) -> dict[str, Any]:
    """The search alone, as ``plain_arguments`` runs it (no shortcut, no memory)."""
    arguments._SHRUNK.clear()
    saved = arguments._plain
    arguments._plain = lambda schema, others: None  # type: ignore[assignment]
    try:
        return dict(plain_arguments(tool, param))
    finally:
        arguments._plain = saved  # type: ignore[assignment]


def _fresh(tool: McpTool, param: str) -> dict[str, Any]:
    arguments._SHRUNK.clear()
    return dict(plain_arguments(tool, param))


def _twice(call: Callable[[McpTool, str], dict[str, Any]]) -> Callable[[McpTool, str], Any]:
    def run(tool: McpTool, param: str) -> Any:
        arguments._SHRUNK.clear()
        first = call(tool, param)
        return first, call(tool, param)

    return run


def _best(call: Callable[[McpTool, str], Any], cases: list[tuple[McpTool, str]]) -> float:
    times = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        for tool, param in cases:
            call(tool, param)
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> int:
    _bare(*PLAIN[0])  # imports and Hypothesis' tables, out of every measurement
    for tool, param in PLAIN + SEARCHED:
        made, searched = _fresh(tool, param), _bare(tool, param)
        if list(made.items()) != list(searched.items()):
            print(f"{tool.name}.{param}: {made!r} differs from the search's {searched!r}")
            return 1
    bare = _best(_bare, PLAIN)
    made = _best(_fresh, PLAIN)
    twice_bare = _best(_twice(_bare), SEARCHED)
    twice_made = _best(_twice(lambda t, p: dict(plain_arguments(t, p))), SEARCHED)
    rows = [
        ("plain strings (3 tools)", bare, made, PLAIN_TARGET),
        ("searched, asked twice (2 tools)", twice_bare, twice_made, REMEMBERED_TARGET),
    ]
    print(f"{'schemas':34} {'search':>9} {'plain_arguments':>16} {'faster':>8} {'target':>8}")
    missed = False
    for name, before, after, target in rows:
        ratio = before / after
        missed |= ratio < target
        print(
            f"{name:34} {before * 1000:7.1f}ms {after * 1000:14.1f}ms {ratio:7.1f}x "
            f"{'>=':>3}{target:4.1f}x"
        )
    print(f"same examples, key order included: yes ({len(PLAIN + SEARCHED)} tools)")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
