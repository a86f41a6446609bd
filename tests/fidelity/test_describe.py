"""A sentence for the model: what a parameter goes through, in a few plain sentences
that a model can act on; none for a faithful parameter; deterministic; short."""

from __future__ import annotations

import dataclasses
import unicodedata

import pytest

import fidelity
import probes
from fidelity import Card
from fidelity._report.describe import LIMIT, MODEL_SENTENCES, describe
from fidelity._report.rewrites import Rewrite


def test_a_faithful_parameter_gets_no_sentence() -> None:
    card = fidelity.survey(lambda s: s).card(name="echo.text")
    assert card.describe() == ""


def test_the_sentence_says_what_the_chain_does() -> None:
    chain = probes.chain(probes.json(ensure_ascii=False), probes.text_file())
    card = fidelity.survey(chain, families=["newlines", "quotes"]).card(name="notes.body")
    assert card.describe() == (
        "notes.body: CR and CRLF line breaks become LF; expect LF line endings."
    )


def test_quotes_straightened_on_the_way_in_name_the_code_points_seen() -> None:
    straighten = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'"})

    def tool(value: str) -> str:
        return value.translate(straighten)

    card = fidelity.survey(tool, families=["quotes", "scripts"]).card(name="old_string")
    assert card.describe() == (
        "old_string: typographic quotes (U+2018 U+2019 U+201C U+201D) become straight "
        'quotes; copy text with straight quotes, or expect "no match".'
    )


def test_the_same_result_gives_the_same_text() -> None:
    def tool(value: str) -> str:
        return unicodedata.normalize("NFKC", value).replace("\r\n", "\n").strip()

    first = fidelity.survey(tool, families=["compatibility", "newlines", "whitespace"])
    again = fidelity.survey(tool, families=["compatibility", "newlines", "whitespace"])
    text = first.card(name="p").describe()
    assert text
    assert text == again.card(name="p").describe()
    # Read back from its JSON: the same words.
    card = first.card(name="p")
    assert Card.from_json(card.to_json()).describe() == text
    # Observations in another order: the same words.
    shuffled = fidelity.Survey.of(reversed(first.observations), name="p")
    assert shuffled.card().describe() == text


def test_many_rewrites_stay_under_the_limit_in_a_few_sentences() -> None:
    def tool(value: str) -> str:
        folded = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode()
        return " ".join(folded.lower().split())[:40]

    card = fidelity.survey(tool).card(name="a_rather_long_parameter_name.with.a.path[0]")
    text = card.describe()
    assert len(fidelity.KINDS) > 4
    assert 0 < len(text) <= LIMIT
    # The long name leaves room for two rewrites said in full; the kinds they leave
    # out are named in a fourth sentence, most dangerous first, as many as fit (the
    # cap of four sentences is pinned where five would fit, in
    # test_report_regressions.py).
    assert text.count(". ") + 1 == 4
    assert ". Also changed: " in text
    assert text.startswith("a_rather_long_parameter_name.with.a.path[0]: ")
    assert text.isascii()


def test_refusals_are_said_after_the_rewrites() -> None:
    def tool(value: str) -> str:
        if "\x00" in value:
            raise ValueError("NUL is not allowed")
        return value.replace("\r\n", "\n")

    text = (
        fidelity.survey(tool, families=["nul", "newlines", "surrogates"])
        .card(name="body")
        .describe()
    )
    assert text == (
        "body: CRLF line breaks become LF; expect LF line endings. Values with U+0000 are "
        "refused with an error; avoid them."
    )


@pytest.mark.parametrize(
    ("direction", "verb"),
    [("request", "arrive as"), ("response", "come back as"), ("round_trip", "become")],
)
def test_the_verb_follows_the_direction(direction: str, verb: str) -> None:
    text = describe("p", [Rewrite(kind="whitespace.to_space", direction=direction, sent="\u00a0",
                                  received=" ")])  # fmt: skip
    assert f"(U+00A0) {verb} plain spaces" in text
    assert text.startswith("p: in answers, " if direction == "response" else "p: special")


def test_a_hostile_name_is_shown_safely() -> None:
    text = describe("evil\u202e\x1b[2J", [Rewrite(kind="bom.removed")])
    assert "\u202e" not in text
    assert "\x1b" not in text
    assert text.startswith("evil[U+202E RIGHT-TO-LEFT OVERRIDE]")


def test_every_sentence_is_plain_and_short() -> None:
    detail = "3 chars, 3 UTF-8 bytes, 3 UTF-16 units"
    for kind, (_, advice) in MODEL_SENTENCES.items():
        sentence = describe("p", [Rewrite(kind=kind, detail=detail, sent="\u201c", received='"')])
        assert sentence.isascii(), kind
        assert sentence.endswith("."), kind
        assert len(sentence) < 140, kind
        assert advice in sentence, kind
        assert "{" not in sentence, kind


def test_a_rewrite_seen_through_a_read_tool_is_placed_on_the_chain() -> None:
    from fidelity._probe.setup import ProbeSetup

    chain = probes.chain(probes.json(ensure_ascii=False), probes.text_file())
    card = fidelity.survey(chain, families=["newlines"]).card(name="write_file.content")
    setup = ProbeSetup(
        transport="mcp stdio", target="srv", tool="write_file", param="content", read="text"
    )
    assert card.with_setup(setup).describe().startswith("content: CR and CRLF")
    read_back = dataclasses.replace(setup, read_tool="read_file")
    # The write may have kept CRLF and the read turned it into LF: never the write alone.
    assert card.with_setup(read_back).describe() == (
        "between write_file.content and read_file: CR and CRLF line breaks become LF; "
        "expect LF line endings."
    )
    http = ProbeSetup(
        transport="http", target="http://h/items", send="json:text", read_url="http://h/{id}"
    )
    assert (
        card.with_setup(http)
        .describe()
        .startswith("between json:text and GET http://h/{id}: CR and CRLF")
    )


def test_every_kind_is_named_most_dangerous_first() -> None:
    # A literal \n in a commit message became a line break: the most dangerous rewrite
    # of this chain, said first however many others there are.
    def tool(value: str) -> str:
        value = value.replace("\\n", "\n").replace("\r\n", "\n").replace('"', "&quot;")
        value = unicodedata.normalize("NFKC", value).replace("\u2019", "'")
        return " ".join(value.split(" ")).replace("\t", "    ")

    card = fidelity.survey(tool).card(name="git_commit.message")
    text = card.describe()
    kinds = card.kinds
    assert "unescape.json" in kinds
    assert len(kinds) > 4
    assert text.startswith("git_commit.message: backslash escapes such as \\n are decoded")
    assert len(text) <= LIMIT
    assert "also changed: " in text.lower()
