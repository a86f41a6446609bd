"""Speed of each MCP client of ``probes.mcp`` against a bare Python SDK loop in the same process.

Run: ``.venv/bin/python benchmarks/bench_clients.py``. Prints a table and exits 1 when
the target is missed. It needs ``node`` and the SDK: ``FIDELITY_NODE_MODULES`` is set
to ``tests/servers/node_modules`` unless given (``npm ci --prefix tests/servers``).

Target (issue 16): against the Python reflector over stdio (echo only, the catalogue
without lone surrogates, which only the TypeScript client can send), a survey through
each client reaches at least 40% of the call rate of a bare ``call_tool`` loop on one
``mcp.Client`` session, start-up (the server, and for ``typescript`` the Node driver
loading its SDK) counted once in each. The ``python`` clients carry the same target as
``bench_mcp.py`` (80%); ``typescript`` pays a second process and a second JSON hop
per call. Each measurement is the best of ``ROUNDS`` runs.
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
os.environ.setdefault("FIDELITY_NODE_MODULES", str(ROOT / "tests" / "servers" / "node_modules"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_mcp import _payloads, bare_loop  # noqa: E402

import fidelity  # noqa: E402
import probes  # noqa: E402
from probes._mcp.reflector import reflector_argv  # noqa: E402

ROUNDS = 3
TARGETS = {"python": 0.80, "python-2026": 0.80, "typescript": 0.40}


def client_survey(client: str, payloads: list[fidelity.Payload]) -> tuple[int, float]:
    """Calls and seconds for a survey through ``client``, start-up included."""
    start = time.perf_counter()
    with probes.mcp(reflector_argv(), reflector=False, client=client) as probe:
        survey = fidelity.survey(probe, payloads=payloads)
        calls = probe.requests
    elapsed = time.perf_counter() - start
    assert len(survey.observations) == len(payloads)
    assert all(o.status is fidelity.Status.PRESERVED for o in survey.observations)
    return calls, elapsed


def main() -> int:
    warnings.simplefilter("ignore", DeprecationWarning)
    payloads = _payloads()
    texts = [p.text for p in payloads]
    best: dict[str, tuple[int, float]] = {}
    for _ in range(ROUNDS):
        for name in ("bare call_tool loop", *TARGETS):
            calls, seconds = (
                bare_loop(texts) if name == "bare call_tool loop" else client_survey(name, payloads)
            )
            if name not in best or calls / seconds > best[name][0] / best[name][1]:
                best[name] = (calls, seconds)
    base_calls, base_seconds = best["bare call_tool loop"]
    base_rate = base_calls / base_seconds
    print(f"{len(payloads)} payloads, Python reflector over stdio, echo only, best of {ROUNDS}")
    print(f"{'run':28} {'calls':>6} {'seconds':>8} {'calls/s':>8} {'ratio':>6} {'target':>7}")
    ok = True
    for name, (calls, seconds) in best.items():
        ratio = calls / seconds / base_rate
        target = TARGETS.get(name)
        shown = f">={target:.2f}" if target is not None else ""
        print(f"{name:28} {calls:6d} {seconds:8.2f} {calls / seconds:8.0f} {ratio:6.2f} {shown:>7}")
        if target is not None and ratio < target:
            ok = False
    print("targets: " + ("met" if ok else "MISSED"))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
