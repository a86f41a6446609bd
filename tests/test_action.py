"""The GitHub Action (action.yml) does what it says: its steps run, with the inputs
substituted as GitHub does, against a local reflector and a small suite."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from _support.cli import fidelity_inprocess
from junitparser import Failure, JUnitXml

import probes

ROOT = Path(__file__).resolve().parent.parent
ACTION = ROOT / "action.yml"
EXPRESSION = re.compile(r"\$\{\{\s*(.+?)\s*\}\}")
TOKEN = re.compile(
    r"\s*(?:(?P<string>'[^']*')|(?P<op>&&|\|\||==|!=|!|\(|\))|(?P<call>\w+)\(\)|(?P<name>[\w.-]+))"
)

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


def evaluate(expression: str, context: dict[str, str], *, failed: bool) -> str | bool:
    """A GitHub expression of the forms the action uses: context names, '' strings,
    ==, !=, !, &&, || (the first truthy operand, as GitHub's), parentheses, and the
    status functions success(), failure(), always(), cancelled()."""
    calls = {"success": not failed, "failure": failed, "always": True, "cancelled": False}
    words = {"&&": " and ", "||": " or ", "!": " not ", "==": "==", "!=": "!=", "(": "(", ")": ")"}
    python = []
    values: dict[str, str | bool] = {}
    pos = 0
    while pos < len(expression):
        token = TOKEN.match(expression, pos)
        assert token, f"an expression this test cannot read: {expression}"
        assert token.end() > pos, f"an expression this test cannot read: {expression}"
        pos = token.end()
        if token["string"] is not None:
            python.append(repr(token["string"][1:-1]))
        elif token["op"] is not None:
            python.append(words[token["op"]])
        else:
            key = f"v{len(values)}"
            if token["call"] is not None:
                values[key] = calls[token["call"]]
            else:
                assert token["name"] in context, f"unknown context name {token['name']}"
                values[key] = context[token["name"]]
            python.append(key)
    result: str | bool = eval("".join(python), {"__builtins__": {}}, values)
    return result


@dataclass
class Run:
    """What a run of the action did: each step that ran (by id or name), the outputs."""

    steps: dict[str, subprocess.CompletedProcess[str]] = field(default_factory=dict)
    outputs: dict[str, str] = field(default_factory=dict)

    @property
    def codes(self) -> dict[str, int]:
        return {name: step.returncode for name, step in self.steps.items()}


def _read_outputs(path: Path) -> dict[str, str]:
    """A step's ``$GITHUB_OUTPUT`` file: ``name=value`` and ``name<<END`` blocks."""
    outputs: dict[str, str] = {}
    lines = iter(path.read_text("utf-8").splitlines())
    for line in lines:
        name, sep, value = line.partition("=")
        if sep and "<<" not in name:
            outputs[name] = value
            continue
        name, _, delimiter = line.partition("<<")
        block = []
        for inner in lines:
            if inner == delimiter:
                break
            block.append(inner)
        outputs[name] = "\n".join(block)
    return outputs


def _substitute(text: str, context: dict[str, str], *, failed: bool) -> str:
    """``text`` with each ``${{ expression }}`` replaced by its value."""
    return EXPRESSION.sub(lambda m: str(evaluate(m.group(1), context, failed=failed)), text)


def run_action(inputs: dict[str, str], cwd: Path) -> Run:
    """Run each step of the composite action as GitHub would: ``if:`` evaluated (by
    default ``success()``), the ``${{ }}`` expressions of ``env`` substituted, ``run``
    under ``bash -eo pipefail`` with its own ``$GITHUB_OUTPUT``; then the action's
    outputs from the steps' outputs."""
    action = _action()
    values = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    unknown = set(inputs) - set(values)
    assert not unknown, f"inputs the action does not declare: {unknown}"
    values.update(inputs)
    context = {f"inputs.{k}": v for k, v in values.items()}
    context["github.action_path"] = str(ROOT)
    ids = [step.get("id") for step in action["runs"]["steps"] if step.get("id")]
    for step_id in ids:
        context[f"steps.{step_id}.outcome"] = ""
        context[f"steps.{step_id}.outputs.exit-code"] = ""
        context[f"steps.{step_id}.outputs.card"] = ""
        context[f"steps.{step_id}.outputs.cards"] = ""
    run = Run()
    failed = False
    for number, step in enumerate(action["runs"]["steps"]):
        step_id = step.get("id")
        if not evaluate(step.get("if", "success()"), context, failed=failed):
            if step_id:
                context[f"steps.{step_id}.outcome"] = "skipped"
            continue
        assert EXPRESSION.search(step["run"]) is None, "inputs go through env, not into run"
        env = {k: _substitute(v, context, failed=failed) for k, v in step["env"].items()}
        output = cwd.parent / f"github-output-{cwd.name}-{number}"
        output.write_text("", encoding="utf-8")
        result = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            cwd=cwd,
            env={**os.environ, **env, "GITHUB_OUTPUT": str(output)},
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        run.steps[step_id or step["name"]] = result
        failed = failed or result.returncode != 0
        if step_id:
            context[f"steps.{step_id}.outcome"] = "failure" if result.returncode else "success"
            for name, value in _read_outputs(output).items():
                context[f"steps.{step_id}.outputs.{name}"] = value
    for name, spec in action["outputs"].items():
        run.outputs[name] = _substitute(spec["value"], context, failed=failed)
    return run


INSTALL = "Install param-fidelity from this action's checkout"


def test_the_action_declares_and_documents_its_inputs_and_outputs() -> None:
    action = _action()
    assert action["runs"]["using"] == "composite"
    assert set(action["inputs"]) == {
        "target", "probe-check", "pytest", "pytest-check", "pytest-cards", "junit",
        "check", "python", "pip-args",
    }  # fmt: skip
    assert set(action["outputs"]) == {"exit-code", "probe-exit-code", "pytest-exit-code", "cards"}
    page = (ROOT / "docs" / "ci.md").read_text("utf-8")
    for kind in ("inputs", "outputs"):
        for name, spec in action[kind].items():
            assert spec["description"].strip(), name
            assert f"| `{name}` |" in page, f"docs/ci.md does not document {kind[:-1]} {name}"


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
        run = run_action(
            {
                "python": python,
                # The install step runs for real, minus downloads: the test's environment
                # has the dependencies and the build backend ([dev]); --dry-run leaves it
                # untouched.
                "pip-args": PIP_ARGS,
                "target": target,
                "probe-check": "CARDS.md",
            },
            tmp_path,
        )
    assert run.codes == {INSTALL: 0, "probe": 0, "summary": 0}, [
        s.stdout + s.stderr for s in run.steps.values()
    ]
    assert "Would install param-fidelity" in run.steps[INSTALL].stdout
    assert "payloads:" in run.steps["probe"].stdout
    assert run.outputs == {
        "exit-code": "0",
        "probe-exit-code": "0",
        "pytest-exit-code": "",
        "cards": "CARDS.md",
    }

    # The pytest step: the suite's rewrite fails it, and the JUnit file says why.
    run = run_action(
        {"python": python, "pip-args": PIP_ARGS, "pytest": "-p no:cacheprovider "
         "test_notes.py", "junit": "out/junit.xml"},
        tmp_path,
    )  # fmt: skip
    assert run.codes == {INSTALL: 0, "pytest": 1, "summary": 0}
    assert run.outputs == {
        "exit-code": "1",
        "probe-exit-code": "",
        "pytest-exit-code": "1",
        "cards": "",
    }
    cases = {
        case.name: [r for r in case.result if isinstance(r, Failure)]
        for suite in JUnitXml.fromfile(str(tmp_path / "out" / "junit.xml"))
        for case in suite
    }
    (failure,) = cases["test_body"]
    assert failure.message is not None
    assert "newline.crlf_to_lf (not allowed)" in failure.message


@pytest.mark.timeout(300)
def test_the_probe_and_pytest_each_get_their_own_check(tmp_path: Path) -> None:
    # One run: the probe checks its card document, pytest its card directory; a failed
    # probe still lets pytest run, and the outputs carry both codes and the cards.
    python = sys.executable
    faithful = SUITE.replace('text.replace("\\r\\n", "\\n")', "text")
    (tmp_path / "test_notes.py").write_text(faithful, encoding="utf-8")
    subprocess.run(
        [python, "-m", "pytest", "-p", "no:cacheprovider", "--fidelity-cards=cards"],
        cwd=tmp_path, capture_output=True, timeout=120, check=True,
    )  # fmt: skip
    with probes.http_reflector() as reflector:
        target = f"{reflector.url} --families quotes"
        made = fidelity_inprocess("probe", *target.split(), "--card", "CARDS.md", cwd=tmp_path)
        assert made.returncode == 0, made.stdout + made.stderr
        # The probe now checks another family than its card holds: drift, exit 1.
        run = run_action(
            {
                "python": python,
                "pip-args": PIP_ARGS,
                "target": f"{reflector.url} --families newlines",
                "probe-check": "CARDS.md",
                "pytest": "-p no:cacheprovider",
                "pytest-check": "cards",
                "pytest-cards": "written",
            },
            tmp_path,
        )
    assert run.codes == {INSTALL: 0, "probe": 1, "pytest": 0, "summary": 0}, [
        s.stdout + s.stderr for s in run.steps.values()
    ]
    assert "--fidelity-check" not in run.steps["probe"].stderr
    assert run.outputs == {
        "exit-code": "1",
        "probe-exit-code": "1",
        "pytest-exit-code": "0",
        "cards": "CARDS.md\nwritten/notes.body.json",
    }


def _docs_block(marker: str) -> dict[str, Any]:
    text = (ROOT / "docs" / "ci.md").read_text("utf-8")
    block = text.split(f"<!-- {marker} -->\n```yaml\n", 1)[1].split("```\n", 1)[0]
    loaded: dict[str, Any] = yaml.safe_load(block)
    return loaded


@pytest.mark.timeout(300)
def test_the_documented_workflow_keeps_the_drift_check_whole(tmp_path: Path) -> None:
    # The CI page's workflow, run as written (plus this environment's interpreter and
    # an install that downloads nothing): a committed card whose test was deleted is
    # "no longer produced", exit 1, not a note of a limited run.
    workflow = _docs_block("github-workflow")
    steps = workflow["jobs"]["fidelity"]["steps"]
    (step,) = [s for s in steps if "third_party" in s.get("uses", "")]
    documented = {k: str(v) for k, v in step["with"].items()}
    assert documented["junit"] == "fidelity.xml"
    faithful = SUITE.replace('text.replace("\\r\\n", "\\n")', "text")
    title = faithful.replace("notes.body", "notes.title").replace("test_body", "test_title")
    (tmp_path / "test_notes.py").write_text(faithful + title, encoding="utf-8")
    subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
         f"--fidelity-cards={documented['pytest-check']}"],
        cwd=tmp_path, capture_output=True, timeout=120, check=True,
    )  # fmt: skip
    (tmp_path / "test_notes.py").write_text(faithful, encoding="utf-8")  # test_title deleted
    run = run_action({**documented, "python": sys.executable, "pip-args": PIP_ARGS}, tmp_path)
    assert run.codes == {INSTALL: 0, "pytest": 1, "summary": 0}, [
        s.stdout + s.stderr for s in run.steps.values()
    ]
    assert "not checked" not in run.steps["pytest"].stdout
    assert run.outputs["exit-code"] == "1"
    cases = {
        f"{case.classname}::{case.name}": [r for r in case.result if isinstance(r, Failure)]
        for suite in JUnitXml.fromfile(str(tmp_path / "fidelity.xml"))
        for case in suite
    }
    (failure,) = cases["fidelity-check::notes.title"]
    assert "no longer produced" in failure.text


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
