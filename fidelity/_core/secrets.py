"""The run's secrets, and the one function that masks them wherever text goes out.

A run knows secrets from everywhere: ``--auth``, ``--header`` values (and the token
after their scheme), a URL's password and its secret-looking query parameters
(``token``, ``api_key``, ``sig``...), ``--env`` and a config server's ``env`` and
headers, the cookies a login step got. Each is :func:`remember`\\ ed once, in one list
(:func:`known`), and :func:`mask` replaces every one of them by ``***`` in a text
about to be written or shown, in every form an output may hold it:

- as it is; JSON-escaped (both ways), HTML/XML-escaped; as ``U+XXXX`` code points
  (the card's and the JUnit report's rendering); percent-encoded (``%XX`` in upper
  and lower case, ``+`` for a space);
- base64 (standard and URL-safe, wherever the secret falls in the encoded text) and
  hex (lower, upper, bytes apart): a server may echo a secret as it likes, and a
  message may quote what it sent (``encoded=False`` leaves these two out).

A secret shorter than ``SHORTEST`` characters is not masked (it would mask words).
"""

from __future__ import annotations

import base64
import functools
import html
import json
import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from urllib.parse import parse_qsl, quote, quote_plus, unquote, urlsplit, urlunsplit

__all__ = [
    "MASK",
    "SHORTEST",
    "forget",
    "known",
    "looks_secret",
    "mask",
    "mask_bytes",
    "mask_url",
    "mask_words",
    "remember",
    "remember_env",
    "remember_url",
]

#: What stands for a secret in every output.
MASK = "***"
#: The shortest secret masked (shorter ones would mask ordinary words).
SHORTEST = 4
#: Names (query parameters, environment variables, header names, flags) whose value is
#: taken for a secret: ``token``, ``api_key``, ``access_token``, ``password``,
#: ``secret``, ``sig``, ``auth``... anywhere in the name.
_SECRET_NAME = re.compile(
    r"token|key|passw|pwd|secret|sig|auth|session|cookie|credential|jwt|bearer|private",
    re.IGNORECASE,
)
#: A value of an environment variable this long is a secret whatever its name.
_LONG_VALUE = 16
#: The smallest base64 or hex run masked (a shorter one matches by chance).
_SHORTEST_ENCODED = 6

_lock = threading.Lock()
_known: list[str] = []


def looks_secret(name: str) -> bool:
    """Whether ``name`` (a query parameter, an environment variable, a header, a
    flag) names a secret."""
    return bool(_SECRET_NAME.search(name))


#: Values never taken for a secret: masking them would mask the words of every output
#: (a JSON ``true``), whatever variable or header held them.
_PLAIN = frozenset({"true", "false", "null", "none", "yes", "no", "on", "off"})


def _secret_like(value: object) -> bool:
    return (
        isinstance(value, str)
        and len(value) >= SHORTEST
        and value.strip().lower() not in _PLAIN
        and not (value.isdigit() and len(value) < 8)  # a port, a count
    )


def remember(*values: str) -> None:
    """Add ``values`` to the run's secrets (not a value shorter than ``SHORTEST``, a
    JSON keyword or a short number: they would mask the words of every output)."""
    with _lock:
        for value in values:
            if _secret_like(value) and value not in _known:
                _known.append(value)
                _known.sort(key=len, reverse=True)  # a longer secret masked first
    _forms.cache_clear()


def forget() -> None:
    """Forget every secret (a new run in the same process starts with none)."""
    with _lock:
        _known.clear()
    _forms.cache_clear()


def known() -> tuple[str, ...]:
    """The run's secrets, longest first."""
    with _lock:
        return tuple(_known)


def remember_env(env: Iterable[tuple[str, str]] | Mapping[str, str]) -> None:
    """Remember the values of an environment given to a server that are secrets: those
    of secret-looking names (``API_TOKEN``), and any long enough to be a token (16
    characters and more); ``MODE=production`` is not masked everywhere."""
    pairs = env.items() if isinstance(env, Mapping) else env
    remember(*(v for k, v in pairs if looks_secret(k) or len(v) >= _LONG_VALUE))


