"""How a stdio server starts: the caller's environment, ``env=``, ``sandbox=True`` and a
module's ``setup=``, through real servers over stdio."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import probes
from fidelity import Status, TargetError, UsageError

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.usefixtures("mcp_sdk"),
]

#: A notes server that keeps its notes in an SQLite file named by DB_PATH, as a tool
#: author's server does; ``init_db`` makes the table (what its ``main()`` would do),
#: ``where`` says what the server sees of its environment.
NOTES = """
import json
import os
import subprocess
import sys
import sqlite3
import tempfile

from mcp.server.mcpserver import MCPServer

app = MCPServer("notes")


def _db():
    return sqlite3.connect(os.environ.get("DB_PATH", "notes.db"))


def init_db():
    with _db() as db:
        db.execute("CREATE TABLE IF NOT EXISTS notes (key TEXT PRIMARY KEY, body TEXT)")


async def init_db_async():
    init_db()


def broken_setup():
    raise RuntimeError("the schema file is missing")


@app.tool()
def save_note(key: str, body: str) -> str:
    with _db() as db:
        tidy = body.replace("\\r\\n", "\\n")
        db.execute("INSERT OR REPLACE INTO notes VALUES (?, ?)", (key, tidy))
    return "saved"


@app.tool()
def read_note(key: str) -> str:
    with _db() as db:
        return db.execute("SELECT body FROM notes WHERE key = ?", (key,)).fetchone()[0]


@app.tool()
def where(name: str) -> str:
    return json.dumps({
        "value": os.environ.get(name),
        "home": os.environ.get("HOME"),
        "tmp": tempfile.gettempdir(),
        "cwd": os.getcwd(),
    })


def main():
    init_db()
    app.run("stdio")
