"""Fixtures every test folder may use."""

from __future__ import annotations

import pytest
from _needs import need_module


@pytest.fixture
def mcp_sdk() -> None:
    """Skip (fail in CI) the test when the MCP SDK is not installed; a module that needs
    it throughout says ``pytestmark = pytest.mark.usefixtures("mcp_sdk")``."""
    need_module("mcp")
