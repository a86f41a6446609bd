"""``{n}``, ``{run}`` and ``{payload}`` wherever an HTTP probe's request is templated:
the target URL, ``--read-url``, header values and ``--body`` (``--default`` and
``--form`` have their own tests), against the wiki-like page store
(``tests/servers/http_wiki.py``), which keys a page by its title in the URL and
refuses to overwrite a page without ``If-Match`` (428)."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
from _support.cli import fidelity_inprocess as fidelity
from _support.servers import serving

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def wiki(tmp_path: Path) -> Iterator[str]:
    with serving("http_wiki.py", str(tmp_path / "wiki.json")) as url:
        yield url


def _statuses(path: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    for o in json.loads(path.read_text())["observations"]:
        counts[o["status"]] = counts.get(o["status"], 0) + 1
    return counts


def test_a_page_keyed_by_the_payload_is_written_and_read_back(wiki: str, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    result = fidelity(
        "probe", f"{wiki}pages/{{payload}}", "--method", "PUT",
        "--body", '{"text": "page {n}"}', "--read-url", f"{wiki}pages/{{payload}}",
        "--read", "json:title", "--families", "quotes,separators", "--json", str(out),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert _statuses(out) == {"preserved": 27}
    document = json.loads(out.read_text())
    assert document["facts"]["setup"]["send"] == "path"
    # Every page is there under its title (a slash in it included), its text filled
    # with the payload's number (1, 2, 3... in the order sent).
    numbers = []
    for observation in document["observations"]:
        title = base64.b64decode(observation["sent"]["data"]).decode("utf-8")
        page = httpx.get(f"{wiki}pages/{quote(title, safe='')}").json()
        assert page["title"] == title
        numbers.append(int(page["text"].removeprefix("page ")))
    assert sorted(numbers) == list(range(1, 28))
    writes = httpx.get(f"{wiki}_writes").json()
    assert writes["written"] == 27  # --read given: no calibration
    assert writes["428"] == 0


def test_run_and_n_in_the_url_and_a_header_make_one_page_per_payload(
    wiki: str, tmp_path: Path
) -> None:
    out = tmp_path / "r.json"
    result = fidelity(
        "probe", f"{wiki}pages/note-{{run}}-{{n}}", "--method", "PUT", "--send", "json:text",
        "--read-url", f"{wiki}pages/note-{{run}}-{{n}}", "--header", "X-Request-Id: {run}/{n}",
        "--families", "quotes", "--json", str(out),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert _statuses(out) == {"preserved": 17}
    writes = httpx.get(f"{wiki}_writes").json()
    assert writes["428"] == 0
    assert writes["written"] == 17 + 3
    ids = writes["request_ids"]
    run = ids[0].split("/")[0]
    assert re.fullmatch("[0-9a-f]{8}", run)
    # Each write and its read carry the same id: the calibration's 0, 1000001, 1000002,
    # then the payloads' 1, 2, 3...
    numbers = [f"{run}/{n}" for n in (0, 1000001, 1000002, *range(1, 18))]
    assert ids == [i for n in numbers for i in (n, n)]
    page = httpx.get(f"{wiki}pages/note-{run}-1").json()
    assert page["title"] == f"note-{run}-1"


def test_payload_in_the_url_and_a_json_send_place_fills_both(wiki: str, tmp_path: Path) -> None:
    """With --send json:text the payload is the page's text and its title too."""
    out = tmp_path / "r.json"
    result = fidelity(
        "probe", f"{wiki}pages/{{payload}}", "--method", "PUT", "--send", "json:text",
        "--read-url", f"{wiki}pages/{{payload}}", "--families", "quotes", "--json", str(out),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert _statuses(out) == {"preserved": 17}
    assert httpx.get(f"{wiki}_writes").json()["428"] == 0
    document = json.loads(out.read_text())
    first = base64.b64decode(document["observations"][0]["sent"]["data"]).decode("utf-8")
    page = httpx.get(f"{wiki}pages/{quote(first, safe='')}").json()
    assert page == {"title": first, "text": first}


def test_send_path_needs_the_place_in_the_url() -> None:
    result = fidelity("probe", "http://127.0.0.1:9/pages/x", "--send", "path")
    assert result.returncode == 2
    assert "--send path needs the URL to hold {value} exactly once" in result.stderr
    assert "(or {payload}, as one path segment)" in result.stderr
