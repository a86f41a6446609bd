"""Secrets a server sent back, masked before any output sees them.

A server may echo a credential of the run in the value it returns (a header it
reflects, a token in an error message), raw or encoded (percent, base64, hex).
:class:`Masked` wraps the probe of a sweep so that every observation it gives has
each known secret (:mod:`fidelity._core.secrets`) as ``***`` in what came from the
server: the value received, its error, its raw bytes, every hop's value and every
direction measured apart. A value that changed so is compared with what was sent
again, so the verdict, the card and every report are made from the masked value.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator

from fidelity._core.secrets import known, mask, mask_bytes
from fidelity._probe.contract import Probe, Wrapping
from fidelity._probe.observation import Observation

__all__ = ["Masked", "mask_observation"]


def _value(value: object, sent: str) -> object:
    if isinstance(value, str) and value != sent:
        return mask(value, encoded=True)
    if isinstance(value, bytes) and value != sent.encode("utf-8", "surrogatepass"):
        return mask_bytes(value, encoded=True)
    return value


def mask_observation(observation: Observation) -> Observation:
    """``observation`` with every known secret masked in what the server sent (the
    same object when there was nothing to mask)."""
    if not known():
        return observation
    sent = observation.sent
    received = _value(observation.received, sent)
    error = mask(observation.error, encoded=True)
    wire = mask_bytes(observation.wire, encoded=True) if observation.wire is not None else None
    hops = tuple(
        dataclasses.replace(h, value=_value(h.value, sent), error=mask(h.error, encoded=True))
        for h in observation.hops
    )
    parts = tuple(mask_observation(p) for p in observation.parts)
    changed = (
        received != observation.received
        or error != observation.error
        or wire != observation.wire
        or hops != observation.hops
        or parts != observation.parts
    )
    if not changed:
        return observation
    comparison = observation.comparison
    if comparison is not None and received != observation.received:
        from fidelity._compare.api import compare

        comparison = compare(sent, received)
    return dataclasses.replace(
        observation,
        received=received,
        error=error,
        wire=wire,
        hops=hops,
        parts=parts,
        comparison=comparison,
    )


class Masked(Wrapping):
    """``inner``, every observation it gives masked (:func:`mask_observation`)."""

    def __init__(self, inner: Probe) -> None:
        self.inner = inner
        self.name = inner.name

    def observe(self, text: str) -> Observation:
        return mask_observation(self.inner.observe(text))

    def observe_many(self, texts: Iterable[str]) -> Iterator[Observation]:
        for observation in self.inner.observe_many(texts):
            yield mask_observation(observation)
