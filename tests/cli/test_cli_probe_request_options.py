"""``fidelity probe`` against a real authenticated API: headers, basic auth, methods,
body templates, names; secrets never in any output.

The API is ``tests/servers/http_api.py`` under uvicorn: notes behind basic or bearer
auth, a required sibling field (``owner``), PATCH and PUT, a GET filter, and a
recorder of the raw request bodies.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from _needs import need_module
from _support.cli import fidelity_inprocess as fidelity
from _support.cli import one_sentence
from _support.servers import serving

USER, PASSWORD, TOKEN = "alice", "pw-Zq81-secret", "tok-Hx72-secret"
SECRETS = (PASSWORD, TOKEN)
BEARER = "Authorization: Bearer ${NOTES_TOKEN}"
ENV = {"NOTES_TOKEN": TOKEN}


@pytest.fixture(scope="module")
def api() -> Iterator[str]:
    need_module("starlette")
    need_module("uvicorn")
    with serving("http_api.py", f"{USER}:{PASSWORD}", TOKEN) as url:
        yield url


def outputs(tmp_path: Path) -> list[str]:
    return ["--json", str(tmp_path / "r.json"), "--html", str(tmp_path / "r.html")]


def assert_no_secret(tmp_path: Path, result: object) -> None:
    texts = [result.stdout, result.stderr]  # type: ignore[attr-defined]
    texts += [p.read_text("utf-8") for p in tmp_path.iterdir() if p.is_file()]
    assert len(texts) > 2
    for text in texts:
        for secret in SECRETS:
            assert secret not in text


def test_bearer_header_from_the_environment_probes_the_store(api: str, tmp_path: Path) -> None:
    card = tmp_path / "card.md"
    result = fidelity(
        "probe", api + "notes", "--header", BEARER, "--body", '{"owner": "fidelity"}',
        "--send", "json:title", "--families", "quotes,whitespace", "--card", str(card),
        *outputs(tmp_path), env=ENV,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "read back at: json:title" in result.stdout
    document = json.loads((tmp_path / "r.json").read_text())
    assert document["name"] == "POST /notes json:title"
    assert {o["status"] for o in document["observations"]} == {"preserved"}
    text = card.read_text()
    assert "--header 'Authorization: ***'" in text
    assert "<!-- fidelity:begin POST /notes json:title -->" in text
    assert_no_secret(tmp_path, result)


@pytest.mark.parametrize("how", ["--auth", "url"])
def test_basic_auth_by_option_or_in_the_url(api: str, tmp_path: Path, how: str) -> None:
    url = api + "notes"
    extra = ["--auth", f"{USER}:{PASSWORD}"]
    if how == "url":
        url, extra = url.replace("://", f"://{USER}:{PASSWORD}@"), []
    card = tmp_path / "card.md"
    result = fidelity(
        "probe", url, *extra, "--body", '{"owner": "x"}', "--send", "json:title",
        "--read", "json:title", "--families", "quotes", "--card", str(card),
        *outputs(tmp_path),
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert_no_secret(tmp_path, result)
    shown = "--auth 'alice:***'" if how == "--auth" else "alice:***@127.0.0.1"
    assert shown in card.read_text()


def test_no_credentials_is_a_failed_calibration_exit_3_with_json(api: str, tmp_path: Path) -> None:
    result = fidelity(
        "probe", api + "notes", "--send", "json:title", "--card", str(tmp_path / "c.md"),
        *outputs(tmp_path),
    )  # fmt: skip
    assert result.returncode == 3
    sentence = one_sentence(result)
    assert "HTTP 401" in sentence
    assert "--header" in sentence
    assert "--auth" in sentence
    document = json.loads((tmp_path / "r.json").read_text())
    assert document["observations"] == []
    assert any("HTTP 401" in w for w in document["facts"]["warnings"])
    assert (tmp_path / "r.html").exists()
    assert (tmp_path / "c.md").exists()


def test_a_required_sibling_field_needs_the_body_template(api: str, tmp_path: Path) -> None:
    args = ["probe", api + "notes", "--header", BEARER, "--send", "json:title"]
    refused = fidelity(*args, "--families", "quotes", *outputs(tmp_path), env=ENV)
    assert refused.returncode == 3
    sentence = one_sentence(refused)
    assert "HTTP 422" in sentence
    assert "Field required" in sentence
    assert "--body" in sentence
    # The body template: the payload placed at --send json:title, the owner made per run.
    result = fidelity(
        *args, "--body", '{"owner": "run-{run}", "meta": {"n": "{n}"}}', "--families",
        "quotes", *outputs(tmp_path), env=ENV,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    bodies = httpx.get(api + "_bodies", timeout=10).json()
    sent = [json.loads(b) for b in bodies if '"meta"' in b]
    assert sent
    assert all(b["owner"].startswith("run-") for b in sent)
    assert sorted(int(b["meta"]["n"]) for b in sent)[:2] == [0, 1]  # calibration is 0


def test_payload_placed_by_the_template_without_send(api: str, tmp_path: Path) -> None:
    result = fidelity(
        "probe", api + "notes", "--header", BEARER, "--body",
        '{"owner": "o", "title": "{payload}"}', "--families", "quotes", *outputs(tmp_path),
        env=ENV,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads((tmp_path / "r.json").read_text())["name"] == "POST /notes json:title"


def test_patch_endpoint(api: str, tmp_path: Path) -> None:
    result = fidelity(
        "probe", api + "notes/1", "--method", "PATCH", "--send", "json:title", "--header",
        BEARER, "--families", "quotes", *outputs(tmp_path), env=ENV,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    document = json.loads((tmp_path / "r.json").read_text())
    assert document["name"] == "PATCH /notes/1 json:title"
    assert document["facts"]["setup"]["method"] == "PATCH"


def test_put_with_write_then_read_and_read_method(api: str, tmp_path: Path) -> None:
    result = fidelity(
        "probe", api + "notes/1", "--method", "put", "--body", '{"owner": "o"}', "--send",
        "json:title", "--read-url", api + "notes/1", "--read-method", "GET", "--read",
        "json:title", "--header", BEARER, "--families", "quotes", *outputs(tmp_path), env=ENV,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads((tmp_path / "r.json").read_text())["name"] == "PUT /notes/1 json:title"


def test_get_filter(api: str, tmp_path: Path) -> None:
    result = fidelity(
        # The payload's parameter is added to the URL's own query (scope=notes kept).
        "probe", api + "search?scope=notes", "--send", "query:title", "--header", BEARER,
        "--families", "quotes,whitespace", "--quiet", *outputs(tmp_path), env=ENV,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "read back at: json:title" in result.stdout  # kept under --quiet
    document = json.loads((tmp_path / "r.json").read_text())
    assert document["name"] == "GET /search query:title"
    assert document["facts"]["setup"]["method"] == "GET"


def test_lone_surrogates_reach_the_server_as_escapes(api: str, tmp_path: Path) -> None:
    result = fidelity(
        "probe", api + "notes", "--header", BEARER, "--body", '{"owner": "o"}', "--send",
        "json:title", "--read", "json:title", "--families", "surrogates", *outputs(tmp_path),
        env=ENV,
    )  # fmt: skip
    bodies = httpx.get(api + "_bodies", timeout=10).json()
    assert any("\\ud800" in b for b in bodies)  # the escape itself reached the wire
    document = json.loads((tmp_path / "r.json").read_text())
    observations = {o["payload_id"]: o for o in document["observations"]}
    assert len(observations) == 8
    # A high surrogate then a low one has no JSON form apart from the character they
    # make: the client refuses it; every lone one came back as sent.
    joined = observations.pop("surrogates/pair-as-code-points-mid")
    # The server answered each other one (escaped JSON): measured, not refused.
    assert all(not o.get("client_side") for o in observations.values())
    assert joined["status"] == "rejected"
    assert joined["client_side"]
    assert {o["status"] for o in observations.values()} == {"preserved"}
    assert result.returncode == 0, result.stdout


def test_two_endpoints_two_blocks_and_another_target_refused(api: str, tmp_path: Path) -> None:
    card = tmp_path / "card.md"
    common = ["--header", BEARER, "--families", "quotes", "--card", str(card)]
    first = fidelity("probe", api + "search?scope=notes", "--send", "query:title", *common, env=ENV)
    second = fidelity(
        "probe", api + "notes/1", "--method", "PATCH", "--send", "json:title", *common, env=ENV
    )
    assert (first.returncode, second.returncode) == (0, 0), second.stdout + second.stderr
    text = card.read_text()
    assert text.count("<!-- fidelity:begin ") == 2
    assert "GET /search query:title" in text
    assert "PATCH /notes/1 json:title" in text
    # The same name for another target: refused with a sentence, unless --name says so.
    other = api.replace("127.0.0.1", "localhost") + "search?scope=notes"
    refused = fidelity("probe", other, "--send", "query:title", *common, env=ENV)
    assert refused.returncode == 2
    assert "another target" in one_sentence(refused)
    named = fidelity(
        "probe", other, "--send", "query:title", "--name", "GET /search query:title", *common,
        env=ENV,
    )  # fmt: skip
    assert named.returncode == 0, named.stdout + named.stderr
    assert card.read_text().count("<!-- fidelity:begin ") == 2
    assert "localhost" in card.read_text()


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--header", "no colon"], "'Name: value'"),
        (["--header", "X-Key: ${FIDELITY_UNSET_VAR_25}"], "FIDELITY_UNSET_VAR_25"),
        (["--auth", "nocolon"], "USER:PASS"),
        (["--method", "GE T"], "not an HTTP method"),
        (["--read-method", "GET"], "--read-method needs --read-url"),
        (["--body", "[1]"], "JSON object"),
        (["--body", '{"a": 1}', "--send", "form:x"], "--body is a JSON body"),
        (["--body", '{"a": "x{payload}"}'], "{payload} inside"),
    ],
)
def test_bad_request_options_are_one_sentence(args: list[str], words: str) -> None:
    result = fidelity("probe", "http://127.0.0.1:9/notes", *args)
    assert result.returncode == 2
    assert words in one_sentence(result)


def test_request_options_on_mcp_stdio_are_refused() -> None:
    result = fidelity("probe", "--header", "A: b", "--mcp", "--", "true")
    assert result.returncode == 2
    assert "stdio" in one_sentence(result)
    result = fidelity("probe", "--method", "PUT", "--mcp", "--", "true")
    assert result.returncode == 2
    assert "--args" in one_sentence(result)


def test_mcp_over_http_carries_the_headers(tmp_path: Path) -> None:
    need_module("mcp")
    with serving("mcp_http_auth.py", TOKEN) as url:
        result = fidelity(
            "probe", "--mcp", url, "--header", BEARER, "--families", "quotes",
            "--card", str(tmp_path / "card.md"), *outputs(tmp_path), env=ENV,
        )  # fmt: skip
        refused = fidelity("probe", "--mcp", url, "--families", "quotes")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "--header 'Authorization: ***'" in (tmp_path / "card.md").read_text()
    assert_no_secret(tmp_path, result)
    assert refused.returncode == 3
    assert "could not open an MCP session" in one_sentence(refused)


@pytest.mark.parametrize(
    "credentials",
    [
        ["--header", "Authorization: Bearer wrong-Kq93-secret"],
        ["--auth", "alice:wrong-Kq93-secret"],
    ],
)
def test_credentials_a_server_echoes_back_are_hidden(
    api: str, tmp_path: Path, credentials: list[str]
) -> None:
    result = fidelity(
        "probe", api + "notes", *credentials, "--send", "json:title", "--card",
        str(tmp_path / "c.md"), *outputs(tmp_path),
    )  # fmt: skip
    assert result.returncode == 3
    assert "HTTP 401" in one_sentence(result)
    texts = [result.stdout, result.stderr]
    texts += [p.read_text("utf-8") for p in tmp_path.iterdir()]
    # The whole header value masked, and the token the server echoed apart from its
    # scheme masked too (the token after "Bearer ", the base64 after "Basic ").
    assert '{"detail": "Not authenticated", "got": "***", "token": "***"}.' in result.stderr
    for text in texts:
        assert "wrong-Kq93-secret" not in text
        assert "d3Jvbmct" not in text  # base64 of "wrong-", inside Basic credentials
