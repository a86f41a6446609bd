"""Speed of ``probes.mcp`` against a bare SDK loop measured in the same process.

Run: ``.venv/bin/python benchmarks/bench_mcp.py``. Prints a table and exits 1 when
the target is missed.

Target (issue 6): against the Python reflector over stdio, a survey of the catalogue
through ``probes.mcp`` reaches at least 80% of the call rate of a bare loop of
``call_tool`` on one ``mcp.Client`` session with the same payloads; session start-up
(spawning the server, the handshake) is counted once in both.

Payloads with lone surrogates are left out of both: the SDK cannot encode them and the
session dies, which the bare loop cannot survive (the probe re-establishes it).
Each measurement is the best of ``ROUNDS`` runs.
"""

from __future__ import annotations

import asyncio
import sys
import time
import warnings

import fidelity
import probes
from fidelity._imports import load
from probes._mcp_reflector import reflector_argv

ROUNDS = 3
TARGET = 0.80


def _payloads() -> list[fidelity.Payload]:
    return [
        p
        for p in load("strategies").catalogue()
        if not any(0xD800 <= ord(c) <= 0xDFFF for c in p.text)
    ]


def bare_loop(texts: list[str]) -> tuple[int, float]:
    """Calls and seconds for one Client session: start-up plus one call_tool per text."""
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    argv = reflector_argv()

    async def run() -> tuple[int, float]:
        start = time.perf_counter()
        params = StdioServerParameters(command=argv[0], args=argv[1:])
        with open("/dev/null", "w") as errlog:
            async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=10) as c:
                for text in texts:
                    await c.call_tool("echo", {"text": text}, read_timeout_seconds=10)
        return len(texts), time.perf_counter() - start

    return asyncio.run(run())


def probe_survey(payloads: list[fidelity.Payload], *, split: bool) -> tuple[int, float]:
    """Calls and seconds for a survey through probes.mcp, start-up included."""
    start = time.perf_counter()
    with probes.mcp(reflector_argv(), reflector=split) as probe:
        survey = fidelity.survey(probe, payloads=payloads)
        calls = probe.calls
    elapsed = time.perf_counter() - start
    assert len(survey.observations) == len(payloads)
    return calls, elapsed


def main() -> int:
    warnings.simplefilter("ignore", DeprecationWarning)
    payloads = _payloads()
    texts = [p.text for p in payloads]
    rows: dict[str, tuple[int, float]] = {}
    for _ in range(ROUNDS):
        for name, run in (
            ("bare call_tool loop (echo)", lambda: bare_loop(texts)),
            ("probes.mcp survey (echo only)", lambda: probe_survey(payloads, split=False)),
            (
                "probes.mcp survey (echo+reflect+emit)",
                lambda: probe_survey(payloads, split=True),
            ),
        ):
            calls, seconds = run()
            best = rows.get(name)
            if best is None or calls / seconds > best[0] / best[1]:
                rows[name] = (calls, seconds)
    base_calls, base_seconds = rows["bare call_tool loop (echo)"]
    base_rate = base_calls / base_seconds
    print(f"{len(payloads)} payloads, Python reflector over stdio, best of {ROUNDS}")
    print(f"{'run':40} {'calls':>6} {'seconds':>8} {'calls/s':>8} {'ratio':>6}")
    ok = True
    for name, (calls, seconds) in rows.items():
        rate = calls / seconds
        ratio = rate / base_rate
        print(f"{name:40} {calls:6d} {seconds:8.2f} {rate:8.0f} {ratio:6.2f}")
        if name != "bare call_tool loop (echo)" and ratio < TARGET:
            ok = False
    print(
        f"target: every probes.mcp survey >= {TARGET:.0%} of the bare call rate: "
        + ("met" if ok else "MISSED")
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
