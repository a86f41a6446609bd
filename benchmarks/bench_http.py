"""Request rate of a survey through ``probes.http`` against a bare httpx loop.

Starts the reference reflector on loopback once, then alternates, round by round:

* baseline: a bare httpx loop (``AsyncClient``, a semaphore of ``--concurrency``, the
  client the probe is built on, since only an event loop can enforce a total deadline
  per request) posting each catalogue payload as ``{"text": ...}`` to the same
  endpoint, with the same echo headers, and reading ``text`` back from the JSON
  answer; a plain synchronous ``httpx.Client`` loop is measured too and reported
  (informational: at concurrency 1 it is the fastest client httpx has);
* probe: ``fidelity.survey(probes.http(URL, reflector=True, concurrency=N),
  payloads=catalogue)``, requests counted by an httpx event hook.

Reports the median requests/s of each and their ratio measured in this one run, and
exits non-zero when the probe reaches less than 80% of the baseline.

    .venv/bin/python benchmarks/bench_http.py [--rounds 3] [--concurrency 1]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from typing import Any

import httpx

import fidelity
import probes
import strategies

LIMIT = 0.80
ECHO = {"x-fidelity-place": "json:text", "x-fidelity-echo": "text"}


def _sendable(texts: list[str]) -> list[str]:
    """The payloads httpx can encode as JSON (lone surrogates are refused client-side)."""
    out = []
    for text in texts:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            continue
        out.append(text)
    return out


async def _bare_async(url: str, texts: list[str], concurrency: int) -> tuple[int, float]:
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(limits=limits, timeout=10.0) as client:
        slots = asyncio.Semaphore(concurrency)

        async def one(text: str) -> None:
            async with slots:
                response = await client.post(url, json={"text": text}, headers=ECHO)
                response.json()["text"]

        start = time.perf_counter()
        await asyncio.gather(*(one(t) for t in texts))
        return len(texts), time.perf_counter() - start


def _bare_sync(url: str, texts: list[str]) -> tuple[int, float]:
    with httpx.Client(timeout=10.0) as client:
        start = time.perf_counter()
        for text in texts:
            client.post(url, json={"text": text}, headers=ECHO).json()["text"]
        return len(texts), time.perf_counter() - start


def _probe(url: str, payloads: Any, concurrency: int) -> tuple[int, float, int]:
    count = 0

    async def counted(request: httpx.Request) -> None:
        nonlocal count
        count += 1

    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    client = httpx.AsyncClient(limits=limits, timeout=10.0, event_hooks={"request": [counted]})
    with probes.http(url, reflector=True, concurrency=concurrency, client=client) as probe:
        start = time.perf_counter()
        survey = fidelity.survey(probe, payloads=payloads)
        elapsed = time.perf_counter() - start
        probe._loop.submit(client.aclose()).result(10)  # type: ignore[attr-defined]
    return count, elapsed, len(survey.observations)


def main() -> int:
    """Run the benchmark; return the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=1)
    args = parser.parse_args()
    catalogue = strategies.catalogue()
    texts = _sendable([p.text for p in catalogue])
    base_rates: list[float] = []
    sync_rates: list[float] = []
    probe_rates: list[float] = []
    payload_rates: list[float] = []
    with probes.http_reflector() as reflector:
        url = reflector.url + "reflect"
        _bare_sync(url, texts[:20])  # warm up both sides
        for _ in range(args.rounds):
            n, seconds = asyncio.run(_bare_async(url, texts, args.concurrency))
            base_rates.append(n / seconds)
            n, seconds = _bare_sync(url, texts)
            sync_rates.append(n / seconds)
            requests, seconds, observed = _probe(url, catalogue, args.concurrency)
            probe_rates.append(requests / seconds)
            payload_rates.append(observed / seconds)
    base = statistics.median(base_rates)
    probe = statistics.median(probe_rates)
    ratio = probe / base
    print(f"catalogue: {len(catalogue)} payloads ({len(texts)} encodable as JSON)")
    print(f"concurrency: {args.concurrency}, rounds: {args.rounds}")
    sync = statistics.median(sync_rates)
    payloads = statistics.median(payload_rates)
    print(f"bare httpx AsyncClient loop: {base:8.1f} requests/s")
    print(f"bare httpx Client loop:      {sync:8.1f} requests/s (sequential, informational)")
    print(f"survey probes.http:          {probe:8.1f} requests/s ({payloads:.1f} payloads/s)")
    print(f"ratio to AsyncClient loop: {ratio:.2f} (limit {LIMIT:.2f})")
    print(f"ratio to sequential Client loop: {probe / sync:.2f}")
    return 0 if ratio >= LIMIT else 1


if __name__ == "__main__":
    sys.exit(main())
