"""Start-up cost of the pytest plugin for a suite that does not use it.

Runs ``pytest --collect-only`` on a small generated suite, alternating the plugin
enabled (as installed, entry point ``fidelity``) and disabled (``-p no:fidelity``),
and compares the medians measured in this one run: wall clock, and the CPU time
(user + system) of each pytest process, which is what decides, since on a shared
machine the wall clock also measures the neighbours. Exits non-zero when the plugin
adds 50 ms or more.

    .venv/bin/python benchmarks/bench_plugin.py [--runs 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LIMIT_MS = 50.0

TEST_MODULE = """
import pytest


@pytest.mark.parametrize("n", range(10))
def test_value(n):
    assert n >= 0


class TestGroup:
    def test_one(self):
        assert True

    def test_two(self):
        assert True
"""


def _suite(root: Path) -> None:
    for i in range(8):
        (root / f"test_module_{i}.py").write_text(TEST_MODULE, encoding="utf-8")


def _collect(root: Path, extra: list[str]) -> tuple[float, float]:
    """One ``pytest --collect-only`` run: (wall seconds, CPU seconds of the child)."""
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
    start = time.perf_counter()
    proc = subprocess.Popen(
        [*command, *extra], cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 120
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            proc.kill()
            proc.wait(10)
            raise SystemExit("pytest --collect-only did not finish within 120 s")
        time.sleep(0.002)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"pytest --collect-only {' '.join(extra)} failed ({proc.returncode})")
    return elapsed, usage.ru_utime + usage.ru_stime


def main() -> int:
    """Measure, print the table, and return the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="runs of each variant")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _suite(root)
        _collect(root, [])  # warm the file system and bytecode caches
        _collect(root, ["-p", "no:fidelity"])
        enabled: list[tuple[float, float]] = []
        disabled: list[tuple[float, float]] = []
        for i in range(args.runs):
            order = [(enabled, []), (disabled, ["-p", "no:fidelity"])]
            if i % 2:
                order.reverse()
            for sink, extra in order:
                sink.append(_collect(root, extra))
    print(f"pytest --collect-only, 8 modules / 96 tests, {args.runs} alternating runs each")
    print(f"{'median ms':<22}{'plugin enabled':>16}{'-p no:fidelity':>16}{'difference':>12}")
    cpu_difference = 0.0
    for label, index in (("wall clock", 0), ("CPU (user+sys)", 1)):
        on = statistics.median(r[index] for r in enabled) * 1000
        off = statistics.median(r[index] for r in disabled) * 1000
        print(f"{label:<22}{on:>16.1f}{off:>16.1f}{on - off:>12.1f}")
        cpu_difference = on - off
    quartiles = statistics.quantiles([r[1] for r in disabled], n=4)
    spread = 1000 * (quartiles[2] - quartiles[0])
    print(f"noise: CPU interquartile range of the disabled runs {spread:.1f} ms")
    print(f"load average while measuring: {os.getloadavg()[0]:.2f}")
    # CPU time decides: wall clock on a shared machine measures the neighbours too.
    if cpu_difference >= LIMIT_MS:
        print(
            f"FAIL: the plugin adds {cpu_difference:.1f} ms of CPU time (limit {LIMIT_MS:.0f} ms)"
        )
        return 1
    print(f"ok: under {LIMIT_MS:.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
