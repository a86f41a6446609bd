"""The run's secrets and the one function that masks them (``fidelity._core.secrets``)."""

from __future__ import annotations

import base64
from collections.abc import Iterator

import pytest

from fidelity._core import secrets


@pytest.fixture(autouse=True)
def _no_secrets() -> Iterator[None]:
    secrets.forget()
    yield
    secrets.forget()


def test_every_form_of_a_secret_is_masked() -> None:
    secrets.remember("s3cr/t+k&y")
    text = (
        'raw s3cr/t+k&y json "s3cr/t+k&y" html s3cr/t+k&amp;y '
        "points U+0073 U+0033 U+0063 U+0072 U+002F U+0074 U+002B U+006B U+0026 U+0079 "
        "percent s3cr%2Ft%2Bk%26y lower s3cr%2ft%2bk%26y plus s3cr%2Ft%2Bk%26y "
        "hex 73336372"
    ).replace("73336372", "73336372" + "2f742b6b2679")
    assert secrets.mask(text) == (
        'raw *** json "***" html *** points *** percent *** lower *** plus *** hex ***'
    )


@pytest.mark.parametrize("offset", [0, 1, 2])
def test_base64_of_a_secret_is_masked_wherever_it_falls(offset: int) -> None:
    secrets.remember("Tok3nValue42")
    encoded = base64.b64encode(b"x" * offset + b"Tok3nValue42" + b"tail").decode()
    masked = secrets.mask(f"seen {encoded} end")
    assert "***" in masked
    # What is left of the encoded text is its edges, never the secret's middle.
    middle = base64.b64encode(b"Tok3nValue42").decode()[2:-2]
    assert middle not in masked


def test_short_secrets_are_not_masked() -> None:
    secrets.remember("abc")
    assert secrets.known() == ()
    assert secrets.mask("abc abc") == "abc abc"


def test_a_url_shows_no_password_nor_secret_query_value() -> None:
    assert secrets.mask_url("http://alice:pw1234@host/p?q=1&token=T0k3n&api_key=K") == (
        "http://alice:***@host/p?q=1&token=***&api_key=***"
    )
    secrets.remember_url("http://alice:pw1234@host/p?q=1&token=T0k3nT0k3n&sig=abcd1234")
    assert secrets.known() == ("T0k3nT0k3n", "abcd1234", "pw1234")


def test_a_recorded_command_shows_no_secret() -> None:
    words = ["env", "API_TOKEN=xyz-123-secret", "HOME=/h", "server", "--api-key", "K1K1K1",
             "--token=abcd", "http://h/?access_token=zzzz9999"]  # fmt: skip
    assert secrets.mask_words(words) == [
        "env", "API_TOKEN=***", "HOME=/h", "server", "--api-key", "***", "--token=***",
        "http://h/?access_token=***",
    ]  # fmt: skip


def test_words_and_short_numbers_are_never_taken_for_secrets() -> None:
    secrets.remember("true", "False", "8080", "null", "s3cretvalue")
    assert secrets.known() == ("s3cretvalue",)
    assert secrets.mask('{"complete": true, "port": 8080}') == '{"complete": true, "port": 8080}'


def test_an_environment_gives_its_secret_looking_and_long_values() -> None:
    secrets.remember_env(
        {"API_TOKEN": "tok-1234", "MODE": "production", "OPAQUE": "0123456789abcdefXYZ"}
    )
    assert secrets.known() == ("0123456789abcdefXYZ", "tok-1234")
