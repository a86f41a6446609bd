"""Fixtures the probe tests share."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from _needs import need_module

if TYPE_CHECKING:
    import fidelity
    from probes import HttpReflector


@pytest.fixture(scope="module")
def reflector() -> Iterator[HttpReflector]:
    """The reference HTTP reflector, running on loopback for the module's tests."""
    need_module("starlette")
    need_module("uvicorn")
    import probes

    with probes.http_reflector() as running:
        yield running


@pytest.fixture(scope="session")
def quote_edit_survey() -> fidelity.Survey:
    """A survey of the quote-straightening edit server (``_support.mcp.quote_edit``):
    the catalogue's quotes payloads, then the first three of the ``scripts`` family
    (plain text), in one session; the tests that read different things from it (what
    is found, the hint that fixes it) share it."""
    import warnings

    from _support.mcp import catalogue, quote_edit

    import fidelity

    quotes = tuple(p for p in catalogue() if "quotes" in p.families)
    plain = tuple(p for p in catalogue() if p.families[0] == "scripts")[:3]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with quote_edit() as probe:
            return fidelity.survey(probe, payloads=quotes + plain)
