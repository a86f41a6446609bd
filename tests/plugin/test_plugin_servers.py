"""The plugin and the servers a test starts: the test's environment reaches them, a
setup hook prepares them, and a survey that measured nothing fails the test."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

#: A tool author's notes server on SQLite: the file is DB_PATH (``notes.db`` in its
#: working directory by default), the table is made by ``init_db``, which ``main()``
#: calls before serving; ``save_note`` "tidies" line endings; ``read_note`` is annotated
#: read-only, so a sweep pairs it with the writer.
NOTES_SERVER = """
import os
import sqlite3

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

app = MCPServer("notes")


def _db():
    return sqlite3.connect(os.environ.get("DB_PATH", "notes.db"))


def init_db():
    with _db() as db:
        db.execute("CREATE TABLE IF NOT EXISTS notes (key TEXT PRIMARY KEY, body TEXT)")


@app.tool()
def save_note(key: str, body: str) -> str:
    with _db() as db:
        tidy = body.replace("\\r\\n", "\\n")
        db.execute("INSERT OR REPLACE INTO notes VALUES (?, ?)", (key, tidy))
    return "saved"


@app.tool(annotations=ToolAnnotations(readOnlyHint=True))
def read_note(key: str) -> str:
    with _db() as db:
        return db.execute("SELECT body FROM notes WHERE key = ?", (key,)).fetchone()[0]


def main():
    init_db()
    app.run("stdio")
"""

NOTES_TESTS = """
import os
import sqlite3

import pytest

import probes
from fidelity import FidelityError


def notes(**options):
    return probes.mcp_module(
        "notes_server:app",
        tool="save_note",
        param="body",
        args={"key": "k{n}"},
        read_tool="read_note",
        read_args={"key": "k{n}"},
        allow_destructive=True,
        **options,
    )


@pytest.mark.fidelity(allow=["newline.crlf_to_lf"])
def test_writes_where_the_test_says(fidelity, tmp_path, monkeypatch):
    db = tmp_path / "kb.db"
    monkeypatch.setenv("DB_PATH", str(db))
    fidelity.survey(notes(setup="notes_server:init_db"), families=["newlines"])
    with sqlite3.connect(db) as kept:
        assert kept.execute("SELECT count(*) FROM notes").fetchone()[0] == 12


@pytest.mark.fidelity(allow=["newline.crlf_to_lf"])
def test_sandboxed(fidelity, monkeypatch):
    monkeypatch.delenv("DB_PATH", raising=False)
    server = notes(setup="notes_server:init_db", sandbox=True)
    with server:
        fidelity.survey(server, families=["newlines"])
        assert os.path.isfile(os.path.join(server.sandbox, "notes.db"))
    assert not os.path.exists(server.sandbox)


@pytest.mark.fidelity(allow=["newline.crlf_to_lf"])
def test_swept_where_the_test_says(fidelity, tmp_path, monkeypatch):
    db = tmp_path / "swept.db"
    monkeypatch.setenv("DB_PATH", str(db))
    server = probes.mcp_module("notes_server:app", setup="notes_server:init_db")
    # (the keys are measured by the sweep's own rules: nothing comes back for them)
    with pytest.raises(FidelityError, match="measured nothing .save_note.key, read_note.key."):
        fidelity.sweep(server, yes=True, families=["newlines"])
    with sqlite3.connect(db) as kept:
        assert kept.execute("SELECT count(*) FROM notes").fetchone()[0] > 0


def test_no_setup(fidelity, tmp_path, monkeypatch):
    monkeypatch.setenv("DB_PATH", str(tmp_path / "kb.db"))
    fidelity.survey(notes(), families=["newlines"])


def test_no_setup_expected(fidelity, tmp_path, monkeypatch):
    monkeypatch.setenv("DB_PATH", str(tmp_path / "kb.db"))
    fidelity.survey(notes(), families=["newlines"], accept=["rejected"])
"""


def test_servers_get_the_tests_environment_setup_and_sandbox(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(notes_server=NOTES_SERVER, test_notes=NOTES_TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q", timeout=300)
    result.assert_outcomes(passed=4, failed=1)
    result.stdout.fnmatch_lines(
        [
            "E * fidelity.FidelityError: the chain mcp stdio notes_server:app save_note.body "
            "(read by read_note, args#db0886c5) measured nothing: none of 12 payloads arrived "
            "to be compared (rejected 12); first error (newlines/lf-start: rejected): "
            "isError: Error executing tool save_note",
            'E * if these outcomes are expected: fidelity.survey(..., accept=[[]"rejected"])',
        ]
    )
    assert not (pytester.path / "notes.db").exists()  # nothing wrote beside the tests


def test_a_survey_that_measured_nothing_fails_in_one_line(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_refuses="""
        import pytest

        def refuse(text):
            raise ValueError("the store is read-only")

        def test_refused(fidelity):
            fidelity.survey(refuse, families=["quotes"])

        def test_refusal_expected(fidelity):
            fidelity.survey(refuse, families=["quotes"], accept="rejected")

        def test_bad_accept(fidelity):
            fidelity.survey(refuse, families=["quotes"], accept=["preserved"])
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(
        [
            "E * fidelity.FidelityError: the chain refuse measured nothing: none of 17 payloads "
            "arrived to be compared (rejected 17); first error (quotes/left-double-start: "
            "rejected): ValueError: the store is read-only",
            "E * fidelity.UsageError: accept names unknown outcome(s) 'preserved'; the "
            "outcomes it can accept are: rejected, lost, timeout, broken.",
        ]
    )