def remember_url(url: str) -> None:
    """Remember the password of ``url``'s userinfo and its secret-looking query values."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return
    if parts.password:
        remember(parts.password, unquote(parts.password))
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if looks_secret(name):
            remember(value)


def mask_url(url: str) -> str:
    """``url`` with its password and secret-looking query values as ``***`` (and any
    known secret elsewhere in it masked too)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return mask(url)
    netloc = parts.netloc
    if parts.password is not None:
        user, _, host = netloc.rpartition("@")
        netloc = f"{user.partition(':')[0]}:{MASK}@{host}"
    query = parts.query
    if query:
        pieces = []
        for piece in query.split("&"):
            name, sep, _ = piece.partition("=")
            pieces.append(f"{name}={MASK}" if sep and looks_secret(unquote(name)) else piece)
        query = "&".join(pieces)
    return mask(urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment)))


def mask_words(words: Sequence[str]) -> list[str]:
    """A command line as a record shows it: the value of a secret-looking
    ``NAME=VALUE`` word (``API_TOKEN=...``, ``--api-key=...``) and the word after a
    secret-looking flag (``--token VALUE``) as ``***``, a URL's secrets masked, and
    any known secret masked wherever it stands."""
    out: list[str] = []
    hide_next = False
    for word in words:
        if hide_next:
            out.append(MASK)
            hide_next = False
            continue
        name, sep, _ = word.partition("=")
        if sep and name and looks_secret(name.lstrip("-")):
            out.append(f"{name}={MASK}")
        elif word.startswith("-") and not sep and looks_secret(word.lstrip("-")):
            out.append(word)
            hide_next = True
        elif "://" in word:
            out.append(mask_url(word))
        else:
            out.append(mask(word))
    return out


def _percent(secret: str) -> set[str]:
    forms = {quote(secret, safe=""), quote_plus(secret, safe=""), quote(secret, safe="/:")}
    return forms | {re.sub(r"%[0-9A-F]{2}", lambda m: m.group().lower(), f) for f in forms}


def _base64_cores(data: bytes) -> set[str]:
    """The base64 text of ``data`` wherever it falls in a longer text (at each of the
    three byte offsets), less the characters it shares with its neighbours."""
    whole = base64.b64encode(data).decode("ascii")  # the secret encoded alone, whole
    cores: set[str] = {whole, whole.rstrip("=")}
    cores |= {c.replace("+", "-").replace("/", "_") for c in cores}
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + data).decode("ascii")
        start = -(-8 * offset // 6)
        end = 8 * (offset + len(data)) // 6
        core = encoded[start:end]
        if len(core) >= _SHORTEST_ENCODED:
            cores.add(core)
            cores.add(core.replace("+", "-").replace("/", "_"))
    return cores


@functools.cache
def _forms(secret: str, encoded: bool) -> tuple[str, ...]:
    data = secret.encode("utf-8", "surrogatepass")
    forms = {
        secret,
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        html.escape(secret),
        html.escape(secret, quote=False),
        " ".join(f"U+{ord(c):04X}" for c in secret),
        *_percent(secret),
    }
    if encoded:
        forms |= _base64_cores(data)
        forms |= {data.hex(), data.hex().upper(), data.hex(" "), data.hex(" ").upper()}
    return tuple(sorted((f for f in forms if len(f) >= SHORTEST), key=len, reverse=True))


def mask(text: str, *, encoded: bool = True, secrets: Iterable[str] | None = None) -> str:
    """``text`` with every known secret (or ``secrets``) as ``***``, in each form listed
    in the module's description (base64 and hex forms too, unless not ``encoded``)."""
    for secret in known() if secrets is None else secrets:
        if len(secret) < SHORTEST:
            continue
        for form in _forms(secret, encoded):
            if form in text:
                text = text.replace(form, MASK)
    return text


def mask_bytes(data: bytes, *, encoded: bool = True) -> bytes:
    """``data`` (bytes a server sent) with every known secret masked, as :func:`mask`
    does (the bytes read as UTF-8, odd bytes kept as they were)."""
    if not known():
        return data
    text = data.decode("utf-8", "surrogateescape")
    masked = mask(text, encoded=encoded)
    return data if masked == text else masked.encode("utf-8", "surrogateescape")
