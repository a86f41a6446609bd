"""Cards: drift against a committed card, order-independent merges, safe Markdown."""

from __future__ import annotations

import dataclasses
import itertools
import re

import pytest
from _needs import need_module
from _support.servers import http_server
from _support.terminal import assert_terminal_safe

import fidelity
import probes
from fidelity import Card, Payload, UsageError
from fidelity._report.card_records import CardRow
from fidelity._report.card_table import rows_from_markdown
from fidelity._report.drift import drift_lines, row_changes

PAYLOADS = (
    Payload(id="newlines/crlf", text="a\r\nb", families=("newlines",)),
    Payload(id="quotes/curly", text="“q”", families=("quotes",)),
    Payload(id="separators/nel", text="a\x85b", families=("separators",)),
    Payload(id="control/esc", text="a\x1b[31mred|`b`", families=("control",)),
)


def _card(chain: probes.ChainProbe, payloads: tuple[Payload, ...] = PAYLOADS) -> Card:
    return fidelity.survey(chain, payloads).card(name="edit.old_string")


def test_an_equal_card_has_no_drift_whatever_the_date_and_version() -> None:
    card = _card(probes.chain(probes.text_file()))
    later = dataclasses.replace(
        card, facts=dataclasses.replace(card.facts, date="2099-01-01", version="9.9")
    )
    assert later.drift(card) == ()


def test_drift_names_each_changed_row() -> None:
    committed = _card(probes.chain(probes.json()))
    current = _card(probes.chain(probes.text_file()))
    lines = current.drift(committed)
    assert lines
    assert any(
        line.startswith("newlines (round trip): outcome preserved -> transformed") for line in lines
    )
    assert any("newlines (round trip): kind" in line and "appeared" in line for line in lines)
    back = committed.drift(current)
    assert any("disappeared" in line for line in back)
    assert all("quotes" not in line for line in lines)


def test_drift_reports_rows_that_appear_or_vanish() -> None:
    full = _card(probes.chain(probes.json()))
    fewer = _card(probes.chain(probes.json()), PAYLOADS[:2])
    assert fewer.drift(full) == (
        "control (round trip): no longer surveyed (was preserved (1))",
        "separators (round trip): no longer surveyed (was preserved (1))",
    )
    assert full.drift(fewer) == (
        "control (round trip): new row, preserved (1)",
        "separators (round trip): new row, preserved (1)",
    )
    assert drift_lines(fewer.rows, full.rows)[:3] == (
        "    control (round trip): no longer surveyed (was preserved (1))",
        "        committed: preserved (1); kinds: none",
        "        now:       (no row)",
    )
    assert drift_lines(full.rows, fewer.rows)[3:] == (
        "    separators (round trip): new row, preserved (1)",
        "        committed: (no row)",
        "        now:       preserved (1); kinds: none",
    )


#: One quotes row that stays "mixed (1 preserved, 1 transformed)" through both chains below.
SAME_OUTCOME = (
    Payload(id="quotes/curly", text="“q”", families=("quotes",)),
    Payload(id="quotes/digits", text="123", families=("quotes",)),
)


def straighten(text: str) -> str:
    """Typographic double quotes made ASCII (str.translate: hand-made, not a library)."""
    return text.translate({0x201C: '"', 0x201D: '"'})


def straighten_then_upper(text: str) -> str:
    """The same, then str.upper: a release that also upper-cases the value."""
    return straighten(text).upper()


