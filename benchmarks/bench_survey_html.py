"""The survey page of the full survey: its size, and how fast headless Chromium loads it.

Run: ``.venv/bin/python benchmarks/bench_survey_html.py [--json SURVEY.json] [--rounds 5]``.
Without ``--json`` it first runs ``fidelity survey --json`` over every built-in chain
(about a minute); with it, it reads the cards of such a run. Prints the figures and
exits 1 when a target is missed.

Targets (issue 17): the page of every chain over the whole catalogue is a few megabytes
at most (<= 4 MB) and loads in about a second (load event <= 1.0 s, median of the
rounds). The baseline, loaded in the same browser in the same rounds, is the card page
(``Card.to_html``) of the chain with the most rewritten payloads: the page a probe
already writes for one chain; the ratio says what the map of every chain costs beside it.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from _support.chromium import Chromium

from fidelity._report.card import Card, cards_from_json
from fidelity._report.html.survey import render_survey_html
from probes._builtin import builtin_targets

MAX_BYTES = 4_000_000
MAX_LOAD = 1.0

#: In the page: milliseconds from navigation start to the end of the load event, and to
#: the first frame painted after it.
_TIMING = """new Promise(function (done) {
  requestAnimationFrame(function () { requestAnimationFrame(function () {
    var t = performance.getEntriesByType('navigation')[0];
    done([t.loadEventEnd, performance.now(), document.querySelectorAll('*').length]);
  }); });
})"""


def _cards(path: str | None, workdir: Path) -> tuple[Card, ...]:
    if path is None:
        path = str(workdir / "survey.json")
        print("running fidelity survey over every built-in chain (about a minute)...")
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "fidelity", "survey", "--quiet", "--json", path],
            check=True,
            timeout=900,
        )
        print(f"  survey: {time.perf_counter() - start:.0f} s")
    return cards_from_json(Path(path).read_bytes())


def _load(browser: Chromium, url: str) -> tuple[float, float, float, int]:
    """Seconds to the load event (seen from here), then in the page: to the load event's
    end and to the first frame after it; and the number of elements."""
    tab = browser.open("about:blank")
    wall = tab.goto(url)
    answer = tab.send("Runtime.evaluate", expression=_TIMING, awaitPromise=True, returnByValue=True)
    load_end, painted, elements = answer["result"]["value"]
    tab.close()
    return wall, load_end / 1000, painted / 1000, int(elements)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", metavar="FILE", help="cards of a fidelity survey --json run")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        cards = _cards(args.json, workdir)
        targets = {t.name: t for t in builtin_targets()}
        start = time.perf_counter()
        page = render_survey_html(
            cards,
            descriptions={n: t.description for n, t in targets.items()},
            groups={n: t.group for n, t in targets.items()},
        )
        rendered = time.perf_counter() - start
        survey_file = workdir / "survey.html"
        survey_file.write_text(page, encoding="utf-8")
        busiest = max(cards, key=lambda c: sum(o.status == "transformed" for o in c.observations))
        card_file = workdir / "card.html"
        card_file.write_text(busiest.to_html(), encoding="utf-8")
        observations = sum(len(c.observations) for c in cards)
        size = survey_file.stat().st_size
        print(
            f"{len(cards)} chains, {observations} observations; page {size / 1e6:.2f} MB "
            f"(rendered in {rendered:.2f} s); baseline: the card page of {busiest.name!r}, "
            f"{card_file.stat().st_size / 1e6:.2f} MB"
        )
        survey_runs, card_runs = [], []
        with Chromium() as browser:
            for _ in range(args.rounds):
                card_runs.append(_load(browser, card_file.as_uri()))
                survey_runs.append(_load(browser, survey_file.as_uri()))

    def median(runs: list[tuple[float, float, float, int]], i: int) -> float:
        return statistics.median(r[i] for r in runs)

    print(f"{'':14} {'load event':>11} {'in page':>9} {'painted':>9} {'elements':>9}")
    for label, runs in (("survey page", survey_runs), ("card page", card_runs)):
        print(
            f"{label:14} {median(runs, 0):10.3f}s {median(runs, 1):8.3f}s "
            f"{median(runs, 2):8.3f}s {runs[0][3]:9}"
        )
    load = median(survey_runs, 0)
    ratio = load / median(card_runs, 0)
    print(f"survey page / card page (load event): {ratio:.2f}x")
    ok = size <= MAX_BYTES and load <= MAX_LOAD
    print(
        f"targets: size <= {MAX_BYTES / 1e6:.0f} MB, load <= {MAX_LOAD:.1f} s: "
        + ("met" if ok else "MISSED")
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
