"""Overhead of ``fidelity.survey`` over a bare loop, measured in the same process.

Run: ``.venv/bin/python benchmarks/bench_survey.py [--rounds 15]``. Prints the figures
and exits 1 when a target is missed.

Target (issue 4): surveying a trivial in-process chain (``json.loads(json.dumps(x))``)
over the catalogue costs at most 3x a bare loop that calls the chain and checks
equality on the same payloads. Both the ``probes.function`` form and the
``probes.chain`` form (which also records per-hop values and blame) are measured;
each round runs baseline and survey back to back; the fastest round of each is compared
(the least disturbed by other work on the machine) and the medians are printed too.
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import sys
import time
from collections.abc import Callable

import fidelity
import probes
import strategies

TARGET = 3.0


def _round_trip(value: str) -> object:
    return json.loads(json.dumps(value))


def _bare(texts: list[str]) -> Callable[[], object]:
    def run() -> object:
        equal = 0
        for text in texts:
            try:
                received = _round_trip(text)
            except Exception:
                continue
            equal += received == text
        return equal

    return run


def _timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args(argv)

    payloads = strategies.catalogue()
    texts = [p.text for p in payloads]
    bare = _bare(texts)
    forms = {
        "function": probes.function(_round_trip, name="json round trip"),
        "chain": probes.chain(probes.hop("json round trip", _round_trip)),
    }
    for probe in forms.values():  # warm imports and caches
        fidelity.survey(probe, payloads)
    bare()

    failed = False
    print(f"catalogue: {len(payloads)} payloads, {sum(map(len, texts))} code points")
    for label, probe in forms.items():
        base_times, survey_times = [], []
        for _ in range(args.rounds):
            base_times.append(_timed(bare))
            survey_times.append(_timed(functools.partial(fidelity.survey, probe, payloads)))
        base, took = min(base_times), min(survey_times)
        ratio = took / base
        median = statistics.median(survey_times) / statistics.median(base_times)
        verdict = "ok" if ratio <= TARGET else "MISSED"
        failed |= ratio > TARGET
        print(
            f"{label:9} bare loop {base * 1e3:7.2f} ms   survey {took * 1e3:7.2f} ms   "
            f"ratio {ratio:5.2f}x (median {median:5.2f}x; target <= {TARGET:g}x) {verdict}"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
