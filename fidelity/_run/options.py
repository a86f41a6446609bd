"""What a run needs to know of its options, whichever front end planned it.

The command line's ``ProbePlan`` has these (and more); a later input (an OpenAPI
operation, one server of a client config) is a new plan that has them too. The run
layer reads nothing else, so it never imports a front end.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

__all__ = ["RunOptions"]


class RunOptions(Protocol):
    """The options of one run: budget, pacing, timeouts, payloads, verdict."""

    @property
    def families(self) -> Sequence[str] | None: ...
    @property
    def examples(self) -> int: ...
    @property
    def seed(self) -> int | None: ...
    @property
    def allow(self) -> Sequence[str]: ...
    @property
    def max_requests(self) -> int | None: ...
    @property
    def rate(self) -> float | None: ...
    @property
    def concurrency(self) -> int: ...
    @property
    def timeout(self) -> float: ...
    @property
    def read(self) -> str | None: ...
    @property
    def quiet(self) -> bool: ...
    @property
    def is_mcp(self) -> bool: ...
    @property
    def calls_per_payload(self) -> int: ...
