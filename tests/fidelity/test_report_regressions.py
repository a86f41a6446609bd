"""Regressions in what users read every day: the sentence for the model, the hints, the
clients' differences, the survey map, the stale read-back warning, the engine's windows.

Each test pins one behaviour by its definition (the cut size, the sentence count, the
words of a hint), never by values read from the module under test; each was checked
to fail with a bug planted in that behaviour (issue 28's table).
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata

import fidelity
from fidelity import Observation, Payload, Status
from fidelity._report.clients import ClientResult, ClientsSection
from fidelity._report.hints import hints
from fidelity._report.rewrites import Rewrite

# The sentence for the model ------------------------------------------------------


def _cut_at_4096(text: str) -> str:
    return text.encode("utf-8", "surrogatepass")[:4096].decode("utf-8", "ignore")


def test_the_cut_named_is_where_values_are_cut() -> None:
    # The length family holds values of 4096 and 65536 code points: both are cut at
    # 4096 bytes (one of them a byte earlier, where a character would be split). The
    # sentence names the longest value that arrived whole: 4096 bytes.
    card = fidelity.survey(_cut_at_4096, families=["length"]).card(name="p")
    assert card.describe() == "p: values are cut after 4096 UTF-8 bytes; keep values shorter."


def _five_short_rewrites(text: str) -> str:
    # Five kinds whose sentences are short: tabs expanded, a final newline added,
    # slashes turned into backslashes, backslashes doubled, a BOM added.
    text = text.replace("\t", "    ").replace("\\", "\\\\").replace("/", "\\")
    return "\ufeff" + text + "\n"


def test_at_most_four_sentences_even_when_five_fit() -> None:
    card = fidelity.survey(_five_short_rewrites, families=["paths", "escapes", "whitespace"])
    text = card.card(name="p").describe()
    # Five short sentences would fit in 299 characters: the cap of four is what stops.
    sentences = [s for s in re.split(r"(?<=\.) (?=[A-Z])", text.removeprefix("p: ")) if s]
    assert len(sentences) == 4, text
    assert len(text) + len(" A byte order mark (U+FEFF) is added at the start; expect it.") < 299
    assert "byte order mark" not in text


def test_a_family_is_refused_only_when_every_payload_of_it_was() -> None:
    # One quotes payload of the catalogue's is refused, the others pass: the tool does
    # not "refuse quotes".
    quotes = [o.sent for o in fidelity.survey(str, families=["quotes"]).observations]
    assert len(quotes) > 2
    one = quotes[0]

    def refuses_one(text: str) -> str:
        if text == one:
            raise ValueError("refused")
        return text

    partly = fidelity.survey(refuses_one, families=["quotes"]).card(name="p")
    assert partly.describe() == ""

    def refuses_all(text: str) -> str:
        if text in quotes:
            raise ValueError("refused")
        return text

    wholly = fidelity.survey(refuses_all, families=["quotes"]).card(name="p")
    assert wholly.describe() == (
        "p: values with typographic quotes are refused with an error; avoid them."
    )


# Hints ----------------------------------------------------------------------------


def test_the_hop_specific_hint_wins_over_an_earlier_direction() -> None:
    # The request path shows the kind with no hop known (the general hint); the
    # response path names the text-mode file that did it (its own hint). The hop's
    # hint is the more specific: it is the one given, whatever the direction.
    (hint,) = hints(
        [
            Rewrite(kind="newline.crlf_to_lf", direction="request"),
            Rewrite(kind="newline.crlf_to_lf", direction="response", hop="text_file"),
        ]
    )
    assert hint.hop == "text_file"
    assert "text mode" in hint.text
    assert hint.directions == ("request", "response")


def test_url_hints_point_the_right_way() -> None:
    # escape.url: something encoded and nothing decoded, so the fix is to decode once.
    # unescape.url: something decoded text that was not encoded, so the fix is to encode.
    escape, unescape = hints(
        [Rewrite(kind="escape.url", direction="request"), Rewrite(kind="unescape.url")]
    )
    assert escape.kind == "escape.url"
    assert "percent-encodes" in escape.text
    assert "unquote" in escape.text
    assert "decode" in escape.text
    assert unescape.kind == "unescape.url"
    assert "URL-decodes" in unescape.text
    assert "percent-encode the value" in unescape.text


# Clients --------------------------------------------------------------------------

_QUOTE_AND_NFD = Payload(id="quotes/nfd", text="\u201ce\u0301\u201d", families=("quotes",))


def _result(client: str, fn: object, *, client_side: bool = False) -> ClientResult:
    observed = fidelity.survey(fn, [_QUOTE_AND_NFD]).observations  # type: ignore[arg-type]
    if client_side:
        observed = tuple(
            dataclasses.replace(o, client_side=True) if o.status is Status.REJECTED else o
            for o in observed
        )
    return ClientResult(
        client=client, library="lib", protocol_version="2025-11-25", observations=observed
    )


def _straighten_and_compose(text: str) -> str:
    return unicodedata.normalize("NFC", text.replace("\u201c", '"').replace("\u201d", '"'))


def test_a_difference_is_allowed_only_when_all_its_kinds_are() -> None:
    results = [_result("keeps", str), _result("rewrites", _straighten_and_compose)]
    (difference,) = ClientsSection.of(results, ["quote.straighten"]).differences
    assert sorted(difference.outcomes[1].kinds) == ["quote.straighten", "unicode.nfc"]
    assert difference.allowed is False
    both = ClientsSection.of(results, ["quote.straighten", "unicode.nfc"])
    assert [d.allowed for d in both.differences] == [True]
    assert both.disagreements == ()


def _refuse(text: str) -> str:
    raise ValueError("refused")


def test_a_refusal_by_the_client_and_one_by_the_server_differ() -> None:
    # Both clients end with "rejected", but one refused before sending and the other
    # got the server's error: they disagree on where the value stopped.
    section = ClientsSection.of(
        [_result("local", _refuse, client_side=True), _result("remote", _refuse)]
    )
    (difference,) = section.differences
    assert [(o.status, o.client_side) for o in difference.outcomes] == [
        ("rejected", True),
        ("rejected", False),
    ]
    assert difference.allowed is False
    same = ClientsSection.of([_result("a", _refuse), _result("b", _refuse)])
    assert same.differences == ()


# The survey map -------------------------------------------------------------------


def test_one_payload_in_twenty_stays_visible_in_a_mixed_cell() -> None:
    payloads = [
        Payload(id=f"quotes/p{i}", text=f"q{i}\u201c" if i == 0 else f"q{i}", families=("quotes",))
        for i in range(20)
    ]

    def refuses_curly(text: str) -> str:
        if "\u201c" in text:
            raise ValueError("refused")
        return text

    page = fidelity.surveys_to_html([fidelity.survey(refuses_curly, payloads, name="c")])
    cell = re.search(r'<td class="c col o-mixed" data-chain="c" data-family="quotes"[^>]*>', page)
    assert cell, page
    assert "20 payloads: 19 preserved, 1 rejected" in cell.group(0)
    stops = re.findall(r"(#[0-9a-f]{6}) ([\d.]+)% ([\d.]+)%", cell.group(0))
    assert len(stops) == 2
    (_, start, end) = stops[1]
    # 1 in 20 is 5% of the cell; a share that small is drawn larger so it can be seen:
    # at least 15% of the cell.
    assert float(end) - float(start) >= 15.0, stops


# The stale read-back warning ------------------------------------------------------


def test_one_or_two_payloads_read_back_as_one_text_are_no_stale_warning() -> None:
    from fidelity._run.verdict import judge

    def seen(sent: str, received: str) -> Observation:
        return Observation(sent=sent, received=received, status=Status.TRANSFORMED)

    # A single payload, rewritten: nothing says the read-back is stale.
    assert judge([seen("\ufb01", "fi")], read="text", read_found=False).warnings == ()
    # Two payloads to one text: still fewer than three different payloads.
    two = [seen("\ufb01", "fi"), seen("\ufb01 ", "fi")]
    assert judge(two, read="text", read_found=False).warnings == ()
    # Three different payloads, all read back as one text: the warning.
    three = [*two, seen("f\u0131", "fi")]
    (warning,) = judge(three, read="text", read_found=False).warnings
    assert warning.startswith("3 of the 3 values that came back are the same text 'fi'")


def test_refused_families_are_listed_with_or_and_within_the_limit() -> None:
    from fidelity._report.describe import describe

    two = describe("p", [], ["quotes", "newlines"])
    assert (
        two
        == "p: values with typographic quotes or line breaks are refused with an error; avoid them."
    )
    three = describe("p", [], ["quotes", "newlines", "bom"])
    assert three == (
        "p: values with typographic quotes, line breaks or a byte order mark are refused "
        "with an error; avoid them."
    )
    # After long sentences, only as many families as fit are named, the rest as "other
    # hazards", and the whole stays within 299 characters.
    rewrites = [Rewrite(kind="unicode.nfkc", sent="\ufb01", received="fi"),
                Rewrite(kind="newline.separator_to_lf", sent="\u2028", received="\n")]  # fmt: skip
    name = "a_parameter_with_a_long_name.and.a.path[0].to.it"
    families = ["quotes", "punctuation", "normalization", "compatibility", "diacritics",
                "whitespace", "invisible", "bidi", "control", "newlines", "paths"]  # fmt: skip
    text = describe(name, rewrites, families)
    assert len(text) <= 299, (len(text), text)
    assert text.endswith(" or other hazards are refused with an error; avoid them."), text


def test_a_client_run_that_ended_early_leaves_the_later_payloads_compared() -> None:
    keeps = _result("keeps", str)
    straightens = _result("straightens", _straighten_and_compose)
    other = Payload(id="quotes/second", text="\u201cz\u201d", families=("quotes",))
    more = fidelity.survey(str, [other]).observations
    more_straightened = fidelity.survey(_straighten_and_compose, [other]).observations
    # The second client's run ended before the first payload; both observed the second.
    first = dataclasses.replace(keeps, observations=(*keeps.observations, *more))
    second = dataclasses.replace(straightens, observations=tuple(more_straightened))
    section = ClientsSection.of([first, second])
    assert [d.payload_id for d in section.differences] == ["quotes/second"]


def test_a_long_hop_is_cut_to_200_characters_in_json() -> None:
    from fidelity._report.hints import Hint

    long = Hint(kind="unknown", text="t.", hop="h" * 300).to_dict()
    assert long["hop"] == "h" * 197 + "..."
    assert Hint(kind="unknown", text="t.", hop="h" * 200).to_dict()["hop"] == "h" * 200


def test_only_surrogates_joined_get_the_joined_hint() -> None:
    # Another kind whose detail happens to read "joined" keeps its own hint.
    (bom,) = hints([Rewrite(kind="bom.added", detail="joined")])
    assert "byte order mark" in bom.text
    assert "surrogate" not in bom.text
