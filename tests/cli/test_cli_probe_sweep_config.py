"""``fidelity.sweep(config=FILE)`` against ``fidelity probe --config FILE``: the same
document, the same exit code, and nothing printed by the library.

The file holds our stdio reflector (``python -m probes._mcp``: the ``text`` of its
``echo`` and ``reflect`` tools comes back as it was sent) and a command that does not
exist (that server fails: exit 3, its sentence kept). The cards are those of the same
run made twice, so what varies between the two runs is masked: the date, the
environment and version of each card, the calibration markers' run ids.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from _support.cli import fidelity_inprocess as fidelity

import fidelity as api

RUN_ID = re.compile(r"fidelity-(marker-)?[0-9a-f]{8}")
MASKED = ("date", "environment", "version")
#: The sentence of a command that cannot start, as the child says it (its beginning).
CANNOT_START = "could not open an MCP session"


def _mask(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: "<masked>" if k in MASKED else _mask(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_mask(v) for v in value]
    if isinstance(value, str):
        return RUN_ID.sub(lambda m: f"fidelity-{m.group(1) or ''}<run>", value)
    return value


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "mcp.json"
    servers = {
        "reflector": {"command": sys.executable, "args": ["-m", "probes._mcp"]},
        "missing": {"command": "/nonexistent/mcp-server-x"},
    }
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return path


@pytest.mark.timeout(400)
def test_a_config_sweep_is_the_clis_document_and_exit_code(config: Path, tmp_path: Path) -> None:
    out = tmp_path / "cli.json"
    cli = fidelity(
        "probe", "--config", str(config), "--families", "quotes", "--quiet",
        "--json", str(out), "--junit", str(tmp_path / "cli.xml"), timeout=300,
    )  # fmt: skip
    assert cli.returncode == 3, cli.stderr
    swept = api.sweep(config=str(config), families=["quotes"], jobs=2)
    assert swept.exit_code == 3
    assert _mask(json.loads(swept.to_json())) == _mask(json.loads(out.read_text("utf-8")))
    assert [(r.name, r.tool, r.param, r.card is not None) for r in swept.rows] == [
        ("reflector.echo.text", "echo", "text", True),
        ("reflector.reflect.text", "reflect", "text", True),
    ]
    assert not swept.beyond_allow
    [(server, sentence)] = swept.failed
    assert server == "missing"
    assert sentence.startswith(CANNOT_START)
    assert swept.message == ""
    swept.write_junit(str(tmp_path / "lib.xml"))
    cases = re.compile(r'<testcase [^>]*name="([^"]+)"')
    lib_xml = (tmp_path / "lib.xml").read_text("utf-8")
    assert cases.findall(lib_xml) == cases.findall((tmp_path / "cli.xml").read_text("utf-8"))
    assert cases.findall(lib_xml) == ["reflector.echo.text", "reflector.reflect.text", "(server)"]
    with pytest.raises(api.UsageError, match=r"^a sweep of a configuration file has no HTML"):
        swept.write_html(str(tmp_path / "lib.html"))


@pytest.mark.timeout(300)
def test_a_config_sweep_prints_nothing(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    swept = api.sweep(config=str(config), server=["reflector"], families=["quotes"])
    assert swept.exit_code == 0
    assert [r.name for r in swept.rows] == ["reflector.echo.text", "reflector.reflect.text"]
    assert capsys.readouterr() == ("", "")


def test_a_glob_that_matches_no_tool_is_the_message_with_exit_2(config: Path) -> None:
    swept = api.sweep(
        config=str(config), server=["reflector"], families=["quotes"], skip_tools=["ecco"]
    )
    assert swept.exit_code == 2
    assert swept.message == (
        "--skip-tool 'ecco' matches no tool of the server reached (reflector); its results "
        "are kept; correct it."
    )
    assert [r.name for r in swept.rows] == ["reflector.echo.text", "reflector.reflect.text"]


def test_the_options_of_one_target_are_refused_with_config(config: Path) -> None:
    with pytest.raises(api.UsageError, match=r"^give sweep\(\) one target: "):
        api.sweep(config=str(config), mcp=[sys.executable, "-m", "probes._mcp"])
    with pytest.raises(api.UsageError, match=r"; clients= describes one target: drop it"):
        api.sweep(config=str(config), clients=["python"])
    with pytest.raises(api.UsageError, match=r"^server= and jobs= choose servers of a config="):
        api.sweep(mcp=[sys.executable, "-m", "probes._mcp"], server=["reflector"])
    with pytest.raises(api.UsageError, match=r"^--jobs 0 must be a whole number from 1 to 64\.$"):
        api.sweep(config=str(config), jobs=0)
    with pytest.raises(api.UsageError, match=r"^--server nope: not in "):
        api.sweep(config=str(config), server=["nope"])
