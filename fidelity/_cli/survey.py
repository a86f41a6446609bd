"""``fidelity survey``: what the chains of this environment do to each hazard family.

Surveys every available built-in chain over the payload catalogue and prints the
transformation map: a matrix of families by chains, then per chain the families it
rewrites or refuses, with kinds and the smallest example. ``--json``/``--card`` write
every chain's contract card; they are rewritten after each chain, so an interrupted
run keeps what it gathered (marked incomplete). ``--html`` writes the map as one page
(a colour grid; a click on a cell shows its examples) at the end, or when the run is
interrupted. A survey documents; it does not judge: the exit code is 0 whenever it ran.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
import textwrap
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from fidelity._core.errors import ExitCode, UsageError
from fidelity._core.render import safe
from fidelity._report.card_render import card_hints, card_markdown
from fidelity._report.display import FAILURES, LETTERS

if TYPE_CHECKING:
    from fidelity._probe.observation import Observation
    from fidelity._report.card import Card
    from fidelity._report.card_records import CardExample, CardRow
    from probes import BuiltinTarget

__all__ = ["register", "run", "stable_chain"]


_LOOPBACK_PORT = re.compile(r"(127\.0\.0\.1|localhost|\[::1\]):\d+\b")


def stable_chain(name: str) -> str:
    """``name`` without the run-specific port of a loopback reflector, so cards compare.

    ``http POST http://127.0.0.1:40171/reflect`` becomes
    ``http POST http://127.0.0.1:<port>/reflect``.
    """
    return _LOOPBACK_PORT.sub(r"\1:<port>", name)


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
    p.add_argument(
        "--html",
        metavar="FILE",
        help="write the map as a self-contained HTML page (click a cell for its examples)",
    )
    p.add_argument(
        "--junit",
        metavar="FILE.xml",
        help="write JUnit XML for a CI system: a testsuite per chain, a testcase per family",
    )
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
    from fidelity._core.kinds import families_from_text

    return None if value is None else families_from_text(value, option="--families")


def _check_output(path: str | None, flag: str) -> None:
    from fidelity._report.document import writable

    if path is None or path == "-":
        return
    writable(path, flag)


def _write(path: str | None, text: str) -> None:
    from fidelity._report.document import write as write_atomic

    if path is None:
        return
    if path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    write_atomic(path, text)


def _save(
    args: argparse.Namespace,
    cards: Sequence[Card],
    *,
    final: bool,
    targets: Sequence[BuiltinTarget] = (),
    missing: Mapping[str, str] | None = None,
) -> None:
    from fidelity._report.card import cards_to_json

    if args.json is not None and (final or args.json != "-"):
        _write(args.json, cards_to_json(cards))
    if args.card is not None:
        _write(args.card, "\n".join(card_markdown(c) for c in cards))
    if args.junit is not None and final:
        from fidelity._sweep.junit import write_junit

        write_junit(args.junit, cards)
    if args.html is not None and final:
        from fidelity._report.html.survey import render_survey_html

        page = render_survey_html(
            cards,
            descriptions={t.name: t.description for t in targets},
            groups={t.name: t.group for t in targets},
            missing=missing,
        )
        _write(args.html, page)


def _list(targets: list[BuiltinTarget], out: TextIO) -> None:
    width = max(len(t.name) for t in targets)
    for t in targets:
        state = f"unavailable: {t.unavailable}" if t.unavailable else t.description
        print(f"{safe(t.name):<{width}}  {safe(state)}", file=out)


def run(args: argparse.Namespace) -> int:
    """Survey the chains; print the map; write the cards."""
    from probes.frontend import builtin_targets

    targets = builtin_targets()
    if args.list:
        _list(targets, sys.stdout)
        return ExitCode.OK
    selected = _select(targets, args.chains)
    families = _families(args.families)
    if args.examples < 0:
        raise UsageError(f"--examples {args.examples} must be 0 or more.")
    if args.seed is not None and args.seed < 0:
        raise UsageError(f"--seed {args.seed} must be 0 or more.")
    _check_output(args.json, "--json")
    _check_output(args.card, "--card")
    if args.html == "-":
        raise UsageError("--html needs a file name, e.g. --html survey.html.")
    _check_output(args.html, "--html")
    if args.junit == "-":
        raise UsageError("--junit needs a file name, e.g. --junit fidelity.xml.")
    _check_output(args.junit, "--junit")

    from fidelity._core.siblings import load

    strategies: Any = load("strategies")
    payloads = tuple(strategies.catalogue(families))
    seed = args.seed
    if args.examples and seed is None:
        import random

        seed = random.SystemRandom().randrange(2**32)

    runnable = [t for t in selected if not t.unavailable]
    skipped = [t for t in selected if t.unavailable]
    out = sys.stderr if args.json == "-" else sys.stdout
    unavailable = {t.name: t.unavailable for t in skipped}
    cards, failed = _survey_all(args, runnable, payloads, families, seed, unavailable=unavailable)
    _save(args, cards, final=True, targets=selected, missing={**unavailable, **dict(failed)})
    if not args.quiet:
        described = {t.name: t.description for t in runnable}
        _print_map(out, cards, described, payloads_count=len(payloads), seed=seed, skipped=skipped)
        for name, reason in failed:
            print(f"failed {safe(name)}: {safe(reason)}", file=out)
    return ExitCode.OK


def _survey_all(
    args: argparse.Namespace,
    runnable: list[BuiltinTarget],
    payloads: tuple[Any, ...],
    families: tuple[str, ...] | None,
    seed: int | None,
    *,
    unavailable: Mapping[str, str],
) -> tuple[list[Card], list[tuple[str, str]]]:
    from fidelity._survey.progress import Progress
    from fidelity._survey.result import Survey
    from fidelity._survey.run import survey

    cards: list[Card] = []
    failed: list[tuple[str, str]] = []
    per_chain = len(payloads) + args.examples
    with Progress(len(runnable) * per_chain, enabled=not args.quiet) as bar:
        for position, target in enumerate(runnable):
            collected: list[Observation] = []

            def seen(obs: Observation, into: list[Observation] = collected) -> None:
                into.append(obs)
                bar.advance()

            bar.advance(0, label=target.name)
            chain = target.name
            try:
                with target.open() as probe:
                    chain = stable_chain(probe.name)
                    result = survey(
                        probe,
                        payloads=payloads,
                        examples=args.examples,
                        seed=seed,
                        families=families,
                        name=target.name,
                        on_observation=seen,
                    )
                cards.append(dataclasses.replace(result, chain=chain).card())
            except KeyboardInterrupt:
                partial = Survey.of(collected, name=target.name, chain=chain, seed=seed)
                cards.append(partial.card().mark_incomplete())
                bar.close()
                later = {t.name: "the run was interrupted first." for t in runnable[position + 1 :]}
                missing = {**unavailable, **dict(failed), **later}
                _save(args, cards, final=True, targets=runnable, missing=missing)
                raise
            except Exception as exc:
                failed.append((target.name, f"{type(exc).__name__}: {exc}"))
                bar.advance(max(0, per_chain - len(collected)))
                continue
            _save(args, cards, final=False)
    return cards, failed


#: What each letter of the map means, in the order the legend lists them.
_LEGEND = (
    (".", "preserved", "every payload arrived byte for byte"),
    ("T", "transformed", "payloads arrived rewritten (kinds listed below)"),
    ("R", "rejected", "the chain refused payloads with an error"),
    ("L", "lost", "the call worked but the value was missing"),
    ("!", "timeout", "no answer in time"),
    ("X", "broken", "the chain itself failed"),
    ("M", "mixed", "some payloads one way, some another (counts below)"),
)
_WIDTH = 120
_DIRECTION_NAMES = {"request": "request path", "response": "response path"}


def _cell(row: CardRow | None) -> str:
    return "-" if row is None else LETTERS.get(row.outcome, "?")


def _print_map(
    out: TextIO,
    cards: Sequence[Card],
    described: Mapping[str, str],
    *,
    payloads_count: int,
    seed: int | None,
    skipped: Sequence[BuiltinTarget] = (),
) -> None:
    from fidelity._core.version import __version__
    from fidelity._report.outcomes import family_key

    # A chain this machine cannot run is said first, with what installs it.
    missing = [f"not surveyed: {safe(t.name)}: {safe(t.unavailable)}" for t in skipped]
    if not cards:
        print("\n".join([*missing, "no chain was surveyed."]), file=out)
        return
    print(
        f"param-fidelity {__version__} survey: {len(cards)} chains, "
        f"{payloads_count} catalogue payloads through each"
        + (f", seed {seed}" if seed is not None else ""),
        file=out,
    )
    for line in missing:
        print(line, file=out)
    numbers = [str(i + 1) for i in range(len(cards))]
    col = max(len(n) for n in numbers) + 1
    name_width = min(36, max(len(safe(c.name)) for c in cards))
    print("", file=out)
    print("Chains (each payload is sent through the chain and read back):", file=out)
    for n, card in zip(numbers, cards, strict=True):
        state = " (incomplete run)" if not card.complete else ""
        what = described.get(card.name) or card.facts.chain
        line = f"{n:>{col + 1}} {safe(card.name):<{name_width}}  {safe(what)}{state}"
        print(_clip(line, _WIDTH), file=out)

    families = sorted({r.family for c in cards for r in c.rows}, key=family_key)
    width = max([len(f) for f in families] + [6])
    per_block = max(1, (_WIDTH - width - 1) // col)
    print("", file=out)
    print(
        "What each chain (column) does to each hazard family (row), over the whole round trip:",
        file=out,
    )
    for first in range(0, len(cards), per_block):
        block = list(zip(numbers, cards, strict=True))[first : first + per_block]
        print("", file=out)
        print(f"{'family':<{width}} " + "".join(f"{n:>{col}}" for n, _ in block), file=out)
        for family in families:
            cells = "".join(f"{_cell(c.row(family)):>{col}}" for _, c in block)
            print(f"{safe(family):<{width}} {cells}", file=out)
    print("", file=out)
    for code, name, meaning in _LEGEND:
        print(f"  {code}  {name:<11}  {meaning}", file=out)
    print(f"  -  {'':<11}  family not surveyed", file=out)
    _print_kinds(out, cards, numbers)
    print("", file=out)
    print(
        "Per chain: the families it does not preserve, the kinds it shows, one smallest "
        "example each.",
        file=out,
    )
    for n, card in zip(numbers, cards, strict=True):
        _print_card(out, n, card)


def _print_kinds(out: TextIO, cards: Sequence[Card], numbers: Sequence[str]) -> None:
    """Which chains show which kind: the rewrites of this environment at a glance."""
    seen: dict[str, list[str]] = {}
    for n, card in zip(numbers, cards, strict=True):
        for kind in sorted(card.kinds):
            seen.setdefault(kind, []).append(n)
    print("", file=out)
    if not seen:
        print("No chain rewrote any payload.", file=out)
        return
    print("Rewrites seen (kind: chain numbers):", file=out)
    width = max(len(k) for k in seen)
    for kind in sorted(seen):
        print(_clip(f"  {kind:<{width}}  {' '.join(seen[kind])}", _WIDTH), file=out)


def _print_card(out: TextIO, number: str, card: Card) -> None:
    print("", file=out)
    changed = [r for r in card.rows if r.outcome != "preserved"]
    overall = {r.family: r for r in changed if r.direction == "round_trip"}
    print(f"{number}. {safe(card.name)}", file=out)
    if not changed:
        print("   preserves every family surveyed", file=out)
        return
    for row in changed:
        if row.direction != "round_trip":
            whole = overall.get(row.family)
            if whole is not None and (whole.outcome, whole.kinds) == (row.outcome, row.kinds):
                continue  # the same as the round trip: nothing new to say
            where = f"{row.family}, {_DIRECTION_NAMES.get(row.direction, row.direction)}"
        else:
            where = row.family
        kinds = ", ".join(row.kinds)
        line = f"   {safe(where):<14} {_outcome(row)}" + (f": {kinds}" if kinds else "")
        print(_clip(line, _WIDTH), file=out)
        if row.examples:
            example = row.examples[0]
            print(_clip(f"   {'':<14}   e.g. {_example(example)}", _WIDTH), file=out)
    kept = sum(1 for r in card.rows if r.outcome == "preserved" and r.direction == "round_trip")
    if kept:
        print(f"   {'':<14} {kept} other families preserved", file=out)
    for hint in card_hints(card):
        print(textwrap.fill(hint.line(), _WIDTH, initial_indent="   ",
                            subsequent_indent="         "), file=out)  # fmt: skip


def _outcome(row: CardRow) -> str:
    if row.outcome == "mixed":
        return ", ".join(f"{n} {s}" for s, n in row.statuses)
    return f"all {row.count} {row.outcome}" if row.count > 1 else f"1 {row.outcome}"


def _example(example: CardExample) -> str:
    """A terminal-safe example: the changed segment as code points, or why it failed."""
    from fidelity._report.outcomes import Example
    from fidelity._report.terminal import example_text

    sent = example.sent.value()
    assert isinstance(sent, str)
    if example.key in FAILURES:
        message = f"{example.error_type}: {example.error}" if example.error_type else example.error
        return f"{safe(example.payload_id)} {_hazard(sent)} {example.key}: {safe(message.strip())}"
    received = None if example.received is None else example.received.value()
    shown = example_text(
        Example(
            key=example.key,
            payload_id=example.payload_id,
            sent=sent,
            received=received,
            error_type=example.error_type,
            error=example.error,
        )
    )
    return f"{example.key}: {shown}"


def _hazard(text: str) -> str:
    """The code points that make a payload special (not printable ASCII), up to four."""
    special = list(dict.fromkeys(c for c in text if not (c.isascii() and c.isprintable())))
    if not special:
        return f"({len(text)} ASCII characters)"
    shown = " ".join(f"U+{ord(c):04X}" for c in special[:4])
    return f"({shown}{' ...' if len(special) > 4 else ''})"


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
