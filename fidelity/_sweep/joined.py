"""The outputs of several servers' cards together: what ``fidelity probe --config``
writes, and what ``fidelity card PART.json... --update DOC.md --junit ALL.xml`` writes
from the parts of a run split across CI jobs: the same bytes either way.

The map of servers x families, the JSON collection, the card document (a block per
card, in order) and the JUnit file are functions of the cards alone, in the order
given, with no timestamps.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from fidelity._core.render import safe
from fidelity._report.card_render import card_dict, card_markdown

if TYPE_CHECKING:
    from fidelity._report.card import Card

__all__ = [
    "FAILED_CASE",
    "collection",
    "read_parts",
    "read_unmeasured",
    "servers_map",
    "write_cards",
]

#: The case of a server that could not be surveyed at all (it did not start...).
FAILED_CASE = "(server)"


def servers_map(cards: Sequence[Card], failed: Sequence[tuple[str, str]] = ()) -> str:
    """The map of servers (the cards' targets) x families: each cell the letter of the
    family's outcome over the server's parameters (``M`` when they differ)."""
    from fidelity._report.display import LETTERS
    from fidelity._report.outcomes import family_key

    outcomes: dict[str, dict[str, set[str]]] = {}
    for card in cards:
        target = card.facts.setup.target if card.facts.setup is not None else card.name
        row = outcomes.setdefault(target, {})
        for r in card.rows:
            row.setdefault(r.family, set()).add(r.outcome)
    families = sorted({f for row in outcomes.values() for f in row}, key=family_key)
    width = max([len("server"), *(len(safe(t)) for t in outcomes)])
    lines = [" ".join([f"{'server':<{width}}", *families])]
    for target, row in outcomes.items():
        cells = []
        for family in families:
            seen = row.get(family, set())
            letter = "-" if not seen else LETTERS.get(seen.pop() if len(seen) == 1 else "mixed")
            cells.append(f"{letter or '?':<{len(family)}}")
        lines.append(" ".join([f"{safe(target):<{width}}", *cells]).rstrip())
    lines += [f"failed: {safe(server)}: {safe(sentence)}" for server, sentence in failed]
    return "\n".join(lines) + "\n"


def collection(cards: Sequence[Card], failed: Sequence[tuple[str, str]] = ()) -> str:
    """The JSON collection of the cards, with the servers that could not be surveyed
    (``failed``: (server, sentence)): what ``--json`` of ``--config`` writes."""
    from fidelity._report.json_doc import COLLECTION, SCHEMA_VERSION, dump

    document = {
        "schema_version": SCHEMA_VERSION,
        "record": COLLECTION,
        "cards": [card_dict(c) for c in cards],
        "failed": [{"server": server, "error": sentence} for server, sentence in failed],
    }
    return dump(document)


def write_cards(
    cards: Sequence[Card],
    *,
    json_path: str | None = None,
    card_path: str | None = None,
    junit_path: str | None = None,
    failed: Sequence[tuple[str, str]] = (),
) -> None:
    """Write the cards' JSON collection, their blocks in the document at ``card_path``
    (each in the block of its name; every other byte kept) and their JUnit, each on
    its own; the first failure is raised after."""
    from fidelity._report import document
    from fidelity._sweep.junit import write_junit
    from fidelity._sweep.outputs import write_each

    steps: list[Callable[[], object]] = []
    if json_path is not None:
        text = collection(cards, failed)
        steps.append(lambda: document.write(json_path, text, "--json"))
    if card_path is not None:

        def edit(text: bytes) -> bytes:
            for card in cards:
                text = document.replace(text, card.name, card_markdown(card))
            return text

        steps.append(lambda: document.update(card_path, edit, "--card"))
    if junit_path is not None:
        failures = [(server, FAILED_CASE, sentence) for server, sentence in failed]
        steps.append(lambda: write_junit(junit_path, cards, failures))
    write_each(steps)


def read_parts(texts: Sequence[bytes]) -> list[tuple[str, str]]:
    """The servers a part records as failed ((server, sentence), in order): the
    ``failed`` list of a collection ``fidelity probe --config`` wrote."""
    from fidelity._report.json_doc import load

    failed: list[tuple[str, str]] = []
    for text in texts:
        raw = load(text)
        items = raw.get("failed", []) if isinstance(raw, dict) else []
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict):
                server, error = item.get("server"), item.get("error")
                if isinstance(server, str) and isinstance(error, str):
                    failed.append((safe(server), safe(error)))
    return failed


def read_unmeasured(texts: Sequence[bytes]) -> list[tuple[str, str, str]]:
    """The rows a part records as measuring nothing ((target, case, sentence), in
    order): the ``unmeasured_rows`` list of a collection an ``--all-tools`` or ``--openapi``
    run wrote, each an ``<error>`` case of the JUnit file, as in the run's own."""
    from fidelity._report.json_doc import load

    found: list[tuple[str, str, str]] = []
    for text in texts:
        raw = load(text)
        items = raw.get("unmeasured_rows", []) if isinstance(raw, dict) else []
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict):
                target, case, error = item.get("target"), item.get("case"), item.get("error")
                if isinstance(target, str) and isinstance(case, str) and isinstance(error, str):
                    found.append((safe(target), safe(case), safe(error)))
    return found
