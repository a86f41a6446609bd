"""``fidelity probe --openapi`` and schemathesis on the same API: requests, time, what
each names, what each called.

The API is ``tests/servers/openapi_app.py`` (FastAPI under uvicorn on loopback): a
``POST /notes`` that stores ``body`` NFC-normalized and ``meta.author`` stripped, a
``POST /items`` whose name is read back casefolded by ``GET /items/{item_id}``, a
``GET /search`` echo, a ``DELETE /notes/{note_id}``. The app writes every request's
``METHOD /path`` down, so the counts and the DELETEs are known apart from each tool.
Each tool gets a fresh server.

schemathesis is not a dependency of this project: install it in a venv of its own and
give its command (``st``) with ``--st``::

    python -m venv /tmp/st && /tmp/st/bin/pip install schemathesis
    .venv/bin/python benchmarks/bench_openapi_vs_schemathesis.py --st /tmp/st/bin/st
"""

from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "tests" / "servers" / "openapi_app.py"


def _serve(calls: Path) -> tuple[subprocess.Popen[bytes], str]:
    proc = subprocess.Popen(
        [sys.executable, str(APP), str(calls)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().decode()
    if not line.startswith("listening on "):
        proc.kill()
        raise SystemExit("the test API did not start")
    return proc, line.removeprefix("listening on ").strip()


def _run(label: str, argv: list[str], timeout: float) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        calls = Path(tmp) / "calls.txt"
        calls.touch()
        proc, url = _serve(calls)
        try:
            argv = [a.replace("{url}", url).replace("{tmp}", tmp) for a in argv]
            start = time.perf_counter()
            done = subprocess.run(
                argv, capture_output=True, text=True, timeout=timeout, check=False
            )
            seconds = time.perf_counter() - start
        finally:
            proc.kill()
            proc.wait(10)
        made = [c for c in calls.read_text().splitlines() if c != "GET /openapi.json"]
        result: dict[str, object] = {
            "tool": label,
            "exit": done.returncode,
            "requests": len(made),
            "seconds": round(seconds, 1),
            "by_method": dict(collections.Counter(c.split()[0] for c in made)),
            "deletes": sum(1 for c in made if c.startswith("DELETE")),
            "output": done.stdout + done.stderr,
        }
        result_file = Path(tmp) / "result.json"
        if result_file.exists():
            cards = json.loads(result_file.read_text())["cards"]
            result["named"] = {
                c["name"]: sorted({k for o in c["observations"] for k in o["kinds"]}) for c in cards
            }
        return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--st", required=True, help="the schemathesis command (st)")
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args()
    fidelity = [sys.executable, "-m", "fidelity", "probe", "--openapi", "{url}/openapi.json"]
    runs = [
        _run("fidelity --openapi (no --yes)", [*fidelity, "--quiet"], args.timeout),
        _run(
            "fidelity --openapi --yes",
            [*fidelity, "--yes", "--quiet", "--json", "{tmp}/result.json"],
            args.timeout,
        ),
        _run(
            "schemathesis run (all checks)",
            [args.st, "run", "{url}/openapi.json", "--checks", "all", "--no-color"],
            args.timeout,
        ),
    ]
    for run in runs:
        print(f"== {run['tool']}")
        print(f"   exit {run['exit']}, {run['requests']} requests in {run['seconds']} s")
        print(f"   by method: {run['by_method']}; DELETE calls: {run['deletes']}")
        named = run.get("named")
        if isinstance(named, dict):
            for name, kinds in named.items():
                print(f"   {name}: {', '.join(kinds) or 'preserved'}")
        else:
            tail = [ln for ln in str(run["output"]).splitlines() if ln.strip()][-12:]
            print("   last lines of its output:")
            for line in tail:
                print(f"     {line[:160]}")


if __name__ == "__main__":
    main()
