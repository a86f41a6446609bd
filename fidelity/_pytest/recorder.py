"""The ``fidelity`` fixture: check one payload or survey a chain inside a test.

Results are data everywhere else in param-fidelity; this is the layer that turns them
into test failures. Every failure message is terminal-safe: payload text only ever
appears through :func:`fidelity._core.render.safe`, with its code points.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, overload

from fidelity._compare.api import compare
from fidelity._core.errors import FidelityError, UsageError
from fidelity._core.kinds import Status, check_kinds
from fidelity._core.render import codepoints, safe
from fidelity._probe.contract import FunctionProbe, Probe
from fidelity._pytest.measured import accepted_outcomes, nothing_measured
from fidelity._report.card_render import card_json
from fidelity._run.events import Event, RunDone

if TYPE_CHECKING:
    from types import ModuleType

    from fidelity._core.payload import Payload
    from fidelity._probe.observation import Observation
    from fidelity._pytest.session import MarkContext
    from fidelity._pytest.state import PluginState
    from fidelity._survey.clients import ClientSurvey
    from fidelity._survey.result import Survey
    from fidelity._sweep.result import Sweep

__all__ = ["Recorder", "describe_observation"]

#: Longest piece of payload text (in code points) quoted in a failure message.
_QUOTE_LIMIT = 120
#: Most lines of one comparison's rendering quoted in a survey failure.
_RENDER_LINES = 24
_OK_STATUSES = frozenset({Status.PRESERVED, Status.TRANSFORMED})


def _quote(value: object) -> str:
    """A bounded, terminal-safe view of a value, with code points for short texts."""
    if isinstance(value, bytes):
        text = value.decode("utf-8", "backslashreplace")
        prefix = "bytes "
    elif isinstance(value, str):
        text = value
        prefix = ""
    else:
        return f"{safe(repr(value)[:_QUOTE_LIMIT])} ({type(value).__name__}, not a string)"
    more = len(text) - _QUOTE_LIMIT
    shown = text[:_QUOTE_LIMIT]
    tail = f" ... ({more} more code points)" if more > 0 else ""
    points = f"  [{codepoints(shown)}]" if len(shown) <= 16 and shown else ""
    return f"{prefix}{safe(shown)!s}{tail}{points}" if shown else f"{prefix}(empty)"


def _under_hypothesis() -> bool:
    if "hypothesis" not in sys.modules:
        return False
    from hypothesis import currently_in_test_context

    return currently_in_test_context()


def describe_observation(observation: Observation, *, render_lines: int | None = None) -> str:
    """The payload, what arrived, the hop that changed it and the classified diff."""
    payload = "payload (as shrunk by Hypothesis)" if _under_hypothesis() else "payload"
    lines = []
    if observation.payload_id:
        lines.append(f"payload id: {safe(observation.payload_id)}")
    lines.append(f"{payload}: {_quote(observation.sent)}")
    if observation.status in _OK_STATUSES:
        lines.append(f"received: {_quote(observation.received)}")
    else:
        error = f"{observation.error_type}: {observation.error}".strip(": ")
        lines.append(f"outcome: {observation.status} ({safe(error[:400]) or 'no error text'})")
    if observation.blame:
        lines.append(f"changed by hop: {safe(observation.blame)}")
    if observation.hops:
        lines.append("hops: " + " -> ".join(safe(h.name) for h in observation.hops))
    for part in observation.parts:
        if part.kinds:
            lines.append(f"{part.direction} path: {', '.join(sorted(part.kinds))}")
    if observation.comparison is not None and not observation.comparison.faithful:
        rendered = observation.comparison.render().splitlines()
        if render_lines is not None and len(rendered) > render_lines:
            cut = len(rendered) - render_lines
            rendered = [*rendered[:render_lines], f"... ({cut} more lines)"]
        lines.extend(rendered)
    return "\n".join(lines)


def _fixes(observations: Sequence[Observation], kinds: frozenset[str]) -> str:
    """A ``hint:`` line per kind in ``kinds``: how to fix it, where the chain did it."""
    from fidelity._report.hints import hints
    from fidelity._report.rewrites import from_observations

    found = [r for r in from_observations(observations) if r.kind in kinds]
    return "".join(f"{hint.line()}\n" for hint in hints(found))


def _allow_hint(kinds: Iterable[str]) -> str:
    listed = ", ".join(f'"{k}"' for k in sorted(kinds))
    return f"if these rewrites are accepted: @pytest.mark.fidelity(allow=[{listed}])"


def _chain_name(probe: Probe) -> str:
    return str(getattr(probe, "name", "") or type(probe).__name__)


class Recorder:
    """The ``fidelity`` fixture: push payloads through a chain and fail on rewrites.

    ``check(target, text)`` pushes one text (for example a Hypothesis example) and
    fails the test with the classified, terminal-safe diff unless every rewrite is
    allowed; ``survey(target)`` sweeps the payload catalogue, records the chain's card
    for the session and fails on rewrites beyond ``allow``. Allowed kinds come from the
    test's ``@pytest.mark.fidelity(allow=[...])`` plus the call's own ``allow``; the
    marker's ``card`` names the chain. ``target`` is a :class:`fidelity.Probe` or any
    callable ``str -> object``.
    """

    def __init__(self, state: PluginState) -> None:
        self._state = state
        # Warm the comparison engine's lazy imports here, outside any Hypothesis
        # example, so the first example does not pay them against its deadline.
        compare("\u201ca\u201d", '"a"')

    def __repr__(self) -> str:
        return "<fidelity recorder>"

    @property
    def strategies(self) -> ModuleType:
        """param-fidelity's ``strategies`` package, even beside a local one."""
        __tracebackhide__ = True
        return _load("strategies")

    @property
    def probes(self) -> ModuleType:
        """param-fidelity's ``probes`` package, even beside a local one."""
        __tracebackhide__ = True
        return _load("probes")

    def _context(self) -> MarkContext:
        return self._state.current()

    def _allowed(self, context: MarkContext, allow: Iterable[str]) -> tuple[str, ...]:
        extra = check_kinds(list(allow) if not isinstance(allow, str) else allow)
        return tuple(dict.fromkeys((*context.allow, *extra)))

    def check(
        self,
        target: Probe | Callable[[str], object],
        text: str,
        *,
        allow: Iterable[str] = (),
        accept: Iterable[str] = (),
    ) -> Observation:
        """Push ``text`` through ``target`` once and return the observation.

        Fails the test (``FidelityError``) when the value arrived rewritten by a kind
        not allowed, or when the chain did not deliver it (``rejected``, ``lost``,
        ``timeout``, ``broken``) unless that outcome is listed in ``accept``.
        """
        __tracebackhide__ = True
        try:
            context = self._context()
            allowed = self._allowed(context, allow)
            accepted = _statuses(accept)
            probe = _as_probe(target)
        except UsageError as exc:  # shown from the test's line, not from deep inside
            raise UsageError(str(exc)) from None
        chain = context.card or _chain_name(probe)
        observation = probe.observe(text)
        self._state.log.note(
            chain=chain,
            nodeid=context.nodeid,
            source="check",
            kinds=observation.kinds,
            allowed=allowed,
            statuses={str(observation.status): 1},
        )
        unexpected = observation.kinds - frozenset(allowed)
        if observation.status == Status.TRANSFORMED and unexpected:
            raise FidelityError(
                f"the chain {safe(chain)!s} rewrote the value: "
                f"{', '.join(sorted(unexpected))} (not allowed)\n"
                f"{describe_observation(observation)}\n"
                f"{_fixes([observation], unexpected)}{_allow_hint(unexpected)}",
                observation.comparison,
            )
        if observation.status not in _OK_STATUSES and observation.status not in accepted:
            raise FidelityError(
                f"the chain {safe(chain)!s} did not deliver the value: {observation.status}\n"
                f"{describe_observation(observation)}\n"
                f"{_outcome_advice(str(observation.status))}",
                observation.comparison,
            )
        return observation

    @overload
    def survey(
        self,
        target: Probe | Callable[[str], object],
        payloads: Sequence[Payload] | None = None,
        *,
        allow: Iterable[str] = (),
        families: Sequence[str] | None = None,
        examples: int | None = None,
        name: str | None = None,
        clients: None = None,
        accept: Iterable[str] = (),
    ) -> Survey: ...

    @overload
    def survey(
        self,
        target: Probe | Callable[[str], object],
        payloads: Sequence[Payload] | None = None,
        *,
        allow: Iterable[str] = (),
        families: Sequence[str] | None = None,
        examples: int | None = None,
        name: str | None = None,
        clients: str | Sequence[str],
        accept: Iterable[str] = (),
    ) -> ClientSurvey: ...

    def survey(
        self,
        target: Probe | Callable[[str], object],
        payloads: Sequence[Payload] | None = None,
        *,
        allow: Iterable[str] = (),
        families: Sequence[str] | None = None,
        examples: int | None = None,
        name: str | None = None,
        clients: str | Sequence[str] | None = None,
        accept: Iterable[str] = (),
    ) -> Survey | ClientSurvey:
        """Survey ``target`` with the catalogue (or ``payloads``) and record its card.

        ``families`` and ``examples`` default to the ``--fidelity-families`` and
        ``--fidelity-examples`` options; the card is named ``name``, else the marker's
        ``card``, else the chain's name. Fails the test when a rewrite is not allowed;
        the card is recorded either way. Returns the :class:`fidelity.Survey`.

        ``clients`` (for an MCP probe, ``probes.mcp``): the same plan through each of
        these client libraries in turn (``python``, ``python-2026``, ``typescript``),
        each with its own server process or session. The test then also fails when the
        clients disagree beyond the allowed kinds; the card is the first client's with a
        clients section, and the result a ``ClientSurvey`` (``surveys``, one per client,
        and ``section``, where they are compared).

        A survey in which nothing was measured (every payload ``rejected``, ``lost``,
        ``timeout`` or ``broken``) fails the test in one line quoting the first error,
        unless each of those outcomes is listed in ``accept`` (e.g.
        ``accept=["rejected"]`` for a chain expected to refuse the catalogue).
        """
        __tracebackhide__ = True
        from fidelity._run.whole import run_survey

        settings = self._state.settings
        try:
            context = self._context()
            allowed = self._allowed(context, allow)
            accepted = accepted_outcomes(accept)
            probe = _as_probe(target)
        except UsageError as exc:
            raise UsageError(str(exc)) from None
        card_name = name or context.card or _chain_name(probe)
        chosen = tuple(families) if families is not None else settings.families
        if payloads is None and settings.catalogue is not None:
            payloads = self._catalogue(chosen, settings.catalogue)
        if clients is not None:
            from fidelity._pytest.clients import survey_through_clients

            try:
                return survey_through_clients(
                    self._state,
                    context,
                    probe,
                    clients,
                    name=card_name,
                    payloads=payloads,
                    families=chosen,
                    examples=settings.examples if examples is None else examples,
                    allowed=allowed,
                    accepted=accepted,
                )
            except UsageError as exc:
                raise UsageError(str(exc)) from None
        try:
            result = run_survey(
                probe,
                payloads=payloads,
                examples=settings.examples if examples is None else examples,
                allow=allowed,
                seed=settings.seed,
                families=chosen,
                name=card_name,
                on_event=_Recording(self._state, context.nodeid, allowed, chain=card_name),
            )
        except UsageError as exc:  # shown from the test's line, not from deep inside
            raise UsageError(str(exc)) from None
        unexpected = frozenset(result.unexpected)
        if unexpected:
            raise FidelityError(_survey_failure(card_name, result, unexpected))
        empty = nothing_measured(card_name, result, accepted)
        if empty is not None:
            raise FidelityError(empty)
        return result

    def sweep(
        self,
        server: object,
        *,
        allow: Iterable[str] = (),
        families: Sequence[str] | None = None,
        yes: bool = False,
        sandbox: bool = False,
        skip_tools: Sequence[str] = (),
        only_tools: Sequence[str] = (),
        defaults: Mapping[str, Any] | None = None,
        args_for: Mapping[str, Mapping[str, Any]] | None = None,
        max_requests: int | None = None,
        timeout: float | None = None,
    ) -> Sweep:
        """Sweep every string parameter of the MCP ``server`` and record its cards.

        ``server`` is the server's command (a list of words), its Streamable HTTP URL, or
        an MCP probe (``probes.mcp_module("package.server:app")``: its server is swept,
        every tool, as ``fidelity probe --all-tools`` does). The options are
        :func:`fidelity.sweep`'s; ``families`` defaults to ``--fidelity-families``, the
        allowed kinds are the marker's and ``allow``. Each card is recorded as a
        survey's is; the test fails with a short report when the sweep's exit code is
        not 0 (rows rewritten beyond the allowed kinds, a run that broke or measured
        nothing). Returns the :class:`fidelity.Sweep`.
        """
        __tracebackhide__ = True
        from fidelity._pytest.sweep import sweep_server

        try:
            context = self._context()
            allowed = self._allowed(context, allow)
            chosen = tuple(families) if families is not None else self._state.settings.families
            return sweep_server(
                self._state,
                context,
                server,
                allowed=allowed,
                families=chosen,
                options={
                    "yes": yes,
                    "sandbox": sandbox,
                    "skip_tools": skip_tools,
                    "only_tools": only_tools,
                    "defaults": defaults,
                    "args_for": args_for,
                    "max_requests": max_requests,
                    "timeout": timeout,
                },
            )
        except UsageError as exc:  # shown from the test's line, not from deep inside
            raise UsageError(str(exc)) from None

    def errors(
        self,
        server: object,
        *,
        allow: Iterable[str] = (),
        tool: str | None = None,
        yes: bool = False,
        skip_tools: Sequence[str] = (),
        only_tools: Sequence[str] = (),
        timeout: float = 10.0,
    ) -> Any:
        """Check the error contract of the MCP ``server`` (its command, a list of words,
        or its URL), as ``fidelity probe --errors`` does: malformed calls made from each
        tool's schema, one verdict per answer. Fails the test when a verdict other than
        ``structured`` is beyond ``allow`` (``error.accepted``, ``error.leaky``...) or no
        tool could be called; returns the contract (``calls``, ``counts``)."""
        __tracebackhide__ = True
        from fidelity._pytest.errors import error_contract

        return error_contract(
            server, allow=allow, tool=tool, yes=yes, skip_tools=skip_tools,
            only_tools=only_tools, timeout=timeout,
        )  # fmt: skip

    def _catalogue(self, families: tuple[str, ...] | None, per_family: int) -> tuple[Payload, ...]:
        __tracebackhide__ = True
        strategies = self.strategies
        payloads: tuple[Payload, ...] = strategies.catalogue(families)
        taken: dict[str, int] = {}
        out = []
        for payload in payloads:
            family = payload.families[0] if payload.families else ""
            if taken.get(family, 0) < per_family:
                taken[family] = taken.get(family, 0) + 1
                out.append(payload)
        return tuple(out)


