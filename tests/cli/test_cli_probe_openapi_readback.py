"""``fidelity probe --openapi --yes`` reads created resources back through a
``Location`` header and through an OpenAPI link, against tests/servers/openapi_app.py.

``POST /things`` answers 201 with an empty body and ``Location: /things/N``;
``GET /things/{thing_id}`` reads the label back with CRLF stored as LF. ``POST /memos``
answers ``{"ref": N}`` and a link of its response names ``GET /memo/{key}`` (not beside
``/memos``), which reads the text back NFKC-normalized. The app writes what arrived and
what it stored to a file: each observation is checked against that truth.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from _needs import need_module
from _support.cli import fidelity_inprocess as fidelity
from _support.servers import serving

_OPS = ("--only-op", "POST /things", "--only-op", "POST /memos")


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path, Path]]:
    """The notes API on loopback: its base URL, its calls and its store."""
    need_module("fastapi")
    where = tmp_path_factory.mktemp("openapi_readback")
    calls, store = where / "calls.txt", where / "store.jsonl"
    calls.touch()
    store.touch()
    with serving("openapi_app.py", str(calls), "-", str(store)) as url:
        yield url, calls, store


def _text(value: dict[str, str]) -> str:
    return base64.b64decode(value["data"]).decode("utf-8", "surrogatepass")


def _stored(store: Path, op: str) -> dict[str, str]:
    """What arrived -> what was stored, for ``op``."""
    rows = [json.loads(line) for line in store.read_text(encoding="utf-8").splitlines()]
    return {row["got"]: row["value"] for row in rows if row["op"] == op}


def test_dry_run_names_the_location_and_the_link_read_back(
    api: tuple[str, Path, Path],
) -> None:
    url, calls, _ = api
    before = len(calls.read_text(encoding="utf-8").splitlines())
    result = fidelity("probe", "--openapi", f"{url}/openapi.json", "--yes", "--dry-run", *_OPS)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    thing = next(ln for ln in lines if "POST /things body.label" in ln)
    assert thing.endswith("read-back: GET of the Location header")
    memo = next(ln for ln in lines if "POST /memos body.text" in ln)
    assert memo.endswith("read-back: GET /memo/{key} (OpenAPI link ReadMemo)")
    assert calls.read_text(encoding="utf-8").splitlines()[before:] == ["GET /openapi.json"] * 2


def test_created_resources_are_read_back_by_location_and_by_link_as_stored(
    api: tuple[str, Path, Path], tmp_path: Path
) -> None:
    url, calls, store = api
    before = len(calls.read_text(encoding="utf-8").splitlines())
    out = tmp_path / "result.json"
    result = fidelity(
        "probe", "--openapi", f"{url}/openapi.json", "--yes", *_OPS,
        "--families", "normalization,newlines,whitespace", "--json", str(out),
    )  # fmt: skip
    assert result.returncode == 1, result.stdout + result.stderr
    cards = {c["name"]: c for c in json.loads(out.read_text(encoding="utf-8"))["cards"]}
    assert set(cards) == {"POST:/things:body.label", "POST:/memos:body.text"}
    thing, memo = cards["POST:/things:body.label"], cards["POST:/memos:body.text"]
    assert thing["facts"]["setup"]["id_from"] == "header:Location"
    assert thing["facts"]["setup"]["read_url"] == url + "{id}"
    assert memo["facts"]["setup"]["id_from"] == "json:ref"
    assert memo["facts"]["setup"]["read_url"] == url + "/memo/{id}"
    made = calls.read_text(encoding="utf-8").splitlines()[before:]
    assert any(c.startswith("GET /things/") for c in made)
    assert any(c.startswith("GET /memo/") for c in made)
    # Each observation against what the app stored for the text that arrived.
    for card, op, named in (
        (thing, "POST /things", {"newline.crlf_to_lf"}),
        (memo, "POST /memos", {"unicode.nfc", "whitespace.to_space"}),  # NFKC's part
    ):
        stored = _stored(store, op)
        kinds: set[str] = set()
        for obs in card["observations"]:
            sent = _text(obs["sent"])
            assert obs["status"] in ("preserved", "transformed", "rejected"), obs
            if obs["status"] == "rejected":
                assert sent not in stored, obs  # refused: nothing stored
                continue
            truth = stored[sent]
            if obs["status"] == "preserved":
                assert truth == sent, obs
                assert not obs["kinds"], obs
            else:
                assert truth != sent, obs
                assert _text(obs["received"]) == truth, obs
                assert obs["kinds"], obs
            kinds.update(obs["kinds"])
        assert kinds == named
        assert any(obs["status"] == "preserved" for obs in card["observations"])
