"""Sample tool repositories for the plugin's pytester tests."""

from __future__ import annotations

import importlib
import importlib.util

import pytest

# pytester's in-process runs drop every module first imported during the inner run.
# A later import then makes a second copy of httpx/httpcore/h11 whose exception classes
# no longer match the first copy's `except` clauses in other tests of this process.
# Importing them here, before any inner run, keeps one copy for the whole session.
for _name in (
    "hypothesis",
    "h11",
    "httpcore",
    "httpx",
    "anyio",
    "mcp",
    "strategies",
    "probes._chains.chain",
    "probes._http.probe",
    "probes._http.reflector",
    "probes._mcp.probe",
    "probes._mcp.reflector",
    "fidelity._survey.run",
    "fidelity._report.card",
):
    if importlib.util.find_spec(_name.partition(".")[0]) is not None:
        importlib.import_module(_name)

#: A tool whose transport is JSON and whose handler "helpfully" straightens quotes,
#: the headline failure: an edit tool's old_string no longer matches the file.
TOOL_STRAIGHTENS = """
import json

CURLY = str.maketrans({"\\u201c": '"', "\\u201d": '"', "\\u2018": "'", "\\u2019": "'"})


def wire(text):
    return json.loads(json.dumps({"old_string": text}))["old_string"]


def normalise(text):
    return text.translate(CURLY)


def send(text):
    return normalise(wire(text))
"""

#: The same tool before the normaliser was added: every value arrives intact.
TOOL_FAITHFUL = """
import json


def wire(text):
    return json.loads(json.dumps({"old_string": text}))["old_string"]


def normalise(text):
    return text


def send(text):
    return normalise(wire(text))
"""


@pytest.fixture
def tool_repo(pytester: pytest.Pytester) -> pytest.Pytester:
    """A repository with ``tool.py`` (straightens quotes); tests are added per test."""
    pytester.makepyfile(tool=TOOL_STRAIGHTENS)
    return pytester


@pytest.fixture
def tool_versions() -> dict[str, str]:
    """Sources of ``tool.py``: ``straightens`` (the default) and ``faithful``."""
    return {"straightens": TOOL_STRAIGHTENS, "faithful": TOOL_FAITHFUL}
