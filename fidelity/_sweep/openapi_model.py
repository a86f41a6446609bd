"""The records of ``fidelity probe --openapi``: an operation, a string field of it and
the request it is sent in, what fills the rest of a request."""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fidelity._sweep.openapi_made import MadeBudget, made_value

__all__ = ["FieldRequest", "Fill", "OpField", "OpInventory", "Operation"]

#: What a card block's name may not hold.
_BLOCK_UNSAFE = re.compile(r"[^A-Za-z0-9._:/@+-]")


@dataclass(frozen=True, slots=True)
class Operation:
    """One operation of the document: ``GET /notes/{id}``."""

    method: str
    path: str
    spec: Mapping[str, Any] = field(repr=False, compare=False)
    parameters: tuple[Mapping[str, Any], ...] = field(repr=False, compare=False, default=())

    @property
    def name(self) -> str:
        """``METHOD /path``, as rows and ``--only-op`` name it."""
        return f"{self.method} {self.path}"


@dataclass(frozen=True, slots=True)
class FieldRequest:
    """How one field's payloads are sent and read back (``probes.http`` options)."""

    url: str
    method: str
    send: str
    body: Mapping[str, Any] | None = None
    headers: Mapping[str, str] | None = None
    read_url: str | None = None
    id_from: str | None = None
    #: Where the value is read back, in words for the plan.
    read_how: str = "the response"


@dataclass(frozen=True, slots=True)
class OpField:
    """A string field of an operation: ``POST /notes body.title``."""

    tool: Operation
    path: str
    skipped: str = ""
    request: FieldRequest | None = None

    @property
    def name(self) -> str:
        """The row's name: ``POST /notes body.title``."""
        return f"{self.tool.name} {self.path}"

    @property
    def block_name(self) -> str:
        """The name of its card (a card block's characters): ``POST:/notes:body.title``,
        a path parameter as ``:id``, a list index as ``.0``."""
        path = re.sub(r"\{([^}]*)\}", r":\1", self.tool.path)
        field = re.sub(r"\[([0-9]+)\]", r".\1", self.path)
        return _BLOCK_UNSAFE.sub("-", f"{self.tool.method}:{path}:{field}")


@dataclass(frozen=True, slots=True)
class OpInventory:
    """Every string field found, surveyed or skipped, and the operations without one."""

    params: tuple[OpField, ...]
    without_strings: tuple[Operation, ...]

    @property
    def surveyed(self) -> tuple[OpField, ...]:
        """The fields to survey."""
        return tuple(p for p in self.params if not p.skipped)

    @property
    def skipped(self) -> tuple[OpField, ...]:
        """The fields left out, each with its reason."""
        return tuple(p for p in self.params if p.skipped)


@dataclass(frozen=True, slots=True)
class Fill:
    """What fills the rest of a request: ``--default`` values, the seed, the base URL."""

    base: str
    defaults: Mapping[str, Any]
    seed: int | None
    yes: bool
    headers: Mapping[str, str] = field(default_factory=dict)
    #: Every operation of the document (the read-back looks its reads up there).
    catalogue: tuple[Operation, ...] = ()
    #: The headers every request carries (``--header``): a method override there
    #: makes every operation a write for the guard.
    sent_headers: Mapping[str, str] = field(default_factory=dict)
    #: The values the document's requests may still make, all fields together.
    budget: MadeBudget = field(default_factory=MadeBudget, compare=False)

    def rng(self, op: Operation) -> random.Random:
        """A generator for ``op``'s values: the same with the same ``--seed``."""
        return random.Random(f"{self.seed or 0} {op.name}")

    def value(self, name: str, schema: Mapping[str, Any], rng: random.Random) -> Any:
        """A parameter's value: ``--default NAME=JSON``, else made from its schema."""
        if name in self.defaults:
            return self.defaults[name]
        return made_value(schema, rng, budget=self.budget)
