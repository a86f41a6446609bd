"""What a real chain or stack did to a value, checked against the kinds ``compare``
must name."""

from __future__ import annotations

from collections.abc import Callable

from fidelity import compare

__all__ = ["Build", "Case", "assert_classified", "assert_found_anywhere"]

#: Runs the chain: what was sent, and what came back (text, or bytes to decode).
Build = Callable[[], tuple[str | bytes, object]]
#: A label, the chain, and the kind sets ``compare`` may name (one of them, exactly).
Case = tuple[str, Build, tuple[set[str], ...]]


def assert_classified(label: str, build: Build, expected: tuple[set[str], ...]) -> None:
    """The chain rewrote the value; ``compare`` names exactly one of the ``expected``
    kind sets, and calls the difference explained exactly when no kind is unknown."""
    sent, received = build()
    c = compare(sent, received)
    assert not c.faithful, f"{label}: the chain did not rewrite the value"
    assert c.kinds in expected, c.render()
    assert c.explained == ("unknown" not in c.kinds), c.render()


def assert_found_anywhere(
    position: str, hazard: str, rewrite: Callable[[str], str], kind: str
) -> None:
    """``rewrite`` of a plain text holding ``hazard`` at ``position`` (start, middle or
    end) is named exactly ``kind``, and explained."""
    body = "plain text her"
    sent = {"start": hazard + body, "middle": body[:5] + hazard + body[5:], "end": body + hazard}[
        position
    ]
    c = compare(sent, rewrite(sent))
    assert c.kinds == {kind}, c.render()
    assert c.explained, c.render()
