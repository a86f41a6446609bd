"""Ready-made probes through the reference reflectors, for the plugin's fixtures.

Each starts its reflector once (the fixtures are session-scoped) and yields a probe
that reports the request path and the response path separately. The probes have fixed
names (no port, no interpreter path), because a probe's name is the chain recorded in
its cards: cards must be identical across runs, machines and xdist workers. A missing
optional dependency skips the test that asked for the fixture, with the install hint;
a reflector that cannot start, or a local ``probes`` module that shadows ours, is a
clear test error, not a traceback.
"""

from __future__ import annotations

import contextlib
import importlib.util
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from fidelity._core.errors import TargetError, UsageError
from fidelity._core.extras import install_hint
from fidelity._core.siblings import load

if TYPE_CHECKING:
    from types import ModuleType

    from fidelity._probe.contract import Probe

__all__ = ["HTTP_REFLECTOR", "MCP_REFLECTOR", "http_reflector_probe", "mcp_reflector_probe"]

#: The chain name of the HTTP reflector fixture's probe (and of its cards).
HTTP_REFLECTOR = "http reflector POST /reflect send=json:text read=json:text"
#: The chain name of the MCP reflector fixture's probe (and of its cards).
MCP_REFLECTOR = "mcp reflector stdio echo.text"


def _require(modules: tuple[str, ...], extra: str) -> None:
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(
            f"{', '.join(missing)} not installed: {install_hint(extra)} to use this reflector "
            "fixture"
        )


@contextlib.contextmanager
def _reported(what: str) -> Iterator[None]:
    try:
        yield
    except (TargetError, UsageError) as exc:
        pytest.fail(f"the {what} could not start: {exc}", pytrace=False)


def _probes() -> ModuleType:
    try:
        return load("probes")
    except UsageError as exc:  # a local ``probes`` shadows ours: say so, no traceback
        pytest.fail(str(exc), pytrace=False)


@contextlib.contextmanager
def http_reflector_probe() -> Iterator[Probe]:
    """A ``probes.http`` probe (JSON body field ``text``) through the HTTP reflector.

    Request path and response path are measured apart (the observation's ``parts``).
    """
    _require(("httpx", "starlette", "uvicorn"), "reflector")
    probes = _probes()
    with contextlib.ExitStack() as stack:
        with _reported("HTTP reflector"):
            reflector = stack.enter_context(probes.http_reflector())
            probe: Probe = stack.enter_context(
                probes.http(
                    reflector.url + "reflect", send="json:text", read="json:text", reflector=True
                )
            )
        probe.name = HTTP_REFLECTOR
        yield probe


@contextlib.contextmanager
def mcp_reflector_probe() -> Iterator[Probe]:
    """A ``probes.mcp`` probe (tool ``echo``, param ``text``) through the MCP reflector."""
    _require(("mcp",), "mcp")
    probes = _probes()
    from probes.frontend import sdk_major, sdk_version  # after load(): ours, not a local one

    if sdk_major() < 2:
        pytest.skip(
            f"the MCP reflector is an SDK 2.x server and this environment has mcp "
            f"{sdk_version()}: probe your own server with probes.mcp or probes.mcp_module"
        )
    with contextlib.ExitStack() as stack:
        with _reported("MCP reflector"):
            target = stack.enter_context(probes.mcp_reflector("stdio"))
            probe: Probe = stack.enter_context(probes.mcp(target))
        probe.name = MCP_REFLECTOR
        yield probe