def test_kinds_that_change_within_an_unchanged_outcome_are_drift() -> None:
    committed = fidelity.survey(straighten, SAME_OUTCOME).card(name="edit")
    current = fidelity.survey(straighten_then_upper, SAME_OUTCOME).card(name="edit")
    before, after = committed.row("quotes", "round_trip"), current.row("quotes", "round_trip")
    assert before is not None
    assert after is not None
    assert (before.outcome, before.statuses) == (after.outcome, after.statuses)
    assert before.outcome == "mixed"
    assert current.drift(committed) == ("quotes (round trip): kind unicode.case appeared",)
    assert committed.drift(current) == ("quotes (round trip): kind unicode.case disappeared",)
    shown = drift_lines(current.rows, committed.rows)
    assert shown[:3] == (
        "    quotes (round trip): kind unicode.case appeared",
        "        committed: mixed (1 preserved, 1 transformed); kinds: quote.straighten",
        "        now:       mixed (1 preserved, 1 transformed); kinds: quote.straighten, "
        "unicode.case",
    )
    assert shown[3].startswith("        e.g. unicode.case: ")
    assert len(shown) == 4


def test_the_markdown_table_reads_back_what_drift_compares() -> None:
    card = fidelity.survey(straighten_then_upper, (*SAME_OUTCOME, *PAYLOADS)).card(name="e")
    rows = rows_from_markdown(card.to_markdown())
    assert rows is not None
    assert any(r.outcome == "mixed" for r in rows)
    assert rows == tuple(dataclasses.replace(r, examples=()) for r in card.rows)


def _row(family: str, direction: str = "round_trip") -> CardRow:
    return CardRow(
        family=family,
        direction=direction,
        outcome="preserved",
        count=1,
        statuses=(("preserved", 1),),
        kinds=(),
        examples=(),
    )


def test_changed_rows_come_in_family_then_direction_order() -> None:
    # Known families in specification order, then others by name; per family the
    # directions in Direction order, then others by name, whatever order they came in.
    rows = (
        _row("scripts"),
        _row("my-family"),
        _row("quotes", "sideways-z"),
        _row("quotes", "response"),
        _row("quotes", "sideways-a"),
        _row("quotes", "round_trip"),
        _row("bidi", "request"),
        _row("quotes", "request"),
    )
    lines = row_changes(rows, ())
    assert [line.partition(": ")[0] for line in lines] == [
        "quotes (round trip)",
        "quotes (request)",
        "quotes (response)",
        "quotes (sideways-a)",
        "quotes (sideways-z)",
        "bidi (request)",
        "scripts (round trip)",
        "my-family (round trip)",
    ]
    assert row_changes((), rows) == tuple(
        line.replace("new row, preserved (1)", "no longer surveyed (was preserved (1))")
        for line in lines
    )


LONG = "“" + "a" * 30 + "”"


def release(text: str) -> object:
    """A new release of a chain: straightens quotes and NBSPs, refuses NUL with a long
    message, and answers a pipe with a number (hand-made, one rewrite per payload)."""
    if "\x00" in text:
        raise ValueError("refused: " + "y" * 100)
    if "|" in text:
        return len(text)
    return text.translate({0x201C: '"', 0x201D: '"', 0xA0: " "})


def test_drift_lines_show_each_changed_row_with_its_examples() -> None:
    payloads = (
        Payload(id="quotes/long", text=LONG, families=("quotes",)),
        Payload(id="bidi/rlo", text="a\u202eb", families=("bidi",)),
        Payload(id="control/nul", text="b\x00c", families=("control",)),
        Payload(id="coercion/pipe", text="a|b", families=("coercion",)),
    )
    new = Payload(id="whitespace/nbsp", text="a\u00a0b", families=("whitespace",))
    committed = fidelity.survey(lambda t: t, payloads).card(name="e")
    current = fidelity.survey(release, (payloads[0], *payloads[2:], new)).card(name="e")
    a15 = " U+0061" * 15
    assert drift_lines(current.rows, committed.rows, indent="") == (
        "quotes (round trip): outcome preserved -> transformed; kind quote.straighten appeared",
        "    committed: preserved (1); kinds: none",
        "    now:       transformed (1); kinds: quote.straighten",
        f"    e.g. quote.straighten: “{'a' * 15}... (16 more) [U+201C{a15}] -> "
        f'"{"a" * 15}... (16 more) [U+0022{a15}]',
        "whitespace (round trip): new row, transformed (1)",
        "    committed: (no row)",
        "    now:       transformed (1); kinds: whitespace.to_space",
        "    e.g. whitespace.to_space: a[U+00A0 NO-BREAK SPACE]b [U+0061 U+00A0 U+0062] -> "
        "a b [U+0061 U+0020 U+0062]",
        "bidi (round trip): no longer surveyed (was preserved (1))",
        "    committed: preserved (1); kinds: none",
        "    now:       (no row)",
        "control (round trip): outcome preserved -> rejected",
        "    committed: preserved (1); kinds: none",
        "    now:       rejected (1); kinds: none",
        "    e.g. rejected: b[U+0000 NULL]c [U+0062 U+0000 U+0063] "
        f"(ValueError: refused: {'y' * 59})",
        "coercion (round trip): outcome preserved -> transformed; kind unknown appeared",
        "    committed: preserved (1); kinds: none",
        "    now:       transformed (1); kinds: unknown",
        "    e.g. unknown: a|b [U+0061 U+007C U+0062] -> int 3",
    )


