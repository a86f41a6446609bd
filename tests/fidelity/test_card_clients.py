"""The clients section of a card: what differs between clients, in JSON that reads back
exactly, in Markdown and on the terminal; cards without it load and write as before.

The clients here are in-process chains standing in for client libraries (one keeps
the text, one straightens quotes, one cannot encode a lone surrogate): the section
compares observations, whichever probe made them.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

import fidelity
import probes
from fidelity import Card, Observation, Payload, Status, UsageError
from fidelity._probe.setup import ProbeSetup
from fidelity._report.card_table import rows_from_markdown
from fidelity._report.client_map import client_markdown, render_client_map
from fidelity._report.clients import ClientResult, ClientsSection

PAYLOADS = (
    Payload(id="quotes/left", text="\u201cq", families=("quotes",)),
    Payload(id="quotes/right", text="q\u201d", families=("quotes",)),
    Payload(id="surrogates/lone", text="a\ud800b", families=("surrogates",)),
    Payload(id="newlines/crlf", text="a\r\nb", families=("newlines",)),
)


def _same(text: str) -> str:
    return text


def _straight(text: str) -> str:
    return text.replace("\u201c", '"').replace("\u201d", '"')


def _strict(text: str) -> str:
    text.encode("utf-8")  # a lone surrogate cannot be encoded: refused
    return text


def _observations(fn: Any) -> tuple[Observation, ...]:
    observed = fidelity.survey(probes.function(fn, name="chain"), PAYLOADS).observations
    # A refusal made before anything was sent, as a client library's would be.
    return tuple(
        dataclasses.replace(o, client_side=True) if o.status is Status.REJECTED else o
        for o in observed
    )


def _section(allow: tuple[str, ...] = ()) -> ClientsSection:
    return ClientsSection.of(
        [
            ClientResult(
                client="keeps",
                library="lib 1",
                protocol_version="2025-11-25",
                observations=_observations(_same),
            ),
            ClientResult(
                client="straightens",
                library="lib 2",
                protocol_version="2026-07-28",
                observations=_observations(_straight),
            ),
            ClientResult(
                client="strict",
                library="lib 3",
                protocol_version="2025-11-25",
                observations=_observations(_strict),
            ),
        ],
        allow,
    )


def _card(section: ClientsSection | None = None) -> Card:
    card = fidelity.survey(probes.function(_same, name="chain"), PAYLOADS).card(name="t.p")
    return card.with_clients(section or _section())


def test_the_differences_are_the_payloads_where_the_clients_part() -> None:
    section = _section()
    assert section.clients == ("keeps", "straightens", "strict")
    found = {
        d.payload_id: {o.client: (o.status, o.client_side, o.kinds) for o in d.outcomes}
        for d in section.differences
    }
    assert found == {
        "quotes/left": {
            "keeps": ("preserved", False, ()),
            "straightens": ("transformed", False, ("quote.straighten",)),
            "strict": ("preserved", False, ()),
        },
        "quotes/right": {
            "keeps": ("preserved", False, ()),
            "straightens": ("transformed", False, ("quote.straighten",)),
            "strict": ("preserved", False, ()),
        },
        "surrogates/lone": {
            "keeps": ("preserved", False, ()),
            "straightens": ("preserved", False, ()),
            "strict": ("rejected", True, ()),
        },
    }
    assert [d.allowed for d in section.differences] == [False, False, False]
    assert len(section.disagreements) == 3
    received = section.differences[0].outcomes[1].received
    assert received is not None
    assert received.value() == '"q'
    assert section.run("strict") is not None
    assert [r.row("quotes") is not None for r in section.runs] == [True, True, True]


def test_allowed_kinds_make_a_difference_allowed_but_not_a_refusal() -> None:
    section = _section(allow=("quote.straighten",))
    assert [(d.payload_id, d.allowed) for d in section.differences] == [
        ("quotes/left", True),
        ("quotes/right", True),
        ("surrogates/lone", False),
    ]
    assert [d.payload_id for d in section.disagreements] == ["surrogates/lone"]


def test_payloads_a_client_did_not_reach_are_not_compared() -> None:
    cut = ClientResult(client="cut", observations=_observations(_straight)[:1], complete=False)
    whole = ClientResult(client="whole", observations=_observations(_same))
    section = ClientsSection.of([whole, cut])
    assert [d.payload_id for d in section.differences] == ["quotes/left"]
    assert [r.complete for r in section.runs] == [True, False]


def test_the_section_round_trips_in_the_card_json() -> None:
    card = _card()
    text = card.to_json()
    assert Card.from_json(text) == card
    assert Card.from_json(text).to_json() == text
    document = json.loads(text)
    assert [r["client"] for r in document["clients"]["runs"]] == ["keeps", "straightens", "strict"]
    lone = document["clients"]["differences"][-1]
    assert lone["sent"] == {"type": "str", "data": "Ye2ggGI="}  # the lone surrogate, exactly
    assert lone["outcomes"][2]["client_side"] is True


def test_a_card_without_clients_writes_and_reads_as_before() -> None:
    card = fidelity.survey(probes.function(_same, name="chain"), PAYLOADS).card(name="t.p")
    document = json.loads(card.to_json())
    assert "clients" not in document
    assert Card.from_json(card.to_json()).clients is None
    # A card written by the release before this section, as it was written.
    old = {
        "schema_version": 1, "record": "param-fidelity.card", "name": "edit.old_string",
        "facts": {"version": "0.1.0", "date": "2026-11-30", "chain": "mcp stdio x echo.text",
                  "catalogue_size": 1, "examples": 0, "seed": None, "allow": [],
                  "complete": True,
                  "setup": {"transport": "mcp stdio", "target": "x", "tool": "echo"}},
        "rows": [{"family": "quotes", "direction": "round_trip", "outcome": "preserved",
                  "count": 1, "statuses": [["preserved", 1]], "kinds": [], "examples": []}],
        "observations": [{"payload_id": "quotes/left", "families": ["quotes"],
                          "direction": "round_trip", "status": "preserved",
                          "sent": {"type": "str", "data": "4oCccQ=="}, "received": "sent",
                          "kinds": [], "error_type": "", "error": "", "blame": None,
                          "hops": [], "parts": []}],
    }  # fmt: skip
    loaded = Card.from_json(json.dumps(old))
    assert loaded.clients is None
    assert loaded.facts.setup is not None
    assert loaded.facts.setup.clients == ()
    rewritten = json.loads(loaded.to_json())
    # What is derived from the observations (hints, the sentence, the rewrites) is added; the rest
    # is written as it was read, under the current schema version (a version-1 card
    # records no environment, and none is invented for it).
    assert rewritten["schema_version"] == 2
    assert "environment" not in rewritten["facts"]
    derived = ("hints", "describe", "transformations")
    kept = {k: v for k, v in rewritten.items() if k not in derived}
    assert {**kept, "schema_version": 1} == old


def _tampered(change: Any) -> str:
    document = json.loads(_card().to_json())
    change(document["clients"])
    return json.dumps(document)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda c: c.update(runs=[]), "lists no client run"),
        (lambda c: c.update(runs="x"), "field 'runs' must be a list"),
        (lambda c: c["runs"][0].update(client=""), "needs the client's name"),
        (lambda c: c["runs"][1].update(client="keeps"), "lists a client twice"),
        (lambda c: c["runs"][0].update(complete="yes"), "field 'complete' must be true or false"),
        (lambda c: c["runs"][0].update(protocol_version=7), "'protocol_version' must be a string"),
        (lambda c: c["differences"][0].update(allowed=None), "'allowed' must be true or false"),
        (lambda c: c["differences"][0].update(direction="up"), "unknown direction 'up'"),
        (lambda c: c["differences"][0]["outcomes"][0].update(status="lost?"), "unknown status"),
        (lambda c: c["differences"][0]["outcomes"].pop(), "one outcome per client, in order"),
        (lambda c: c["differences"][0]["outcomes"].reverse(), "one outcome per client, in order"),
        (lambda c: c["differences"][0].update(sent={"type": "int", "data": "1"}), "must be text"),
        (lambda c: c["differences"][0]["outcomes"][0].update(client_side=1), "'client_side'"),
    ],
)
def test_a_malformed_section_is_a_usage_error(change: Any, message: str) -> None:
    with pytest.raises(UsageError, match="not a valid contract card: .*" + message):
        Card.from_json(_tampered(change))


def test_markdown_shows_the_rows_that_differ_and_the_card_table_is_unchanged() -> None:
    card = _card()
    text = card.to_markdown()
    quotes = "| quotes | round trip | preserved (2) | transformed (2) `quote.straighten` | "
    assert quotes + "preserved (2) | **differ** (2) |" in text
    lone = "| surrogates | round trip | preserved (1) | preserved (1) | rejected (1) | "
    assert lone + "**differ** (1) |" in text
    assert "| newlines |" not in text.split("Clients:")[1]  # they agree there
    assert "The clients agree on the other rows (1)." in text
    assert (
        "- surrogates, 1 payload, e.g. `surrogates/lone` U+0061 U+D800 U+0062: keeps preserved; "
        "straightens preserved; strict rejected in the client library (UnicodeEncodeError)" in text
    )
    # The map's own table (what drift checks read) is the first client's, untouched.
    rows = rows_from_markdown(text)
    assert rows is not None
    assert [(r.family, r.outcome) for r in rows] == [
        ("quotes", "preserved"),
        ("newlines", "preserved"),
        ("surrogates", "preserved"),
    ]


def test_clients_that_agree_say_so() -> None:
    same = ClientResult(client="a", observations=_observations(_same))
    other = ClientResult(client="b", observations=_observations(_same))
    lines = client_markdown(ClientsSection.of([same, other]))
    assert "The clients agree on every row (3)." in lines
    assert "| family |" not in "\n".join(lines)


def test_the_terminal_table_has_a_column_per_client_and_marks_differences() -> None:
    shown = render_client_map(_section())
    lines = shown.splitlines()
    assert lines[0] == (
        "clients: keeps = lib 1, protocol 2025-11-25; straightens = lib 2, protocol 2026-07-28; "
        "strict = lib 3, protocol 2025-11-25"
    )
    assert lines[1].split() == ["family", "keeps", "straightens", "strict", "clients"]
    assert lines[2].split() == [
        "quotes", "preserved", "transformed", "(quote.straighten)", "preserved", "differ:", "2",
    ]  # fmt: skip
    assert lines[3].split() == ["newlines", "preserved", "preserved", "preserved", "agree"]
    assert lines[5] == "the clients disagree on 3 payloads:"
    assert lines[6].startswith("  quotes, 2 payloads, e.g. U+201C U+0071: keeps preserved; ")


def test_hostile_names_never_reach_the_terminal_raw() -> None:
    document = json.loads(_card().to_json())
    runs = document["clients"]["runs"]
    runs[0]["client"] = "\x1b[2Jevil\u202e"
    runs[1]["library"] = "lib\x07\u2028x"
    for difference in document["clients"]["differences"]:
        difference["outcomes"][0]["client"] = runs[0]["client"]
        difference["payload_id"] = "quotes/\x1b[31m|`x"
    card = Card.from_json(json.dumps(document))
    assert card.clients is not None
    for text in (render_client_map(card.clients), card.to_markdown()):
        assert "\x1b" not in text
        assert "\u202e" not in text
        assert "\x07" not in text
        assert "\u2028" not in text


def test_the_setup_records_the_clients_and_repeats_them() -> None:
    setup = ProbeSetup(
        transport="mcp stdio",
        target="node server.mjs",
        tool="echo",
        clients=("python", "typescript"),
    )
    assert ProbeSetup.from_dict(setup.to_dict()) == setup
    assert setup.to_dict()["clients"] == ["python", "typescript"]
    assert setup.command_line() == (
        "fidelity probe --mcp --tool echo --clients python,typescript -- node server.mjs"
    )
    with pytest.raises(ValueError, match="clients must be a list of client names"):
        ProbeSetup.from_dict({**setup.to_dict(), "clients": "python"})


def test_merged_cards_keep_the_section_they_share() -> None:
    card = _card()
    assert Card.merge([card, card]).clients == card.clients
    other = card.with_clients(_section(allow=("quote.straighten",)))
    assert Card.merge([card, other]).clients is None


def test_a_clients_rows_follow_the_maps_rule_for_values_refused_before_sending() -> None:
    # Directions measured apart: a value the client library refused before sending
    # failed on the request path. The card's map and each client's rows in the
    # clients section are one computation, so they say the same.
    from fidelity._probe.observation import Direction
    from fidelity._report.clients import ClientRun
    from fidelity._survey.result import Survey

    def split(pid: str, text: str) -> Observation:
        parts = tuple(
            Observation(sent=text, received=text, status=Status.PRESERVED, direction=d)
            for d in (Direction.REQUEST, Direction.RESPONSE)
        )
        return Observation(
            payload_id=pid,
            families=("quotes",),
            sent=text,
            received=text,
            status=Status.PRESERVED,
            parts=parts,
        )

    refused = Observation(
        payload_id="surrogates/lone",
        families=("surrogates",),
        sent="a\ud800b",
        status=Status.REJECTED,
        error_type="UnicodeEncodeError",
        error="cannot encode",
        client_side=True,
    )
    observed = (split("quotes/left", "\u201cq"), split("quotes/right", "q\u201d"), refused)
    card = Survey.of(observed, name="t").card(name="t.p")
    run = ClientRun.of(ClientResult(client="python", observations=observed))
    keys = {(r.family, r.direction, r.outcome) for r in card.rows}
    assert ("surrogates", "request", "rejected") in keys
    assert {(r.family, r.direction, r.outcome) for r in run.rows} == keys
