"""``--rate`` pacing: a probe whose observations are spaced in time."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Mapping

from fidelity._probe.contract import Probe
from fidelity._probe.observation import Observation

__all__ = ["RateLimited"]


class RateLimited(Probe):
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
        self._next = time.monotonic() + self.interval if just_called else 0.0

    def _wait(self) -> None:
        now = time.monotonic()
        if self._next > now:
            time.sleep(self._next - now)
        self._next = max(now, self._next) + self.interval

    def observe(self, text: str) -> Observation:
        self._wait()
        return self.inner.observe(text)

    def observe_many(self, texts: Iterable[str]) -> Iterator[Observation]:
        for text in texts:
            yield self.observe(text)

    @property
    def requests(self) -> int | None:
        return self.inner.requests

    @property
    def max_requests_per_observation(self) -> int:
        return self.inner.max_requests_per_observation

    @property
    def splits_directions(self) -> bool:
        return self.inner.splits_directions

    @property
    def environment(self) -> Mapping[str, str]:
        return self.inner.environment

    def close(self) -> None:
        self.inner.close()
