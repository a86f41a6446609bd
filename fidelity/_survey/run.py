"""``survey(target)``: push the payload catalogue through a chain, map what it does.

A survey observes every payload once (plus optional Hypothesis examples), stamps each
observation with its payload id and families, and groups the observations per hazard
family and direction into :class:`FamilyOutcome` rows: ``preserved``, ``transformed``
(with kinds), ``rejected``, ``lost``, ``timeout``, ``broken``, or ``mixed``, each with
the smallest example of every kind and failure. A survey never dies on a payload: a
probe that raises for one payload yields ``broken`` for it and the survey goes on.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from operator import attrgetter, itemgetter
from typing import Any

from fidelity._core.errors import UsageError
from fidelity._core.kinds import FAMILIES, Status, check_families, check_kinds
from fidelity._core.payload import Payload
from fidelity._probe.contract import FunctionProbe, Probe
from fidelity._probe.observation import Observation
from fidelity._report.outcomes import GENERATED, SHRUNK, entries, is_example
from fidelity._survey.result import Survey

__all__ = ["examples_for", "survey", "survey_drawn"]

_ID_TEXT = attrgetter("id", "text")
#: Observations a shrink may spend per kind, so a shrink is always bounded.
_SHRINK_BUDGET = 100
#: Wall-clock seconds all the shrinks of one survey may spend (a slow or hanging chain
#: would otherwise multiply its timeout by the budget): a safety net, rarely reached.
SHRINK_SECONDS = 20.0
#: Examples are drawn past duplicates: at most this many draws per example asked...
_DRAWS_PER_EXAMPLE = 4
#: ...and at least this many per family.
_MIN_DRAWS = 20


def _broken(payload: Payload, error_type: str, error: str) -> Observation:
    return Observation(
        sent=payload.text,
        status=Status.BROKEN,
        error_type=error_type,
        error=error,
        payload_id=payload.id,
        families=payload.families,
    )


def _observe_all(
    probe: Probe,
    payloads: Sequence[Payload],
    on_observation: Callable[[Observation], object] | None,
) -> list[Observation]:
    """Observe every payload in order; a failure of the probe costs one payload only.

    Exceptions from ``on_observation`` are the caller's (a budget, an interrupt): they
    propagate and end the survey; only failures of the probe become observations.
    """
    results: list[Observation] = []
    i = 0
    while i < len(payloads):
        stream = iter(probe.observe_payloads(payloads[i:] if i else payloads))
        start = len(results)
        failed: BaseException | None = None
        try:
            if on_observation is None:
                try:
                    results.extend(stream)  # the hot path: no per-payload Python frame here
                except (Exception, SystemExit) as exc:  # the probe failed on this payload
                    failed = exc
            else:
                while len(results) < len(payloads):
                    try:
                        found = next(stream)
                    except StopIteration:
                        break
                    except (Exception, SystemExit) as exc:  # the probe failed here
                        failed = exc
                        break
                    obs = (
                        found
                        if isinstance(found, Observation)
                        else _not_an_observation(payloads[len(results)], found)
                    )
                    results.append(obs)
                    on_observation(obs)
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                close()
        if failed is not None:
            _check(results, payloads, start, None)
            if len(results) < len(payloads):
                payload = payloads[len(results)]
                error = str(failed) or type(failed).__name__
                obs = _broken(payload, type(failed).__name__, error)
                results.append(obs)
                if on_observation is not None:
                    on_observation(obs)
        else:
            _check(results, payloads, start, on_observation)
            message = "the probe returned no observation for this payload"
            for payload in payloads[len(results) :]:
                obs = _broken(payload, "", message)
                results.append(obs)
                if on_observation is not None:
                    on_observation(obs)
        i = len(results)
    return results


def _not_an_observation(payload: Payload, found: object) -> Observation:
    message = f"the probe returned {type(found).__name__}, not an Observation"
    return _broken(payload, "", message)


def _check(
    results: list[Observation],
    payloads: Sequence[Payload],
    start: int,
    on_observation: Callable[[Observation], object] | None,
) -> None:
    """Replace anything but an observation in ``results[start:]`` (unless already reported);
    cut results beyond the payloads."""
    del results[len(payloads) :]
    if on_observation is not None:
        return  # already checked one by one
    for n in range(start, len(results)):
        if type(results[n]) is not Observation and not isinstance(results[n], Observation):
            results[n] = _not_an_observation(payloads[n], results[n])


def _generate(strategy: Any, count: int, seed: int, exclude: set[str]) -> list[str]:
    """Up to ``count`` distinct examples drawn from a Hypothesis strategy, none of them
    in ``exclude``, reproducibly from ``seed``.

    Duplicates are drawn past: up to ``_DRAWS_PER_EXAMPLE`` times ``count`` draws (and
    at least ``_MIN_DRAWS``) are made, so a family rich enough gives ``count`` distinct
    values; a narrow one gives what it holds.
    """
    import hypothesis
    from hypothesis import HealthCheck, Phase, given, settings

    drawn: dict[str, None] = {}

    @hypothesis.seed(seed)
    @settings(
        max_examples=max(count * _DRAWS_PER_EXAMPLE, _MIN_DRAWS),
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(text: str) -> None:
        if len(drawn) < count and text not in exclude:
            drawn[text] = None

    collect()
    return list(drawn)


class _BudgetSpent(Exception):
    """Raised inside a shrink to stop it once its observation budget is spent."""


def _shrink(strategy: Any, probe: Probe, kind: str, seed: int, deadline: float) -> str | None:
    """The minimal text Hypothesis finds that still shows ``kind``, or ``None``.

    At most ``_SHRINK_BUDGET`` observations are spent, and none after ``deadline``
    (``time.monotonic``); answers are remembered, so a text asked about again gets the
    same answer after the budget is gone. Stopped early, the smallest text seen to show
    the kind is the result.
    """
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis.errors import HypothesisException

    answers: dict[str, bool] = {}
    best: list[str] = []

    def shows(text: str) -> bool:
        if text in answers:
            return answers[text]
        if len(answers) >= _SHRINK_BUDGET or time.monotonic() > deadline:
            raise _BudgetSpent
        try:
            obs = probe.observe(text)
        except (Exception, SystemExit):
            answer = False
        else:
            answer = any(kind in e.kinds for e in (obs, *obs.parts))
        answers[text] = answer
        if answer and (not best or (len(text), text) < (len(best[0]), best[0])):
            best[:] = [text]
        return answer

    try:
        found: str = find(
            strategy,
            shows,
            settings=settings(
                max_examples=_SHRINK_BUDGET,
                database=None,
                deadline=None,
                phases=[Phase.generate, Phase.shrink],
                suppress_health_check=list(HealthCheck),
            ),
            random=random.Random(seed),
        )
    except (HypothesisException, _BudgetSpent):  # nothing found, or the budget ran out
        return best[0] if best else None
    return found


def examples_for(
    families: Sequence[str] | None, count: int, seed: int, exclude: Iterable[str] = ()
) -> list[Payload]:
    """The Hypothesis examples a survey adds: ``count`` spread over ``families`` (all when
    ``None``), each distinct and not among ``exclude`` (the catalogue texts surveyed),
    tagged with its family; reproducible from ``seed``.

    A family that holds fewer distinct values than its share gives fewer: the result
    may be shorter than ``count``. ``fidelity probe --dry-run`` calls this too, so a
    dry run shows exactly the examples the run sends.
    """
    from fidelity._core.siblings import load

    strategies = load("strategies")
    chosen = tuple(families) if families else FAMILIES
    seen = set(exclude)
    payloads: list[Payload] = []
    share, extra = divmod(count, len(chosen))
    for index, family in enumerate(chosen):
        wanted = share + (1 if index < extra else 0)
        if not wanted:
            continue
        strategy = strategies.text(families=[family])
        for n, text in enumerate(_generate(strategy, wanted, seed + index, seen)):
            seen.add(text)
            payloads.append(Payload(id=f"{family}{GENERATED}{n}", text=text, families=(family,)))
    return payloads


def survey(
    target: Probe | Callable[[str], object],
    payloads: Iterable[Payload] | None = None,
    examples: int = 0,
    allow: Iterable[str] = (),
    *,
    seed: int | None = None,
    families: Iterable[str] | None = None,
    name: str | None = None,
    progress: bool = False,
    on_observation: Callable[[Observation], object] | None = None,
) -> Survey:
    """Push payloads through ``target`` and return the transformation map.

    ``target`` is a ``Probe`` or a callable ``str -> object``. ``payloads`` default to
    the catalogue (of ``families``, when given; explicit payloads are filtered to those
    families). ``examples=N`` adds N Hypothesis examples from ``strategies.text``,
    reproducible from ``seed`` (drawn at random and recorded when ``None``), each distinct
    and not a catalogue text (a narrow family may give fewer: see :func:`examples_for`;
    the survey records how many were sent); an example
    that shows a kind the catalogue did not is shrunk with ``hypothesis.find`` and the
    minimal payload is added. ``allow`` lists accepted kind ids. ``on_observation`` is
    called with each observation as it arrives. ``progress`` shows a bar on stderr
    when stderr is a terminal. A probe passed in stays open; a callable is wrapped and
    its probe closed at the end.
    """
    allowed = check_kinds(tuple(allow) if not isinstance(allow, str) else allow)
    chosen = None if families is None else check_families(families)
    if isinstance(examples, bool) or not isinstance(examples, int) or examples < 0:
        raise UsageError(f"examples={examples!r} must be a whole number >= 0.")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise UsageError(f"seed={seed!r} must be an integer or None.")
    probe, owned = _probe_of(target, name)
    todo = _catalogue_or(payloads, chosen)
    if examples and seed is None:
        seed = random.SystemRandom().randrange(2**32)
    extra: list[Payload] = []
    if examples:
        assert seed is not None
        extra = examples_for(chosen, examples, seed, exclude=(p.text for p in todo))
    try:
        return survey_drawn(
            probe,
            todo,
            extra,
            allow=allowed,
            seed=seed,
            name=name,
            progress=progress,
            on_observation=on_observation,
        )
    finally:
        if owned:
            probe.close()


def _probe_of(target: object, name: str | None) -> tuple[Probe, bool]:
    """The probe of ``target`` and whether the survey owns it (wrapped a callable)."""
    if isinstance(target, Probe):
        return target, False
    if callable(target):
        return FunctionProbe(target, name=name), True
    raise UsageError(f"target={target!r} must be a Probe or a callable (str -> object).")


def _catalogue_or(
    payloads: Iterable[Payload] | None, chosen: Sequence[str] | None
) -> list[Payload]:
    """``payloads`` checked (the catalogue when ``None``), within ``chosen`` families."""
    if payloads is None:
        from fidelity._core.siblings import load

        todo = list(load("strategies").catalogue(chosen))
    else:
        todo = list(payloads)
        bad = next((p for p in todo if not isinstance(p, Payload)), None)
        if bad is not None:
            raise UsageError(f"payloads must be fidelity.Payload records, got {bad!r}.")
    return todo if chosen is None else _within(todo, chosen)


def survey_drawn(
    probe: Probe,
    todo: Sequence[Payload],
    extra: Sequence[Payload] = (),
    *,
    allow: tuple[str, ...] = (),
    seed: int | None = None,
    families: Sequence[str] | None = None,
    name: str | None = None,
    progress: bool = False,
    on_observation: Callable[[Observation], object] | None = None,
) -> Survey:
    """The survey of ``todo`` (filed under ``families`` alone, when given) and the
    generated examples ``extra`` already drawn (with ``seed``, by :func:`examples_for`)
    through an open ``probe``; ``allow`` checked.

    What :func:`survey` runs once its options are checked and its examples drawn; a
    run that drew them first (to count them) hands them here rather than drawing twice.
    """
    from fidelity._survey.progress import Progress

    if families is not None:
        todo = _within(todo, check_families(families))
    strategies: Any = None
    if extra:
        from fidelity._core.siblings import load

        strategies = load("strategies")
    with Progress(len(todo) + len(extra), label=probe.name, enabled=progress) as bar:

        def advance(obs: Observation) -> None:
            bar.advance()
            if on_observation is not None:
                on_observation(obs)

        # Nothing to tell anyone: skip the per-observation call on the hot path.
        seen = advance if bar.active else on_observation
        observed = _observe_all(probe, todo, seen)
        if extra:
            assert seed is not None
            kinds_before = frozenset(k for e in entries(observed) for k in e.kinds)
            observed_extra = _observe_all(probe, extra, seen)
            observed += observed_extra
            observed += _shrunk(
                probe,
                strategies,
                observed=observed_extra,
                known=kinds_before,
                seed=seed,
                seen=seen,
            )
    reported = probe.environment
    return Survey.of(
        observed,
        name=name or probe.name,
        chain=probe.name,
        allow=allow,
        seed=seed,
        examples=len(extra),
        catalogue_size=_catalogue_size(todo),
        target=reported,
    )


def _within(payloads: Sequence[Payload], families: Sequence[str]) -> list[Payload]:
    """The payloads of ``families``, each tagged with those of its families only.

    A payload that exercises two families (a CRLF inside a path) is filed under the
    ones asked for, so a survey of some families shows rows for those alone.
    """
    wanted = frozenset(families)
    kept = []
    for payload in payloads:
        mine = tuple(f for f in payload.families if f in wanted)
        if mine:
            kept.append(payload if mine == payload.families else replace(payload, families=mine))
    return kept


def _catalogue_size(payloads: Sequence[Payload]) -> int:
    """The number of distinct catalogue payloads (not Hypothesis examples) in ``payloads``."""
    pairs = set(map(_ID_TEXT, payloads))
    return len(pairs) - sum(map(is_example, map(itemgetter(0), pairs)))


def _shrunk(
    probe: Probe,
    strategies: Any,
    *,
    observed: Sequence[Observation],
    known: frozenset[str],
    seed: int,
    seen: Callable[[Observation], object] | None,
) -> list[Observation]:
    """Shrink one example of each kind the catalogue did not show; observe the results."""
    first: dict[str, Observation] = {}
    for obs in observed:
        for kind in sorted(k for e in (obs, *obs.parts) for k in e.kinds):
            if kind not in known and kind not in first:
                first[kind] = obs
    payloads = []
    deadline = time.monotonic() + SHRINK_SECONDS
    for kind, obs in sorted(first.items()):
        family = obs.families[0] if obs.families else FAMILIES[0]
        text = _shrink(strategies.text(families=[family]), probe, kind, seed, deadline)
        if text is not None and text != obs.sent:
            payloads.append(Payload(id=f"{family}{SHRUNK}{kind}", text=text, families=(family,)))
    return _observe_all(probe, payloads, seen)
