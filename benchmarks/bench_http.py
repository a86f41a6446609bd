"""Request rate of a survey through ``probes.http`` against bare httpx loops.

Starts the reference reflector on loopback once, then alternates, round by round:

* sync baseline: a bare synchronous ``httpx.Client`` loop (the fastest client httpx
  has), ``--concurrency`` threads sharing one client and pulling from one list,
  posting each catalogue payload as ``{"text": ...}`` to the same endpoint, with the
  same echo headers, and reading ``text`` back from the JSON answer;
* async baseline: the same with an ``httpx.AsyncClient`` and a semaphore of
  ``--concurrency`` (informational);
* probe: ``fidelity.survey(probes.http(URL, reflector=True, concurrency=N),
  payloads=catalogue)``, requests counted by the probe (``HttpProbe.requests``).

Neither baseline bounds an exchange as a whole; the probe does (a total deadline per
request, a body cap), and also compares every value. Reports the median requests/s of
each, and the probe's ratio to both as the median of the ratios of each round (the
three runs of a round are adjacent in time, so a machine whose load drifts skews a
round less than the whole run); exits non-zero when the probe reaches less than 80%
of the sync baseline.

    .venv/bin/python benchmarks/bench_http.py [--rounds 5] [--concurrency 1]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import threading
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


def _limits(concurrency: int) -> httpx.Limits:
    return httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)


async def _bare_async(url: str, texts: list[str], concurrency: int) -> tuple[int, float]:
    async with httpx.AsyncClient(limits=_limits(concurrency), timeout=10.0) as client:
        slots = asyncio.Semaphore(concurrency)

        async def one(text: str) -> None:
            async with slots:
                response = await client.post(url, json={"text": text}, headers=ECHO)
                response.json()["text"]

        start = time.perf_counter()
        await asyncio.gather(*(one(t) for t in texts))
        return len(texts), time.perf_counter() - start


def _bare_sync(url: str, texts: list[str], concurrency: int) -> tuple[int, float]:
    with httpx.Client(limits=_limits(concurrency), timeout=10.0) as client:
        todo = iter(texts)
        taking = threading.Lock()

        def loop() -> None:
            while True:
                with taking:
                    text = next(todo, None)
                if text is None:
                    return
                client.post(url, json={"text": text}, headers=ECHO).json()["text"]

        start = time.perf_counter()
        if concurrency == 1:
            loop()
        else:
            threads = [threading.Thread(target=loop) for _ in range(concurrency)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        return len(texts), time.perf_counter() - start


def _probe(url: str, payloads: Any, concurrency: int) -> tuple[int, float, int]:
    with probes.http(url, reflector=True, concurrency=concurrency) as probe:
        start = time.perf_counter()
        survey = fidelity.survey(probe, payloads=payloads)
        elapsed = time.perf_counter() - start
        return probe.requests, elapsed, len(survey.observations)


def main() -> int:
    """Run the benchmark; return the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--concurrency", type=int, default=1)
    args = parser.parse_args()
    catalogue = strategies.catalogue()
    texts = _sendable([p.text for p in catalogue])
    sync_rates: list[float] = []
    async_rates: list[float] = []
    probe_rates: list[float] = []
    payload_rates: list[float] = []
    with probes.http_reflector() as reflector:
        url = reflector.url + "reflect"
        _bare_sync(url, texts[:20], args.concurrency)  # warm up both sides
        for _ in range(args.rounds):
            n, seconds = _bare_sync(url, texts, args.concurrency)
            sync_rates.append(n / seconds)
            n, seconds = asyncio.run(_bare_async(url, texts, args.concurrency))
            async_rates.append(n / seconds)
            requests, seconds, observed = _probe(url, catalogue, args.concurrency)
            probe_rates.append(requests / seconds)
            payload_rates.append(observed / seconds)
    sync = statistics.median(sync_rates)
    base = statistics.median(async_rates)
    probe = statistics.median(probe_rates)
    payloads = statistics.median(payload_rates)
    ratio = statistics.median(p / s for p, s in zip(probe_rates, sync_rates, strict=True))
    to_async = statistics.median(p / a for p, a in zip(probe_rates, async_rates, strict=True))
    print(f"catalogue: {len(catalogue)} payloads ({len(texts)} encodable as JSON)")
    print(f"concurrency: {args.concurrency}, rounds: {args.rounds}")
    print(f"bare httpx Client loop:      {sync:8.1f} requests/s")
    print(f"bare httpx AsyncClient loop: {base:8.1f} requests/s (informational)")
    print(f"survey probes.http:          {probe:8.1f} requests/s ({payloads:.1f} payloads/s)")
    print(f"ratio to Client loop: {ratio:.2f} (limit {LIMIT:.2f})")
    print(f"ratio to AsyncClient loop: {to_async:.2f}")
    return 0 if ratio >= LIMIT else 1


if __name__ == "__main__":
    sys.exit(main())