class _Recording:
    """The fixture's handler of a survey's run: its card kept for the session's end and
    its finding noted, when the run is done."""

    def __init__(
        self, state: PluginState, nodeid: str, allowed: tuple[str, ...], *, chain: str
    ) -> None:
        self.state = state
        self.nodeid = nodeid
        self.allowed = allowed
        self.chain = chain

    def __call__(self, event: Event) -> None:
        from fidelity._survey.result import Survey

        if not isinstance(event, RunDone) or not event.cards:
            return
        result = event.outcome
        if not isinstance(result, Survey):
            return
        card = event.cards[0]
        self.state.log.add_card(card_json(card), nodeid=self.nodeid)
        self.state.log.note(
            chain=self.chain,
            nodeid=self.nodeid,
            source="survey",
            kinds=frozenset(result.kinds),
            allowed=self.allowed,
            statuses={str(s): n for s, n in result.statuses.items() if n},
        )


def _load(name: str) -> ModuleType:
    __tracebackhide__ = True
    from fidelity._core.siblings import load

    try:
        return load(name)
    except UsageError as exc:
        raise UsageError(str(exc)) from None


#: A value that did not come back is most often read from the wrong place: say so first.
_LOST_ADVICE = (
    "the call succeeded but the value was not found where it was read back: if it comes "
    "back elsewhere, pin where with read= (read='text', 'json:PATH', 'structured:PATH' or "
    "'regex:PATTERN'; `fidelity probe` prints where it located it), or name the tool that "
    "reads it back with read_tool=\n"
    'if the tool really does not return the value: fidelity.check(..., accept=["lost"])'
)


