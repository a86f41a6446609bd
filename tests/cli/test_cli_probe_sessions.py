"""Sessions, forms and ETags: ``--login`` with ``--login-form`` or ``--login-body`` (the
session's cookies kept for the run and never shown), a CSRF token from a cookie or a
field of the login page sent back as a header or a form field, ``--form`` and
``--multipart`` bodies, and ``If-Match`` from the ``ETag`` of a read when the service
answers 428 or 412.

Against two real servers: the classic issue tracker ``tests/servers/http_tracker.py``
(login form, session cookie, form token) and the wiki-like page store
``tests/servers/http_wiki.py`` (a page is changed only with ``If-Match``).
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

_LOGIN = ("--login-form", "username=alice", "--login-form", "password=${TRACKER_PASS}")
_ENV = {"TRACKER_PASS": "wonderland"}


@pytest.fixture
def tracker() -> Iterator[str]:
    with serving("http_tracker.py", "alice:wonderland") as url:
        yield url


def _run(tmp_path: Path, *args: str) -> tuple[int, dict[str, int], str]:
    out = tmp_path / "r.json"
    result = fidelity("probe", *args, "--json", str(out), env=_ENV)
    assert "Traceback" not in result.stderr, result.stderr
    observations = json.loads(out.read_text())["observations"] if out.exists() else []
    text = out.read_text() if out.exists() else ""
    return result.returncode, dict(Counter(o["status"] for o in observations)), text + result.stderr


def test_login_form_and_a_token_from_the_login_page_in_every_form(
    tracker: str, tmp_path: Path
) -> None:
    code, statuses, output = _run(
        tmp_path, f"{tracker}issues", "--login", f"{tracker}login", *_LOGIN,
        "--csrf-from", "field:csrf_token", "--csrf-to", "form:csrf_token",
        "--form", "title={payload}", "--form", "body=probe {n}",
        "--read-url", f"{tracker}api/issues/{{id}}", "--id-from", "json:id",
        "--read", "json:title", "--families", "quotes",
    )  # fmt: skip
    assert code == 0, output
    assert statuses == {"preserved": 17}
    log = httpx.get(f"{tracker}_log").json()
    assert len(log["sessions"]) == 1  # one login for the whole run
    assert log["content_types"] == ["application/x-www-form-urlencoded"] * 17
    [session] = log["sessions"]
    assert session not in output
    assert "wonderland" not in output


def test_a_token_from_a_cookie_sent_as_a_header(tracker: str, tmp_path: Path) -> None:
    code, statuses, output = _run(
        tmp_path, f"{tracker}issues", "--login", f"{tracker}login", *_LOGIN,
        "--csrf-from", "cookie:csrftoken", "--csrf-to", "header:X-CSRFToken",
        "--form", "title={payload}", "--read-url", f"{tracker}api/issues/{{id}}",
        "--id-from", "json:id", "--read", "json:title", "--families", "quotes",
    )  # fmt: skip
    assert code == 0, output
    assert statuses == {"preserved": 17}
    assert len(httpx.get(f"{tracker}_log").json()["sessions"]) == 1


def test_an_unset_variable_in_the_login_form_is_one_sentence(tracker: str) -> None:
    result = fidelity(
        "probe", f"{tracker}issues", "--login", f"{tracker}login",
        "--login-form", "password=${NOT_SET_ANYWHERE}", "--form", "title={payload}",
    )  # fmt: skip
    assert result.returncode == 2
    assert "--login-form refers to ${NOT_SET_ANYWHERE}, which is not set" in result.stderr
    assert httpx.get(f"{tracker}_log").json()["sessions"] == []


def test_whitespace_the_tracker_strips_is_named(tracker: str, tmp_path: Path) -> None:
    code, _, output = _run(
        tmp_path, f"{tracker}issues", "--login", f"{tracker}login", *_LOGIN,
        "--csrf-from", "field:csrf_token", "--csrf-to", "form:csrf_token",
        "--form", "title={payload}", "--multipart",
        "--read-url", f"{tracker}api/issues/{{id}}", "--id-from", "json:id",
        "--read", "json:title", "--families", "whitespace",
    )  # fmt: skip
    assert code == 1
    assert "whitespace.strip" in output
    assert set(httpx.get(f"{tracker}_log").json()["content_types"]) == {"multipart/form-data"}


def test_a_wrong_password_is_one_sentence_and_exit_3(tracker: str, tmp_path: Path) -> None:
    result = fidelity(
        "probe", f"{tracker}issues", "--login", f"{tracker}login",
        "--login-form", "username=alice", "--login-form", "password=not-the-password",
        "--csrf-from", "field:csrf_token", "--csrf-to", "form:csrf_token",
        "--form", "title={payload}", "--read", "json:title", "--families", "quotes",
    )  # fmt: skip
    assert result.returncode == 3
    assert f"the login at {tracker}login was answered HTTP 401 Unauthorized" in result.stderr
    assert "not-the-password" not in result.stderr
    assert "Traceback" not in result.stderr


def test_without_the_token_the_echoed_cookies_are_hidden(tracker: str, tmp_path: Path) -> None:
    """The tracker's 403 page quotes the cookies it got: the session's never shows. (The
    payload goes in a header, so no form carries the token.)"""
    code, _, output = _run(
        tmp_path, f"{tracker}issues", "--login", f"{tracker}login", *_LOGIN,
        "--csrf-from", "field:csrf_token", "--csrf-to", "form:csrf_token",
        "--send", "header:X-Title", "--method", "POST", "--read", "json:title",
        "--families", "quotes",
    )  # fmt: skip
    assert code == 3
    [session] = httpx.get(f"{tracker}_log").json()["sessions"]
    assert "CSRF token missing or wrong (cookies: " in output
    assert session not in output
    assert "session=***" in output


@pytest.fixture
def wiki(tmp_path: Path) -> Iterator[str]:
    with serving("http_wiki.py", str(tmp_path / "wiki.json")) as url:
        yield url


def test_if_match_from_the_etag_when_the_service_asks_for_it(wiki: str, tmp_path: Path) -> None:
    """One page written over and over: each write after the first is answered 428 and
    sent again with the ETag of a GET of the page."""
    code, statuses, output = _run(
        tmp_path, f"{wiki}pages/Sandbox", "--method", "PUT", "--send", "json:text",
        "--read-url", f"{wiki}pages/Sandbox", "--read", "json:text", "--families", "quotes",
    )  # fmt: skip
    assert code == 0, output
    assert statuses == {"preserved": 17}
    writes = httpx.get(f"{wiki}_writes").json()
    assert (writes["written"], writes["428"], writes["412"]) == (17, 16, 0)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--form", "title"], "--form 'title' must be FIELD=VALUE"),
        (["--form", "a={payload}", "--body", "{}"], "--form and --body are both a request body"),
        (["--multipart"], "--multipart encodes the --form fields"),
        (["--login-form", "u=a"], "--login-form shape the login step; give --login URL"),
        (["--login", "http://127.0.0.1:9/login"], "--login needs what to send"),
        (
            ["--login", "http://127.0.0.1:9/l", "--login-form", "u=a", "--csrf-from", "x"],
            "--csrf-from 'x' must be cookie:NAME or field:NAME",
        ),
        (
            ["--login", "http://127.0.0.1:9/l", "--login-form", "u=a", "--csrf-to", "form:t"],
            "a CSRF token needs --csrf-from",
        ),
    ],
)
def test_session_options_misused_are_one_sentence(args: list[str], words: str) -> None:
    result = fidelity("probe", "http://127.0.0.1:9/issues", *args)
    assert result.returncode == 2
    assert words in result.stderr
