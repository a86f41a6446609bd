"""One HTTP request whose answer is kept as the server gave it: :func:`raw_request`.

The error contract over HTTP (``fidelity probe --openapi SPEC --errors``) judges how an
API answers a malformed request: its status, its content type and the start of its
body. The body is read at most ``max_body`` bytes (what is kept of a longer one is its
start, and ``length`` says the body was longer); the whole exchange is bounded by
``timeout``. A failure to connect, or a connection dropped before an answer, is
``crashed``; no answer in time is ``timeout``. Nothing is retried.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["RawHttpAnswer", "raw_request"]

#: Bytes of a body read, at most.
_MAX_BODY = 65536


@dataclass(frozen=True, slots=True, kw_only=True)
class RawHttpAnswer:
    """What one request brought back: ``outcome`` (``response``, ``timeout`` or
    ``crashed``), the ``status`` and ``content_type`` of a response, its body as text
    (UTF-8, odd bytes replaced; cut to what was read) and ``length``, the body's length
    in characters, or more than what was kept when it was not read to its end."""

    outcome: str
    status: int = 0
    content_type: str = ""
    text: str = ""
    length: int = 0


def raw_request(
    method: str,
    url: str,
    *,
    headers: Mapping[str, str] | None = None,
    json_body: Any = None,
    form: Mapping[str, str] | None = None,
    timeout: float = 10.0,
    max_body: int = _MAX_BODY,
) -> RawHttpAnswer:
    """Send one request (a JSON body, a form, or none) and keep the answer."""
    import httpx

    content: bytes | None = None
    sent = dict(headers or {})
    if json_body is not None:
        content = json.dumps(json_body, ensure_ascii=False).encode("utf-8")
        sent.setdefault("Content-Type", "application/json")
    try:
        with (
            httpx.Client(timeout=timeout, follow_redirects=False) as client,
            client.stream(method, url, headers=sent, content=content, data=form) as response,
        ):
            body = b""
            complete = True
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > max_body:
                    complete = False
                    break
            text = body[:max_body].decode("utf-8", "replace")
            return RawHttpAnswer(
                outcome="response",
                status=response.status_code,
                content_type=response.headers.get("content-type", ""),
                text=text,
                length=len(text) if complete else len(text) + 1,
            )
    except httpx.TimeoutException:
        return RawHttpAnswer(outcome="timeout", text=f"no answer within {timeout:g}s")
    except httpx.HTTPError as exc:
        return RawHttpAnswer(outcome="crashed", text=f"{type(exc).__name__}: {exc}")
