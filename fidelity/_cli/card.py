"""``fidelity card RESULT.json``: print, update or check a contract card's Markdown.

Without options the card's Markdown goes to stdout. ``--update DOC.md`` rewrites only
the block between ``<!-- fidelity:begin NAME -->`` and ``<!-- fidelity:end NAME -->``
(created at the end of the document when absent; every other byte untouched).
``--check DOC.md`` exits 1 and lists the changed rows when the block no longer
matches the result. ``--describe`` prints, per parameter, the sentences for a model
(what happens to it on the way, to paste into the tool's description), and on stderr
where it was measured. A result
holding several cards (``fidelity survey --json``) is handled card by card, each in
the block of its own name.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any, TextIO

from fidelity._core.errors import UsageError
from fidelity._core.render import safe
from fidelity._report.card_render import card_describe, card_markdown

if TYPE_CHECKING:
    from fidelity._report.card import Card

__all__ = ["MAX_RESULT_BYTES", "check_blocks", "register", "run"]

#: Result files larger than this are refused (a card of the whole catalogue is far smaller).
MAX_RESULT_BYTES = 256 * 1024 * 1024


def register(sub: Any) -> None:
    """Add the ``card`` subcommand."""
    p: argparse.ArgumentParser = sub.add_parser(
        "card",
        help="print a result's contract card, or update/check the card block in a document",
        description=(
            "Print the Markdown contract card of a JSON result (from fidelity probe --json "
            "or fidelity survey --json), rewrite the card's block in a document, or check "
            "that the document still matches."
        ),
    )
    p.add_argument(
        "result",
        nargs="+",
        metavar="RESULT.json",
        help="a JSON result ('-' reads stdin); several (the parts of a run split across CI "
        "jobs) are joined in the order given",
    )
    action = p.add_mutually_exclusive_group()
    action.add_argument(
        "--update", metavar="DOC.md", help="rewrite the card's block in DOC.md (created if absent)"
    )
    action.add_argument(
        "--check",
        metavar="DOC.md",
        help="exit 1 and show the changed rows when DOC.md's block no longer matches",
    )
    action.add_argument(
        "--describe",
        action="store_true",
        help="print what happens to each parameter in a few sentences for a model, to paste "
        "into the tool's description (nothing for a faithful parameter)",
    )
    p.add_argument(
        "--name", help="block name (default: the card's name; only for a single-card result)"
    )
    p.add_argument(
        "--junit",
        metavar="FILE.xml",
        help="also write the cards' JUnit XML for a CI system (as fidelity probe --junit does)",
    )
    p.set_defaults(run=run)


def _cards(args: argparse.Namespace) -> tuple[tuple[str, Card], ...]:
    from fidelity._report.card import cards_from_json
    from fidelity._report.results import read_limited

    if args.result.count("-") > 1:
        raise UsageError("standard input ('-') can be read once; name it once.")
    cards = tuple(
        card
        for result in args.result
        for card in cards_from_json(
            read_limited(result, "result", limit=MAX_RESULT_BYTES, dash_is_stdin=True)
        )
    )
    if args.name is not None and len(cards) != 1:
        shown = " ".join(safe(r) for r in args.result)
        raise UsageError(f"--name applies to a result with one card; {shown} holds {len(cards)}.")
    for card in cards:
        if not card.complete:
            print(
                f"fidelity: note: the card {safe(card.name)!r} comes from an interrupted run.",
                file=sys.stderr,
            )
    return tuple((args.name or card.name, card) for card in cards)


def _texts(args: argparse.Namespace) -> list[bytes]:
    from fidelity._report.results import read_limited

    return [read_limited(r, "result", limit=MAX_RESULT_BYTES) for r in args.result if r != "-"]


def _join(args: argparse.Namespace, named: tuple[tuple[str, Card], ...]) -> int:
    """The parts of a run split across CI jobs, joined: the map of servers x families,
    the document and the JUnit that one ``fidelity probe --config`` run writes."""
    from fidelity._sweep.joined import read_parts, servers_map, write_cards

    cards = [card for _, card in named]
    failed = read_parts(_texts(args))
    sys.stdout.write(servers_map(cards, failed))
    write_cards(cards, card_path=args.update, junit_path=args.junit, failed=failed)
    return 0


def _update(path: str, named: tuple[tuple[str, Card], ...]) -> int:
    from fidelity._report import document

    def edit(text: bytes) -> bytes:
        for name, card in named:
            text = document.replace(text, name, card_markdown(card))
        return text

    document.update(path, edit, "document", limit=MAX_RESULT_BYTES)
    names = ", ".join(safe(n) for n, _ in named)
    print(f"updated block {names} in {safe(path)}.", file=sys.stderr)
    return 0


def _check(path: str, named: tuple[tuple[str, Card], ...]) -> int:
    from fidelity._report import document

    text = document.read(path, "document", limit=MAX_RESULT_BYTES, dash_is_stdin=True)
    return check_blocks(path, text, named, sys.stdout)


def check_blocks(
    path: str, document: bytes, named: tuple[tuple[str, Card], ...], out: TextIO
) -> int:
    """Compare each card with the block of its name in ``document`` (read from
    ``path``); see :func:`fidelity._report.document.check_blocks`."""
    from fidelity._report.document import check_blocks as check

    return check(path, document, named, out)


def _describe(named: tuple[tuple[str, Card], ...]) -> int:
    """The sentences of each parameter on stdout, one line each; a note on stderr for
    the faithful ones."""
    for _, card in named:
        text = card_describe(card)
        arrived = ("preserved", "transformed")
        if text:
            print(text)
            if card.facts.environment is not None:
                where = card.facts.environment.brief()
                print(f"fidelity: {safe(card.name)}: measured on {where}.", file=sys.stderr)
        elif not any(o.status in arrived for o in card.observations):
            # No value came back: a run that measured nothing says nothing about the way.
            print(
                f"fidelity: {safe(card.name)}: nothing was measured (no payload came back), "
                "so there is nothing to tell the model; no sentence.",
                file=sys.stderr,
            )
        else:
            print(
                f"fidelity: {safe(card.name)}: nothing happens to it on the way; no sentence.",
                file=sys.stderr,
            )
    return 0


def run(args: argparse.Namespace) -> int:
    """Print, update, check or describe; return the exit code."""
    if args.junit is not None:
        from fidelity._report.results import writable

        if args.junit == "-":
            raise UsageError("--junit needs a file name, e.g. --junit fidelity.xml.")
        writable(args.junit, "--junit")
    named = _cards(args)
    if len(args.result) > 1 and args.update is not None:
        return _join(args, named)
    if args.junit is not None:
        from fidelity._sweep.joined import FAILED_CASE, read_parts, read_unmeasured
        from fidelity._sweep.junit import write_junit

        texts = _texts(args)
        failed = [(s, FAILED_CASE, e) for s, e in read_parts(texts)] + read_unmeasured(texts)
        write_junit(args.junit, [card for _, card in named], failed)
    if args.describe:
        return _describe(named)
    if args.update is not None:
        return _update(args.update, named)
    if args.check is not None:
        return _check(args.check, named)
    from fidelity._report import document

    # The blocks as they would appear in a document, markers included, ready to paste.
    text = b""
    for name, card in named:
        text = document.replace(text, name, card_markdown(card))
    sys.stdout.write(text.decode("utf-8"))
    sys.stdout.flush()
    return 0
