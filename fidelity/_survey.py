"""``survey(target)``: push the payload catalogue through a chain, map what it does.

A survey observes every payload once (plus optional Hypothesis examples), stamps each
observation with its payload id and families, and groups the observations per hazard
family and direction into :class:`FamilyOutcome` rows: ``preserved``, ``transformed``
(with kinds), ``rejected``, ``lost``, ``timeout``, ``broken``, or ``mixed``, each with
the smallest example of every kind and failure. A survey never dies on a payload: a
probe that raises for one payload yields ``broken`` for it and the survey goes on.
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from fidelity._errors import UsageError
from fidelity._kinds import FAMILIES, Status, check_kinds
from fidelity._observation import Direction, Observation
from fidelity._payload import Payload
from fidelity._probe import FunctionProbe, Probe
from fidelity._text import utf8_len

if TYPE_CHECKING:
    from fidelity._card import Card

__all__ = ["Example", "FamilyOutcome", "Survey", "survey"]

#: The outcome of a family row whose observations ended in more than one status.
MIXED = "mixed"

_DIRECTIONS = tuple(Direction)
_STATUSES = tuple(Status)
_FAILURES = (Status.REJECTED, Status.LOST, Status.TIMEOUT, Status.BROKEN)
#: Payload ids of Hypothesis examples carry one of these markers after the family.
EXAMPLE_MARKERS = ("/hypothesis-", "/shrunk-")
#: Observations a shrink may spend per kind, so a shrink is always bounded.
_SHRINK_BUDGET = 100


@dataclass(frozen=True, slots=True, kw_only=True)
class Example:
    """The smallest payload that showed ``key`` (a kind id, or a failure status)."""

    key: str
    payload_id: str
    sent: str
    received: Any = None
    error_type: str = ""
    error: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class FamilyOutcome:
    """What a chain does to one hazard family in one direction.

    ``outcome`` is the status shared by every observation of the family, or ``mixed``;
    ``statuses`` counts them (in ``Status`` order, non-zero only); ``kinds`` is sorted;
    ``examples`` holds the smallest example of each kind (in ``kinds`` order) followed
    by the smallest example of each failure status.
    """

    family: str
    direction: Direction
    outcome: str
    count: int
    statuses: tuple[tuple[Status, int], ...]
    kinds: tuple[str, ...]
    examples: tuple[Example, ...]

    def example(self, key: str) -> Example | None:
        """The smallest example of a kind id or failure status, if there is one."""
        return next((e for e in self.examples if e.key == key), None)


class Entry(NamedTuple):
    """One measured value, flattened for grouping (observations and card records alike)."""

    payload_id: str
    families: tuple[str, ...]
    direction: Direction
    status: Status
    kinds: frozenset[str]
    sent: str
    received: Any
    error_type: str
    error: str


_EXAMPLE_ID = re.compile("|".join(map(re.escape, EXAMPLE_MARKERS)))


def is_example(payload_id: str) -> bool:
    """True for the id of a Hypothesis example (generated or shrunk), not a catalogue one."""
    return _EXAMPLE_ID.search(payload_id) is not None


def family_key(family: str) -> tuple[int, str]:
    """Sort key putting families in specification order, unknown ones after, by name."""
    try:
        return (FAMILIES.index(family), family)
    except ValueError:
        return (len(FAMILIES), family)


def _smallest(entry: Entry) -> tuple[int, str, str]:
    return (utf8_len(entry.sent), entry.payload_id, entry.sent)


def _example(key: str, entry: Entry) -> Example:
    return Example(
        key=key,
        payload_id=entry.payload_id,
        sent=entry.sent,
        received=entry.received,
        error_type=entry.error_type,
        error=entry.error,
    )


def summarize(entries: Iterable[Entry]) -> tuple[FamilyOutcome, ...]:
    """Group entries per (family, direction) into outcome rows, in a deterministic order."""
    groups: dict[tuple[str, Direction], list[Entry]] = {}
    for entry in entries:
        for family in entry.families or ("unfiled",):
            groups.setdefault((family, entry.direction), []).append(entry)
    rows = []
    for (family, direction), members in sorted(
        groups.items(), key=lambda item: (family_key(item[0][0]), _DIRECTIONS.index(item[0][1]))
    ):
        counts = dict.fromkeys(_STATUSES, 0)
        by_kind: dict[str, Entry] = {}
        by_failure: dict[str, Entry] = {}
        for entry in members:
            counts[entry.status] += 1
            for key in entry.kinds:
                if key not in by_kind or _smallest(entry) < _smallest(by_kind[key]):
                    by_kind[key] = entry
            if entry.status in _FAILURES:
                key = entry.status.value
                if key not in by_failure or _smallest(entry) < _smallest(by_failure[key]):
                    by_failure[key] = entry
        present = [s for s in _STATUSES if counts[s]]
        kinds = tuple(sorted(by_kind))
        failures = tuple(s.value for s in _FAILURES if s.value in by_failure)
        chosen = {**by_kind, **by_failure}
        rows.append(
            FamilyOutcome(
                family=family,
                direction=direction,
                outcome=present[0].value if len(present) == 1 else MIXED,
                count=len(members),
                statuses=tuple((s, counts[s]) for s in present),
                kinds=kinds,
                examples=tuple(_example(k, chosen[k]) for k in kinds + failures),
            )
        )
    return tuple(rows)


def _entries(observations: Iterable[Observation]) -> Iterator[Entry]:
    for obs in observations:
        for measured in (obs, *obs.parts) if obs.parts else (obs,):
            comparison = measured.comparison
            yield Entry(
                obs.payload_id,
                obs.families,
                measured.direction,
                measured.status,
                comparison.kinds if comparison is not None else frozenset(),
                measured.sent,
                measured.received,
                measured.error_type,
                measured.error,
            )


@dataclass(frozen=True, slots=True, kw_only=True)
class Survey:
    """The result of a survey: observations and the transformation map derived from them.

    ``observations`` are in the order surveyed (catalogue, then Hypothesis examples,
    then shrunk examples). ``statuses`` counts every ``Status`` (zeros included).
    ``unexpected`` holds the kinds seen that ``allow`` does not list. ``families`` maps
    a family to its outcome per direction; ``outcomes`` lists the same rows in order.
    """

    name: str
    chain: str
    observations: tuple[Observation, ...]
    allow: tuple[str, ...] = ()
    seed: int | None = None
    catalogue_size: int = 0
    examples: int = 0
    kinds: frozenset[str] = frozenset()
    statuses: Mapping[Status, int] = dataclasses.field(default_factory=dict)
    unexpected: frozenset[str] = frozenset()
    families: Mapping[str, Mapping[Direction, FamilyOutcome]] = dataclasses.field(
        default_factory=dict
    )
    outcomes: tuple[FamilyOutcome, ...] = ()

    @classmethod
    def of(
        cls,
        observations: Iterable[Observation],
        *,
        name: str,
        chain: str = "",
        allow: Iterable[str] = (),
        seed: int | None = None,
        examples: int = 0,
    ) -> Survey:
        """Build the survey of already stamped observations (e.g. a run cut short)."""
        observed = tuple(observations)
        allowed = tuple(sorted(set(check_kinds(tuple(allow)))))
        entries = list(_entries(observed))
        kinds = frozenset(k for e in entries if e.kinds for k in e.kinds)
        statuses = dict.fromkeys(_STATUSES, 0)
        for obs in observed:
            statuses[obs.status] += 1
        outcomes = summarize(entries)
        families: dict[str, dict[Direction, FamilyOutcome]] = {}
        for row in outcomes:
            families.setdefault(row.family, {})[row.direction] = row
        catalogue = {(o.payload_id, o.sent) for o in observed if not is_example(o.payload_id)}
        return cls(
            name=name,
            chain=chain or name,
            observations=observed,
            allow=allowed,
            seed=seed,
            catalogue_size=len(catalogue),
            examples=examples,
            kinds=kinds,
            statuses=MappingProxyType(statuses),
            unexpected=kinds - frozenset(allowed),
            families=MappingProxyType({f: MappingProxyType(d) for f, d in families.items()}),
            outcomes=outcomes,
        )

    def card(self, name: str | None = None) -> Card:
        """The contract card of this survey (named ``name``, default the survey's name)."""
        from fidelity._card import Card

        return Card.from_survey(self, name=name)


# -- running -------------------------------------------------------------------------


def _check_families(families: object) -> tuple[str, ...] | None:
    if families is None:
        return None
    if isinstance(families, str) or not isinstance(families, (list, tuple, set, frozenset)):
        raise UsageError(f"families={families!r} must be a list of family ids, e.g. ['quotes'].")
    bad = [f for f in families if f not in FAMILIES]
    if bad:
        raise UsageError(
            f"families names unknown family id(s) {', '.join(map(repr, bad))}; "
            f"valid families are: {', '.join(FAMILIES)}."
        )
    return tuple(f for f in FAMILIES if f in set(families))


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
    """Observe every payload in order; a failure of the probe costs one payload only."""
    results: list[Observation] = []
    i = 0
    while i < len(payloads):
        stream = iter(probe.observe_payloads(payloads[i:]))
        try:
            while i < len(payloads):
                payload = payloads[i]
                try:
                    obs = next(stream)
                except StopIteration:
                    message = "the probe returned no observation for this payload"
                    results.extend(_broken(p, "", message) for p in payloads[i:])
                    i = len(payloads)
                    break
                except Exception as exc:  # the probe failed: this payload is broken
                    obs = _broken(payload, type(exc).__name__, str(exc) or type(exc).__name__)
                    restart = True
                else:
                    restart = False
                    if not isinstance(obs, Observation):
                        message = f"the probe returned {type(obs).__name__}, not an Observation"
                        obs = _broken(payload, "", message)
                results.append(obs)
                i += 1
                if on_observation is not None:
                    on_observation(obs)
                if restart:
                    break
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                close()
    return results


def _generate(strategy: Any, count: int, seed: int) -> list[str]:
    """``count`` examples drawn from a Hypothesis strategy, reproducibly from ``seed``."""
    import hypothesis
    from hypothesis import HealthCheck, Phase, given, settings

    drawn: list[str] = []

    @hypothesis.seed(seed)
    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(text: str) -> None:
        if len(drawn) < count:
            drawn.append(text)

    collect()
    return drawn


class _BudgetSpent(Exception):
    """Raised inside a shrink to stop it once its observation budget is spent."""


def _shrink(strategy: Any, probe: Probe, kind: str, seed: int) -> str | None:
    """The minimal text Hypothesis finds that still shows ``kind``, or ``None``.

    At most ``_SHRINK_BUDGET`` observations are spent; answers are remembered, so a
    text asked about again gets the same answer after the budget is gone.
    """
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis.errors import HypothesisException

    answers: dict[str, bool] = {}
    best: list[str] = []

    def shows(text: str) -> bool:
        if text in answers:
            return answers[text]
        if len(answers) >= _SHRINK_BUDGET:
            raise _BudgetSpent
        try:
            obs = probe.observe(text)
        except Exception:
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


def _examples(
    probe: Probe,
    strategies: Any,
    *,
    families: Sequence[str],
    count: int,
    seed: int,
    seen_texts: set[str],
) -> list[Payload]:
    """``count`` Hypothesis examples spread over ``families``, tagged with their family."""
    payloads: list[Payload] = []
    share, extra = divmod(count, len(families))
    for index, family in enumerate(families):
        wanted = share + (1 if index < extra else 0)
        if not wanted:
            continue
        strategy = strategies.text(families=[family])
        for n, text in enumerate(_generate(strategy, wanted, seed + index)):
            if text in seen_texts:
                continue
            seen_texts.add(text)
            payloads.append(Payload(id=f"{family}/hypothesis-{n}", text=text, families=(family,)))
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
    reproducible from ``seed`` (drawn at random and recorded when ``None``); an example
    that shows a kind the catalogue did not is shrunk with ``hypothesis.find`` and the
    minimal payload is added. ``allow`` lists accepted kind ids. ``on_observation`` is
    called with each observation as it arrives. ``progress`` shows a bar on stderr
    when stderr is a terminal. A probe passed in stays open; a callable is wrapped and
    its probe closed at the end.
    """
    allowed = check_kinds(tuple(allow) if not isinstance(allow, str) else allow)
    chosen = _check_families(None if families is None else tuple(families))
    if isinstance(examples, bool) or not isinstance(examples, int) or examples < 0:
        raise UsageError(f"examples={examples!r} must be a whole number >= 0.")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise UsageError(f"seed={seed!r} must be an integer or None.")
    if isinstance(target, Probe):
        probe, owned = target, False
    elif callable(target):
        probe, owned = FunctionProbe(target, name=name), True
    else:
        raise UsageError(f"target={target!r} must be a Probe or a callable (str -> object).")

    strategies: Any = None
    if payloads is None or examples:
        from fidelity._imports import load

        strategies = load("strategies")
    if payloads is None:
        todo = list(strategies.catalogue(chosen))
    else:
        todo = list(payloads)
        bad = next((p for p in todo if not isinstance(p, Payload)), None)
        if bad is not None:
            raise UsageError(f"payloads must be fidelity.Payload records, got {bad!r}.")
        if chosen is not None:
            todo = [p for p in todo if set(p.families) & set(chosen)]
    if examples and seed is None:
        seed = random.SystemRandom().randrange(2**32)

    from fidelity._progress import Progress

    try:
        with Progress(len(todo) + examples, label=probe.name, enabled=progress) as bar:

            def advance(obs: Observation) -> None:
                bar.advance()
                if on_observation is not None:
                    on_observation(obs)

            # Nothing to tell anyone: skip the per-observation call on the hot path.
            seen = advance if bar.active else on_observation
            observed = _observe_all(probe, todo, seen)
            if examples:
                assert seed is not None
                kinds_before = frozenset(k for e in _entries(observed) for k in e.kinds)
                texts = {p.text for p in todo}
                extra = _examples(
                    probe,
                    strategies,
                    families=chosen or FAMILIES,
                    count=examples,
                    seed=seed,
                    seen_texts=texts,
                )
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
    finally:
        if owned:
            probe.close()
    return Survey.of(
        observed,
        name=name or probe.name,
        chain=probe.name,
        allow=allowed,
        seed=seed,
        examples=examples,
    )


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
    for kind, obs in sorted(first.items()):
        family = obs.families[0] if obs.families else FAMILIES[0]
        text = _shrink(strategies.text(families=[family]), probe, kind, seed)
        if text is not None and text != obs.sent:
            payloads.append(Payload(id=f"{family}/shrunk-{kind}", text=text, families=(family,)))
    return _observe_all(probe, payloads, seen)
