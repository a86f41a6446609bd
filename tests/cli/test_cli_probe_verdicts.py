"""Verdicts a CI gate can trust: a run that measured nothing does not exit 0.

- no payload sent reached the target and came back: exit 3, one sentence quoting the
  most common error (an HTTP 500 on every request, a string sent to an array argument,
  ``git_commit`` with nothing staged);
- more than half rejected by the target: a warning line with the most common error;
- refusals in the client library before sending count toward neither;
- a reply the client library cannot parse is ``broken``: a warning when it is the
  exception (exit 3 when it is the rule: test_cli_probe_hostile_*.py);
- every value wrapped in the same prefix: a warning with the ``--read`` that removes it,
  which works.

Each against the server whose behaviour it is, with the truth established apart from
the probe where there is one (git's own ref-name check).
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from _needs import need_module

# In-process: the words, exit codes and files are the same as a subprocess's
# (tests/_support/cli.py says when a subprocess is kept).
from _support.cli import fidelity_inprocess as fidelity
from _support.cli import one_sentence
from _support.git import git, git_repository, git_server
from _support.mcp import npm_server
from _support.servers import calls_made, http_server, key_value_store

REPO = Path(__file__).resolve().parents[2]


def _observations(path: Path) -> list[dict[str, Any]]:
    observations: list[dict[str, Any]] = json.loads(path.read_text())["observations"]
    return observations


def _text(value: dict[str, str]) -> str:
    return base64.b64decode(value["data"]).decode("utf-8", "surrogatepass")


def _warnings(stdout: str) -> list[str]:
    return [line.removeprefix("warning: ") for line in stdout.splitlines() if "warning:" in line]


def test_http_500_on_every_request_measures_nothing(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    with http_server("error") as url:
        result = fidelity(
            "probe", url, "--read", "json:text", "--families", "quotes", "--json", str(out)
        )  # fmt: skip
    assert result.returncode == 3
    assert result.stderr == (
        "fidelity: nothing was measured: none of the 17 payloads sent to the target came "
        "back (17 rejected); the most common error (17 of 17): HTTP 500 Internal Server "
        'Error: {"error": "database is locked (SQLITE_BUSY)"}.\n'
    )
    # The map and the result are still there.
    assert "17 payloads: 17 rejected." in result.stdout
    assert {o["status"] for o in _observations(out)} == {"rejected"}


def test_a_string_sent_to_an_array_argument_measures_nothing(tmp_path: Path) -> None:
    need_module("mcp")
    root = tmp_path / "root"
    root.mkdir()
    result = fidelity(
        "probe", "--mcp", "--tool", "read_multiple_files", "--args", '{"paths": "{payload}"}',
        "--read", "text", "--families", "quotes",
        "--", npm_server("filesystem"), str(root), cwd=REPO,
    )  # fmt: skip
    assert result.returncode == 3, result.stderr
    assert result.stderr.startswith(
        "fidelity: nothing was measured: none of the 17 payloads sent to the target came back "
        "(17 rejected); the most common error (17 of 17): isError: MCP error -32602: Input "
        "validation error: Invalid arguments for tool read_multiple_files: Invalid input: "
        "expected array, received string at paths"
    ), result.stderr


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """A git repository with one file staged (for the calibration)."""
    repo = git_repository(tmp_path / "repo")
    (repo / "a.txt").write_text("a\n")
    git("-C", repo, "add", "a.txt")
    return repo


def test_git_commit_with_nothing_staged_measures_nothing(repository: Path) -> None:
    server, repo = git_server(), str(repository)
    result = fidelity(
        "probe", "--mcp", "--yes", "--tool", "git_commit", "--param", "message",
        "--args", json.dumps({"repo_path": repo}),
        "--read-tool", "git_log", "--read-args", json.dumps({"repo_path": repo, "max_count": 1}),
        "--families", "newlines,whitespace", "--", server, "--repository", repo,
    )  # fmt: skip
    # The calibration commit took the one staged file; every payload after it fails.
    assert result.returncode == 3, result.stderr
    cause = (
        "isError: Error executing tool git_commit: No changes staged for commit. Use git_add "
        "to stage changes first; git_status shows what is currently staged."
    )
    assert result.stderr == (
        "fidelity: nothing was measured: none of the 30 payloads sent to the target came back "
        f"(30 rejected); the most common error (30 of 30): {cause}\n"
    )
    # The map's smallest example shows the cause, not its first 40 characters.
    rows = [line for line in result.stdout.splitlines() if line.startswith(("newlines", "white"))]
    assert len(rows) == 2
    assert all(row.endswith(cause) for row in rows), rows
    log = git("-C", repo, "rev-list", "--count", "HEAD")
    assert log.stdout.strip() == b"1"  # the calibration's commit, and nothing else


def test_most_payloads_rejected_warns_with_the_common_error(
    repository: Path, tmp_path: Path
) -> None:
    server, repo = git_server(), str(repository)
    git("-C", repo, "commit", "-qm", "start")
    out = tmp_path / "r.json"
    result = fidelity(
        "probe", "--mcp", "--yes", "--tool", "git_create_branch", "--param", "branch_name",
        "--args", json.dumps({"repo_path": repo}), "--families", "quotes,punctuation,coercion",
        "--json", str(out), "--", server, "--repository", repo,
    )  # fmt: skip
    observations = _observations(out)
    # The truth from git itself: which names it refuses as branch names.
    refused = set()
    for obs in observations:
        name = _text(obs["sent"])
        check = git("check-ref-format", "--branch", name, check=False)
        if check.returncode != 0:
            refused.add(obs["payload_id"])
    rejected = {o["payload_id"] for o in observations if o["status"] == "rejected"}
    assert rejected == refused
    assert 2 * len(rejected) > len(observations)
    # Some came back, so the run measured something: no exit 3, but a warning.
    assert result.returncode == 0, result.stderr
    (warning,) = _warnings(result.stdout)
    assert warning.startswith(
        f"{len(rejected)} of the {len(observations)} payloads sent were rejected by the "
        "target; the most common error ("
    )
    assert (
        f" of {len(rejected)}): isError: Error executing tool git_create_branch: Invalid reference "
        "'refs/heads/<payload>': references cannot contain spaces"
    ) in warning
    assert len(warning) < 400  # the first line, bounded
    assert json.loads(out.read_text())["facts"]["warnings"] == [warning]


def test_client_side_refusals_count_toward_neither_rule(tmp_path: Path) -> None:
    need_module("mcp")
    server = npm_server("everything")
    only = fidelity("probe", "--mcp", "--families", "surrogates", "--", server, cwd=REPO)
    # Every payload failed in the client library: the target never saw one.
    assert only.returncode == 0, only.stderr
    assert "8 payloads: 8 rejected (8 failed in the client library" in only.stdout
    assert _warnings(only.stdout) == []
    mixed = fidelity("probe", "--mcp", "--families", "bom,surrogates", "--", server, cwd=REPO)
    assert mixed.returncode == 0, mixed.stderr
    assert "(8 failed in the client library before reaching the target)" in mixed.stdout
    assert _warnings(mixed.stdout) == []  # 8 of 14 rejected, but none by the target


def test_unparsable_replies_as_the_exception_are_a_warning(tmp_path: Path) -> None:
    from fidelity._core.siblings import load

    out = tmp_path / "r.json"
    calls = tmp_path / "calls.txt"
    word = "alpha \u201c"
    garbled = {p.text for p in load("strategies").catalogue(["quotes"]) if word in p.text}
    assert 0 < 2 * len(garbled) < 17  # the exception, not the rule
    result = fidelity(
        "probe", "--mcp", "--tool", "echo", "--read", "text", "--families", "quotes",
        "--json", str(out), "--", *key_value_store(calls, "--surrogate-on", word),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    observations = _observations(out)
    broken = [o for o in observations if o["status"] == "broken"]
    assert {_text(o["sent"]) for o in broken} == garbled
    assert {o["error_type"] for o in broken} == {"UnparsableReply"}
    assert {o["status"] for o in observations} == {"preserved", "broken"}
    (warning,) = _warnings(result.stdout)
    assert warning.startswith(
        f"the target's reply to {len(garbled)} of the 17 payloads sent could not be parsed "
        "(a protocol failure of the chain, counted as broken; the most common error: "
        "UnparsableReply: "
    )


def test_a_common_prefix_is_named_with_the_read_that_removes_it(tmp_path: Path) -> None:
    need_module("mcp")
    server = npm_server("everything")
    pinned = fidelity(
        "probe", "--mcp", "--read", "text", "--families", "quotes,newlines", "--", server,
        cwd=REPO,
    )  # fmt: skip
    assert pinned.returncode == 1  # every value "transformed": Echo: was added
    (warning,) = _warnings(pinned.stdout)
    read = r"regex:(?s)\AEcho: (.*)\Z"
    assert warning == (
        f"every value came back after the same prefix 'Echo: ': --read '{read}' reads the "
        "value alone (or leave --read out to locate the read-back automatically)."
    )
    fixed = fidelity(
        "probe", "--mcp", "--read", read, "--families", "quotes,newlines", "--", server, cwd=REPO
    )  # fmt: skip
    assert fixed.returncode == 0, fixed.stderr
    assert fixed.stdout.endswith("29 payloads: 29 preserved.\n")


def test_help_lists_the_exit_codes_with_the_rules() -> None:
    text = fidelity("probe", "--help").stdout
    codes = " ".join(text.split("\nexit codes:", 1)[1].split())
    for said in (
        "0 payloads came back, and no rewrite beyond --allow",
        "1 rewrites beyond --allow",
        "2 usage error",
        "3 the target is unreachable or broke",
        "parse the replies to more than half of the payloads sent",
        "a timeout on a tool not annotated readOnlyHint or idempotentHint true",
        "nothing was measured: no payload sent came back (the most common error is quoted)",
        "more than half of the payloads sent rejected by the target",
        "lines of a stdio server's stdout that are not JSON-RPC",
        "the same prefix or suffix around every value",
        "most values that came back one and the same text for different payloads",
        "A value read back that is the calibration marker is lost, not a rewrite",
        "Values the client library refused before sending count toward none of these rules",
        "effect: landed, absent or unknown",
        "With --all-tools and --openapi, one rule for the exit code, --junit and --json: "
        "1 when any finding beyond --allow exists",
        "With --clients: these rules hold for each client's run",
    ):
        assert said in codes, said


STALE = (
    "the read-back returned the calibration value, not this payload's: it reads an "
    "earlier entry (a list that keeps old values, say); read the entry this payload wrote."
)


def test_a_read_back_of_the_calibration_entry_is_lost_not_a_rewrite(tmp_path: Path) -> None:
    # Each payload is stored under its own key, but the read tool reads the key the
    # calibration call wrote: every value read is the marker, which no payload is.
    need_module("mcp")
    calls, out = tmp_path / "calls.txt", tmp_path / "r.json"
    result = fidelity(
        "probe", "--mcp", "--yes", "--tool", "put", "--param", "value",
        "--args", '{"key": "k{n}"}', "--read-tool", "get", "--read-args", '{"key": "k0"}',
        "--families", "quotes", "--json", str(out), "--", *key_value_store(calls),
    )  # fmt: skip
    # The calibration proves it: the second marker comes back as the first. No payload
    # is sent, and the result says why.
    assert result.returncode == 3, result.stderr
    line = one_sentence(result)
    assert "came back as the one sent before it: the read returns an earlier entry" in line
    assert _observations(out) == []
    puts = [text for name, text in calls_made(calls) if name == "put"]
    assert len(puts) == 3
    assert all(p.startswith("fidelity-marker-") for p in puts)
    assert {text for name, text in calls_made(calls) if name == "get"} == {"k0"}


def test_an_http_read_back_of_the_calibration_entry_is_lost_not_a_rewrite() -> None:
    need_module("starlette")
    with http_server("store") as url:
        result = fidelity(
            "probe", f"{url}items", "--read-url", f"{url}items/0", "--families", "quotes",
        )  # fmt: skip
    assert result.returncode == 3, result.stderr
    assert "came back as the one sent before it: the read returns an earlier entry" in (
        one_sentence(result)
    )


def test_one_value_read_back_for_many_payloads_is_a_warning(tmp_path: Path) -> None:
    # The read tool reads the first payload's key for every payload: the first comes
    # back as sent, the others as that same first text (and kinds fitted to two
    # unrelated texts). The warning says the read-back is suspect.
    need_module("mcp")
    calls = tmp_path / "calls.txt"
    result = fidelity(
        "probe", "--mcp", "--yes", "--tool", "put", "--param", "value",
        "--args", '{"key": "k{n}"}', "--read-tool", "get", "--read-args", '{"key": "k1"}',
        "--read", "text", "--families", "quotes", "--", *key_value_store(calls),
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    assert "17 payloads: 1 preserved, 16 transformed" in result.stdout
    assert result.stdout.splitlines()[-1] == (
        "warning: 16 of the 17 values that came back are the same text '\u201c beta', for "
        "different payloads: the read-back may read one stale entry (a list that keeps old "
        "values, a fixed name) rather than each payload's own, and the kinds then compare "
        "unrelated texts; check where the value is read."
    )
    assert {text for name, text in calls_made(calls) if name == "get"} == {"k1"}


def test_a_value_every_payload_turns_into_is_no_stale_read_warning() -> None:
    # A rewrite can send different payloads to one text (NFKC folds many forms into
    # one); that is only suspected when most values that came back are that text.
    from fidelity._core.kinds import Status
    from fidelity._probe.observation import Observation
    from fidelity._run.verdict import judge

    def seen(sent: str, received: str) -> Observation:
        status = Status.PRESERVED if sent == received else Status.TRANSFORMED
        return Observation(sent=sent, received=received, status=status)

    few = [seen("\ufb01", "fi"), seen("\ufb01x", "fi"), seen("f\u0131", "fi")]
    few += [seen(t, t) for t in ("a", "b", "c", "d")]
    assert judge(few, read="text", read_found=False).warnings == ()
    most = [*few, seen("\ufb01y", "fi")]
    assert judge(most, read="text", read_found=False).warnings == ()  # 4 of 8: not most
    most += [seen("\ufb01z", "fi")]
    (warning,) = judge(most, read="text", read_found=False).warnings
    assert warning.startswith("5 of the 9 values that came back are the same text 'fi'")


def test_errors_that_quote_the_payload_escaped_are_one_error() -> None:
    # mcp-server-time answers "No time zone found with key <key>" with the key as
    # Python writes it (a bidi control as \u202e); a JSON server escapes the JSON way.
    from fidelity._core.kinds import Status
    from fidelity._probe.observation import Observation
    from fidelity._run.verdict import common_error

    def refused(sent: str, quoted: str) -> Observation:
        error = f"Error executing tool: No time zone found with key {quoted}"
        return Observation(sent=sent, status=Status.REJECTED, error_type="isError", error=error)

    values = ["alpha \u202ebeta", "alpha\u200bbeta", "tab\there", "caf\u00e9 bar"]
    seen = [refused(v, v.encode("unicode_escape").decode()) for v in values]
    seen += [refused(v, json.dumps(v)[1:-1]) for v in values]
    seen += [refused(v, v) for v in values]
    seen.append(refused("other", "nul"))
    line, count = common_error(seen)
    assert (line, count) == (
        "isError: Error executing tool: No time zone found with key <payload>",
        12,
    )
