"""Speed of ``fidelity.compare`` against baselines measured in the same process.

Run: ``.venv/bin/python benchmarks/bench_compare.py [--seeds 7] [--no-large]`` (needs
``pip install fast-diff-match-patch``, the baseline: not a dependency). Prints a
table and exits 1 when a target is missed. The texts are prose with 1% of their
characters edited, so the classifier has real work on every edit. Two kinds of mix:

``typographic`` (issue 2)
    curly quotes straightened, NFD, tabs expanded, case, NBSP, dashes.
``mixed`` (issue 15), in three variants
    curly quotes straightened, NFD, a tab or an NBSP become a space, case: every edit
    explained (``explained``); the same with one word replaced by another somewhere in
    the middle (``one unknown``); one edit in six a word replaced by another, a hunk no
    kind explains (``unknowns``, about 1 500 of them in a MiB).

Each ratio times both sides alternately on the same pair and compares the fastest run
of each, in CPU time (the machine is shared: wall clock would also measure the
neighbours); over several seeds the median and the worst seed are reported, and the
target holds for the worst.

Targets:
  typographic, 1 MiB: compare <= 2x fast_diff_match_patch.diff(a, b) (default settings)
  typographic, 10 KiB: compare >= 50x faster than difflib.SequenceMatcher(autojunk=False)
  typographic, 100 KiB -> 1 MiB: compare's time grows <= 15x
  1 MiB identical: compare(s, s) <= 20x s.encode() == s.encode()
  mixed, 1 MiB, every variant, every seed: compare <= 2x fast_diff_match_patch.diff
  mixed, 100 KiB -> 1 MiB, every variant, every seed: compare's time grows <= 15x
  20 MB, one character differs, and 20 MB unknowns: compare <= 3x fast_diff_match_patch,
    and the peak memory compare allocates (tracemalloc, in a subprocess) <= 10x the
    inputs' UTF-8 size
  ``fidelity compare A B`` on two 50 MB files (unknowns; unrelated random text):
    finishes, exit code 1
"""

from __future__ import annotations

import argparse
import difflib
import functools
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from fidelity import compare

try:
    # The baseline: a bare compiled diff (the engine's own until issue 45). Not a
    # dependency any more: its wheel installs a top-level `tests` package.
    import fast_diff_match_patch
except ImportError:
    sys.exit(
        "bench_compare.py times compare against fast-diff-match-patch: install it into "
        "a separate venv (pip install . fast-diff-match-patch), since it puts a "
        "top-level 'tests' package into site-packages."
    )

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


def _mixed_edit(rng: random.Random, *, unknowns: bool) -> tuple[str, str, int]:
    """One edit of the ``mixed`` kind as (sent, received, edited characters)."""
    word = rng.choice(_WORDS)
    kind = rng.randrange(6 if unknowns else 5)
    if kind == 0:
        return f"\u201c{word}\u201d", f'"{word}"', 2
    if kind == 1:
        return f"caf\u00e9 {word}", f"cafe\u0301 {word}", 1
    if kind == 2:
        return f"\t{word}", f" {word}", 1
    if kind == 3:
        return word.capitalize(), word, 1
    if kind == 4:
        return f"{word}\u00a0{word}", f"{word} {word}", 1
    other = rng.choice([w for w in _WORDS if w != word])
    return word, other, len(word)


Edit = Callable[[random.Random], tuple[str, str, int]]

MIXES: dict[str, Edit] = {
    "explained": lambda rng: _mixed_edit(rng, unknowns=False),
    "one unknown": lambda rng: _mixed_edit(rng, unknowns=False),
    "unknowns": lambda rng: _mixed_edit(rng, unknowns=True),
}


def pair(
    size: int, density: float = 0.01, seed: int = 7, *, mix: str = "typographic"
) -> tuple[str, str]:
    """Sent and received prose of about ``size`` characters, ``density`` of them edited."""
    rng = random.Random(seed)
    edit = _edit if mix == "typographic" else MIXES[mix]
    sent: list[str] = []
    received: list[str] = []
    length = 0
    edited = 0
    while length < size:
        if edited < density * length:
            s, r, n = edit(rng)
            edited += n
        else:
            s = r = rng.choice(_WORDS)
            if rng.random() < 0.05:
                s = r = s + ".\n"
        sent.append(s)
        received.append(r)
        length += len(s) + 1
    if mix == "one unknown":
        # One word in the middle replaced by another: a single hunk no kind explains.
        middle = len(received) // 2
        while received[middle] != sent[middle] or received[middle] not in _WORDS:
            middle += 1
        received[middle] = next(w for w in _WORDS if w != sent[middle])
    return " ".join(sent), " ".join(received)