def test_a_row_that_broke_shows_its_count_and_error() -> None:
    need_module("starlette")
    quotes = (Payload(id="quotes/curly", text="“q”", families=("quotes",)),)
    committed = fidelity.survey(lambda t: t, quotes).card(name="e")
    with http_server("drop") as url, probes.http(url, timeout=5) as probe:
        current = fidelity.survey(probe, quotes).card(name="e")
    lines = drift_lines(current.rows, committed.rows, indent="")
    assert lines[:3] == (
        "quotes (round trip): outcome preserved -> broken",
        "    committed: preserved (1); kinds: none",
        "    now:       broken (1); kinds: none",
    )
    assert lines[3].startswith("    e.g. broken: “q” [U+201C U+0071 U+201D] (")
    assert len(lines) == 4


def test_merge_is_independent_of_order() -> None:
    chain = probes.chain(probes.yaml())
    shards = [_card(chain, PAYLOADS[i : i + 1]) for i in range(len(PAYLOADS))]
    whole = _card(chain)
    merged = {Card.merge(order).to_json() for order in itertools.permutations(shards)}
    assert len(merged) == 1
    result = Card.merge(shards)
    assert result.rows == whole.rows
    assert result.observations == whole.observations
    assert result.facts.catalogue_size == len(PAYLOADS)
    assert Card.merge([whole, whole]).observations == whole.observations


def test_merge_refuses_mixed_chains_and_names() -> None:
    json_card = _card(probes.chain(probes.json()))
    csv_card = _card(probes.chain(probes.csv()))
    with pytest.raises(UsageError, match="different chains"):
        Card.merge([json_card, csv_card])
    renamed = dataclasses.replace(json_card, name="other")
    with pytest.raises(UsageError, match="name="):
        Card.merge([json_card, renamed])
    assert Card.merge([json_card, renamed], name="both").name == "both"
    with pytest.raises(UsageError):
        Card.merge([])
    assert not Card.merge([json_card, json_card.mark_incomplete()]).complete


def test_markdown_is_deterministic_and_safe() -> None:
    card = _card(probes.chain(probes.yaml()))
    text = card.to_markdown()
    assert text == _card(probes.chain(probes.yaml())).to_markdown()
    assert_terminal_safe(text)
    table = [line for line in text.splitlines() if line.startswith("|")]
    header = table[0]
    assert header.startswith("| family | direction | outcome | kinds |")
    # Every table row has exactly as many unescaped cell separators as the header.
    count = len(re.findall(r"(?<!\\)\|", header))
    assert all(len(re.findall(r"(?<!\\)\|", line)) == count for line in table)
    separators = next(line for line in table if line.startswith("| separators"))
    assert "transformed" in separators
    assert "U+0085" in separators
    assert "[U+0085 NEXT LINE]" in separators.replace("\\", "")
    assert "param-fidelity" in text
    assert "begin" not in text.lower()
