"""Cards say where they were measured, and drift says what changed around it."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import platform
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from _needs import need, need_module
from _support.cli import fidelity_inprocess as command
from _support.stdlib import MINIDOM_ESCAPES_ATTRIBUTE_WHITESPACE_SOURCE, measured_on

import fidelity
import probes
from fidelity import Payload
from fidelity._report import document
from fidelity._report.card import Card
from fidelity._report.environment import Environment, differences, from_markdown

QUOTES = (Payload(id="quotes/x", text="\u201cx\u201d", families=("quotes",)),)


def _card(chain: object = str.upper, name: str = "t.p") -> Card:
    return fidelity.survey(chain, QUOTES, name=name).card(name=name)  # type: ignore[arg-type]


def test_a_card_records_this_python_and_platform_in_every_form() -> None:
    card = _card()
    env = card.facts.environment
    assert env is not None
    assert env.python == platform.python_version()
    assert env.implementation == platform.python_implementation()
    assert env.platform == f"{platform.system()} {platform.machine()}"
    whole = json.loads(card.to_json())["facts"]["environment"]
    assert whole["python"] == platform.python_version()
    assert Card.from_json(card.to_json()) == card
    markdown = card.to_markdown()
    assert f"Measured on: `Python {platform.python_version()};" in markdown
    assert from_markdown(markdown) == env
    assert f"Measured on Python {platform.python_version()} (" in card.to_html()


def test_the_chains_libraries_are_named_with_their_versions() -> None:
    need_module("yaml")
    card = fidelity.survey(probes.chain(probes.yaml()), QUOTES).card()
    env = card.facts.environment
    assert env is not None
    assert dict(env.libraries) == {"PyYAML": version("PyYAML")}
    assert f"PyYAML {version('PyYAML')}" in card.to_markdown()
    # A chain of plain Python names no library.
    plain = _card().facts.environment
    assert plain is not None
    assert plain.libraries == ()


def test_an_mcp_card_records_the_server_and_the_protocol(tmp_path: Path) -> None:
    need_module("mcp")
    out = tmp_path / "r.json"
    with probes.mcp_reflector("http") as url:
        assert isinstance(url, str)
        result = command(
            "probe", "--mcp", url, "--max-requests", "3", "--quiet", "--json", str(out)
        )
    assert result.returncode == 0, result.stderr
    target = json.loads(out.read_text())["facts"]["environment"]["target"]
    assert target["server"].startswith("param-fidelity-reflector")
    assert target["protocol"]  # what the session settled on, e.g. 2025-11-25
    assert target["library"] == f"mcp {version('mcp')}"
    assert json.loads(out.read_text())["facts"]["environment"]["libraries"]["mcp"] == version("mcp")
    card = Card.from_json(out.read_text())
    assert Card.from_json(card.to_json()) == card
    env = card.facts.environment
    assert env is not None
    assert [k for k, _ in env.target] == ["library", "server", "protocol"]
    assert from_markdown(card.to_markdown()) == env


def test_an_http_card_records_the_server_header(tmp_path: Path) -> None:
    need_module("starlette")
    out = tmp_path / "r.json"
    with probes.http_reflector() as reflector:
        result = command(
            "probe", reflector.url, "--max-requests", "5", "--quiet", "--json", str(out)
        )
    assert result.returncode == 0, result.stderr
    target = json.loads(out.read_text())["facts"]["environment"]["target"]
    assert target["http_server"] == "uvicorn"
    assert target["library"] == f"httpx {version('httpx')}"


def test_a_version_1_card_reads_without_an_environment() -> None:
    raw = json.loads(_card().to_json())
    raw["schema_version"] = 1
    del raw["facts"]["environment"]
    old = Card.from_json(json.dumps(raw))
    assert old.facts.environment is None
    assert "Measured on" not in old.to_markdown()


@pytest.mark.parametrize(
    "forged",
    [
        {"python": 3},
        {"python": "3.11", "libraries": {"bad key": "1"}},
        {"python": "3.11", "target": {"server": 7}},
        [],
    ],
)
def test_a_forged_environment_is_refused_in_one_sentence(forged: object) -> None:
    raw = json.loads(_card().to_json())
    raw["facts"]["environment"] = forged
    with pytest.raises(fidelity.UsageError, match="not a valid contract card"):
        Card.from_json(json.dumps(raw))


def test_a_hostile_server_name_cannot_break_the_markdown_line() -> None:
    env = Environment(python="3.11.7", target=(("server", "x`; Python 9\n<!-- y"),))
    parsed = from_markdown(env.markdown())
    assert parsed is not None
    assert parsed.python == "3.11.7"
    assert "\n" not in env.markdown()
    assert "`" not in env.markdown()[len("Measured on: `") : -2]


def _moved(card: Card, python: str) -> Card:
    env = card.facts.environment
    assert env is not None
    moved = dataclasses.replace(env, python=python)
    return card.with_environment(moved)


def test_drift_names_the_environment_change_first() -> None:
    committed = _moved(_card(str.upper), "3.11.7")
    now = _moved(_card(str.lower), "3.13.0")
    doc = document.replace(b"", "t.p", committed.to_markdown())
    out = io.StringIO()
    assert document.check_blocks("DOC.md", doc, (("t.p", now),), out) == 1
    lines = out.getvalue().splitlines()
    assert lines[0] == (
        "DOC.md, block t.p: environment changed: Python 3.11.7 -> 3.13.0; "
        "quotes: transformed -> preserved"
    )
    assert lines[1] == "DOC.md, block t.p: 2 changed rows:"


def test_an_environment_change_without_a_behaviour_change_is_not_drift() -> None:
    committed = _moved(_card(), "3.11.7")
    now = _moved(_card(), "3.13.0")
    assert differences(committed.facts.environment, now.facts.environment) == (
        "Python 3.11.7 -> 3.13.0",
    )
    doc = document.replace(b"", "t.p", committed.to_markdown())
    out = io.StringIO()
    assert document.check_blocks("DOC.md", doc, (("t.p", now),), out) == 0
    assert out.getvalue() == "DOC.md, block t.p: matches.\n"


def _other_python() -> str | None:
    """An interpreter of another minor version than this one (pyenv's), if any."""
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    mine = f"{sys.version_info.major}.{sys.version_info.minor}."
    for candidate in sorted(root.glob("3.1[1-9]*/bin/python"), reverse=True):
        if not candidate.parent.parent.name.startswith(mine):
            return str(candidate)
    return None


def test_a_card_made_on_one_python_names_the_change_when_checked_on_another(
    tmp_path: Path,
) -> None:
    """The real chain on two interpreters: xml.dom.minidom escapes tab and line breaks
    in attribute values from 3.13 on, so one of the two cards drifts, and says why."""
    other = _other_python()
    need(other is not None, "no second Python version under pyenv")
    assert other is not None
    repo = Path(__file__).resolve().parents[2]
    there = tmp_path / "there.json"
    made = subprocess.run(
        [other, "-m", "fidelity", "survey", "--chains", "xml_attr_minidom", "--quiet",
         "--json", str(there)],
        capture_output=True, text=True, timeout=300, check=False, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(repo)},
    )  # fmt: skip
    need(made.returncode == 0, f"fidelity does not run on {other}: {made.stderr[-300:]}")
    here = tmp_path / "here.json"
    assert command("survey", "--chains", "xml_attr_minidom", "--quiet", "--json", str(here))
    doc = tmp_path / "CARD.md"
    assert command("card", str(there), "--update", str(doc)).returncode == 0
    checked = command("card", str(here), "--check", str(doc))
    theirs = json.loads(there.read_text())["cards"][0]["facts"]["environment"]["python"]
    change = f"Python {theirs} -> {platform.python_version()}"
    # minidom escapes tab and line breaks in attributes from 3.13 on (gh-50002): where
    # the two interpreters' minidoms differ, the card drifts.
    source = MINIDOM_ESCAPES_ATTRIBUTE_WHITESPACE_SOURCE
    if measured_on(other, source) != measured_on(sys.executable, source):
        assert checked.returncode == 1, checked.stdout
        first = checked.stdout.splitlines()[0]
        assert first.startswith(f"{doc}, block xml_attr_minidom: environment changed: {change}")
        assert "newlines: " in first
    else:
        assert checked.returncode == 0, checked.stdout


def test_a_fact_known_on_one_side_only_is_not_a_change() -> None:
    """A card made where the server's version was unknown (or a library absent) and
    checked where it is known says no change for that fact: only facts both sides
    know are compared."""
    both = Environment(python="3.11.7", implementation="CPython", platform="Linux x86_64")
    more = dataclasses.replace(
        both, libraries=(("PyYAML", "6.0.1"),), target=(("server", "echo 1.0"),)
    )
    assert differences(both, more) == ()
    assert differences(more, both) == ()
    # ...while a fact both know and that moved is one.
    moved = dataclasses.replace(more, target=(("server", "echo 1.1"),))
    assert differences(more, moved) == ("server echo 1.0 -> echo 1.1",)
    # Through --check: the committed card knew the server, this run does not: matches.
    card = _card()
    committed = card.with_environment(more)
    now = card.with_environment(both)
    doc = document.replace(b"", "t.p", committed.to_markdown())
    out = io.StringIO()
    assert document.check_blocks("DOC.md", doc, (("t.p", now),), out) == 0
    assert out.getvalue() == "DOC.md, block t.p: matches.\n"
