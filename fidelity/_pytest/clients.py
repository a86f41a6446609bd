"""``fidelity.survey(probe, clients=[...])``: one MCP probe's plan through several clients.

The fixture's probe (``probes.mcp``) is not used itself: ``with_client`` makes one
probe per client with the same options (the first one's located read-back handed on),
each starts its own server process or session, and :func:`survey_clients` surveys them
in turn. The card recorded is the first client's with the clients section; the test
fails when any client shows a rewrite that is not allowed, or when the clients disagree
beyond the allowed kinds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from fidelity._core.errors import FidelityError, UsageError
from fidelity._core.render import safe
from fidelity._probe.contract import Probe
from fidelity._pytest.measured import nothing_measured
from fidelity._report.card_render import card_json
from fidelity._run.events import Event, RunDone
from fidelity._survey.clients import ClientSurvey

if TYPE_CHECKING:
    from fidelity._core.payload import Payload
    from fidelity._pytest.session import MarkContext
    from fidelity._pytest.state import PluginState

__all__ = ["survey_through_clients"]


def survey_through_clients(
    state: PluginState,
    context: MarkContext,
    probe: Probe,
    clients: str | Sequence[str],
    *,
    name: str,
    payloads: Sequence[Payload] | None,
    families: tuple[str, ...] | None,
    examples: int,
    allowed: tuple[str, ...],
    accepted: frozenset[str] = frozenset(),
) -> ClientSurvey:
    """Survey ``probe``'s plan through each of ``clients``, record the card, fail on
    rewrites not allowed, on clients that disagree, or on a client through which nothing
    was measured (unless its outcomes are ``accepted``)."""
    __tracebackhide__ = True
    from fidelity._report.client_map import render_client_map
    from fidelity._run.whole import run_clients
    from probes.frontend import check_clients

    names = check_clients(clients, name="clients")
    if not probe.switches_clients:
        raise UsageError(
            f"clients= applies to MCP probes (probes.mcp); {safe(type(probe).__name__)} is not one."
        )
    plan = probe

    def open_probe(client: str, first: Probe | None) -> Probe:
        read = first.read_spec if first is not None else None
        changes = {"read": read} if read is not None else {}
        return plan.with_client(client, **changes)

    def record(event: Event) -> None:
        # The run's handler: the card kept for the session's end, a finding per client.
        if not isinstance(event, RunDone) or not event.cards:
            return
        state.log.add_card(card_json(event.cards[0]), nodeid=context.nodeid)
        done = event.outcome
        assert isinstance(done, ClientSurvey)
        for client, survey in zip(done.clients, done.surveys, strict=True):
            state.log.note(
                chain=f"{name} [{client}]",
                nodeid=context.nodeid,
                source="survey",
                kinds=frozenset(survey.kinds),
                allowed=allowed,
                statuses={str(s): n for s, n in survey.statuses.items() if n},
            )

    result = run_clients(
        names,
        open_probe,
        payloads=payloads,
        examples=examples,
        allow=allowed,
        seed=state.settings.seed,
        families=families,
        name=name,
        on_event=record,
    )
    problems = []
    for client, survey in zip(result.clients, result.surveys, strict=True):
        if survey.unexpected:
            kinds = ", ".join(sorted(survey.unexpected))
            problems.append(f"through {client}, the chain rewrote payloads: {kinds} (not allowed)")
        empty = nothing_measured(client, survey, accepted)
        if empty is not None:
            problems.append("through " + empty.split("\n", 1)[0].removeprefix("the chain "))
    disagreements = result.section.disagreements
    if disagreements:
        count = len({(d.payload_id, d.sent) for d in disagreements})
        problems.append(
            f"the clients disagree on {count} payload{'' if count == 1 else 's'} beyond the "
            "allowed kinds"
        )
    if problems:
        raise FidelityError(
            f"the chain {safe(name)!s} through {', '.join(names)}: "
            + "; ".join(problems)
            + "\n"
            + render_client_map(result.section)
        )
    return result
