"""``fidelity survey``: the transformation map of this environment's chains."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from _support.stdlib import minidom_escapes_attribute_whitespace

import fidelity
from fidelity import Card, Payload
from fidelity._cli import main
from fidelity._report.card import cards_from_json

FAST = ["--chains", "json,xml_attr_minidom,text_file", "--families", "newlines,nul,quotes"]


def test_list_shows_every_chain_with_availability(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["survey", "--list"]) == 0
    out = capsys.readouterr().out
    for name in ("json", "yaml_block", "xml_attr", "csv+text_file", "pipe", "argv", "env"):
        assert re.search(rf"^{re.escape(name)}\s", out, re.MULTILINE), name


#: minidom escapes tab and line breaks in attribute values from Python 3.13 on (measured).
MINIDOM_ESCAPES = minidom_escapes_attribute_whitespace()


def _matrix(out: str) -> dict[str, list[str]]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("family "))
    rows = {}
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        rows[line.split()[0]] = line.split()[1:]
    return rows


def test_the_map_names_what_each_chain_does(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["survey", *FAST]) == 0
    out = capsys.readouterr().out
    assert "3 chains" in out
    matrix = _matrix(out)
    assert matrix["quotes"] == [".", ".", "."]
    assert matrix["nul"][1] == "R"  # XML cannot carry NUL
    assert matrix["newlines"][0] == "."  # JSON keeps every line break
    # minidom writes line breaks in attributes raw up to 3.12 (attribute normalization
    # rewrites them), as character references from 3.13 on (gh-50002).
    assert matrix["newlines"][1] in ((".",) if MINIDOM_ESCAPES else ("T", "M"))
    # The legend spells out every letter; the chains are named with what they do.
    for letter, outcome in (("T", "transformed"), ("R", "rejected"), ("M", "mixed")):
        assert re.search(rf"^  {re.escape(letter)}  {outcome} ", out, re.MULTILINE)
    assert re.search(r"^\s+2 xml_attr_minidom\s+attribute value: minidom", out, re.MULTILINE)
    # The summary of kinds names the chains that show each one.
    assert bool(re.search(r"^  newline\.to_space\s+2$", out, re.MULTILINE)) != MINIDOM_ESCAPES
    assert re.search(r"^  newline\.crlf_to_lf\s+3$", out, re.MULTILINE)
    assert "e.g. newline." in out
    assert not re.search(r"[\x00-\x09\x0b-\x1f\x7f]", out)
    assert max(map(len, out.splitlines())) <= 120
    # Each chain's section ends with how to fix what it does, wrapped under the line.
    sections = out.split("\n2. xml_attr_minidom\n")
    assert "hint:" not in sections[0].split("\n1. json\n")[1]
    minidom, text_file = sections[1].split("\n3. text_file\n")
    minidom_hint = "   hint: newline.to_space (hop xml_attr(writer='minidom')): minidom writes"
    assert (minidom_hint in minidom) != MINIDOM_ESCAPES
    assert "   hint: newline.crlf_to_lf (hop text_file): the file is read back" in text_file
    assert "\n         with `newline=''` to write and to read.\n" in text_file


def test_the_map_stays_narrow_with_many_chains(capsys: pytest.CaptureFixture[str]) -> None:
    from fidelity._cli.survey import _print_map

    payloads = (Payload(id="quotes/q", text="“q”", families=("quotes",)),)
    cards = [
        fidelity.survey(str.upper if n % 2 else str, payloads, name=f"chain-{n}").card()
        for n in range(45)
    ]
    _print_map(sys.stdout, cards, {}, payloads_count=1, seed=None)
    out = capsys.readouterr().out
    assert max(map(len, out.splitlines())) <= 120
    headers = [line for line in out.splitlines() if line.startswith("family ")]
    assert len(headers) == 2  # 45 columns do not fit in one block
    assert headers[1].split()[1] == str(len(headers[0].split()))
    quotes = [line.split()[1:] for line in out.splitlines() if line.startswith("quotes ")]
    assert [c for row in quotes for c in row] == ["." if n % 2 == 0 else "T" for n in range(45)]


def test_chain_facts_carry_no_ephemeral_port() -> None:
    from fidelity._cli.survey import stable_chain

    assert stable_chain("http POST http://127.0.0.1:40171/reflect send=body") == (
        "http POST http://127.0.0.1:<port>/reflect send=body"
    )
    assert stable_chain("mcp http http://[::1]:8080/mcp") == "mcp http http://[::1]:<port>/mcp"
    assert stable_chain("http://example.com:8080/x") == "http://example.com:8080/x"


def test_json_is_the_same_bytes_run_to_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    argv = ["survey", "--chains", "json_utf8,xml_text,csv", "--families", "newlines,surrogates"]
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert main([*argv, "--quiet", "--json", str(first), "--card", str(tmp_path / "a.md")]) == 0
    assert main([*argv, "--quiet", "--json", str(second), "--card", str(tmp_path / "b.md")]) == 0
    assert first.read_bytes() == second.read_bytes()
    assert (tmp_path / "a.md").read_bytes() == (tmp_path / "b.md").read_bytes()
    assert cards_from_json(first.read_text(encoding="utf-8"))[0].facts.date == "2023-11-14"


def test_json_and_card_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report, card = tmp_path / "survey.json", tmp_path / "survey.md"
    assert main(["survey", *FAST, "--quiet", "--json", str(report), "--card", str(card)]) == 0
    assert capsys.readouterr().out == ""
    cards = cards_from_json(report.read_text(encoding="utf-8"))
    assert [c.name for c in cards] == ["json", "xml_attr_minidom", "text_file"]
    assert all(c.complete for c in cards)
    text_file = cards[2]
    row = text_file.row("newlines")
    assert row is not None
    assert "newline.crlf_to_lf" in row.kinds
    markdown = card.read_text(encoding="utf-8")
    assert markdown.count("#### Parameter transformations:") == 3
    assert text_file.to_markdown() in markdown
    assert not list(tmp_path.glob("*.partial"))


def test_json_to_stdout_is_only_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["survey", "--chains", "json", "--families", "quotes", "--json", "-"]) == 0
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    assert document["schema_version"] == 2
    assert Card.from_dict(document["cards"][0]).name == "json"
    assert "1 chains" in captured.err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--chains", "json,nope"], "unknown chain(s) 'nope'; valid chains are: json"),
        (["--families", "quotes,emoji"], "unknown famil"),
        (["--examples", "-1"], "--examples -1"),
        (["--seed", "-5"], "--seed -5"),
        (["--json", "/nonexistent-dir/x.json"], "does not exist"),
    ],
)
def test_usage_errors_exit_2_with_one_sentence(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["survey", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1
    assert "Traceback" not in err


def test_examples_are_recorded_in_the_cards(tmp_path: Path) -> None:
    report = tmp_path / "s.json"
    argv = ["survey", "--chains", "text_file", "--families", "newlines"]
    assert main([*argv, "--examples", "4", "--seed", "5", "--quiet", "--json", str(report)]) == 0
    (card,) = cards_from_json(report.read_text(encoding="utf-8"))
    assert card.facts.seed == 5
    assert card.facts.examples == 4
    assert any("/hypothesis-" in o.payload_id for o in card.observations)
