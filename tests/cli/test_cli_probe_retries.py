"""Retries of answers that mean "not now": 429 and 503 (``Retry-After`` honoured and
bounded by the timeout) and connections reset before the answer began are sent again
up to ``--retries`` times for GET, HEAD, PUT, DELETE and OPTIONS; a POST is sent once
unless ``--retry-writes``, and its answer stands: the server refused it for now.

Against ``tests/servers/http_flaky.py`` (Starlette under uvicorn), which answers "not
now" a bounded number of times and writes down every request it got, and a loopback
socket server that resets the first connection of each path.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from _support.cli import fidelity_inprocess as fidelity
from _support.servers import serving

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def flaky() -> Iterator[str]:
    with serving("http_flaky.py") as url:
        yield url


def _log(url: str) -> list[tuple[str, str, float]]:
    return [tuple(entry) for entry in httpx.get(f"{url}_log").json()]  # type: ignore[misc]


def _probe(tmp_path: Path, url: str, *options: str) -> tuple[int, dict[str, int], list[str], str]:
    out = tmp_path / "r.json"
    result = fidelity(
        "probe", url, "--send", "json:text", "--read", "json:text", "--families", "quotes",
        "--json", str(out), *options,
    )  # fmt: skip
    assert "Traceback" not in result.stderr, result.stderr
    observations = json.loads(out.read_text())["observations"] if out.exists() else []
    statuses = dict(Counter(o["status"] for o in observations))
    return result.returncode, statuses, [o["error"] for o in observations], result.stderr


def test_a_rate_limited_write_and_read_are_sent_again(flaky: str, tmp_path: Path) -> None:
    code, statuses, _, stderr = _probe(
        tmp_path, f"{flaky}items/rate-{{n}}", "--method", "PUT",
        "--read-url", f"{flaky}items/rate-{{n}}",
    )  # fmt: skip
    assert code == 0, stderr
    assert statuses == {"preserved": 17}
    sent = Counter((method, path) for method, path, _ in _log(flaky))
    # Each write answered 429 once, each read 503 once: both sent twice, no more.
    assert set(sent.values()) == {2}
    assert len(sent) == 2 * 17


def test_retry_after_is_honoured(flaky: str, tmp_path: Path) -> None:
    """``Retry-After: 1`` on each key's first write: the second comes a second later.
    (--max-requests 4: two payloads, each written twice.)"""
    code, statuses, _, stderr = _probe(
        tmp_path, f"{flaky}items/slow-{{n}}", "--method", "PUT", "--max-requests", "4"
    )
    assert code == 0, stderr
    assert statuses == {"preserved": 2}
    log = _log(flaky)
    assert [(m, p) for m, p, _ in log] == [
        ("PUT", "/items/slow-1"), ("PUT", "/items/slow-1"),
        ("PUT", "/items/slow-2"), ("PUT", "/items/slow-2"),
    ]  # fmt: skip
    assert log[1][2] - log[0][2] >= 0.95
    assert log[3][2] - log[2][2] >= 0.95


def test_a_post_is_never_sent_twice_and_says_it_was_refused_for_now(
    flaky: str, tmp_path: Path
) -> None:
    code, statuses, errors, stderr = _probe(tmp_path, f"{flaky}notes")
    assert code == 3
    assert statuses == {"rejected": 17}
    assert set(errors) == {
        "HTTP 503 Service Unavailable (the server refused it for now; a POST is not sent "
        'twice (--retry-writes allows it)): {"error": "busy, try again later"}'
    }
    assert "lost" not in stderr
    sent = Counter(path for _, path, _ in _log(flaky))
    assert sent == {"/notes": 17}


def test_retry_writes_sends_a_post_again(flaky: str, tmp_path: Path) -> None:
    code, statuses, _, stderr = _probe(tmp_path, f"{flaky}notes", "--retry-writes")
    assert code == 0, stderr
    assert statuses == {"preserved": 17}
    assert Counter(path for _, path, _ in _log(flaky)) == {"/notes": 34}


def test_retries_are_bounded(flaky: str, tmp_path: Path) -> None:
    code, statuses, errors, _ = _probe(
        tmp_path, f"{flaky}always/k{{n}}", "--method", "PUT", "--retries", "1"
    )
    assert code == 3
    assert statuses == {"rejected": 17}
    assert set(errors) == {
        "HTTP 503 Service Unavailable (the server refused it for now, 2 times (1 retry)): "
        '{"error": "busy, try again later"}'
    }
    sent = Counter(path for _, path, _ in _log(flaky))
    assert set(sent.values()) == {2}
    assert len(sent) == 17


def test_a_retry_after_longer_than_the_timeout_is_not_waited(flaky: str, tmp_path: Path) -> None:
    code, statuses, errors, _ = _probe(
        tmp_path, f"{flaky}later/k{{n}}", "--method", "PUT", "--timeout", "3"
    )
    assert code == 3
    assert statuses == {"rejected": 17}
    assert set(errors) == {
        "HTTP 503 Service Unavailable (the server refused it for now and asked to wait 60s "
        '(Retry-After), longer than the timeout of 3s): {"error": "busy, try again later"}'
    }
    assert len(_log(flaky)) == 17


def test_retries_0_sends_once(flaky: str, tmp_path: Path) -> None:
    code, statuses, _, _ = _probe(
        tmp_path, f"{flaky}items/rate-{{n}}", "--method", "PUT", "--retries", "0"
    )
    assert code == 3
    assert statuses == {"rejected": 17}
    assert len(_log(flaky)) == 17


class _Resetting:
    """A loopback HTTP/1.1 server that resets the first connection of each path before
    answering (SO_LINGER 0: an RST, no byte of a response), and answers the JSON body
    it got on every later one."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.seen: Counter[str] = Counter()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}/"

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(5)
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                head, _, body = data.partition(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                path = lines[0].split(" ")[1] if lines and " " in lines[0] else "?"
                length = next(
                    (int(v) for k, _, v in (h.partition(":") for h in lines[1:])
                     if k.lower() == "content-length"), 0,
                )  # fmt: skip
                while len(body) < length:
                    body += conn.recv(65536)
                self.seen[path] += 1
                if self.seen[path] == 1:
                    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    continue
                reply = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                reply += b"connection: close\r\ncontent-length: %d\r\n\r\n" % len(body) + body
                conn.sendall(reply)

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def resetting() -> Iterator[_Resetting]:
    server = _Resetting()
    try:
        yield server
    finally:
        server.close()


def test_a_connection_reset_before_the_answer_is_retried_for_a_put(
    resetting: _Resetting, tmp_path: Path
) -> None:
    code, statuses, _, stderr = _probe(
        tmp_path, f"{resetting.url}items/{{n}}", "--method", "PUT", "--max-requests", "6"
    )
    assert code == 0, stderr
    assert statuses == {"preserved": 3}
    assert resetting.seen == {"/items/1": 2, "/items/2": 2, "/items/3": 2}


def test_a_connection_reset_is_not_retried_for_a_post(
    resetting: _Resetting, tmp_path: Path
) -> None:
    code, statuses, errors, _ = _probe(tmp_path, f"{resetting.url}notes")
    assert code == 3
    assert statuses == {"broken": 1}  # the run stops at the first broken payload
    assert errors[0].startswith(f"the connection to {resetting.url[:-1]} failed mid-exchange")
    assert resetting.seen == {"/notes": 1}


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["http://127.0.0.1:9/", "--retries", "many"], "--retries 'many' is not a whole number"),
        (["http://127.0.0.1:9/", "--retries", "11"], "from 0 to 10"),
        (["--mcp", "--retries", "1", "--", "true"], "--retries applies to HTTP targets"),
        (["--mcp", "--retry-writes", "--", "true"], "--retry-writes applies to HTTP targets"),
    ],
)
def test_retry_options_misused_are_one_sentence(args: list[str], words: str) -> None:
    result = fidelity("probe", *args)
    assert result.returncode == 2
    assert words in result.stderr
