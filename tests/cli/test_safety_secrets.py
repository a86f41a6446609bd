"""Safety round 4, secrets (issue 44 rows S2, S3, S5; issue 43's masking): every secret
the run knows is *** in every output (--json, --card, --junit, --html, the terminal),
raw and in every rendering, also when a server echoes it back raw, percent-, base64-
or hex-encoded; ``${VAR}`` gives a secret to --auth and to a URL's query; a secret in
a stdio server's command never reaches a record.

The forms looked for are made here with the standard library, not by the code under
test.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from urllib.parse import quote

import pytest
from _support.bounded import fidelity_bounded
from _support.servers import HOSTILE_MCP, serving

_QUERY = "QueryTok3nValue"
_HEADER = "HeaderS3cretValue"
_PASSWORD = "AuthPassw0rdValue"
_COOKIE = "CookieS3ssionValue"


def _forms(secret: str) -> list[str]:
    """How an output could hold ``secret``: raw, percent-encoded, as code points, and
    base64 (alone, and the middle of it at any offset) and hex of its UTF-8 bytes."""
    data = secret.encode()
    forms = [secret, quote(secret, safe=""), " ".join(f"U+{ord(c):04X}" for c in secret)]
    forms += [data.hex(), data.hex().upper(), data.hex(" ")]
    forms += [base64.b64encode(b"\0" * k + data).decode()[2 + k : -4] for k in range(3)]
    return forms


def _outputs(tmp_path: Path) -> list[str]:
    return ["--json", str(tmp_path / "r.json"), "--junit", str(tmp_path / "r.xml"),
            "--html", str(tmp_path / "r.html"), "--card", str(tmp_path / "CARD.md")]  # fmt: skip


def _leaks(tmp_path: Path, texts: list[str], secrets: list[str]) -> list[tuple[str, str]]:
    written = {p.name: p.read_text(encoding="utf-8") for p in tmp_path.iterdir() if p.is_file()}
    written.update({f"stream{i}": t for i, t in enumerate(texts)})
    return [
        (name, form)
        for name, text in written.items()
        for secret in secrets
        for form in _forms(secret)
        if form in text
    ]


@pytest.mark.parametrize("mode", ["raw", "percent", "base64", "hex", "error-raw", "error-base64"])
def test_s2_s3_a_secret_echoed_back_is_masked_in_every_output(tmp_path: Path, mode: str) -> None:
    out = tmp_path / "out"
    out.mkdir()
    with serving("echo_secret.py", mode) as url:
        result = fidelity_bounded(
            "probe", f"{url}/echo?token={_QUERY}", "--header", f"X-Api-Key: {_HEADER}",
            "--header", f"Cookie: theme=dark; session={_COOKIE}",
            "--auth", f"user:{_PASSWORD}", "--read", "json:text", "--max-requests", "4",
            *_outputs(out), timeout=120,
        )  # fmt: skip
    # Rewrites found (1); every answer an HTTP 400, the target refused everything (3).
    assert result.returncode == (3 if mode.startswith("error") else 1), result.stderr
    assert (out / "r.json").exists()
    secrets = [_QUERY, _HEADER, _PASSWORD, _COOKIE]
    assert _leaks(out, [result.stdout, result.stderr], secrets) == []
    document = json.loads((out / "r.json").read_text())
    assert document["facts"]["setup"]["target"].endswith("/echo?token=***")
    if mode == "raw":
        received = [o["received"] for o in document["observations"]]
        assert received, document
        # The server's echo, each credential in place: what came back is masked.
        assert all(v["data"] and "***" in base64.b64decode(v["data"]).decode() for v in received), (
            received
        )


def test_s2_dollar_var_gives_a_secret_to_auth_and_to_the_url(tmp_path: Path) -> None:
    env = {"FIDELITY_T_QUERY": _QUERY, "FIDELITY_T_PASSWORD": _PASSWORD}
    with serving("echo_secret.py", "raw") as url:
        result = fidelity_bounded(
            "probe", url + "/echo?token=${FIDELITY_T_QUERY}",
            "--auth", "user:${FIDELITY_T_PASSWORD}", "--read", "json:text",
            "--max-requests", "2", "--json", str(tmp_path / "r.json"), timeout=120, env=env,
        )  # fmt: skip
    assert result.returncode == 1, result.stderr
    assert _leaks(tmp_path, [result.stdout, result.stderr], [_QUERY, _PASSWORD]) == []
    document = json.loads((tmp_path / "r.json").read_text())
    received = base64.b64decode(document["observations"][0]["received"]["data"]).decode()
    # The server got the expanded values (its echo of them is masked), never "${...}".
    assert "${" not in received
    assert received.count("***") == 3, received  # Authorization, the password, the token


def test_s2_a_dollar_var_that_is_not_set_is_one_sentence() -> None:
    result = fidelity_bounded(
        "probe", "http://127.0.0.1:9/x", "--auth", "user:${FIDELITY_T_NOT_SET_ANYWHERE}",
        "--dry-run",
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr == (
        "fidelity: --auth refers to ${FIDELITY_T_NOT_SET_ANYWHERE}, which is not set in the "
        "environment; export FIDELITY_T_NOT_SET_ANYWHERE or write the value itself.\n"
    )


def test_s5_a_secret_in_a_stdio_command_never_reaches_a_record(tmp_path: Path) -> None:
    secret = "EnvS3cretTok3nValue"
    out = tmp_path / "out"
    out.mkdir()
    result = fidelity_bounded(
        "probe", "--max-requests", "5", *_outputs(out), "--mcp", "--",
        "env", f"API_TOKEN={secret}", *HOSTILE_MCP, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert _leaks(out, [result.stdout, result.stderr], [secret]) == []
    document = json.loads((out / "r.json").read_text())
    assert "API_TOKEN=***" in document["facts"]["setup"]["target"]


def test_s5_env_passes_a_secret_the_server_sees_and_no_output_shows(tmp_path: Path) -> None:
    secret = "EnvOptionS3cretValue"
    out = tmp_path / "out"
    out.mkdir()
    dump = tmp_path / "env.json"
    result = fidelity_bounded(
        "probe", "--max-requests", "5", *_outputs(out), "--mcp",
        "--env", "API_TOKEN=${FIDELITY_T_TOKEN}", "--",
        *HOSTILE_MCP, "--env-dump", str(dump), timeout=120,
        env={"FIDELITY_T_TOKEN": secret, "FIDELITY_T_PARENT_ONLY": "1"},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    seen = json.loads(dump.read_text())
    assert seen["API_TOKEN"] == secret
    assert "FIDELITY_T_PARENT_ONLY" not in seen  # merged over a minimal environment
    assert _leaks(out, [result.stdout, result.stderr], [secret]) == []


def test_s2_a_stdio_server_that_echoes_its_env_secret_shows_none(tmp_path: Path) -> None:
    secret = "StdioEch0edS3cret"
    out = tmp_path / "out"
    out.mkdir()
    result = fidelity_bounded(
        "probe", "--max-requests", "5", "--read", "regex:(?s)\\A(.*)", *_outputs(out),
        "--mcp", "--env", f"API_TOKEN={secret}", "--",
        *HOSTILE_MCP, "--echo-env", "API_TOKEN", timeout=120,
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    assert _leaks(out, [result.stdout, result.stderr], [secret]) == []
    document = json.loads((out / "r.json").read_text())
    received = base64.b64decode(document["observations"][0]["received"]["data"]).decode()
    assert received.endswith(" *** ***"), received
