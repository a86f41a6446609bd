"""``Survey``: the observations of a survey and the transformation map derived from them."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from operator import attrgetter
from types import MappingProxyType
from typing import TYPE_CHECKING

from fidelity._core.kinds import Status, check_kinds
from fidelity._probe.observation import Direction, Observation
from fidelity._report.card import Card
from fidelity._report.outcomes import FamilyOutcome, entry, failed_on_request, is_example, rows

if TYPE_CHECKING:
    from fidelity._report.hints import Hint

__all__ = ["Survey"]

_STATUSES = tuple(Status)
_ROW_KEY = attrgetter("families", "direction", "status")


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
    #: What the probe reported of its target (``Probe.environment``: the MCP server's
    #: name and version, the protocol version, an HTTP ``Server`` header...).
    target: Mapping[str, str] = dataclasses.field(default_factory=dict)

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
        catalogue_size: int | None = None,
        target: Mapping[str, str] | None = None,
    ) -> Survey:
        """Build the survey of already stamped observations (e.g. a run cut short).

        ``catalogue_size`` defaults to the number of distinct catalogue payloads (not
        Hypothesis examples) among the observations.
        """
        observed = tuple(observations)
        allowed = tuple(sorted(set(check_kinds(tuple(allow)))))
        # Counted in C over the whole tuple; records only for kinds and failures.
        counts = Counter(map(_ROW_KEY, observed))
        statuses = dict.fromkeys(_STATUSES, 0)
        for (_, _, status), n in counts.items():
            statuses[status] += n
        preserved = Status.PRESERVED
        notable = [entry(o, o) for o in observed if o.status is not preserved]
        split = [o for o in observed if o.parts]
        for obs in split:
            for part in obs.parts:
                counts[(obs.families, part.direction, part.status)] += 1
                if part.status is not preserved:
                    notable.append(entry(obs, part))
        if split:
            for obs in observed:
                if failed_on_request(obs, True):
                    counts[(obs.families, Direction.REQUEST, obs.status)] += 1
                    notable.append(
                        entry(obs, dataclasses.replace(obs, direction=Direction.REQUEST))
                    )
        outcomes = rows(counts, notable)
        kinds = frozenset(k for e in notable if e.kinds for k in e.kinds)
        families: dict[str, dict[Direction, FamilyOutcome]] = {}
        for row in outcomes:
            families.setdefault(row.family, {})[row.direction] = row
        if catalogue_size is None:
            catalogue_size = len(
                {(o.payload_id, o.sent) for o in observed if not is_example(o.payload_id)}
            )
        return cls(
            name=name,
            chain=chain or name,
            observations=observed,
            allow=allowed,
            seed=seed,
            catalogue_size=catalogue_size,
            examples=examples,
            kinds=kinds,
            statuses=MappingProxyType(statuses),
            unexpected=kinds - frozenset(allowed),
            families=MappingProxyType({f: MappingProxyType(d) for f, d in families.items()}),
            outcomes=outcomes,
            target=MappingProxyType(dict(target or {})),
        )

    def hints(self, kinds: Iterable[str] | None = None) -> tuple[Hint, ...]:
        """How to fix each kind the survey saw (or only those of ``kinds``): one
        :class:`Hint` per kind, in the order of ``KINDS``, refined by the hop that changed
        the value and naming the paths (request, response) it was seen on."""
        from fidelity._report.hints import hints
        from fidelity._report.rewrites import from_observations

        found = from_observations(self.observations)
        if kinds is not None:
            wanted = frozenset(kinds)
            found = tuple(r for r in found if r.kind in wanted)
        return hints(found)

    def card(self, name: str | None = None) -> Card:
        """The contract card of this survey (named ``name``, default the survey's name),
        recording where it was measured (this process, and what the probe reported of
        its target)."""
        from fidelity._report.environment import here

        hops = dict.fromkeys(h.name for o in self.observations[:64] for h in o.hops)
        return Card.of(
            self.observations,
            name=name or self.name,
            chain=self.chain,
            outcomes=self.outcomes,
            catalogue_size=self.catalogue_size,
            examples=self.examples,
            seed=self.seed,
            allow=self.allow,
            environment=here((self.chain, *hops), self.target),
        )
