"""``--config`` piece by piece: a server's entry read (variables, stdio or URL), the
``--jobs`` bound, the flags each child is given, the sentence for globs no tool
matched, and a child ended by a signal (a real process killed) as exit 3. Expected
values written by hand. (Whole fleets of real servers: test_cli_probe_config.py.)"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from fidelity._core.errors import UsageError
from fidelity._sweep.config import ConfigServer, read_config
from fidelity._sweep.servers import (
    FleetOptions,
    _Ended,
    _flags,
    _jobs,
    _unmatched,
    run_fleet,
)


def _config(tmp_path: Path, text: str) -> str:
    path = tmp_path / "c.json"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_an_entry_takes_its_variables_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("F46_TOKEN", "tok-46")
    path = _config(
        tmp_path,
        '{"servers": {'
        '"s": {"command": "srv", "args": ["--key", "${env:F46_TOKEN}", "x${F46_TOKEN}y"],'
        ' "env": {"K": "${F46_TOKEN}"}, "cwd": "/srv"},'
        ' "h": {"type": "http", "serverUrl": "http://127.0.0.1:9/mcp",'
        ' "headers": {"Authorization": "Bearer ${env:F46_TOKEN}"}}}}',
    )
    s, h = read_config(path)
    assert s == ConfigServer(
        name="s",
        command=("srv", "--key", "tok-46", "xtok-46y"),
        env={"K": "tok-46"},
        cwd="/srv",
    )
    assert h == ConfigServer(
        name="h", url="http://127.0.0.1:9/mcp", headers={"Authorization": "Bearer tok-46"}
    )
    assert read_config(path, ["h"]) == (h,)


def test_unset_variables_are_named_once_sorted(tmp_path: Path) -> None:
    path = _config(
        tmp_path,
        '{"mcpServers": {"s": {"command": "${env:F46_UNSET_B}",'
        ' "args": ["${F46_UNSET_A}", "${env:F46_UNSET_B}"]}}}',
    )
    with pytest.raises(UsageError) as caught:
        read_config(path)
    assert str(caught.value) == (
        f"{path}: server 's' uses ${{env:F46_UNSET_A, F46_UNSET_B}}, not set in the "
        "environment; set it."
    )


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        ('"x"', "must be an object."),
        ('{"command": "x", "args": "a"}', "args must be a list of strings."),
        ('{"command": "x", "env": {"A": 1}}', "env must be an object of strings."),
        ('{"type": "sse", "command": "x"}', "has neither a command (stdio) nor a url"),
        ('{"command": "x", "args": ["${not a name}"]}', "uses s.args: ${not a name}: a value"),
    ],
)
def test_a_bad_entry_is_one_sentence(tmp_path: Path, entry: str, said: str) -> None:
    path = _config(tmp_path, '{"servers": {"s": ' + entry + "}}")
    with pytest.raises(UsageError) as caught:
        read_config(path)
    assert str(caught.value).startswith(f"{path}: server 's'")
    assert said in str(caught.value)


def test_the_mcp_servers_of_a_vscode_settings_file(tmp_path: Path) -> None:
    path = _config(tmp_path, '{"mcp": {"servers": {"v": {"command": "srv"}}}}')
    assert read_config(path) == (ConfigServer(name="v", command=("srv",)),)


def test_jobs_from_1_to_64() -> None:
    assert _jobs(None) == 1
    assert _jobs("1") == 1
    assert _jobs("64") == 64
    for bad in ("0", "65", "-1", "2.5", "x"):
        with pytest.raises(UsageError) as caught:
            _jobs(bad)
        assert str(caught.value) == f"--jobs {bad} must be a whole number from 1 to 64."


def test_the_flags_a_child_is_given() -> None:
    values = {
        "families": "quotes",
        "examples": 3,
        "yes": True,
        "quiet": False,
        "skip_tool": ["del*", "rm"],
        "default": [],
        "seed": None,
        "jobs": "4",  # the fleet's own option: not passed on
    }
    assert _flags(values) == [
        "--families",
        "quotes",
        "--examples",
        "3",
        "--yes",
        "--skip-tool",
        "del*",
        "--skip-tool",
        "rm",
    ]


def _ended(tools: list[str] | None) -> _Ended:
    return _Ended(code=0, part="", sentence="", tools=tools)


def test_globs_and_pinned_tools_that_match_no_tool_are_one_sentence() -> None:
    options = FleetOptions(
        servers=(), jobs=1, flags=(), skip_tool=("del*", "zz*"), args_for=("nope={}",)
    )
    ends = [("a", _ended(["delete", "read"])), ("b", _ended(["write"])), ("c", _ended(None))]
    assert _unmatched(options, ends) == (
        "--skip-tool 'zz*' and --args-for 'nope' match no tool of the servers reached "
        "(a, b); their results are kept; correct them."
    )
    one = FleetOptions(servers=(), jobs=1, flags=(), only_tool=("q*",))
    assert _unmatched(one, [("a", _ended(["read"]))]) == (
        "--only-tool 'q*' matches no tool of the server reached (a); its results are "
        "kept; correct it."
    )
    # No server reached: nothing to say about the globs.
    assert _unmatched(one, [("c", _ended(None))]) == ""
    matched = FleetOptions(servers=(), jobs=1, flags=(), skip_tool=("re*",))
    assert _unmatched(matched, [("a", _ended(["read"]))]) == ""


def test_a_child_killed_by_a_signal_is_exit_3() -> None:
    # The server kills the fidelity process that started it (its parent) with SIGKILL.
    killer = ConfigServer(
        name="killer",
        command=(
            sys.executable,
            "-c",
            "import os, signal; os.kill(os.getppid(), signal.SIGKILL)",
        ),
    )
    sections: list[tuple[str, int]] = []
    fleet = run_fleet(
        FleetOptions(servers=(killer,), jobs=1, flags=("--timeout", "20")),
        lambda name, code, _text: sections.append((name, code)),
    )
    assert sections == [("killer", -9)]
    assert fleet.exit_code == 3
    assert fleet.failed == (("killer", "exit -9"),)
    assert fleet.cards == ()
    assert fleet.parts == (("killer", ""),)


_OVERLAP = """
import os, sys, time
here, me, other = sys.argv[1], sys.argv[2], sys.argv[3]
open(os.path.join(here, "ran-" + me), "w").close()
live = os.path.join(here, "live-" + me)
open(live, "w").close()
deadline = time.monotonic() + 4
while time.monotonic() < deadline:
    if os.path.exists(os.path.join(here, "live-" + other)):
        open(os.path.join(here, "overlap-" + me), "w").close()
        break
    time.sleep(0.05)
os.remove(live)
"""


def test_jobs_1_runs_one_server_at_a_time(tmp_path: Path) -> None:
    # Each server marks itself live for 4 seconds and notes whether the other one is
    # live meanwhile; one at a time, neither ever is (run two at once, both would be).
    script = tmp_path / "overlap.py"
    script.write_text(_OVERLAP, encoding="utf-8")
    servers = tuple(
        ConfigServer(name=me, command=(sys.executable, str(script), str(tmp_path), me, other))
        for me, other in (("a", "b"), ("b", "a"))
    )
    fleet = run_fleet(FleetOptions(servers=servers, jobs=1, flags=("--timeout", "20")))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["overlap.py", "ran-a", "ran-b"]
    assert fleet.exit_code == 3  # neither speaks MCP


def test_jsonc_trailing_commas_before_spaces_and_escaped_quotes() -> None:
    from fidelity._sweep.config import strip_jsonc

    text = '{"a": [1, 2 ,  \n ], "b": "q\\"//not a comment", /* c */ }'
    assert json.loads(strip_jsonc(text)) == {"a": [1, 2], "b": 'q"//not a comment'}
    with pytest.raises(ValueError, match=r"^a /\* comment is not closed$"):
        strip_jsonc('{"a": 1 /* open')
