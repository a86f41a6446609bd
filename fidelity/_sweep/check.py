"""``fidelity probe ... --check DOC.md``: a deployed endpoint against its committed card.

The card in a document records what the chain does, accepted rewrites included; the
check probes, then compares the new card with the block of the same name row by row,
as ``fidelity card --check`` does, and never writes the document. It exits 1 when a row
drifted (a kind appeared or disappeared, an outcome changed, a row is new or missing)
and 0 when the endpoint still behaves as its card says, whatever rewrites the card
documents. The document is read before anything is sent, and the block is looked up
as soon as the card's name is known (after the probe found the payload's argument),
so a wrong path or name costs no payload.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TextIO

from fidelity._core.errors import UsageError
from fidelity._core.render import safe

if TYPE_CHECKING:
    from fidelity._report.card import Card

__all__ = ["check_card", "read_document", "require_block"]


def read_document(path: str) -> bytes:
    """The document's bytes: it must exist, be UTF-8 and not too large (``UsageError``)."""
    from fidelity._report import document

    return document.read(path, "--check document")


def require_block(path: str, name: str, document: bytes | None = None) -> None:
    """Refuse to probe when the document (``document``: its bytes, read already) has no
    card block named ``name``."""
    from fidelity._report import document as card_document
    from fidelity._report.card_table import rows_from_markdown

    block = card_document.find(read_document(path) if document is None else document, name)
    if block is None:
        raise UsageError(
            f"--check {safe(path)} has no block named {safe(name)!r}; write it first with "
            f"--card {safe(path)} (or fidelity card RESULT.json --update {safe(path)})."
        )
    if rows_from_markdown(block.content) is None:
        raise UsageError(
            f"--check {safe(path)}: the block {safe(name)!r} holds no card table; rewrite "
            f"it with --card {safe(path)}."
        )


def check_card(path: str, card: Card, out: TextIO, document: bytes | None = None) -> int:
    """Compare ``card`` with its block in the document at ``path`` (``document``: its
    bytes, read already); print the outcome to ``out``; return 1 on drift, else 0."""
    from fidelity._report.document import check_blocks

    data = read_document(path) if document is None else document
    return check_blocks(path, data, ((card.name, card),), out)