def _outcome_advice(status: str) -> str:
    """What to do about a value that did not arrive: ``lost`` first asks to pin ``read=``."""
    if status == "lost":
        return _LOST_ADVICE
    return f'if this outcome is accepted: fidelity.check(..., accept=["{status}"])'


def _statuses(accept: Iterable[str]) -> frozenset[str]:
    values = [accept] if isinstance(accept, str) else list(accept)
    bad = [v for v in values if v not in Status.__members__.values()]
    if bad:
        raise UsageError(
            f"accept names unknown outcome(s) {', '.join(map(repr, bad))}; "
            f"valid outcomes are: {', '.join(s.value for s in Status)}."
        )
    return frozenset(values)


def _as_probe(target: object) -> Probe:
    if isinstance(target, Probe):
        return target
    if callable(target):
        return FunctionProbe(target)
    raise UsageError(
        f"target={safe(repr(target)[:80])} must be a fidelity.Probe or a callable str -> object."
    )


def _observations(result: Survey) -> list[Observation]:
    out = []
    for observation in result.observations:
        out.append(observation)
        out.extend(observation.parts)
    return out


def _smallest(result: Survey, kind: str) -> Observation | None:
    candidates = [o for o in _observations(result) if kind in o.kinds]
    if not candidates:
        return None

    def size(o: Observation) -> tuple[int, str]:
        return (len(o.sent), o.payload_id)

    return min(candidates, key=size)


def _survey_failure(chain: str, result: Survey, unexpected: frozenset[str]) -> str:
    counts: dict[str, Any] = {str(s): n for s, n in result.statuses.items() if n}
    lines = [
        f"the chain {safe(chain)!s} rewrote payloads: "
        f"{', '.join(sorted(unexpected))} (not allowed)",
        f"outcomes: {', '.join(f'{s} {n}' for s, n in counts.items())}",
    ]
    for kind in sorted(unexpected):
        example = _smallest(result, kind)
        lines.append(f"--- {kind}: smallest example")
        if example is not None:
            lines.append(describe_observation(example, render_lines=_RENDER_LINES))
    fixes = "".join(f"{hint.line()}\n" for hint in result.hints(unexpected))
    lines.append(fixes + _allow_hint(unexpected))
    return "\n".join(lines)
