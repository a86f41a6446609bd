"""The pytest plugin (entry point ``pytest11`` named ``fidelity``).

It is loaded in every pytest run of every repository that installs param-fidelity, so
loading it imports nothing heavy: no Hypothesis, httpx, MCP, ``strategies`` or
``probes``, not even the survey machinery. They load when a test asks for a fixture.

- fixture ``fidelity``: ``fidelity.check(target, text)`` and ``fidelity.survey(target)``
  (see :class:`fidelity._pytest.recorder.Recorder`); session-scoped, so it works in
  ``@given`` tests, and it reads the running test's marker;
- fixtures ``fidelity_http_reflector`` and ``fidelity_mcp_reflector``: probes through
  the reference reflectors, started once per session on first use;
- marker ``@pytest.mark.fidelity(allow=[kind ids], card="name")``;
- options ``--fidelity-*``; the session's cards are written, checked for drift and
  merged across xdist workers at the end of the session.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import TYPE_CHECKING, Any

import pytest

from fidelity._core.errors import UsageError
from fidelity._pytest.options import add_options, options_given
from fidelity._pytest.state import SEED_KEY, PluginState

if TYPE_CHECKING:
    from fidelity._probe.contract import Probe
    from fidelity._pytest.recorder import Recorder

__all__ = ["MARKER"]

_STATE = pytest.StashKey["PluginState"]()
_WORKER_KEY = "fidelity"

MARKER = (
    "fidelity(allow=(), card=None): allow lists the kind ids that are accepted rewrites "
    "for this test's chain (documented in its card, not failures); card names the chain "
    "in the session's contract cards."
)


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER)
    config.stash[_STATE] = PluginState(config)
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_XdistHooks(config), "fidelity-xdist")


def _state(config: pytest.Config) -> PluginState:
    return config.stash[_STATE]


def pytest_report_header(config: pytest.Config) -> str | None:
    if not options_given(config):
        return None
    return _state(config).settings.header()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    state = _state(item.config)
    state.enter(item)
    if item.get_closest_marker("fidelity") is None:
        return
    try:
        state.current()
    except UsageError as exc:
        problem = str(exc)
    else:
        return
    pytest.fail(problem, pytrace=False)


def _shadowing(text: str) -> str | None:
    """Why ``strategies``/``probes`` misbehaved, when a local module shadows ours."""
    if "'strategies'" not in text and "'probes'" not in text:
        return None  # the common case costs no import
    from fidelity._pytest.shadowing import shadowing_hint

    return shadowing_hint(text)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    excinfo = call.excinfo
    if excinfo is not None and call.when == "call":
        from fidelity._pytest.notes import drop_internal_explanations

        drop_internal_explanations(excinfo.value)
    report = yield
    if report.failed and excinfo is not None and call.when == "call":
        _one_line_message(report, excinfo.value)
    if (
        report.failed
        and excinfo is not None
        and isinstance(excinfo.value, ImportError | AttributeError)
    ):
        hint = _shadowing(str(excinfo.value))
        if hint:
            report.sections.append(("param-fidelity", hint))
    return report


def _one_line_message(report: pytest.TestReport, error: BaseException) -> None:
    """A fidelity failure's crash message (JUnit's ``message``): kinds, then allow line."""
    from fidelity._core.errors import FidelityError

    crash = getattr(report.longrepr, "reprcrash", None)
    if isinstance(error, FidelityError) and crash is not None:
        from fidelity._pytest.junit import fidelity_message

        crash.message = fidelity_message(crash.message)


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if report.failed:
        hint = _shadowing(str(report.longrepr))
        if hint:
            report.sections.append(("param-fidelity", hint))


@pytest.fixture(scope="session", name="fidelity")
def fidelity_recorder(request: pytest.FixtureRequest) -> Recorder:
    """Check payloads and survey chains; fail on rewrites beyond the marker's allow."""
    from fidelity._pytest.recorder import Recorder

    return Recorder(_state(request.config))


@pytest.fixture(scope="session")
def fidelity_http_reflector() -> Iterator[Probe]:
    """A probe through the reference HTTP reflector (started once per session)."""
    from fidelity._pytest.reflectors import http_reflector_probe

    with http_reflector_probe() as probe:
        yield probe


@pytest.fixture(scope="session")
def fidelity_mcp_reflector() -> Iterator[Probe]:
    """A probe through the reference MCP reflector over stdio (started once per session)."""
    from fidelity._pytest.reflectors import mcp_reflector_probe

    with mcp_reflector_probe() as probe:
        yield probe


def pytest_deselected(items: list[pytest.Item]) -> None:
    if items:
        state = _state(items[0].config)
        state.deselected += len(items)


@pytest.hookimpl(tryfirst=True)  # before junitxml writes its file: card cases go in it
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    state = _state(config)
    workeroutput: dict[str, Any] | None = getattr(config, "workeroutput", None)
    if workeroutput is not None:
        if state.used:
            workeroutput[_WORKER_KEY] = state.log.to_wire()
        return
    if not state.used and not options_given(config):
        return
    from fidelity._pytest.coverage import partial_run
    from fidelity._pytest.junit import report_card_failures
    from fidelity._pytest.report import finish

    report = finish(state.log, state.settings, partial=partial_run(config, state.deselected))
    state.summary = list(report.lines)
    report_card_failures(config, report.card_failures)
    if report.failed and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    lines = _state(config).summary
    if lines:
        terminalreporter.write_sep("=", "param-fidelity")
        for line in lines:
            terminalreporter.write_line(line)


class _XdistHooks:
    """Hooks that exist only with pytest-xdist: seed to workers, cards back."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput[SEED_KEY] = _state(self.config).settings.seed

    def pytest_testnodedown(self, node: Any, error: object) -> None:
        state = _state(self.config)
        output = getattr(node, "workeroutput", None) or {}
        wire = output.get(_WORKER_KEY)
        if wire is not None:
            state.log.absorb(wire)
        elif error is not None:
            state.log.workers_lost.append(str(getattr(node.gateway, "id", node)))
