"""Fixtures the probe tests share."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from _needs import need_module

if TYPE_CHECKING:
    from probes import HttpReflector


@pytest.fixture(scope="module")
def reflector() -> Iterator[HttpReflector]:
    """The reference HTTP reflector, running on loopback for the module's tests."""
    need_module("starlette")
    need_module("uvicorn")
    import probes

    with probes.http_reflector() as running:
        yield running
