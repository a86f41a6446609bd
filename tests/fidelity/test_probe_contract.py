"""The probe contract declares what a front end may ask of any probe.

The CLI, the survey and the plugin read a probe's capabilities as attributes of
``fidelity.Probe`` (with defaults that a probe overrides), never by looking for
optional attributes: a probe that defines only ``observe`` still answers them all.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import fidelity
import probes
from fidelity import Observation, Probe, Status, UsageError

ROOT = Path(__file__).resolve().parents[2]


class Echo(Probe):
    name = "echo"

    def observe(self, text: str) -> Observation:
        return Observation(sent=text, status=Status.PRESERVED, received=text)


def test_a_minimal_probe_answers_every_capability() -> None:
    probe = Echo()
    assert probe.requests is None
    assert probe.max_requests_per_observation == 1
    assert probe.splits_directions is False
    assert probe.answers is None
    assert probe.connected is True
    assert probe.tolerates_timeouts is None
    assert probe.client_info is None
    assert probe.read_found is False
    assert probe.needs_calibration is False
    assert probe.setup is None
    with pytest.raises(UsageError, match="reads its value back where it is told"):
        probe.calibrate()


def test_in_process_chains_keep_the_defaults() -> None:
    chain = probes.chain(probes.json(), probes.text_file())
    assert (chain.requests, chain.needs_calibration, chain.setup) == (None, False, None)
    assert fidelity.survey(chain, families=["quotes"]).statuses[Status.PRESERVED] > 0


def test_front_ends_do_not_look_for_probe_attributes() -> None:
    """No ``getattr(probe, ...)`` in the CLI, the survey or the plugin: what they read is
    declared on ``Probe`` (the plugin's name of a plain callable is not a probe's)."""
    found = []
    for folder in ("_cli", "_survey", "_pytest"):
        for path in (ROOT / "fidelity" / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id in ("getattr", "hasattr")
                    and node.args
                    and "probe" in ast.unparse(node.args[0])
                    and ast.unparse(node.args[1:2]) != "'name'"
                ):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
    assert not found, found
