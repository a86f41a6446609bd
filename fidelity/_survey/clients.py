"""The same plan through several MCP clients: ``survey_clients``.

One probe per client (``open_probe(client)`` makes it: ``McpProbe.with_client`` in the
pytest plugin), each surveyed with the same payloads in turn, one after the other, so
no two clients meet a stateful server at once; each probe is closed before the next
starts. The result holds each client's :class:`Survey` and the :class:`ClientsSection`
that compares them (see :mod:`fidelity._report.clients`). A probe that reports the
client it spoke through (``client_info``: library and protocol version) has that
recorded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from fidelity._core.errors import UsageError
from fidelity._core.payload import Payload
from fidelity._probe.contract import Probe
from fidelity._report.card import Card
from fidelity._report.clients import ClientResult, ClientsSection
from fidelity._survey.result import Survey
from fidelity._survey.run import survey

__all__ = ["ClientSurvey", "client_result", "survey_clients"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientSurvey:
    """The surveys of one plan through several clients: ``surveys`` in the clients'
    order, and ``section``, where they are compared."""

    surveys: tuple[Survey, ...]
    section: ClientsSection

    @property
    def clients(self) -> tuple[str, ...]:
        """The clients' names, in order."""
        return self.section.clients

    @property
    def unexpected(self) -> frozenset[str]:
        """The kinds beyond the allow list that any client showed."""
        return frozenset(k for s in self.surveys for k in s.unexpected)

    def card(self, name: str | None = None) -> Card:
        """The first client's card, with the clients section."""
        return self.surveys[0].card(name).with_clients(self.section)


def client_result(
    client: str, probe: Probe, observed: Survey, *, complete: bool = True, error: str = ""
) -> ClientResult:
    """What one client's survey gave, with the library and protocol version the probe
    reports (``client_info``), if it does."""
    info = probe.client_info
    return ClientResult(
        client=client,
        library=info.library if info is not None else "",
        protocol_version=info.protocol_version if info is not None else "",
        observations=observed.observations,
        complete=complete,
        error=error,
    )


def survey_clients(
    clients: Sequence[str],
    open_probe: Callable[[str, Probe | None], Probe],
    *,
    payloads: Iterable[Payload] | None = None,
    examples: int = 0,
    allow: Iterable[str] = (),
    seed: int | None = None,
    families: Iterable[str] | None = None,
    name: str | None = None,
) -> ClientSurvey:
    """Survey the probe that ``open_probe(client, first)`` makes for each client, in order.

    ``first`` is the first client's probe once it was surveyed (``None`` for the first
    one), so what it found out (the read-back it located) can be handed on: the plan
    stays the same. The other arguments are :func:`survey`'s; with ``examples`` set
    the seed is drawn once, so every client gets the same generated payloads.
    """
    if not clients:
        raise UsageError("clients names no client.")
    if examples and seed is None:
        import random

        seed = random.SystemRandom().randrange(2**32)
    chosen = None if families is None else tuple(families)
    todo = None if payloads is None else tuple(payloads)
    allowed = tuple(allow)
    surveys: list[Survey] = []
    results: list[ClientResult] = []
    first: Probe | None = None
    for client in clients:
        probe = open_probe(client, first)
        try:
            observed = survey(
                probe,
                payloads=todo,
                examples=examples,
                allow=allowed,
                seed=seed,
                families=chosen,
                name=name,
            )
            results.append(client_result(client, probe, observed))
        finally:
            probe.close()
        surveys.append(observed)
        first = first or probe
    return ClientSurvey(surveys=tuple(surveys), section=ClientsSection.of(results, allowed))