def one_character(size: int, seed: int = 7) -> tuple[str, str]:
    """Prose of about ``size`` characters and a copy with one letter in the middle changed."""
    sent, _ = pair(size, density=0.0, seed=seed)
    i = len(sent) // 2
    while not sent[i].isalpha():
        i += 1
    return sent, sent[:i] + ("q" if sent[i] != "q" else "z") + sent[i + 1 :]


def best(fn: Callable[[], object], *, repeat: int = 5, budget: float = 20.0) -> float:
    """The least CPU time of ``fn`` over a few runs (fewer when a run is slow)."""
    times: list[float] = []
    deadline = time.perf_counter() + budget
    for _ in range(repeat):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
        if time.perf_counter() > deadline:
            break
    return min(times)


def paired(
    fn: Callable[[], object], baseline: Callable[[], object], *, repeat: int = 3
) -> tuple[float, float]:
    """The least CPU time of ``fn`` and of ``baseline`` over ``repeat`` alternate runs."""
    times: list[float] = []
    bases: list[float] = []
    for _ in range(repeat):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
        t = time.process_time()
        baseline()
        bases.append(time.process_time() - t)
    return min(times), min(bases)


Row = tuple[str, float, str, float, str]


def _typographic() -> tuple[list[Row], int]:
    """The rows of issue 2: the typographic mix, difflib, growth, identical values."""
    mib_a, mib_b = pair(1 << 20)
    k100_a, k100_b = pair(100 << 10)
    k10_a, k10_b = pair(10 << 10)

    check = compare(mib_a, mib_b)
    assert check.explained, "the benchmark pair must be fully explained"

    t_compare_1m, t_dmp_1m = paired(
        lambda: compare(mib_a, mib_b), lambda: fast_diff_match_patch.diff(mib_a, mib_b), repeat=5
    )
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
    rows: list[Row] = [
        (
            "typographic 1 MiB: compare / fdmp.diff",
            t_compare_1m / t_dmp_1m,
            "<=",
            2.0,
            f"{t_compare_1m * 1e3:.1f} ms / {t_dmp_1m * 1e3:.1f} ms",
        ),
        (
            "typographic 10 KiB: difflib / compare",
            t_difflib_10k / t_compare_10k,
            ">=",
            50.0,
            f"{t_difflib_10k * 1e3:.1f} ms / {t_compare_10k * 1e3:.2f} ms",
        ),
        (
            "typographic growth 100 KiB -> 1 MiB",
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
    return rows, len(check.transformations)


def _mixed(mix: str, seeds: int) -> list[Row]:
    """The rows of issue 15: one variant of the mixed mix over ``seeds`` seeds."""
    rows: list[Row] = []
    ratios: list[tuple[float, int, float, float]] = []
    growths: list[tuple[float, int, float, float]] = []
    for seed in range(seeds):
        a, b = pair(1 << 20, seed=seed, mix=mix)
        small_a, small_b = pair(100 << 10, seed=seed, mix=mix)
        check = compare(a, b)
        assert check.explained == (mix == "explained"), f"{mix}: the pair is not as built"
        t_compare, t_dmp = paired(
            functools.partial(compare, a, b),
            functools.partial(fast_diff_match_patch.diff, a, b),
        )
        t_small = best(functools.partial(compare, small_a, small_b), repeat=5)
        ratios.append((t_compare / t_dmp, seed, t_compare, t_dmp))
        growths.append((t_compare / t_small, seed, t_compare, t_small))
    for label, found, unit in (
        ("compare / fdmp.diff", ratios, 2.0),
        ("growth 100 KiB -> 1 MiB", growths, 15.0),
    ):
        worst = max(found)
        median = statistics.median(r[0] for r in found)
        rows.append(
            (
                f"mixed {mix}, 1 MiB: {label}, worst of {seeds}",
                worst[0],
                "<=",
                unit,
                f"median {median:.2f}; worst seed {worst[1]}: "
                f"{worst[2] * 1e3:.0f} ms / {worst[3] * 1e3:.1f} ms",
            )
        )
    return rows


def _large_pair(case: str) -> tuple[str, str]:
    if case == "one character":
        return one_character(20_000_000)
    return pair(20_000_000, mix="unknowns")


def _memory(case: str) -> dict[str, float]:
    """Peak memory ``compare`` allocates on a large pair, measured in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, __file__, "--memory-of", case],
        capture_output=True,
        text=True,
        timeout=1800,
        check=True,
    )
    return dict(json.loads(done.stdout))


def _memory_child(case: str) -> int:
    """In the subprocess: build the pair, then trace what ``compare`` allocates."""
    import tracemalloc

    a, b = _large_pair(case)
    size = len(a.encode("utf-8")) + len(b.encode("utf-8"))
    tracemalloc.start()
    compare(a, b)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(json.dumps({"peak": peak, "inputs": size}))
    return 0


def _large() -> list[Row]:
    """20 MB, one character differing and 1% mixed edits: time against fdmp, and memory."""
    rows: list[Row] = []
    for case, repeat in (("one character", 3), ("unknowns", 1)):
        a, b = _large_pair(case)
        t_compare, t_dmp = paired(
            functools.partial(compare, a, b),
            functools.partial(fast_diff_match_patch.diff, a, b),
            repeat=repeat,
        )
        del a, b
        rows.append(
            (
                f"20 MB {case}: compare / fdmp.diff",
                t_compare / t_dmp,
                "<=",
                3.0,
                f"{t_compare:.2f} s / {t_dmp:.2f} s",
            )
        )
        memory = _memory(case)
        rows.append(
            (
                f"20 MB {case}: peak memory / inputs",
                memory["peak"] / memory["inputs"],
                "<=",
                10.0,
                f"{memory['peak'] / 1e6:.0f} MB above {memory['inputs'] / 1e6:.0f} MB of UTF-8",
            )
        )
    return rows


def _unrelated(size: int, seed: int) -> str:
    """``size`` random lowercase letters, spaces and line breaks."""
    alphabet = b"abcdefghijklmnopqrstuvwxyz     \n"
    table = bytes(alphabet[b % len(alphabet)] for b in range(256))
    return random.Random(seed).randbytes(size).translate(table).decode("ascii")


def _cli(case: str) -> list[Row]:
    """``fidelity compare A B`` on two 50 MB files: it finishes, and how long it takes."""
    if case == "unknowns":
        a, b = pair(50_000_000, mix="unknowns")
    else:
        a, b = _unrelated(50_000_000, 1), _unrelated(50_000_000, 2)
    with tempfile.TemporaryDirectory() as tmp:
        sent, received = Path(tmp, "sent.txt"), Path(tmp, "received.txt")
        sent.write_text(a, encoding="utf-8")
        received.write_text(b, encoding="utf-8")
        size = (sent.stat().st_size + received.stat().st_size) / 1e6
        del a, b
        # A small interpreter runs the command and reports its resources: a child forked
        # from this process would count this process's memory as its own peak.
        command = [sys.executable, "-m", "fidelity", "compare", str(sent), str(received)]
        done = subprocess.run(
            [sys.executable, "-c", _MEASURED, *command],
            capture_output=True,
            text=True,
            timeout=1800,
            check=False,
        )
    code, cpu, elapsed, peak = done.stdout.split()
    problem = "" if code == "1" else f"; {done.stderr.strip()[:200]}"
    return [
        (
            f"fidelity compare, 2 x 50 MB {case}: exit code",
            float(code),
            "==",
            1.0,
            f"{float(cpu):.1f} s CPU ({float(elapsed):.1f} s wall), "
            f"{int(peak) / 1024:.0f} MB resident at most, {size:.0f} MB of files{problem}",
        )
    ]


#: Run the command given as arguments; print its exit code, CPU time, wall time and
#: peak resident memory (KiB).
_MEASURED = (
    "import resource, subprocess, sys, time\n"
    "start = time.perf_counter()\n"
    "code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode\n"
    "wall = time.perf_counter() - start\n"
    "usage = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(code, usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss)\n"
)


def _report(rows: list[Row]) -> bool:
    """Print ``rows`` as they come; True when every target in them is met."""
    met = True
    for name, ratio, op, target, figures in rows:
        if op == "<=":
            ok = ratio <= target
        elif op == ">=":
            ok = ratio >= target
        else:
            ok = ratio == target
        met &= ok
        print(
            f"{name:<58} {ratio:8.2f}  {op} {target:<5} {'yes' if ok else 'NO':<4} {figures}",
            flush=True,
        )
    return met


def main(argv: list[str] | None = None) -> int:
    """Measure, print the table row by row, return the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seeds", type=int, default=7, help="seeds of each mixed variant")
    parser.add_argument(
        "--no-large", action="store_true", help="skip the 20 MB and 50 MB measurements"
    )
    parser.add_argument("--memory-of", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.memory_of:
        return _memory_child(args.memory_of)

    rows, edits = _typographic()
    print(f"edits in the typographic 1 MiB pair: {edits} transformations")
    print(f"{'measure':<58} {'ratio':>8}  {'target':<8} {'ok':<4} figures", flush=True)
    met = _report(rows)
    for mix in MIXES:
        met &= _report(_mixed(mix, args.seeds))
    if not args.no_large:
        met &= _report(_large())
        met &= _report(_cli("unknowns"))
        met &= _report(_cli("unrelated"))
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
