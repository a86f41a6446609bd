"""How many payloads does a real rewriting chain leave with an ``unknown`` finding?

Issue 30 asks the count to go down on the chains that rewrite most: each chain below
is a real library call, run on the first 298 catalogue payloads and on 100 values of
``strategies.text()`` (seed 0). A payload counts when its comparison names
``unknown`` at all; payloads the chain refuses (an exception) or returns unchanged are
counted apart. A chain whose library is not installed is listed as skipped: unidecode
is not in ``[dev]`` (it is GPL), so install it to measure it::

    .venv/bin/pip install unidecode
    .venv/bin/python benchmarks/bench_real_chains.py

Figures (the issue's closing note): before the wave's new kinds, markdown+smarty 43,
unidecode 113, textwrap.fill 50, shlex.join(shlex.split) 298, secure_filename 276.
Issue 41 (``newline.removed``, ``path.normalized``): before, markdown+smarty 43,
unidecode 66, textwrap.fill 6, shlex 0, secure_filename 12; after, 43, 66, 3, 0, 9
(docs/kinds.md says why no kind fits the rest of unidecode and secure_filename).
"""

from __future__ import annotations

import importlib
import shlex
import textwrap
from collections import Counter
from collections.abc import Callable

from bench_composition import generated

import fidelity
import strategies


def _markdown_smarty(value: str) -> str:
    markdown = importlib.import_module("markdown")
    out: str = markdown.markdown(value, extensions=["smarty"])
    return out.removeprefix("<p>").removesuffix("</p>")


def _unidecode(value: str) -> str:
    out: str = importlib.import_module("unidecode").unidecode(value)
    return out


def _secure_filename(value: str) -> str:
    out: str = importlib.import_module("werkzeug.utils").secure_filename(value)
    return out


CHAINS: dict[str, tuple[str, Callable[[str], str]]] = {
    "markdown+smarty": ("markdown", _markdown_smarty),
    "unidecode": ("unidecode", _unidecode),
    "textwrap.fill(width=40)": ("textwrap", lambda v: textwrap.fill(v, width=40)),
    "shlex.join(shlex.split())": ("shlex", lambda v: shlex.join(shlex.split(v))),
    "secure_filename": ("werkzeug", _secure_filename),
}


def payloads() -> list[str]:
    """The catalogue's first 298 values, then 100 generated ones (seed 0)."""
    return [p.text for p in strategies.catalogue()][:298] + generated(100, 1)


def count(chain: Callable[[str], str], values: list[str]) -> Counter[str]:
    """Payloads by outcome: unknown, named (every finding has a kind), refused, unchanged."""
    counts: Counter[str] = Counter()
    for value in values:
        try:
            received = chain(value)
        except Exception:  # a refusal is counted, whatever its type
            counts["refused"] += 1
            continue
        if received == value:
            counts["unchanged"] += 1
        elif "unknown" in fidelity.compare(value, received).kinds:
            counts["unknown"] += 1
        else:
            counts["named"] += 1
    return counts


def main() -> None:
    values = payloads()
    print(f"{len(values)} payloads per chain")
    for name, (module, chain) in CHAINS.items():
        try:
            importlib.import_module(module)
        except ImportError:
            print(f"{name:28} skipped: `pip install {module}` to measure it")
            continue
        c = count(chain, values)
        print(
            f"{name:28} unknown {c['unknown']:3}  named {c['named']:3}  "
            f"refused {c['refused']:3}  unchanged {c['unchanged']:3}"
        )


if __name__ == "__main__":
    main()
