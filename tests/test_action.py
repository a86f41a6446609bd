"""The GitHub Action (action.yml) does what it says: its steps run, with the inputs
substituted as GitHub does, against a local reflector and a small suite."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from _support.cli import fidelity_inprocess
from junitparser import Failure, JUnitXml

import probes

ROOT = Path(__file__).resolve().parent.parent
ACTION = ROOT / "action.yml"
EXPRESSION = re.compile(r"\$\{\{\s*([\w.-]+)\s*\}\}")
CONDITION = re.compile(r"^inputs\.([\w-]+) != ''$")

PIP_ARGS = "--dry-run --no-deps --no-build-isolation"

SUITE = """
import pytest

def wire(text):
    return text.replace("\\r\\n", "\\n")

@pytest.mark.fidelity(card="notes.body")
def test_body(fidelity):
    fidelity.survey(wire)
"""


def _action() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(ACTION.read_text("utf-8"))
    return loaded


def run_action(inputs: dict[str, str], cwd: Path) -> list[subprocess.CompletedProcess[str]]:
    """Run each step of the composite action as GitHub would: ``if:`` evaluated, the
    ``${{ }}`` expressions of ``env`` substituted, ``run`` under ``bash -eo pipefail``.
    Stops at the first step that fails, as GitHub does."""
    action = _action()
    values = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    unknown = set(inputs) - set(values)
    assert not unknown, f"inputs the action does not declare: {unknown}"
    values.update(inputs)
    context = {f"inputs.{k}": v for k, v in values.items()}
    context["github.action_path"] = str(ROOT)
    done = []
    for step in action["runs"]["steps"]:
        condition = step.get("if")
        if condition is not None:
            match = CONDITION.match(condition)
            assert match, f"a condition this test cannot evaluate: {condition}"
            if values[match.group(1)] == "":
                continue
        assert EXPRESSION.search(step["run"]) is None, "inputs go through env, not into run"
        env = {k: EXPRESSION.sub(lambda m: context[m.group(1)], v) for k, v in step["env"].items()}
        result = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            cwd=cwd,
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        done.append(result)
        if result.returncode != 0:
            break
    return done


def test_the_action_declares_its_inputs() -> None:
    action = _action()
    assert action["runs"]["using"] == "composite"
    assert {"target", "check", "junit", "pytest"} <= set(action["inputs"])
    for spec in action["inputs"].values():
        assert spec["description"].strip()


@pytest.mark.timeout(300)
def test_the_action_probes_checks_and_writes_junit(tmp_path: Path) -> None:
    python = sys.executable
    with probes.http_reflector() as reflector:
        target = f"{reflector.url} --families quotes,newlines"
        # The committed card block the action checks against, made by the same command
        # (in this process: the action's own steps below are the subprocesses).
        made = fidelity_inprocess("probe", *target.split(), "--card", "CARDS.md", cwd=tmp_path)
        assert made.returncode == 0, made.stdout + made.stderr
        (tmp_path / "test_notes.py").write_text(SUITE, encoding="utf-8")
        steps = run_action(
            {
                "python": python,
                # The install step runs for real, minus downloads: the test's environment
                # has the dependencies and the build backend ([dev]); --dry-run leaves it
                # untouched.
                "pip-args": PIP_ARGS,
                "target": target,
                "check": "CARDS.md",
            },
            tmp_path,
        )
    assert [s.returncode for s in steps] == [0, 0], [s.stdout + s.stderr for s in steps]
    assert "Would install param-fidelity" in steps[0].stdout
    assert "payloads:" in steps[1].stdout

    # The pytest step: the suite's rewrite fails it, and the JUnit file says why.
    pytest_steps = run_action(
        {"python": python, "pip-args": PIP_ARGS, "pytest": "-p no:cacheprovider "
         "test_notes.py", "junit": "out/junit.xml"},
        tmp_path,
    )  # fmt: skip
    assert [s.returncode for s in pytest_steps] == [0, 1]
    cases = {
        case.name: [r for r in case.result if isinstance(r, Failure)]
        for suite in JUnitXml.fromfile(str(tmp_path / "out" / "junit.xml"))
        for case in suite
    }
    (failure,) = cases["test_body"]
    assert failure.message is not None
    assert "newline.crlf_to_lf (not allowed)" in failure.message


def _docs_block(marker: str) -> dict[str, Any]:
    text = (ROOT / "docs" / "ci.md").read_text("utf-8")
    block = text.split(f"<!-- {marker} -->\n```yaml\n", 1)[1].split("```\n", 1)[0]
    loaded: dict[str, Any] = yaml.safe_load(block)
    return loaded


def test_the_documented_workflow_uses_the_action_inputs() -> None:
    workflow = _docs_block("github-workflow")
    steps = workflow["jobs"]["fidelity"]["steps"]
    (step,) = [s for s in steps if "third_party" in s.get("uses", "")]
    assert set(step["with"]) <= set(_action()["inputs"])
    assert step["with"]["junit"] == "fidelity.xml"


@pytest.mark.timeout(300)
def test_the_documented_gitlab_job_reports_drift_in_junit(tmp_path: Path) -> None:
    job = _docs_block("gitlab-job")["fidelity"]
    assert job["artifacts"]["reports"]["junit"] == "fidelity.xml"
    (command,) = [line for line in job["script"] if " pytest " in line]
    assert command.startswith("python -m pytest ")
    faithful = SUITE.replace('text.replace("\\r\\n", "\\n")', "text")
    assert faithful != SUITE
    (tmp_path / "test_notes.py").write_text(faithful, encoding="utf-8")
    subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--fidelity-cards=docs/cards"],
        cwd=tmp_path, capture_output=True, timeout=120, check=True,
    )  # fmt: skip
    # A release starts turning CRLF into LF and the test allows it: only the card sees it.
    drifting = SUITE.replace('card="notes.body"', 'card="notes.body", allow=["newline.crlf_to_lf"]')
    (tmp_path / "test_notes.py").write_text(drifting, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, *command.split()[1:], "-p", "no:cacheprovider"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    cases = {
        f"{case.classname}::{case.name}": [r for r in case.result if isinstance(r, Failure)]
        for suite in JUnitXml.fromfile(str(tmp_path / "fidelity.xml"))
        for case in suite
    }
    assert cases["test_notes::test_body"] == []
    (failure,) = cases["fidelity-check::notes.body"]
    assert "newline.crlf_to_lf appeared" in failure.text
