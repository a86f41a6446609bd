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
    p.add_argument("result", metavar="RESULT.json", help="a JSON result ('-' reads stdin)")
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
    p.set_defaults(run=run)


def _cards(args: argparse.Namespace) -> tuple[tuple[str, Card], ...]:
    from fidelity._report.card import cards_from_json
    from fidelity._report.results import read_limited

    cards = cards_from_json(
        read_limited(args.result, "result", limit=MAX_RESULT_BYTES, dash_is_stdin=True)
    )
    if args.name is not None and len(cards) != 1:
        raise UsageError(
            f"--name applies to a result with one card; {args.result} holds {len(cards)}."
        )
    for card in cards:
        if not card.complete:
            print(
                f"fidelity: note: the card {safe(card.name)!r} comes from an interrupted run.",
                file=sys.stderr,
            )
    return tuple((args.name or card.name, card) for card in cards)


def _update(path: str, named: tuple[tuple[str, Card], ...]) -> int:
    from fidelity._report import document

    def edit(text: bytes) -> bytes:
        for name, card in named:
            text = document.replace(text, name, card.to_markdown())
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
        text = card.describe()
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
    named = _cards(args)
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
        text = document.replace(text, name, card.to_markdown())
    sys.stdout.write(text.decode("utf-8"))
    sys.stdout.flush()
    return 0
