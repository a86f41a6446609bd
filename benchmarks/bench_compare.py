"""Speed of ``fidelity.compare`` against baselines measured in the same process.

Run: ``.venv/bin/python benchmarks/bench_compare.py``. Prints a table and exits 1 when
a target is missed. The text is prose with 1% of its characters edited in mixed
kinds (curly quotes straightened, NFD, tabs expanded, case, NBSP, dashes), so the
classifier has real work on every edit.

Targets (issue 2):
  1 MiB:   compare <= 2x fast_diff_match_patch.diff(a, b) (default settings)
  10 KiB:  compare >= 50x faster than difflib.SequenceMatcher(autojunk=False)
  100 KiB -> 1 MiB: compare's time grows <= 15x
  1 MiB identical: compare(s, s) <= 20x s.encode() == s.encode()
"""

from __future__ import annotations

import difflib
import random
import sys
import time
from collections.abc import Callable

import fast_diff_match_patch

from fidelity import compare

_VOCABULARY = (
    "the of and a to in is you that it he was for on are as with his they at be this "
    "from have or by one had not but what all were when we there can an your which "
    "their said if do will each about how up out them then she many some so these "
    "would other into has more her two like him see time could no make than first "
    "been its who now people my made over did down only way find use may water long "
    "little very after words called just where most know get through back much go "
    "good new write our me man too any day same right look think also around another "
    "came come work three word must because does part even place well such here take "
)
_WORDS = tuple(_VOCABULARY.split())


def _edit(rng: random.Random) -> tuple[str, str, int]:
    """One hazard token as (sent, received, edited characters)."""
    word = rng.choice(_WORDS)
    kind = rng.randrange(6)
    if kind == 0:
        return f"\u201c{word}\u201d", f'"{word}"', 2
    if kind == 1:
        return f"caf\u00e9 {word}", f"cafe\u0301 {word}", 1
    if kind == 2:
        return f"\t{word}", f"    {word}", 1
    if kind == 3:
        return word.capitalize(), word, 1
    if kind == 4:
        return f"{word}\u00a0{word}", f"{word} {word}", 1
    return f"{word}\u2014{word}", f"{word}--{word}", 1


def pair(size: int, density: float = 0.01, seed: int = 7) -> tuple[str, str]:
    """Sent and received prose of about ``size`` characters, ``density`` of them edited."""
    rng = random.Random(seed)
    sent: list[str] = []
    received: list[str] = []
    length = 0
    edited = 0
    while length < size:
        if edited < density * length:
            s, r, n = _edit(rng)
            edited += n
        else:
            s = r = rng.choice(_WORDS)
            if rng.random() < 0.05:
                s = r = s + ".\n"
        sent.append(s)
        received.append(r)
        length += len(s) + 1
    return " ".join(sent), " ".join(received)


def best(fn: Callable[[], object], *, repeat: int = 5, budget: float = 20.0) -> float:
    """The best wall time of ``fn`` over a few runs (fewer when a run is slow)."""
    times: list[float] = []
    deadline = time.perf_counter() + budget
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
        if time.perf_counter() > deadline:
            break
    return min(times)


def main() -> int:
    """Measure, print the table, return the exit code."""
    mib_a, mib_b = pair(1 << 20)
    k100_a, k100_b = pair(100 << 10)
    k10_a, k10_b = pair(10 << 10)

    check = compare(mib_a, mib_b)
    assert check.explained, "the benchmark pair must be fully explained"

    t_compare_1m = best(lambda: compare(mib_a, mib_b))
    t_dmp_1m = best(lambda: fast_diff_match_patch.diff(mib_a, mib_b))
    t_compare_100k = best(lambda: compare(k100_a, k100_b), repeat=9)
    t_compare_10k = best(lambda: compare(k10_a, k10_b), repeat=21)
    t_difflib_10k = best(
        lambda: difflib.SequenceMatcher(None, k10_a, k10_b, autojunk=False).get_opcodes(),
        repeat=3,
    )
    same = mib_a
    copy = "".join(list(mib_a))
    t_same = best(lambda: compare(same, copy), repeat=21)
    t_encode = best(lambda: same.encode() == copy.encode(), repeat=21)

    rows = [
        (
            "1 MiB: compare / fast_diff_match_patch.diff",
            t_compare_1m / t_dmp_1m,
            "<=",
            2.0,
            f"{t_compare_1m * 1e3:.1f} ms / {t_dmp_1m * 1e3:.1f} ms",
        ),
        (
            "10 KiB: difflib / compare",
            t_difflib_10k / t_compare_10k,
            ">=",
            50.0,
            f"{t_difflib_10k * 1e3:.1f} ms / {t_compare_10k * 1e3:.2f} ms",
        ),
        (
            "growth 100 KiB -> 1 MiB",
            t_compare_1m / t_compare_100k,
            "<=",
            15.0,
            f"{t_compare_1m * 1e3:.1f} ms / {t_compare_100k * 1e3:.1f} ms",
        ),
        (
            "1 MiB identical: compare / encode ==",
            t_same / t_encode,
            "<=",
            20.0,
            f"{t_same * 1e6:.0f} us / {t_encode * 1e6:.0f} us",
        ),
    ]
    print(f"edits in the 1 MiB pair: {len(check.transformations)} transformations")
    print(f"{'measure':<46} {'ratio':>8}  {'target':<8} {'ok':<4} times")
    failed = False
    for name, ratio, op, target, times in rows:
        ok = ratio <= target if op == "<=" else ratio >= target
        failed |= not ok
        print(f"{name:<46} {ratio:8.2f}  {op} {target:<5} {'yes' if ok else 'NO':<4} {times}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
