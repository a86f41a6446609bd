"""The run layer on its own: the events a sweep tells, and the one breaker's rules.

Real probes (an in-process chain; a probe whose session answers its health check
while a call timed out), no front end: what every form of ``fidelity probe`` relies on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from fidelity._core.kinds import Status
from fidelity._core.siblings import load
from fidelity._probe.contract import FunctionProbe, Probe
from fidelity._probe.observation import Observation
from fidelity._run.breaker import Breaker, Stopped
from fidelity._run.events import Event, ObservationMade, ParameterDone
from fidelity._run.sweep import sweep


@dataclass(frozen=True)
class _Options:
    """What a run reads of a plan (RunOptions), as a later input would give it."""

    families: tuple[str, ...] | None = ("quotes",)
    examples: int = 0
    seed: int | None = None
    allow: tuple[str, ...] = ()
    max_requests: int | None = None
    rate: float | None = None
    concurrency: int = 1
    timeout: float = 1.0
    read: str | None = None
    quiet: bool = True
    is_mcp: bool = False
    calls_per_payload: int = 1


def test_a_sweep_tells_each_observation_then_that_it_is_done() -> None:
    todo = tuple(load("strategies").catalogue(["quotes"]))
    events: list[Event] = []
    seen: list[Observation] = []
    swept = sweep(
        _Options(),
        FunctionProbe(lambda s: s.replace("\u201c", '"')),
        todo=todo,
        examples=0,
        name="straight.quotes",
        calibrated=False,
        seen=seen,
        on_event=events.append,
    )
    assert swept.result is not None
    assert not swept.stopped
    made = [e for e in events if isinstance(e, ObservationMade)]
    assert [e.observation for e in made] == seen
    assert len(made) == len(todo)
    assert {e.target for e in made} == {"straight.quotes"}
    assert events[-1] == ParameterDone(target="straight.quotes", observations=len(todo))
    assert "transformed" in {o.status.value for o in seen}


class _AnsweringWriteTool(Probe):
    """A tool that may write (no annotations) whose session answers every health
    check: each timed-out call still makes the server's count of answers go up."""

    name = "answering write tool"

    def __init__(self) -> None:
        self._answers = 0

    def observe(self, text: str) -> Observation:
        self._answers += 1
        return Observation(sent=text, status=Status.TIMEOUT, error="no answer within 1s")

    @property
    def answers(self) -> int:
        return self._answers

    @property
    def tolerates_timeouts(self) -> bool:
        return False

    @property
    def operation(self) -> str:
        return "put"


@pytest.mark.parametrize("answering", [False, True])
def test_a_write_tool_stops_at_its_first_timeout_in_every_form(answering: bool) -> None:
    # One client's run (answering=False) and a run through one of several clients
    # (answering=True) go through the same rule: the first timeout stops the run.
    probe = _AnsweringWriteTool()
    breaker = Breaker(1.0, probe, answering=answering)
    breaker.answered = True  # the calibration call came back
    with pytest.raises(Stopped, match="tool 'put' is not annotated readOnlyHint"):
        breaker(probe.observe("a"))


def test_through_several_clients_a_failure_the_server_answered_is_the_payloads() -> None:
    # A broken payload while the server went on answering does not count toward
    # "stopped answering" (another client may send it in a form the server drops).
    class Answering(_AnsweringWriteTool):
        def observe(self, text: str) -> Observation:
            self._answers += 1
            return Observation(sent=text, status=Status.BROKEN, error="dropped")

    probe = Answering()
    breaker = Breaker(1.0, probe, answering=True)
    breaker.answered = True
    for text in "abcdef":
        breaker(probe.observe(text))
    alone = Breaker(1.0, probe)
    alone.answered = True
    alone(probe.observe("a"))
    alone(probe.observe("b"))
    with pytest.raises(Stopped, match="stopped answering: 3 payloads in a row"):
        alone(probe.observe("c"))


def test_dispatch_tells_every_writer_then_raises_the_first_failure_before_the_terminal() -> None:
    from fidelity._core.errors import UsageError
    from fidelity._run.events import Dispatch, RunDone

    told: list[str] = []

    def writer(name: str, fails: bool) -> Callable[[Event], None]:
        def handle(event: Event) -> None:
            told.append(name)
            if fails:
                raise UsageError(f"cannot write {name}.")

        return handle

    def terminal(event: Event) -> None:
        told.append("terminal")

    done = RunDone(complete=True)
    Dispatch([writer("json", False), writer("html", False)], [terminal])(done)
    assert told == ["json", "html", "terminal"]
    told.clear()
    dispatch = Dispatch(
        [writer("json", True), writer("html", False), writer("card", True)], [terminal]
    )
    with pytest.raises(UsageError, match="cannot write json"):
        dispatch(done)
    # Each writer had its turn; the terminal shows nothing of a run whose outputs failed.
    assert told == ["json", "html", "card"]


def test_a_whole_survey_is_told_as_a_run_with_its_card() -> None:
    from fidelity._run.events import RunDone, RunStarted
    from fidelity._run.whole import run_survey

    events: list[Event] = []
    result = run_survey(
        FunctionProbe(lambda text: text.replace("\u201c", '"'), name="straighten"),
        payloads=None,
        examples=0,
        allow=(),
        seed=None,
        families=("quotes",),
        name="notes.body",
        on_event=events.append,
    )
    started, done = events[0], events[-1]
    assert isinstance(started, RunStarted)
    assert started.name == "notes.body"
    seen = [e.observation for e in events if isinstance(e, ObservationMade)]
    assert seen == list(result.observations)
    ended = events[-2]
    assert isinstance(ended, ParameterDone)
    assert ended.observations == len(seen)
    assert isinstance(done, RunDone)
    assert done.complete
    assert done.outcome is result
    (card,) = done.cards
    assert card.name == "notes.body"
    assert card.rows == result.card(name="notes.body").rows
    # The chain straightens quotes: the card shows that rewrite, as the survey does.
    assert card.kinds == frozenset(result.kinds) != frozenset()
