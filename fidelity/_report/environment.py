"""Where a card was measured: Python, platform, the chain's libraries, the target.

A chain's behaviour depends on where it runs (``xml.dom.minidom`` escapes tab and
line breaks in attribute values from Python 3.13 on; a YAML or MCP SDK upgrade can
change what arrives). An :class:`Environment` records what a reader needs to tell why
a committed card drifted: the Python version and implementation, the platform, the
versions of the libraries the chain uses, and what the target said of itself (an MCP
server's ``serverInfo`` and the negotiated protocol version, an HTTP ``Server``
header).

It is written whole in a card's JSON, as one line in Markdown (a code span of
``key value`` pairs, which :func:`from_markdown` reads back for ``--check``), and
:func:`differences` names what changed between two environments.
"""

from __future__ import annotations

import platform
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from fidelity._core.render import safe

__all__ = ["TARGET_KEYS", "Environment", "differences", "from_markdown", "here", "libraries_of"]

#: Distributions a chain may use, by a word of the chain's name or of a hop's name.
_LIBRARIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("yaml", ("PyYAML",)),
    ("toml", ("tomli-w",)),
    ("http", ("httpx",)),
    ("mcp", ("mcp",)),
    ("reflector", ("uvicorn", "starlette")),
)
#: What a probe may report of its target (``Probe.environment``), in display order.
TARGET_KEYS = ("library", "server", "protocol", "http_server")
#: Longest value kept (a server names itself; it is input).
_VALUE = 80
_PREFIX = "Measured on: `"
_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def _clean(value: object) -> str:
    """A value as it may stand in a record and a Markdown line: printable, one line,
    no ``;`` or backtick (they delimit the Markdown form), at most 80 characters."""
    text = safe(str(value)).replace(";", ",").replace("`", "'").strip()
    return text if len(text) <= _VALUE else text[: _VALUE - 3] + "..."


@dataclass(frozen=True, slots=True, kw_only=True)
class Environment:
    """Where a card was measured. ``libraries`` are (distribution, version) pairs;
    ``target`` what the target reported of itself (keys of ``TARGET_KEYS``: the client
    library spoken through, the MCP server's ``name version``, the negotiated protocol
    version, the HTTP ``Server`` header). Empty strings mean unknown."""

    python: str = ""
    implementation: str = ""
    platform: str = ""
    libraries: tuple[tuple[str, str], ...] = ()
    target: tuple[tuple[str, str], ...] = ()

    def items(self) -> tuple[tuple[str, str], ...]:
        """Every known fact as (key, value), in display order."""
        pairs = [
            ("Python", self.python),
            ("implementation", self.implementation),
            ("platform", self.platform),
            *self.libraries,
            *self.target,
        ]
        return tuple((k, v) for k, v in pairs if v)

    def brief(self) -> str:
        """One line for a terminal: ``Python 3.11.7 (CPython, Linux x86_64); PyYAML
        6.0.1; server echo 1.0``."""
        head = f"Python {self.python or '?'} ({self.implementation or '?'}, {self.platform or '?'})"
        rest = [f"{k} {v}" for k, v in (*self.libraries, *self.target)]
        return "; ".join([head, *rest])

    def markdown(self) -> str:
        """The Markdown line (read back by :func:`from_markdown`)."""
        pairs = "; ".join(f"{k} {_clean(v)}" for k, v in self.items())
        return f"{_PREFIX}{pairs}`."

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (whole)."""
        return {
            "python": self.python,
            "implementation": self.implementation,
            "platform": self.platform,
            "libraries": dict(self.libraries),
            "target": dict(self.target),
        }

    @classmethod
    def from_dict(cls, raw: object) -> Environment:
        """Read the JSON form; a malformed one raises ``ValueError``."""
        if not isinstance(raw, dict):
            raise ValueError("facts.environment must be a JSON object")
        texts = {k: raw.get(k, "") for k in ("python", "implementation", "platform")}
        if not all(isinstance(v, str) for v in texts.values()):
            raise ValueError("facts.environment's python, implementation and platform are text")
        return cls(
            python=_clean(texts["python"]),
            implementation=_clean(texts["implementation"]),
            platform=_clean(texts["platform"]),
            libraries=_pairs(raw.get("libraries", {}), "libraries"),
            target=_in_order(_pairs(raw.get("target", {}), "target")),
        )


def _pairs(raw: object, what: str) -> tuple[tuple[str, str], ...]:
    if not isinstance(raw, dict) or not all(
        isinstance(k, str) and _KEY.fullmatch(k) and isinstance(v, str) for k, v in raw.items()
    ):
        raise ValueError(f"facts.environment.{what} must map names to version text")
    return tuple((k, _clean(v)) for k, v in sorted(raw.items()) if v)


def _in_order(pairs: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """Target facts in ``TARGET_KEYS`` order (others after, by name)."""
    rank = {k: i for i, k in enumerate(TARGET_KEYS)}
    return tuple(sorted(pairs, key=lambda kv: (rank.get(kv[0], len(rank)), kv[0])))


def libraries_of(names: Iterable[str]) -> tuple[tuple[str, str], ...]:
    """The installed versions of the libraries a chain whose name or hops are ``names``
    uses (by a word of the name: ``yaml`` is PyYAML, ``mcp`` the MCP SDK...)."""
    words = " ".join(names).lower()
    found: dict[str, str] = {}
    for word, dists in _LIBRARIES:
        if word not in words:
            continue
        for dist in dists:
            try:
                found[dist] = version(dist)
            except PackageNotFoundError:
                continue
    return tuple(sorted(found.items(), key=lambda kv: kv[0].lower()))


def here(names: Iterable[str] = (), target: Mapping[str, str] | None = None) -> Environment:
    """The environment of this process, for a chain named ``names`` (its name and hops),
    with what the probe reported of its ``target``."""
    reported = dict(target or {})
    return Environment(
        python=platform.python_version(),
        implementation=platform.python_implementation(),
        platform=f"{platform.system()} {platform.machine()}".strip(),
        libraries=libraries_of(names),
        target=tuple((k, _clean(reported[k])) for k in TARGET_KEYS if reported.get(k)),
    )


def from_markdown(block: str) -> Environment | None:
    """The environment a card block's Markdown records (``None`` when it has none)."""
    line = next((x for x in block.splitlines() if x.startswith(_PREFIX)), None)
    if line is None or not line.rstrip().endswith("`."):
        return None
    body = line.rstrip()[len(_PREFIX) : -2]
    fields: dict[str, str] = {}
    for part in body.split("; "):
        key, _, value = part.partition(" ")
        if _KEY.fullmatch(key) and value:
            fields[key] = _clean(value)
    python = fields.pop("Python", "")
    implementation = fields.pop("implementation", "")
    where = fields.pop("platform", "")
    target = tuple((k, fields.pop(k)) for k in TARGET_KEYS if k in fields)
    return Environment(
        python=python,
        implementation=implementation,
        platform=where,
        libraries=tuple(sorted(fields.items(), key=lambda kv: kv[0].lower())),
        target=target,
    )


def differences(before: Environment | None, after: Environment | None) -> tuple[str, ...]:
    """What changed from ``before`` to ``after``, one ``key old -> new`` each (a fact
    one of them does not know is not a change); empty when either is ``None``."""
    if before is None or after is None:
        return ()
    old, new = dict(before.items()), dict(after.items())
    return tuple(
        f"{key} {old[key]} -> {new[key]}"
        for key in dict.fromkeys((*old, *new))
        if key in old and key in new and old[key] != new[key]
    )
