"""``fidelity survey``: the transformation map of this environment's chains."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fidelity import Card
from fidelity._card import cards_from_json
from fidelity._cli import main

FAST = ["--chains", "json,xml_attr_minidom,text_file", "--families", "newlines,nul,quotes"]


def test_list_shows_every_chain_with_availability(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["survey", "--list"]) == 0
    out = capsys.readouterr().out
    for name in ("json", "yaml_block", "xml_attr", "csv+text_file", "pipe", "argv", "env"):
        assert re.search(rf"^{re.escape(name)}\s", out, re.MULTILINE), name


def test_the_map_names_what_each_chain_does(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["survey", *FAST]) == 0
    out = capsys.readouterr().out
    assert "3 chains" in out
    matrix = {line.split()[0]: line.split()[1:] for line in out.splitlines()[:8] if line}
    assert matrix["quotes"] == [".", ".", "."]
    assert matrix["nul"][1] == "R"  # XML cannot carry NUL
    assert matrix["newlines"][0] == "."  # JSON keeps every line break
    assert matrix["newlines"][1] in ("T", "M")  # attribute normalization
    assert "newline." in out
    assert not re.search(r"[\x00-\x09\x0b-\x1f\x7f]", out)


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
    assert document["schema_version"] == 1
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
