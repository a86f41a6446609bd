"""The pytest plugin (entry point ``pytest11``). Imports nothing heavy at load time."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "fidelity(allow=(), card=None): accepted rewrites (kind ids) and the card name "
        "for this test's chain.",
    )
