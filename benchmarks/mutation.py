#!/usr/bin/env python3
"""Mutation score of chosen code areas: how many deliberate bugs the tests catch.

Not run by CI (an area takes from minutes to hours). It drives cosmic-ray (PyPI): each
mutant is one small change to the code (an operator, a constant, a condition); the
area's tests run against it, and a mutant that passes them all "survived": a bug the
suite would not notice. ``benchmarks/README.md`` has the last scores and the commands.

Usage (any python3 >= 3.11; it re-runs itself under a tool venv that has cosmic-ray,
created on first use at ``.mutation-venv`` beside ``benchmarks/``):

    python3 benchmarks/mutation.py CHECKOUT --areas benchmarks/mutation_areas.toml
        [--only AREA ...] [--plan] [--resume | --retry-survivors] [--workdir DIR]
        [--python CHECKOUT/.venv/bin/python] [--timeout-factor 3] [--min-timeout 30]

CHECKOUT is a git checkout with its own venv (``.venv`` with ``pip install -e '.[dev]'``
and ``npm ci --prefix tests/servers`` done). The files of an area are mutated IN PLACE in
that checkout, one mutant at a time, and restored afterwards (also on Ctrl-C / SIGTERM):
use a disposable clone, never a working tree someone is editing. The script refuses to
start when a target file differs from git HEAD (``--allow-dirty`` overrides). One
mutant runs at a time (one worker), so the machine stays usable.

AREAS.toml maps an area to its files and tests; nothing about the repository layout is
hard-coded here:

    [areas.engine]
    files = ["fidelity/_compare/classify.py", "fidelity/_compare/rules/*.py"]  # whole files
                                                               # (globs; __init__.py left out)
    tests = ["tests/fidelity/test_compare_kinds.py", "tests/fidelity/test_compare_*.py"]
    max_mutants = 700          # optional: deterministic every-k-th sample (k = ceil(n/max))
    # sample_every = 8         # optional: or give k directly
    # pytest_args = ["-k", "not slow"]
    # timeout = 120            # optional: fixed per-mutant timeout (s) instead of the
    #                          # factor x the unmutated run's duration

    [areas.guard]
    tests = ["tests/probes/test_mcp_probe.py", "tests/cli/test_cli_probe_args.py"]
    [[areas.guard.file]]       # a file with selectors: only matching mutants are run
    path = "probes/_mcp/probe.py"
    select = [
      "def:DestructiveToolRefused",     # a class/def by qualified name (fnmatch), with
      "def:McpTool.destructive",        #   everything nested in it
      "stmt:for role, name in",         # the compound statement whose first line matches
      "line:allow_destructive",         # lines whose text matches the regex
      # "lines:340-351",                # a line range
    ]

Hand-written mutants, for mutations that cosmic-ray's operators never make (delete a
``raise``, pass a constant instead of a flag), run after the generated ones and are
reported apart (they are not in the score):

    [[areas.guard.extra]]
    path = "fidelity/_sweep/execute.py"
    find = "allow_destructive=plan.yes"      # must occur exactly once in the file
    replace = "allow_destructive=True"
    note = "the CLI no longer asks for --yes"

Test globs are expanded relative to CHECKOUT, de-duplicated, in the order given (pytest
runs with ``-x``, so put the fastest-killing tests first). Each test run gets a fresh,
empty Hypothesis database and ``--hypothesis-seed=0`` so that runs are deterministic and
no mutant's failing examples leak into the next mutant's run; FIDELITY_REQUIRE_ALL=1 makes
a missing component fail instead of skipping.

``--retry-survivors`` re-runs, against today's tests, only the mutants that survived in
the area's existing session (the same sample; killed ones stay killed, as tests are only
ever added): the "after" column once tests are written from the survivors.

Outcome per mutant: killed (tests failed), timeout (the run exceeded the per-mutant
timeout, counted apart), survived (tests passed), error (cosmic-ray could not apply it).
Results go to WORKDIR/<area>.sqlite (cosmic-ray session, resumable with --resume),
WORKDIR/<area>.survivors.txt (each surviving mutant with file:line, operator, diff) and
WORKDIR/results.json; a score table is printed at the end.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import fnmatch
import glob
import json
import math
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

COSMIC_RAY_VERSION = "8.7.0"
DEFAULT_TOOL_VENV = Path(__file__).resolve().parent.parent / ".mutation-venv"


# -- the per-mutant test command (runs under the checkout's python; stdlib only) ----------


def run_tests_main(argv: list[str]) -> int:
    """``_runtests CHECKOUT -- PYTEST ARGS``: pytest with a fresh Hypothesis database."""
    checkout, rest = argv[0], argv[argv.index("--") + 1 :]
    storage = tempfile.mkdtemp(prefix="mut-hyp-")
    env = dict(os.environ, HYPOTHESIS_STORAGE_DIRECTORY=storage, PYTHONDONTWRITEBYTECODE="1")
    env.setdefault("FIDELITY_REQUIRE_ALL", "1")
    try:
        return subprocess.call([sys.executable, "-m", "pytest", *rest], cwd=checkout, env=env)
    finally:
        shutil.rmtree(storage, ignore_errors=True)


# -- tool venv ----------------------------------------------------------------------------


def ensure_cosmic_ray(tool_venv: Path) -> None:
    """Re-run this script under a python that imports cosmic_ray (creating the venv)."""
    try:
        import cosmic_ray  # noqa: F401

        return
    except ImportError:
        pass
    py = tool_venv / "bin" / "python"
    if not py.exists():
        print(f"creating tool venv {tool_venv} with cosmic-ray=={COSMIC_RAY_VERSION}", flush=True)
        subprocess.check_call([sys.executable, "-m", "venv", str(tool_venv)])
        subprocess.check_call(
            [str(py), "-m", "pip", "install", "-q", f"cosmic-ray=={COSMIC_RAY_VERSION}"]
        )
    os.execv(str(py), [str(py), str(Path(__file__).resolve()), *sys.argv[1:]])


# -- areas and selectors --------------------------------------------------------------------


@dataclass
class FileSpec:
    path: str
    select: list[str] = field(default_factory=list)  # empty: the whole file


@dataclass
class Extra:
    """A hand-written mutant: ``find`` (must occur exactly once in ``path``) -> ``replace``."""

    path: str
    find: str
    replace: str
    note: str = ""


@dataclass
class Area:
    name: str
    files: list[FileSpec]
    tests: list[str]
    pytest_args: list[str]
    max_mutants: int | None
    sample_every: int | None
    timeout: float | None
    extras: list[Extra] = field(default_factory=list)


def load_areas(path: Path) -> list[Area]:
    raw = tomllib.loads(path.read_text(encoding="utf-8"))["areas"]
    areas = []
    for name, spec in raw.items():
        files = [FileSpec(p) for p in spec.get("files", [])]  # globs: expanded later
        files += [FileSpec(f["path"], list(f.get("select", []))) for f in spec.get("file", [])]
        if not files or not spec.get("tests"):
            raise SystemExit(f"area {name}: needs files (or [[file]]) and tests")
        areas.append(
            Area(
                name=name,
                files=files,
                tests=list(spec["tests"]),
                pytest_args=list(spec.get("pytest_args", [])),
                max_mutants=spec.get("max_mutants"),
                sample_every=spec.get("sample_every"),
                timeout=spec.get("timeout"),
                extras=[Extra(**e) for e in spec.get("extra", [])],
            )
        )
    return areas


class Scopes:
    """Qualified def/class names and compound statements of one source file, by line."""

    def __init__(self, source: str) -> None:
        self.lines = source.splitlines()
        self.defs: list[tuple[int, int, str]] = []
        self.stmts: list[tuple[int, int]] = []
        self.annotations: list[tuple[tuple[int, int], tuple[int, int]]] = []
        tree = ast.parse(source)
        self._walk(tree, "")
        for node in ast.walk(tree):
            found = []
            if isinstance(node, ast.arg | ast.AnnAssign) and node.annotation is not None:
                found.append(node.annotation)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns:
                found.append(node.returns)
            for a in found:
                start = (a.lineno, self._char_col(a.lineno, a.col_offset))
                end_line = a.end_lineno or a.lineno
                end = (end_line, self._char_col(end_line, a.end_col_offset or 0))
                self.annotations.append((start, end))

    def _char_col(self, line: int, byte_col: int) -> int:
        text = self.lines[line - 1].encode("utf-8")
        return len(text[:byte_col].decode("utf-8", "replace"))

    def in_annotation(self, pos: tuple[int, int]) -> bool:
        """A mutation inside a type annotation: never evaluated at run time (equivalent)."""
        return any(start <= tuple(pos) < end for start, end in self.annotations)

    def _walk(self, node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                start = min([d.lineno for d in child.decorator_list] + [child.lineno])
                qual = f"{prefix}{child.name}"
                self.defs.append((start, child.end_lineno or child.lineno, qual))
                self._walk(child, qual + ".")
                continue
            if isinstance(child, ast.For | ast.AsyncFor | ast.While | ast.If | ast.With | ast.Try):
                self.stmts.append((child.lineno, child.end_lineno or child.lineno))
            self._walk(child, prefix)

    def qualname(self, line: int) -> str:
        best = ("<module>", -1)
        for start, end, qual in self.defs:
            if start <= line <= end and start > best[1]:
                best = (qual, start)
        return best[0]

    def selected(self, line: int, selectors: list[str]) -> bool:
        if not selectors:
            return True
        qual = self.qualname(line)
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        for sel in selectors:
            kind, _, arg = sel.partition(":")
            if kind == "def":
                if any(fnmatch.fnmatchcase(qual, pat) for pat in (arg, arg + ".*")):
                    return True
            elif kind == "line":
                if re.search(arg, text):
                    return True
            elif kind == "lines":
                lo, _, hi = arg.partition("-")
                if int(lo) <= line <= int(hi or lo):
                    return True
            elif kind == "stmt":
                for start, end in self.stmts:
                    if start <= line <= end and re.search(arg, self.lines[start - 1]):
                        return True
            else:
                raise SystemExit(f"unknown selector {sel!r} (def:, line:, lines:, stmt:)")
        return False


# -- one area -------------------------------------------------------------------------------


def expand_tests(checkout: Path, patterns: list[str]) -> list[str]:
    out: list[str] = []
    for pat in patterns:
        path_part, sep, node = pat.partition("::")
        hits = sorted(glob.glob(path_part, root_dir=checkout)) or []
        if not hits:
            raise SystemExit(f"test pattern {pat!r} matches nothing in {checkout}")
        for h in hits:
            item = h + sep + node
            if item not in out:
                out.append(item)
    return out


def git_head_text(checkout: Path, rel: str) -> str | None:
    r = subprocess.run(
        ["git", "-C", str(checkout), "show", f"HEAD:{rel}"],
        capture_output=True,
        text=True,
        check=False,
    )
    return r.stdout if r.returncode == 0 else None


def clear_pyc(checkout: Path, rel: str) -> None:
    p = checkout / rel
    for pyc in (p.parent / "__pycache__").glob(p.stem + ".*.pyc"):
        pyc.unlink(missing_ok=True)


def stable_key(m) -> tuple:  # a MutationSpec
    return (str(m.module_path), m.start_pos, m.end_pos, m.operator_name, m.occurrence)


def run_area(area: Area, args: argparse.Namespace, results: dict) -> None:
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    checkout: Path = args.checkout
    workdir: Path = args.workdir
    expanded: list[FileSpec] = []
    for f in area.files:  # a path may be a glob (fidelity/_compare/rules/*.py)
        hits = sorted(glob.glob(f.path, root_dir=checkout)) if glob.has_magic(f.path) else [f.path]
        if not hits:
            raise SystemExit(f"area {area.name}: {f.path!r} matches no file in {checkout}")
        if glob.has_magic(f.path):
            hits = [h for h in hits if not h.endswith("__init__.py")]
        expanded += [FileSpec(h, f.select) for h in hits]
    area.files = expanded
    tests = expand_tests(checkout, area.tests)
    pytest_args = [
        "-x", "-q", "-p", "no:cacheprovider", "--tb=line", "-rN", "--hypothesis-seed=0",
        *area.pytest_args, *tests,
    ]  # fmt: skip
    runner = [str(args.python), str(Path(__file__).resolve()), "_runtests", str(checkout), "--"]
    command = shlex.join(runner + pytest_args)
    print(f"\n=== area {area.name}\n  files: {[f.path for f in area.files]}")
    print(f"  tests ({len(tests)}): {' '.join(tests)}")

    originals: dict[str, str] = {}
    for f in area.files:
        p = checkout / f.path
        if not p.is_file():
            raise SystemExit(f"area {area.name}: {p} does not exist")
        text = p.read_text(encoding="utf-8")
        head = git_head_text(checkout, f.path)
        if head is not None and head != text and not args.allow_dirty:
            raise SystemExit(
                f"{p} differs from git HEAD (an interrupted run? `git -C {checkout} checkout "
                f"-- {f.path}`), or pass --allow-dirty"
            )
        originals[f.path] = text
        clear_pyc(checkout, f.path)

    # The unmutated run: must pass; its duration sets the per-mutant timeout.
    for attempt in (1, 2):  # a second try: a loaded machine can make a slow test flaky
        t0 = time.monotonic()
        base = subprocess.run(shlex.split(command), capture_output=True, text=True, check=False)
        base_s = time.monotonic() - t0
        if base.returncode == 0:
            break
        print(base.stdout[-3000:], base.stderr[-3000:])
        print(f"  area {area.name}: the tests FAIL on unmutated code (try {attempt} of 2)")
    else:
        results[area.name] = {"not_measured": "the tests fail on unmutated code"}
        return
    timeout = area.timeout or max(args.min_timeout, args.timeout_factor * base_s)
    print(f"  unmutated run: {base_s:.1f}s, passed; per-mutant timeout {timeout:.0f}s")

    session = workdir / f"{area.name}.sqlite"
    config = workdir / f"{area.name}.toml"
    config.write_text(
        "[cosmic-ray]\n"
        f"module-path = {json.dumps([f.path for f in area.files])}\n"
        f"timeout = {timeout:.1f}\n"
        "excluded-modules = []\n"
        f"test-command = {json.dumps(command)}\n"
        "[cosmic-ray.distributor]\n"
        'name = "local"\n',
        encoding="utf-8",
    )
    bindir = Path(sys.executable).parent
    if args.retry_survivors:
        if not session.exists():
            raise SystemExit(f"area {area.name}: no session {session} to retry")
        forget_survivors(session)
    elif not (args.resume and session.exists()):
        session.unlink(missing_ok=True)
        subprocess.check_call(
            [str(bindir / "cosmic-ray"), "init", str(config), str(session)], cwd=checkout
        )
        # Selection and sampling: everything not chosen is marked SKIPPED (never run).
        scopes = {f.path: Scopes(originals[f.path]) for f in area.files}
        select = {f.path: f.select for f in area.files}
        with use_db(str(session), WorkDB.Mode.open) as db:
            items = sorted(db.work_items, key=lambda w: stable_key(w.mutations[0]))
            chosen, skipped, annotation = [], [], 0
            for w in items:
                m = w.mutations[0]
                rel = str(m.module_path)
                if not scopes[rel].selected(m.start_pos[0], select[rel]):
                    skipped.append(w)
                elif scopes[rel].in_annotation(m.start_pos):
                    skipped.append(w)
                    annotation += 1
                else:
                    chosen.append(w)
            k = area.sample_every or (
                math.ceil(len(chosen) / area.max_mutants) if area.max_mutants else 1
            )
            sample = chosen[::k]
            skipped += [w for i, w in enumerate(chosen) if i % k]
            db.set_multiple_results(
                [w.job_id for w in skipped], WorkResult(worker_outcome=WorkerOutcome.SKIPPED)
            )
        meta = {
            "generated": len(items),
            "selected": len(chosen),
            "annotation_excluded": annotation,
            "every": k,
            "run": len(sample),
        }
        (workdir / f"{area.name}.plan.json").write_text(json.dumps(meta), encoding="utf-8")
    meta = json.loads((workdir / f"{area.name}.plan.json").read_text(encoding="utf-8"))
    print(
        f"  mutants: {meta['generated']} generated, {meta['selected']} selected "
        f"(+{meta['annotation_excluded']} in type annotations, excluded as equivalent), "
        f"every {meta['every']}th run: {meta['run']}"
    )
    if args.plan:
        results[area.name] = {"plan": meta, "unmutated_s": round(base_s, 1)}
        return

    t0 = time.monotonic()
    proc = subprocess.Popen(
        [str(bindir / "cosmic-ray"), "exec", str(config), str(session)],
        cwd=checkout,
        start_new_session=True,
    )
    try:
        proc.wait()
    except BaseException:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGINT)  # cosmic-ray restores the file on SIGINT
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=30)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        raise
    finally:
        for rel, text in originals.items():  # whatever happened, the originals are back
            p = checkout / rel
            if p.read_text(encoding="utf-8") != text:
                print(f"  restoring {rel}")
                p.write_text(text, encoding="utf-8")
            clear_pyc(checkout, rel)
    exec_s = time.monotonic() - t0
    results[area.name] = summarize(
        area, session, meta, base_s=base_s, exec_s=exec_s, workdir=workdir
    )
    if area.extras:
        results[area.name]["extras"] = run_extras(area, args, command, timeout, originals)


def forget_survivors(session: Path) -> None:
    """Drop the results of the mutants that survived, so that ``exec`` runs them again."""
    from cosmic_ray.work_db import WorkDB, WorkResultStorage, use_db
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome

    with use_db(str(session), WorkDB.Mode.open) as db:
        again = [
            job_id
            for job_id, r in db.results
            if r.worker_outcome == WorkerOutcome.NORMAL and r.test_outcome == TestOutcome.SURVIVED
        ]
        with db._session_maker.begin() as s:
            s.query(WorkResultStorage).filter(WorkResultStorage.job_id.in_(again)).delete()
    print(f"  retrying {len(again)} survivors of {session.name}")


def run_extras(
    area: Area, args: argparse.Namespace, command: str, timeout: float, originals: dict
) -> list[dict]:
    out = []
    for e in area.extras:
        p = args.checkout / e.path
        text = originals.get(e.path) or p.read_text(encoding="utf-8")
        originals.setdefault(e.path, text)
        if text.count(e.find) != 1:
            out.append({**e.__dict__, "outcome": f"not applied: found {text.count(e.find)}x"})
            continue
        line = text[: text.index(e.find)].count("\n") + 1
        t0 = time.monotonic()
        try:
            p.write_text(text.replace(e.find, e.replace), encoding="utf-8")
            clear_pyc(args.checkout, e.path)
            proc = subprocess.Popen(
                shlex.split(command),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            try:
                rc = proc.wait(timeout=timeout)
                outcome = "survived" if rc == 0 else "killed"
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                outcome = "timeout"
            except BaseException:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                raise
        finally:
            p.write_text(text, encoding="utf-8")
            clear_pyc(args.checkout, e.path)
        secs = time.monotonic() - t0
        print(f"  extra {e.path}:{line} {outcome} ({secs:.0f}s): {e.note or e.replace}")
        out.append({**e.__dict__, "line": line, "outcome": outcome, "s": round(secs, 1)})
    return out


def summarize(
    area: Area, session: Path, meta: dict, *, base_s: float, exec_s: float, workdir: Path
) -> dict:
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome

    counts = {"killed": 0, "timeout": 0, "survived": 0, "error": 0, "pending": 0}
    survivors = []
    with use_db(str(session), WorkDB.Mode.open) as db:
        done = dict(db.results)
        for w in db.work_items:
            r = done.get(w.job_id)
            m = w.mutations[0]
            if r is None:
                counts["pending"] += 1
            elif r.worker_outcome == WorkerOutcome.SKIPPED:
                continue
            elif r.worker_outcome != WorkerOutcome.NORMAL:
                counts["error"] += 1
            elif r.test_outcome == TestOutcome.SURVIVED:
                counts["survived"] += 1
                survivors.append((stable_key(m), m, r.diff or ""))
            elif r.output == "timeout":
                counts["timeout"] += 1
            elif r.test_outcome == TestOutcome.KILLED:
                counts["killed"] += 1
            else:
                counts["error"] += 1
    survivors.sort(key=lambda s: s[0])
    scopes = {
        f.path: Scopes((args_checkout(session) / f.path).read_text(encoding="utf-8"))
        for f in area.files
    }
    lines = []
    for _, m, diff in survivors:
        changed = [
            ln for ln in diff.splitlines() if ln[:1] in "+-" and not ln.startswith(("+++", "---"))
        ]
        op = m.operator_name.removeprefix("core/")
        qual = scopes[str(m.module_path)].qualname(m.start_pos[0])
        lines.append(f"{m.module_path}:{m.start_pos[0]}:{m.start_pos[1]}  {op}  [{qual}]")
        lines += [f"    {ln}" for ln in changed]
    (workdir / f"{area.name}.survivors.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    ran = counts["killed"] + counts["timeout"] + counts["survived"]
    score = (counts["killed"] + counts["timeout"]) / ran if ran else float("nan")
    return {
        **counts,
        "total_run": ran,
        "score": round(score, 4),
        "plan": meta,
        "unmutated_s": round(base_s, 1),
        "exec_s": round(exec_s, 1),
    }


_CHECKOUT: dict[str, Path] = {}


def args_checkout(session: Path) -> Path:
    return _CHECKOUT["path"]


def print_table(results: dict) -> None:
    print("\narea        killed  timeout  survived  error  pending  total   score  time")
    for name, r in results.items():
        if "not_measured" in r:
            print(f"{name:<10}  NOT MEASURED: {r['not_measured']}")
            continue
        if "killed" not in r:
            print(f"{name:<10}  (plan only) {r['plan']}")
            continue
        print(
            f"{name:<10}  {r['killed']:>6}  {r['timeout']:>7}  {r['survived']:>8}  "
            f"{r['error']:>5}  {r['pending']:>7}  {r['total_run']:>5}  {r['score']:>6.1%}  "
            f"{r['exec_s'] / 60:.0f} min  (of {r['plan']['selected']} selected, "
            f"every {r['plan']['every']}th)"
        )
        extras = r.get("extras") or []
        if extras:
            tally = {
                o: sum(x["outcome"] == o for x in extras) for o in ("killed", "timeout", "survived")
            }
            print(f"{'':<10}  + {len(extras)} hand-written mutants: {tally}")
            for x in extras:
                if x["outcome"] != "killed":
                    print(f"{'':<14}{x['outcome']}: {x['path']}:{x.get('line', '?')} {x['note']}")


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "_runtests":
        return run_tests_main(sys.argv[2:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("checkout", type=Path)
    ap.add_argument("--areas", type=Path, required=True)
    ap.add_argument("--only", action="append", default=[], help="run only these areas")
    ap.add_argument("--workdir", type=Path, help="default: CHECKOUT/../<checkout>-mutation")
    ap.add_argument("--python", type=Path, help="the checkout's python (default .venv/bin/python)")
    ap.add_argument("--tool-venv", type=Path, default=DEFAULT_TOOL_VENV)
    ap.add_argument("--timeout-factor", type=float, default=3.0)
    ap.add_argument("--min-timeout", type=float, default=30.0)
    ap.add_argument("--plan", action="store_true", help="count and sample mutants, run none")
    ap.add_argument("--resume", action="store_true", help="keep an existing session's results")
    ap.add_argument(
        "--retry-survivors",
        action="store_true",
        help="re-run only the mutants that survived in the existing session",
    )
    ap.add_argument("--allow-dirty", action="store_true")
    ap.add_argument(
        "--max-mutants",
        type=int,
        help="sample at most N mutants per area (overrides the areas file; deterministic)",
    )
    args = ap.parse_args()
    ensure_cosmic_ray(args.tool_venv)

    args.checkout = args.checkout.resolve()
    _CHECKOUT["path"] = args.checkout
    args.python = (args.python or args.checkout / ".venv" / "bin" / "python").absolute()
    args.workdir = (
        args.workdir or args.checkout.parent / f"{args.checkout.name}-mutation"
    ).resolve()
    args.workdir.mkdir(parents=True, exist_ok=True)
    areas = [a for a in load_areas(args.areas) if not args.only or a.name in args.only]
    if args.max_mutants is not None:
        for area in areas:
            area.max_mutants, area.sample_every = args.max_mutants, None

    def on_term(signum, frame):  # SIGTERM: unwind like Ctrl-C so files get restored
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    results: dict = {}
    out = args.workdir / "results.json"
    previous = json.loads(out.read_text()) if out.exists() else {}
    for area in areas:
        run_area(area, args, results)
        previous.update(results)
        out.write_text(json.dumps(previous, indent=2), encoding="utf-8")
    print_table(results)
    print(f"\nresults: {out}; survivors: {args.workdir}/<area>.survivors.txt")
    return 0


if __name__ == "__main__":
    sys.exit(main())
