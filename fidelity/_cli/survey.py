"""``fidelity survey``: what the chains of this environment do to each hazard family.

Surveys every available built-in chain over the payload catalogue and prints the
transformation map: a matrix of families by chains, then per chain the families it
rewrites or refuses, with kinds and the smallest example. ``--json``/``--card`` write
every chain's contract card; they are rewritten after each chain, so an interrupted
run keeps what it gathered (marked incomplete). A survey documents; it does not judge:
the exit code is 0 whenever it ran.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

from fidelity._errors import UsageError
from fidelity._render import safe

if TYPE_CHECKING:
    from fidelity._card import Card, CardExample, CardRow
    from fidelity._observation import Observation
    from probes._target import BuiltinTarget

__all__ = ["register", "run"]

_CODES = {
    "preserved": ".",
    "transformed": "T",
    "rejected": "R",
    "lost": "L",
    "timeout": "!",
    "broken": "X",
    "mixed": "M",
}


def register(sub: Any) -> None:
    """Add the ``survey`` subcommand."""
    p: argparse.ArgumentParser = sub.add_parser(
        "survey",
        help="survey the built-in chains of this environment and print the transformation map",
        description=(
            "Push the payload catalogue through every serialization chain available here "
            "(JSON, YAML, XML, TOML, CSV, forms, URLs, email headers, text files, pipes, "
            "argv, environment, and the HTTP/MCP reflectors when present) and print which "
            "chain preserves, rewrites or refuses which hazard family."
        ),
    )
    p.add_argument("--chains", metavar="LIST", help="comma-separated chain names (see --list)")
    p.add_argument("--families", metavar="LIST", help="comma-separated hazard families")
    p.add_argument(
        "--examples",
        type=int,
        default=0,
        metavar="N",
        help="add N Hypothesis examples per chain (default 0)",
    )
    p.add_argument("--seed", type=int, default=None, metavar="N", help="seed for --examples")
    p.add_argument("--json", metavar="FILE", help="write every chain's card as JSON (- = stdout)")
    p.add_argument("--card", metavar="FILE.md", help="write every chain's card as Markdown")
    p.add_argument("--list", action="store_true", help="list the chains and their availability")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no map")
    p.set_defaults(run=run)


def _split(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [item.strip() for item in value.split(",") if item.strip()]


def _select(targets: list[BuiltinTarget], chains: str | None) -> list[BuiltinTarget]:
    names = _split(chains)
    if names is None:
        return targets
    known = {t.name: t for t in targets}
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise UsageError(
            f"--chains names unknown chain(s) {', '.join(map(repr, unknown)) or '(none given)'}; "
            f"valid chains are: {', '.join(known)}."
        )
    chosen = [known[n] for n in dict.fromkeys(names)]
    missing = [t for t in chosen if t.unavailable]
    if missing:
        t = missing[0]
        raise UsageError(f"chain {t.name!r} is unavailable here: {t.unavailable}")
    return chosen


def _families(value: str | None) -> tuple[str, ...] | None:
    from fidelity._kinds import FAMILIES

    names = _split(value)
    if names is None:
        return None
    unknown = [n for n in names if n not in FAMILIES]
    if unknown or not names:
        raise UsageError(
            f"--families names unknown famil(ies) {', '.join(map(repr, unknown)) or '(none)'}; "
            f"valid families are: {', '.join(FAMILIES)}."
        )
    return tuple(f for f in FAMILIES if f in names)


def _check_output(path: str | None, flag: str) -> None:
    if path is None or path == "-":
        return
    if os.path.isdir(path):
        raise UsageError(f"{flag} {path} is a directory; give a file name.")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise UsageError(f"{flag} {path}: the directory {parent} does not exist.")


def _write(path: str | None, text: str) -> None:
    if path is None:
        return
    if path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    temporary = f"{path}.partial"
    try:
        with open(temporary, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.replace(temporary, path)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}.") from None


def _save(args: argparse.Namespace, cards: Sequence[Card], *, final: bool) -> None:
    from fidelity._card import cards_to_json

    if args.json is not None and (final or args.json != "-"):
        _write(args.json, cards_to_json(cards))
    if args.card is not None:
        _write(args.card, "\n".join(c.to_markdown() for c in cards))


def _list(targets: list[BuiltinTarget], out: TextIO) -> None:
    width = max(len(t.name) for t in targets)
    for t in targets:
        state = f"unavailable: {t.unavailable}" if t.unavailable else t.description
        print(f"{safe(t.name):<{width}}  {safe(state)}", file=out)


def run(args: argparse.Namespace) -> int:
    """Survey the chains; print the map; write the cards."""
    from probes._builtin import builtin_targets

    targets = builtin_targets()
    if args.list:
        _list(targets, sys.stdout)
        return 0
    selected = _select(targets, args.chains)
    families = _families(args.families)
    if args.examples < 0:
        raise UsageError(f"--examples {args.examples} must be 0 or more.")
    if args.seed is not None and args.seed < 0:
        raise UsageError(f"--seed {args.seed} must be 0 or more.")
    _check_output(args.json, "--json")
    _check_output(args.card, "--card")

    from fidelity._imports import load

    strategies: Any = load("strategies")
    payloads = tuple(strategies.catalogue(families))
    seed = args.seed
    if args.examples and seed is None:
        import random

        seed = random.SystemRandom().randrange(2**32)

    runnable = [t for t in selected if not t.unavailable]
    skipped = [t for t in selected if t.unavailable]
    out = sys.stderr if args.json == "-" else sys.stdout
    cards, failed = _survey_all(args, runnable, payloads, families, seed)
    _save(args, cards, final=True)
    if not args.quiet:
        _print_map(out, cards, payloads_count=len(payloads), seed=seed)
        for t in skipped:
            print(f"skipped {safe(t.name)}: {safe(t.unavailable)}", file=out)
        for name, reason in failed:
            print(f"failed {safe(name)}: {safe(reason)}", file=out)
    return 0


def _survey_all(
    args: argparse.Namespace,
    runnable: list[BuiltinTarget],
    payloads: tuple[Any, ...],
    families: tuple[str, ...] | None,
    seed: int | None,
) -> tuple[list[Card], list[tuple[str, str]]]:
    from fidelity._progress import Progress
    from fidelity._survey import Survey, survey

    cards: list[Card] = []
    failed: list[tuple[str, str]] = []
    per_chain = len(payloads) + args.examples
    with Progress(len(runnable) * per_chain, enabled=not args.quiet) as bar:
        for target in runnable:
            collected: list[Observation] = []

            def seen(obs: Observation, into: list[Observation] = collected) -> None:
                into.append(obs)
                bar.advance()

            bar.advance(0, label=target.name)
            chain = target.name
            try:
                with target.open() as probe:
                    chain = probe.name
                    result = survey(
                        probe,
                        payloads=payloads,
                        examples=args.examples,
                        seed=seed,
                        families=families,
                        name=target.name,
                        on_observation=seen,
                    )
                cards.append(result.card())
            except KeyboardInterrupt:
                partial = Survey.of(collected, name=target.name, chain=chain, seed=seed)
                cards.append(partial.card().mark_incomplete())
                bar.close()
                _save(args, cards, final=True)
                raise
            except Exception as exc:
                failed.append((target.name, f"{type(exc).__name__}: {exc}"))
                bar.advance(max(0, per_chain - len(collected)))
                continue
            _save(args, cards, final=False)
    return cards, failed


def _cell(row: CardRow | None) -> str:
    return " " if row is None else _CODES.get(row.outcome, "?")


def _print_map(
    out: TextIO, cards: Sequence[Card], *, payloads_count: int, seed: int | None
) -> None:
    from fidelity import __version__
    from fidelity._survey import family_key

    if not cards:
        print("no chain was surveyed.", file=out)
        return
    print(
        f"param-fidelity {__version__} survey: {len(cards)} chains, "
        f"{payloads_count} catalogue payloads each"
        + (f", seed {seed}" if seed is not None else ""),
        file=out,
    )
    keys = sorted(
        {r.key for c in cards for r in c.rows},
        key=lambda k: (family_key(k[0]), k[1] != "round_trip", k[1]),
    )
    labels = [f"{f}" if d == "round_trip" else f"{f} ({d})" for f, d in keys]
    width = max([len(label) for label in labels] + [6])
    numbers = [str(i + 1) for i in range(len(cards))]
    col = max(len(n) for n in numbers) + 1
    print("", file=out)
    print(f"{'family':<{width}} " + "".join(f"{n:>{col}}" for n in numbers), file=out)
    for key, label in zip(keys, labels, strict=True):
        cells = "".join(f"{_cell(c.row(key[0], key[1])):>{col}}" for c in cards)
        print(f"{safe(label):<{width}} {cells}", file=out)
    print("", file=out)
    legend = ", ".join(f"{code} {name}" for name, code in _CODES.items())
    print(f"legend: {legend}", file=out)
    for n, card in zip(numbers, cards, strict=True):
        state = "" if card.complete else " (incomplete)"
        print(f"{n:>{col}} {safe(card.name)}: {safe(card.facts.chain)}{state}", file=out)
    for card in cards:
        _print_card(out, card)


def _print_card(out: TextIO, card: Card) -> None:
    print("", file=out)
    changed = [r for r in card.rows if r.outcome != "preserved"]
    kept = len(card.rows) - len(changed)
    print(f"{safe(card.name)}  ({safe(card.facts.chain)})", file=out)
    if not changed:
        print(f"  every family preserved ({kept} rows)", file=out)
        return
    for row in changed:
        where = row.family if row.direction == "round_trip" else f"{row.family} ({row.direction})"
        if row.outcome == "mixed":
            outcome = "mixed: " + ", ".join(f"{n} {s}" for s, n in row.statuses)
        else:
            outcome = f"{row.outcome} ({row.count})"
        kinds = " ".join(row.kinds)
        print(f"  {safe(where):<16} {outcome}" + (f"  {kinds}" if kinds else ""), file=out)
        for e in row.examples[:3]:
            print(f"  {'':16}   {e.key}: {safe(_clip(_example(e), 100))}", file=out)
    if kept:
        print(f"  other families preserved ({kept} rows)", file=out)


def _example(example: CardExample) -> str:
    """The changed segment as code points (or the failure), like the probe map shows it."""
    from fidelity._report_map import example_text
    from fidelity._survey import Example

    sent = example.sent.value()
    assert isinstance(sent, str)
    received = None if example.received is None else example.received.value()
    return example_text(
        Example(
            key=example.key,
            payload_id=example.payload_id,
            sent=sent,
            received=received,
            error_type=example.error_type,
            error=example.error,
        )
    )


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
