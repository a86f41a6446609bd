"""The ``--max-requests`` budget: which payloads fit, and stopping a run before it
would exceed it."""

from __future__ import annotations

from collections.abc import Sequence

from fidelity._core.errors import UsageError
from fidelity._core.payload import Payload
from fidelity._probe.contract import Probe
from fidelity._probe.observation import Observation
from fidelity._run.options import RunOptions

__all__ = [
    "Budget",
    "BudgetSpent",
    "calls_per_payload",
    "check_start",
    "examples_note",
    "generated",
    "spread",
    "within_budget",
]


class BudgetSpent(Exception):
    """``--max-requests`` is reached: the run ends here, complete as planned."""


class Budget:
    """Stop a run before it would exceed ``--max-requests``.

    What was spent is the probe's own count of what it sent (``Probe.requests``); the
    run stops when the observations that may still start (``in_flight`` of them, each
    costing at most the probe's ``max_requests_per_observation``) could exceed the
    budget. A probe that cannot count (``requests`` is ``None``) is charged one request
    per observation, one more when a response path was measured.
    """

    def __init__(self, limit: int | None, probe: Probe, in_flight: int = 1) -> None:
        self.limit = limit
        self.probe = probe
        self.in_flight = in_flight
        self._calls = self._counted()
        # What the probe sent before the run (a calibration call) counts too.
        self.spent = self._calls or 0

    def _counted(self) -> int | None:
        return self.probe.requests

    def __call__(self, observation: Observation) -> None:
        calls = self._counted()
        if calls is not None and self._calls is not None:
            cost, self._calls = calls - self._calls, calls
        else:
            cost = 1 + (1 if observation.parts else 0)
        self.spent += cost
        cost = self.probe.max_requests_per_observation
        if self.limit is not None and self.spent + max(cost, 1) * self.in_flight > self.limit:
            raise BudgetSpent


def calls_per_payload(plan: RunOptions, probe: Probe | None) -> int:
    """The calls one payload costs: the setup steps, the call, the read-back (a
    ``--read-tool`` call or a ``--read-url`` request), the reflector's two."""
    calls = plan.calls_per_payload
    if probe is not None and probe.splits_directions:
        calls += 2
    return calls


def check_start(plan: RunOptions, probe: Probe, per_payload: int, *, shares: int = 1) -> None:
    """Refuse, before anything is sent, a ``--max-requests`` that cannot pay for what
    comes first with this target: the calibration still to make, then one payload
    (``per_payload`` calls) and the payloads that start at once, as this target really
    costs them (:meth:`Probe.requests_to_start`; ``shares``: the clients each payload
    goes through)."""
    if plan.max_requests is None:
        return
    calibration = probe.requests_to_start(0)
    after = (
        f", after the {calibration} of the calibration calls that locate the read-back "
        "(--read skips them)"
        if calibration
        else ""
    )
    if plan.max_requests - calibration < per_payload:
        raise UsageError(
            f"--max-requests {plan.max_requests} leaves less than the {per_payload} calls "
            f"one payload costs with this target{after}; raise it."
        )
    first = probe.requests_to_start(plan.concurrency * shares)
    if first > plan.max_requests:
        # The first payloads start before any answer says what they will cost.
        start = f"{plan.concurrency} payloads at once" if plan.concurrency > 1 else "one payload"
        what = f"the calibration and {start}" if calibration else start
        raise UsageError(
            f"--max-requests {plan.max_requests} leaves less than the {first} requests "
            f"{what} may cost with this target (the reference reflector is measured in both "
            "directions); raise it."
        )


def within_budget(
    plan: RunOptions,
    payloads: Sequence[Payload],
    per_payload: int,
    probe: Probe | None = None,
    *,
    spent: int = 0,
) -> tuple[tuple[Payload, ...], int]:
    """The payloads and example count that fit ``--max-requests``, ``spent`` of which
    go to the calibration call that locates the read-back before the run."""
    if plan.max_requests is None:
        return tuple(payloads), plan.examples
    limit = plan.max_requests - spent
    room = limit // per_payload
    after = (
        f", after the {spent} of the calibration call that locates the read-back (--read skips it)"
        if spent
        else ""
    )
    if room < 1:
        raise UsageError(
            f"--max-requests {plan.max_requests} leaves less than the {per_payload} calls "
            f"one payload costs with this target{after}; raise it."
        )
    worst = probe.max_requests_per_observation if probe is not None else 1
    if limit < worst * plan.concurrency:
        # The first payloads start before any answer says what they will cost.
        start = f"{plan.concurrency} payloads at once" if plan.concurrency > 1 else "one payload"
        raise UsageError(
            f"--max-requests {plan.max_requests} leaves less than the "
            f"{worst * plan.concurrency} requests {start} may cost with this target (the "
            f"reference reflector is measured in both directions){after}; raise it."
        )
    kept = spread(payloads, room, plan.families)
    return kept, min(plan.examples, room - len(kept))


def spread(
    payloads: Sequence[Payload], count: int, families: Sequence[str] | None = None
) -> tuple[Payload, ...]:
    """At most ``count`` of ``payloads``, taken in turn from each family.

    A budget smaller than the catalogue samples every family (the first payloads of
    each, in catalogue order) instead of the first families only; a payload counts
    for the first of its families among ``families`` (all when ``None``). The result
    is in that round-robin order, so a run cut short still covers the families.
    """
    if count >= len(payloads):
        return tuple(payloads)
    groups: dict[str, list[Payload]] = {}
    for payload in payloads:
        key = next((f for f in payload.families if families is None or f in families), "")
        groups.setdefault(key, []).append(payload)
    queues = [iter(group) for group in groups.values()]
    kept: list[Payload] = []
    while len(kept) < count and queues:
        alive = []
        for queue in queues:
            item = next(queue, None)
            if item is None:
                continue
            alive.append(queue)
            kept.append(item)
            if len(kept) == count:
                break
        queues = alive
    return tuple(kept)


def generated(plan: RunOptions, todo: Sequence[Payload], count: int) -> tuple[Payload, ...]:
    """The ``count`` generated examples the run adds after ``todo``, exactly as the survey
    draws them (distinct, none a catalogue text; possibly fewer than ``count``)."""
    if not count:
        return ()
    from fidelity._survey.run import examples_for

    assert plan.seed is not None
    return tuple(examples_for(plan.families, count, plan.seed, exclude=(p.text for p in todo)))


def examples_note(asked: int, drawn: int, seed: int | None) -> str:
    """What a run says when the families held fewer distinct examples than asked."""
    if drawn >= asked:
        return ""
    return (
        f"{drawn} distinct generated examples of the {asked} asked (the families hold no "
        f"more distinct values for seed {seed}; duplicates are not sent)"
    )