"""


@pytest.fixture
def notes_dir(tmp_path: Path) -> Path:
    (tmp_path / "notes_app.py").write_text(NOTES, encoding="utf-8")
    return tmp_path


def _notes(notes_dir: Path, **options: object) -> probes.McpProbe:
    """The notes server's save-then-read chain (or, with ``tool="where"``, its
    environment report), imported from ``notes_dir``."""
    given: dict[str, object] = {"cwd": notes_dir, "allow_destructive": True}
    if options.get("tool") == "where":
        given.update(param="name", read="text")
    else:
        given.update(
            tool="save_note",
            param="body",
            args={"key": "k{n}"},
            read_tool="read_note",
            read_args={"key": "k{n}"},
        )
    probe: probes.McpProbe = probes.mcp_module("notes_app:app", **{**given, **options})
    return probe


def _where(probe: probes.McpProbe, name: str) -> dict[str, str | None]:
    from probes._mcp.session import McpSession

    session = probe._sessions.connect()
    assert isinstance(session, McpSession)
    result = session.call_tool("where", {"name": name}, 10.0, 20.0)
    seen: dict[str, str | None] = json.loads(result.content[0].text)
    return seen


def test_the_server_gets_the_environment_as_it_is_when_the_probe_opens(
    notes_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "test.db"
    probe = _notes(notes_dir, tool="where")
    monkeypatch.setenv("DB_PATH", str(db))  # after the probe is made, before it opens
    with probe:
        seen = _where(probe, "DB_PATH")
    assert seen["value"] == str(db)
    assert seen["home"] == os.environ["HOME"]


def test_env_adds_and_overrides(notes_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DB_PATH", "from-the-test.db")
    monkeypatch.setenv("FIDELITY_TEST_KEPT", "kept")
    probe = _notes(notes_dir, tool="where", env={"DB_PATH": "from-env.db"})
    with probe:
        assert _where(probe, "DB_PATH")["value"] == "from-env.db"
        assert _where(probe, "FIDELITY_TEST_KEPT")["value"] == "kept"


def test_inherit_env_false_is_the_sdks_minimal_environment(
    notes_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FIDELITY_TEST_SECRET", "s3cret")
    probe = _notes(notes_dir, tool="where", inherit_env=False, env={"DB_PATH": "x.db"})
    with probe:
        assert _where(probe, "FIDELITY_TEST_SECRET")["value"] is None
        assert _where(probe, "DB_PATH")["value"] == "x.db"


def test_a_survey_writes_only_where_the_test_says(
    notes_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "kept" / "notes.db"
    db.parent.mkdir()
    monkeypatch.setenv("DB_PATH", str(db))
    with _notes(notes_dir, setup="notes_app:init_db") as probe:
        crlf = probe.observe("a\r\nb")
    assert crlf.status is Status.TRANSFORMED
    assert crlf.kinds == {"newline.crlf_to_lf"}
    assert db.is_file()
    assert not (notes_dir / "notes.db").exists()


def test_without_setup_the_table_is_missing_and_with_it_the_value_arrives(
    notes_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DB_PATH", str(notes_dir / "a.db"))
    with _notes(notes_dir) as probe:
        missing = probe.observe("plain")
    assert missing.status is Status.REJECTED
    assert missing.error == "Error executing tool save_note"  # the SDK 2.x server hides why
    monkeypatch.setenv("DB_PATH", str(notes_dir / "b.db"))
    with _notes(notes_dir, setup="notes_app:init_db_async") as probe:
        plain = probe.observe("plain")
    assert plain.status is Status.PRESERVED


def test_a_setup_that_fails_stops_the_probe_in_one_sentence(notes_dir: Path) -> None:
    with (
        pytest.raises(TargetError) as raised,
        _notes(notes_dir, setup="notes_app:broken_setup") as probe,
    ):
        probe.observe("x")
    assert (
        "fidelity: the setup notes_app:broken_setup failed "
        "(RuntimeError: the schema file is missing)." in str(raised.value)
    )
    with pytest.raises(UsageError, match=r"setup='init_db': name it as 'MODULE:ATTRIBUTE'"):
        probes.mcp_module("notes_app:app", setup="init_db")


def test_a_sandbox_has_its_own_home_tmp_and_cwd_and_is_removed(
    notes_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FIDELITY_TEST_KEPT", "kept")
    monkeypatch.delenv("DB_PATH", raising=False)
    probe = _notes(notes_dir, setup="notes_app:init_db", sandbox=True)
    with probe:
        work = probe.sandbox
        assert work is not None
        root = os.path.dirname(work)
        assert os.path.basename(root).startswith("fidelity-sandbox-")
        seen = _where(probe, "FIDELITY_TEST_KEPT")
        saved = probe.observe("plain")
        assert os.path.isfile(os.path.join(work, "notes.db"))  # relative: in the sandbox
    assert saved.status is Status.PRESERVED
    assert seen == {
        "value": "kept",
        "home": os.path.join(root, "home"),
        "tmp": os.path.join(root, "tmp"),
        "cwd": work,
    }
    assert not os.path.exists(root)
    assert not (notes_dir / "notes.db").exists()  # imported from here, wrote nothing here


def test_a_sandbox_is_for_a_stdio_server_only() -> None:
    with pytest.raises(UsageError, match="sandbox=True starts a stdio server"):
        probes.mcp("http://127.0.0.1:9/mcp", sandbox=True)
    with pytest.raises(UsageError, match="sandbox=True gives the server its own working"):
        probes.mcp(["server"], sandbox=True, cwd=".")
    with pytest.raises(UsageError, match="env= must map variable names to string values"):
        probes.mcp(["server"], env={"N": 1})  # type: ignore[dict-item]


def test_a_sandbox_left_open_is_removed_when_the_process_exits(notes_dir: Path) -> None:
    script = (
        "import probes\n"
        "probe = probes.mcp_module('notes_app:app', tool='where', param='name', read='text',"
        " allow_destructive=True, sandbox=True, setup='notes_app:init_db')\n"
        "probe.observe('HOME')\n"
        "print(probe.sandbox)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=notes_dir,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    work = done.stdout.strip()
    assert work.endswith("/work")
    assert not os.path.exists(os.path.dirname(work))
