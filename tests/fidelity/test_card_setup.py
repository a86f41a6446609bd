"""The probe's plan in a card: recorded in the JSON and the Markdown, read back exactly,
and absent from cards that have none, so cards written before it still load as they were.
"""

from __future__ import annotations

import json
import shlex

import pytest

import fidelity
import probes
from fidelity import Card, Payload, UsageError
from fidelity._probe.setup import ProbeSetup, SetupStep

FILE = "/tmp/a root/f{n}.txt"
SETUP = ProbeSetup(
    transport="mcp stdio",
    target="tests/servers/node_modules/.bin/mcp-server-filesystem '/tmp/a root'",
    tool="edit_file",
    args=json.dumps({"path": FILE, "edits": [{"oldText": "{payload}", "newText": "{payload}"}]}),
    before=(SetupStep(tool="write_file", args=json.dumps({"path": FILE, "content": "{payload}"})),),
    read="text",
    read_found=True,
    read_tool="read_text_file",
    read_args='{"path": "/tmp/a root/f{n}.txt"}',
    allow_destructive=True,
)


def _card() -> Card:
    payloads = (Payload(id="quotes/x", text="“x”", families=("quotes",)),)
    return fidelity.survey(probes.function(str, name="same"), payloads).card(name="t.p")


def test_a_card_without_a_setup_writes_what_it_wrote_before() -> None:
    card = _card()
    facts = json.loads(card.to_json())["facts"]
    assert set(facts) == {
        "version", "date", "chain", "catalogue_size", "examples", "seed", "allow", "complete",
        "environment",
    }  # fmt: skip
    assert "Probed with" not in card.to_markdown()
    assert Card.from_json(card.to_json()) == card


def test_the_setup_round_trips_and_repeats_the_run() -> None:
    card = _card().with_setup(SETUP)
    text = card.to_json()
    assert Card.from_json(text) == card
    recorded = json.loads(text)["facts"]["setup"]
    assert recorded["before"] == [
        {"tool": "write_file", "args": {"path": "/tmp/a root/f{n}.txt", "content": "{payload}"}}
    ]
    assert recorded["args"]["edits"] == [{"oldText": "{payload}", "newText": "{payload}"}]
    command = SETUP.command()
    assert command[:5] == ("fidelity", "probe", "--mcp", "--tool", "edit_file")
    assert command[-3:] == (
        "--",
        "tests/servers/node_modules/.bin/mcp-server-filesystem",
        "/tmp/a root",
    )
    assert "--yes" in command
    assert shlex.split(SETUP.command_line()) == list(command)
    markdown = card.to_markdown()
    assert "Probed with (found: the read-back by calibration calls):" in markdown
    assert f"```sh\n{SETUP.command_line()}\n```" in markdown


def test_merged_cards_keep_a_setup_they_share() -> None:
    card = _card().with_setup(SETUP)
    assert Card.merge([card, card]).facts.setup == SETUP
    other = _card().with_setup(ProbeSetup(transport="http", target="http://h/"))
    assert Card.merge([card, other]).facts.setup is None


def test_a_malformed_setup_is_a_usage_error() -> None:
    document = json.loads(_card().with_setup(SETUP).to_json())
    document["facts"]["setup"]["before"] = [{"tool": 3}]
    with pytest.raises(UsageError, match=r"facts\.setup is malformed"):
        Card.from_json(json.dumps(document))


def test_http_setup_repeats_as_an_http_probe() -> None:
    setup = ProbeSetup(
        transport="http",
        target="http://127.0.0.1:8000/items",
        method="POST",
        send="json:text",
        read="json:text",
        read_found=True,
        read_url="http://127.0.0.1:8000/items/{id}",
        id_from="header:x-item-id",
    )
    assert setup.command() == (
        "fidelity", "probe", "http://127.0.0.1:8000/items", "--send", "json:text",
        "--read-url", "http://127.0.0.1:8000/items/{id}", "--id-from", "header:x-item-id",
        "--read", "json:text",
    )  # fmt: skip
    assert ProbeSetup.from_dict(setup.to_dict()) == setup


def test_http_request_options_are_recorded_without_their_secrets() -> None:
    setup = ProbeSetup(
        transport="http",
        target="http://alice:***@127.0.0.1:8000/notes/1",
        method="PATCH",
        send="json:title",
        read="json:title",
        headers=("Authorization", "X-Api-Key"),
        auth="alice",
        body='{"owner": "o-{run}"}',
    )
    assert ProbeSetup.from_dict(setup.to_dict()) == setup
    assert setup.command_line() == (
        "fidelity probe 'http://alice:***@127.0.0.1:8000/notes/1' --method PATCH "
        '--body \'{"owner": "o-{run}"}\' --send json:title --read json:title '
        "--header 'Authorization: ***' --header 'X-Api-Key: ***' --auth 'alice:***'"
    )
    # The method is left out where it is the default for the send place.
    get = ProbeSetup(transport="http", target="http://h/search", method="GET", send="query:q")
    assert "--method" not in get.command_line()
