"""``--rate`` pacing: a probe whose observations are spaced in time."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator

from fidelity._probe.contract import Probe, Wrapping
from fidelity._probe.observation import Observation
from fidelity._run.budget import calls_per_payload
from fidelity._run.options import RunOptions

__all__ = ["Pacer", "RateLimited", "calibration_pace"]


class Pacer:
    """Calls spaced ``interval`` seconds apart: each call of the pacer waits until its
    turn. ``just_called``: calls were made just before, so the first waits too."""

    def __init__(self, interval: float, *, just_called: bool = False) -> None:
        self.interval = interval
        self._next = time.monotonic() + interval if just_called else 0.0

    def __call__(self) -> None:
        now = time.monotonic()
        if self._next > now:
            time.sleep(self._next - now)
        self._next = max(now, self._next) + self.interval


def calibration_pace(options: RunOptions, probe: Probe) -> Pacer | None:
    """The pace of ``probe``'s calibration calls under ``--rate`` (an MCP target: an
    HTTP probe paces itself), or ``None`` when the run is not paced: each calibration
    value goes through the whole chain, as a payload does."""
    if options.rate is None or not options.is_mcp:
        return None
    return Pacer(calls_per_payload(options, probe) / options.rate)


class RateLimited(Wrapping):
    """Space the observations of ``inner`` so it sends at most ``rate`` calls a second.

    ``just_called``: calls were made around the limiter just before (the calibration
    call, another parameter's or client's run), so the first observation waits its
    interval too.
    """

    def __init__(
        self, inner: Probe, rate: float, calls_per_observation: int = 1, *, just_called: bool
    ) -> None:
        self.inner = inner
        self.name = inner.name
        self.interval = calls_per_observation / rate
        self._wait = Pacer(self.interval, just_called=just_called)

    def observe(self, text: str) -> Observation:
        self._wait()
        return self.inner.observe(text)

    def observe_many(self, texts: Iterable[str]) -> Iterator[Observation]:
        for text in texts:
            yield self.observe(text)
