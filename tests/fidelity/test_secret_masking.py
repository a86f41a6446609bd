"""Which values are secrets, and how an output hides them: the HTTP probe's list (header
values, the token after its scheme, basic credentials, a URL's password), a --config
server's list, and the masking of an excerpt. Expected values are written by hand.
(Whole runs against servers: tests/cli/test_cli_probe_request_options.py,
tests/cli/test_cli_probe_errors.py, tests/cli/test_cli_probe_config.py.)"""

from __future__ import annotations

from fidelity._sweep.config import ConfigServer, redact
from fidelity._sweep.errors_verdict import mask
from probes._http.credentials import credentials_of as _secrets
from probes._http.options import HttpOptions


def test_the_http_probe_hides_header_values_the_bare_token_auth_and_url_password() -> None:
    options = HttpOptions(
        url="http://user:p%40ss-wd@127.0.0.1:9/x",
        headers={
            "Authorization": "Bearer tok-1234567",
            "Accept": "application/json-not-a-secret",  # a plain header: kept readable
            "X-Four": "abcd",
            "X-Three": "abc",  # shorter than 4: too many false hits, not searched for
        },
        auth=("me", "pw-secret"),
    )
    # Longest first, so that the whole header value is masked before the token in it.
    assert _secrets(options) == (
        "Bearer tok-1234567",
        "tok-1234567",
        "pw-secret",
        "p@ss-wd",
        "abcd",
    )


def test_a_url_without_a_password_gives_no_password() -> None:
    # A user without a password is still basic auth ("user:" in base64), and the
    # "a:b@c" of the path is no password.
    assert _secrets(HttpOptions(url="http://user@127.0.0.1:9/a:b@c")) == (
        "Basic dXNlcjo=",
        "dXNlcjo=",
    )
    assert _secrets(HttpOptions(url="http://127.0.0.1:9/x")) == ()


def test_a_config_server_hides_its_env_and_header_values_longest_first() -> None:
    server = ConfigServer(
        name="s",
        command=("srv",),
        env={"A": "xy", "B": "abc", "C": "longer-1"},
        headers={"Authorization": "Bearer zzzz9"},
    )
    assert server.secrets == ("Bearer zzzz9", "longer-1", "abc")


def test_redact_hides_a_secret_and_its_json_escaped_form() -> None:
    secret = 'a"b\\c-9'
    text = 'raw a"b\\c-9 json "a\\"b\\\\c-9" end'
    assert redact(text, [secret]) == 'raw *** json "***" end'
    assert redact("plain abcd-1 twice abcd-1", ["abcd-1"]) == "plain *** twice ***"


def test_mask_hides_the_longest_secret_whole_and_values_after_named_keys() -> None:
    # The shorter secret inside the longer one must not leave the rest of it shown.
    text = "got tok-99 and Bearer tok-99 and X tok-99-long"
    assert mask(text, ("tok-99", "tok-99-long", "")) == "got *** and Bearer *** and X ***"
    assert mask("password: hunter22, api_key=k-1234 Basic dXNlcjpw") == (
        "password: ***, api_key=*** Basic ***"
    )
    # Three characters after a key are too short to be a credential.
    assert mask("token=abc") == "token=abc"


def test_header_values_come_from_the_environment_stripped() -> None:
    from fidelity._sweep.request_options import parse_headers

    environ = {"F46_TOKEN": "tok-46"}
    given = ["Authorization:  Bearer ${F46_TOKEN} ", "X-Api-Key:k${F46_TOKEN}k"]
    assert parse_headers(given, environ) == (
        ("Authorization", "Bearer tok-46"),
        ("X-Api-Key", "ktok-46k"),
    )
    assert parse_headers(None, environ) == ()


def test_a_bad_header_or_auth_is_one_sentence() -> None:
    import pytest

    from fidelity._core.errors import UsageError
    from fidelity._sweep.request_options import parse_auth, parse_headers

    with pytest.raises(UsageError) as caught:
        parse_headers(["Authorization: ${F46_UNSET}"], {})
    assert str(caught.value) == (
        "--header refers to ${F46_UNSET}, which is not set in the environment; export "
        "F46_UNSET or write the value itself."
    )
    with pytest.raises(UsageError) as caught:
        parse_headers(["No Colon Here"], {})
    assert str(caught.value) == (
        "--header 'No Colon Here'... must be 'Name: value' with a header name such as "
        "Authorization or X-Api-Key."
    )
    with pytest.raises(UsageError) as caught:
        parse_headers(["N" * 45], {})
    assert str(caught.value) == (
        "--header '" + "N" * 40 + "'... must be 'Name: value' with a header name such as "
        "Authorization or X-Api-Key."
    )
    with pytest.raises(UsageError) as caught:
        parse_headers(["X-A: one${NL}two"], {"NL": "\n"})
    assert str(caught.value) == (
        "--header X-A: the value holds a line break or NUL, which no header value may hold."
    )
    assert parse_auth("me:pw:with:colons") == ("me", "pw:with:colons")
    assert parse_auth("me:") == ("me", "")
    assert parse_auth(None) is None
    for bad in ("nocolon", ":pw"):
        with pytest.raises(UsageError) as caught:
            parse_auth(bad)
        assert str(caught.value) == (
            "--auth must be USER:PASS, the user name and password of basic auth."
        )


def test_auth_becomes_basic_unless_an_authorization_header_is_given() -> None:
    from types import SimpleNamespace

    from fidelity._sweep.request_options import mcp_headers

    plan = SimpleNamespace(headers=(("X-A", "1"),), auth=("me", "pw"))
    assert mcp_headers(plan) == {"X-A": "1", "Authorization": "Basic bWU6cHc="}
    given = SimpleNamespace(headers=(("authorization", "Bearer t"),), auth=("me", "pw"))
    assert mcp_headers(given) == {"authorization": "Bearer t"}
    assert mcp_headers(SimpleNamespace(headers=(), auth=None)) is None
    # A header whose name sorts before "authorization" is no Authorization header.
    accept = SimpleNamespace(headers=(("Accept", "text/plain"),), auth=("me", "pw"))
    assert mcp_headers(accept) == {"Accept": "text/plain", "Authorization": "Basic bWU6cHc="}
