"""``--restart CMD``: after the run, restart the service and read every value back once
more; a value that reads differently only then is reported as read after the restart.

Against the wiki-like page store (``tests/servers/http_wiki.py``), which keeps a lone
surrogate in memory as it came and turns it into U+FFFD when it reloads its pages from
disk (on ``SIGHUP``: a restart that keeps the port).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from _support.cli import fidelity_inprocess as fidelity
from _support.servers import serving

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def wiki(tmp_path: Path) -> Iterator[tuple[str, int, Path]]:
    store = tmp_path / "wiki.json"
    with serving("http_wiki.py", str(store)) as url:
        yield url, httpx.get(f"{url}_pid").json(), store


def _run(tmp_path: Path, url: str, *options: str) -> tuple[int, list[dict[str, object]], str]:
    out = tmp_path / "r.json"
    result = fidelity(
        "probe", f"{url}pages/note-{{run}}-{{n}}", "--method", "PUT", "--send", "json:text",
        "--read-url", f"{url}pages/note-{{run}}-{{n}}", "--read", "json:text",
        "--families", "surrogates,quotes", "--json", str(out), *options,
    )  # fmt: skip
    assert "Traceback" not in result.stderr, result.stderr
    observations = json.loads(out.read_text())["observations"] if out.exists() else []
    return result.returncode, observations, result.stdout + result.stderr


def _statuses(observations: list[dict[str, object]]) -> dict[str, int]:
    return dict(Counter(str(o["status"]) for o in observations))


def test_a_rewrite_only_a_restart_shows(wiki: tuple[str, int, Path], tmp_path: Path) -> None:
    url, pid, _ = wiki
    code, observations, output = _run(tmp_path, url, "--restart", f"kill -HUP {pid}")
    assert code == 1, output
    # 7 lone surrogates kept in memory as sent, U+FFFD once reloaded; the pair with no
    # JSON form is refused by the client, as without a restart.
    assert _statuses(observations) == {"preserved": 17, "transformed": 7, "rejected": 1}
    changed = [o for o in observations if o["status"] == "transformed"]
    assert all(o["kinds"] == ["encoding.replacement"] for o in changed)
    assert all(o["blame"] == "the restart" for o in changed)
    names = [[h["name"] for h in o["hops"]] for o in changed]  # type: ignore[attr-defined]
    assert names == [["read back before the restart", "read back after the restart"]] * 7
    assert "read again after a restart: 7 values changed only then, 0 could no longer" in output


def test_without_the_restart_the_same_run_sees_nothing(
    wiki: tuple[str, int, Path], tmp_path: Path
) -> None:
    url, _, _ = wiki
    code, observations, output = _run(tmp_path, url)
    assert code == 0, output
    assert _statuses(observations) == {"preserved": 24, "rejected": 1}


def test_values_gone_after_the_restart_are_lost(
    wiki: tuple[str, int, Path], tmp_path: Path
) -> None:
    url, pid, store = wiki
    code, observations, output = _run(
        tmp_path, url, "--families", "quotes", "--restart", f"rm {store} && kill -HUP {pid}"
    )
    assert code == 3
    assert _statuses(observations) == {"lost": 17}
    assert {o["error"] for o in observations} == {
        "after the restart the value could not be read back (HTTP 404 Not Found)."
    }
    assert "0 values changed only then, 17 could no longer be read back" in output


def test_a_restart_command_that_fails_is_one_sentence(
    wiki: tuple[str, int, Path], tmp_path: Path
) -> None:
    url, _, _ = wiki
    code, _, output = _run(
        tmp_path, url, "--families", "quotes", "--restart", "echo no >&2; exit 4"
    )
    assert code == 3
    assert "the restart command ended with exit 4 (no); nothing was read back after it." in output


@pytest.mark.parametrize(
    "args",
    [
        ["http://127.0.0.1:9/pages", "--restart", "true"],
        ["http://127.0.0.1:9/pages", "--restart", " ", "--read-url", "http://127.0.0.1:9/p"],
    ],
)
def test_restart_needs_a_command_and_a_read_url(args: list[str]) -> None:
    result = fidelity("probe", *args)
    assert result.returncode == 2
    assert "--restart CMD reads every value back again after CMD restarted the service" in (
        result.stderr
    )


def _mcp_run(tmp_path: Path, *options: str) -> tuple[int, list[dict[str, object]], str]:
    from _needs import need_module
    from _support.servers import PYTHON, SERVERS

    need_module("mcp")
    out = tmp_path / "r.json"
    result = fidelity(
        "probe", "--mcp", "--yes", "--tool", "put", "--param", "text",
        "--args", '{"key": "k{n}"}', "--read-tool", "get", "--read-args", '{"key": "k{n}"}',
        "--read", "text", "--families", "normalization,quotes", "--json", str(out), *options,
        "--", PYTHON, str(SERVERS / "mcp_reload_store.py"), str(tmp_path / "store.json"),
    )  # fmt: skip
    assert "Traceback" not in result.stderr, result.stderr
    observations = json.loads(out.read_text())["observations"] if out.exists() else []
    return result.returncode, observations, result.stdout + result.stderr


def test_a_stdio_server_read_again_after_it_restarted(tmp_path: Path) -> None:
    """``tests/servers/mcp_reload_store.py`` NFC-normalizes what it loads from disk: the
    11 payloads NFC changes read back as sent, and as NFC once the server started again."""
    code, observations, output = _mcp_run(tmp_path, "--read-after-restart")
    assert code == 1, output
    assert _statuses(observations) == {"preserved": 19, "transformed": 11}
    changed = [o for o in observations if o["status"] == "transformed"]
    assert all(o["kinds"] == ["unicode.nfc"] and o["blame"] == "the restart" for o in changed)
    assert "read again after a restart: 11 values changed only then" in output


def test_the_same_stdio_run_without_a_restart_sees_nothing(tmp_path: Path) -> None:
    code, observations, output = _mcp_run(tmp_path)
    assert code == 0, output
    assert _statuses(observations) == {"preserved": 30}


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--mcp", "--read-after-restart", "--", "true"], "give --mcp, --read-tool"),
        (["http://127.0.0.1:9/x", "--read-after-restart"], "for HTTP: --restart CMD"),
        (
            ["--mcp", "--read-after-restart", "--read-tool", "get", "http://127.0.0.1:9/mcp"],
            "a server at a URL is restarted by its own means",
        ),
    ],
)
def test_read_after_restart_misused_is_one_sentence(args: list[str], words: str) -> None:
    result = fidelity("probe", *args)
    assert result.returncode == 2
    assert words in result.stderr
