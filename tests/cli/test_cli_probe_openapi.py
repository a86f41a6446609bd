"""``fidelity probe --openapi SPEC [URL]``: every string field of an HTTP API.

Against tests/servers/openapi_app.py, a FastAPI app under uvicorn on loopback whose
truth is in its code: ``title`` and ``tags`` stored as sent, ``body`` NFC-normalized,
``meta.author`` stripped, ``kind`` an enum, ``POST /items`` answering only the id and
``GET /items/{item_id}`` reading the name back casefolded, a ``DELETE``. The app
writes every request's ``METHOD /path`` to a file: what was called is known apart
from the probe.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from _needs import need_module

# In-process: the words, exit codes and files are those of a subprocess.
from _support.cli import fidelity_inprocess as fidelity
from _support.servers import serving


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The notes API on loopback: its base URL and the file of its calls."""
    need_module("fastapi")
    calls = tmp_path_factory.mktemp("openapi") / "calls.txt"
    calls.touch()
    with serving("openapi_app.py", str(calls)) as url:
        yield url, calls


def _calls(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _cards(path: Path) -> dict[str, dict[str, object]]:
    document = json.loads(path.read_text(encoding="utf-8"))
    return {card["name"]: card for card in document["cards"]}


def _kinds(card: dict[str, object]) -> set[str]:
    observations = card["observations"]
    assert isinstance(observations, list)
    return {k for o in observations for k in o["kinds"]}


def test_every_field_surveyed_with_yes_names_each_rewrite_and_reads_items_back(
    api: tuple[str, Path], tmp_path: Path
) -> None:
    url, calls = api
    before = len(_calls(calls))
    out = tmp_path / "result.json"
    # One family keeps the run short (96 payloads, not 344): what this test proves is
    # that every field is surveyed, read back where the app keeps it, and its rewrite
    # named. The per-field rewrites of normalization and whitespace (NFC in body and
    # memos, strip in meta.author, to_space in memos) are pinned by docs/cli.md's
    # --openapi transcript, which runs the three families on this app.
    result = fidelity(
        "probe", "--openapi", f"{url}/openapi.json", "--yes", "--families", "case",
        "--json", str(out),
    )  # fmt: skip
    assert result.returncode == 1, result.stdout + result.stderr
    cards = _cards(out)
    assert set(cards) == {
        "POST:/notes:body.title",
        "POST:/notes:body.body",
        "POST:/notes:body.tags.0",
        "POST:/notes:body.meta.author",
        "POST:/items:body.name",
        "POST:/things:body.label",
        "POST:/memos:body.text",
        "GET:/search:query.q",
    }
    # GET /items/{item_id} reads the name back casefolded (casefold() also folds
    # compatibility forms: the long s, ligatures); a memo is stored NFKC-normalized.
    assert _kinds(cards["POST:/items:body.name"]) == {"unicode.case", "unicode.nfkc"}
    assert _kinds(cards["POST:/memos:body.text"]) == {"unicode.nfkc"}
    for stored_as_sent in (
        "POST:/notes:body.title",
        "POST:/notes:body.body",  # NFC: the case payloads are NFC already
        "POST:/notes:body.tags.0",
        "POST:/notes:body.meta.author",  # strip: no edge whitespace in these payloads
        "POST:/things:body.label",
        "GET:/search:query.q",
    ):
        assert _kinds(cards[stored_as_sent]) == set(), stored_as_sent
    # The words are those of operations and their fields, not of tools.
    lines = result.stdout.splitlines()
    assert any(ln.startswith("operation field ") and ln.endswith("kinds") for ln in lines)
    assert any(ln.startswith("operations without a string field (not called): ") for ln in lines)
    assert lines[-1].endswith("; 8 fields measured.")
    assert "tool" not in result.stdout
    # The map names the rows as METHOD /path field.
    for row in ("POST /notes body.meta.author", "POST /items body.name"):
        assert any(ln.startswith(row) for ln in result.stdout.splitlines())
    # The enum is listed, not sent; the item's name is read back by its id.
    assert "POST /notes body.kind" in result.stdout
    assert "constrained (enum)" in result.stdout
    made = _calls(calls)[before:]
    assert any(c.startswith("GET /items/") for c in made)
    assert not any(c.startswith("DELETE") for c in made)
    setup = cards["POST:/items:body.name"]["facts"]["setup"]  # type: ignore[index]
    assert setup["read_url"].endswith("/items/{id}")
    assert setup["id_from"] == "json:id"


def test_without_yes_only_get_is_called_and_the_rest_needs_yes(
    api: tuple[str, Path],
) -> None:
    url, calls = api
    before = len(_calls(calls))
    result = fidelity(
        "probe", "--openapi", f"{url}/openapi.json", "--families", "whitespace",
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    made = _calls(calls)[before:]
    assert made
    assert all(c.split()[0] == "GET" for c in made), made
    assert "GET /search query.q" in result.stdout
    for row in ("POST /notes body.title", "POST /items body.name"):
        line = next(ln for ln in result.stdout.splitlines() if row in ln)
        assert "needs --yes" in line


def test_nothing_to_survey_without_yes_is_said_in_fields_of_operations(
    api: tuple[str, Path],
) -> None:
    url, calls = api
    before = len(_calls(calls))
    result = fidelity("probe", "--openapi", f"{url}/openapi.json", "--only-op", "POST /notes")
    assert result.returncode == 3, result.stdout + result.stderr
    assert "none of the 5 string fields (of 1 operation) could be surveyed" in result.stderr
    assert _calls(calls)[before:] == ["GET /openapi.json", "GET /openapi.json"]


def test_dry_run_says_where_each_row_is_read_back(api: tuple[str, Path]) -> None:
    url, calls = api
    before = len(_calls(calls))
    result = fidelity("probe", "--openapi", f"{url}/openapi.json", "--yes", "--dry-run")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    item = next(ln for ln in lines if "POST /items body.name" in ln)
    assert "GET /items/{item_id} with the id from json:id" in item
    note = next(ln for ln in lines if "POST /notes body.title" in ln)
    assert "the response" in note
    assert _calls(calls)[before:] == ["GET /openapi.json", "GET /openapi.json"]


def test_only_op_and_max_requests_spread_over_every_row(
    api: tuple[str, Path], tmp_path: Path
) -> None:
    url, calls = api
    before = len(_calls(calls))
    out = tmp_path / "result.json"
    result = fidelity(
        "probe", "--openapi", f"{url}/openapi.json", "--yes", "--only-op", "POST /notes*",
        "--max-requests", "16", "--json", str(out),
    )  # fmt: skip
    # One payload per row within the budget (the first of the catalogue, a quote the
    # app keeps): each row measured, nothing rewritten.
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.endswith(
        "4 payloads to 4 operation fields: 4 preserved; 1196 not sent within "
        "--max-requests 16; 4 fields measured.\n"
    )
    cards = _cards(out)
    assert set(cards) == {
        "POST:/notes:body.title",
        "POST:/notes:body.body",
        "POST:/notes:body.tags.0",
        "POST:/notes:body.meta.author",
    }
    assert all(card["observations"] for card in cards.values())
    made = [c for c in _calls(calls)[before:] if c != "GET /openapi.json"]
    assert made
    assert set(made) == {"POST /notes"}
    assert len(made) <= 16  # three calibration requests and a payload per row


def test_card_html_and_describe_hold_one_block_per_row(
    api: tuple[str, Path], tmp_path: Path
) -> None:
    url, _ = api
    card, page, out = tmp_path / "CARD.md", tmp_path / "report.html", tmp_path / "r.json"
    result = fidelity(
        "probe", "--openapi", f"{url}/openapi.json", "--yes", "--only-op", "POST /items",
        "--families", "case", "--card", str(card), "--html", str(page), "--json", str(out),
    )  # fmt: skip
    assert result.returncode == 1, result.stdout + result.stderr
    text = card.read_text(encoding="utf-8")
    assert text.count("<!-- fidelity:begin POST:/items:body.name -->") == 1
    html = page.read_text(encoding="utf-8")
    assert "<h3><code>POST /items body.name</code></h3>" in html
    assert "1 operation field surveyed, 0 not surveyed." in html
    described = fidelity("card", str(out), "--describe")
    assert described.returncode == 0, described.stderr
    assert "POST:/items:body.name" in described.stdout
    assert "case" in described.stdout
    checked = fidelity("card", str(out), "--check", str(card))
    assert checked.returncode == 0, checked.stdout + checked.stderr


# -- the document -------------------------------------------------------------------


def _write(tmp_path: Path, document: object, name: str = "api.json") -> str:
    path = tmp_path / name
    text = document if isinstance(document, str) else json.dumps(document)
    path.write_text(text, encoding="utf-8")
    return str(path)


_PATHS = {
    "/echo": {
        "get": {
            "parameters": [
                {"name": "q", "in": "query", "required": True, "schema": {"type": "string"}}
            ],
            "responses": {"200": {"description": "ok"}},
        }
    }
}


@pytest.mark.parametrize(
    ("document", "words"),
    [
        ({"swagger": "2.0", "paths": _PATHS}, "Swagger 2.0"),
        ({"openapi": "4.0.0", "paths": _PATHS}, "OpenAPI 4.0.0"),
        ({"openapi": "3.1.0", "paths": {}}, "has no paths"),
        (
            {
                "openapi": "3.0.3",
                "paths": {
                    "/a": {
                        "post": {
                            "requestBody": {
                                "content": {
                                    "application/json": {
                                        "schema": {"$ref": "#/components/schemas/Missing"}
                                    }
                                }
                            },
                            "responses": {},
                        }
                    }
                },
            },
            "$ref '#/components/schemas/Missing' does not resolve",
        ),
        (
            {"openapi": "3.0.3", "paths": {"/a": {"$ref": "other.yaml#/paths/a"}}},
            "points outside the document",
        ),
        ("{not json: [", "neither JSON nor YAML"),
    ],
)
def test_a_document_that_cannot_be_read_is_one_sentence_and_exit_2(
    tmp_path: Path, document: object, words: str
) -> None:
    spec = _write(tmp_path, document)
    result = fidelity("probe", "--openapi", spec, "http://127.0.0.1:9/", "--dry-run")
    assert result.returncode == 2
    assert words in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_yaml_31_document_with_its_server_and_defaults(tmp_path: Path) -> None:
    spec = _write(
        tmp_path,
        """
openapi: 3.1.0
servers: [{url: "http://127.0.0.1:9/v1"}]
components:
  schemas:
    Book:
      type: object
      required: [title, year]
      properties:
        title: {type: string}
        year: {type: integer, minimum: 1900}
        isbn: {type: string, pattern: "^[0-9]+$"}
paths:
  /shelves/{bid}/books:
    parameters:
      - {name: bid, in: path, required: true, schema: {type: integer}}
    put:
      requestBody:
        content:
          application/json:
            schema: {$ref: "#/components/schemas/Book"}
      responses: {"200": {description: ok}}
    delete:
      responses: {"204": {description: gone}}
""",
        "api.yaml",
    )
    result = fidelity("probe", "--openapi", spec, "--default", "bid=3", "--dry-run")
    assert result.returncode == 0, result.stderr
    assert "target: HTTP API at http://127.0.0.1:9/v1" in result.stdout
    assert "PUT /shelves/{bid}/books body.title" in result.stdout
    assert "needs --yes" in result.stdout
    assert "constrained (pattern: ^[0-9]+$)" in result.stdout
    assert "DELETE /shelves/{bid}/books" in result.stdout  # listed, never called


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("http://127.0.0.1:80x/openapi.json", "could not be fetched (Invalid port: '80x')"),
        ("ftp://127.0.0.1/openapi.json", "give the path or the http(s) URL"),
    ],
)
def test_a_document_url_that_cannot_be_fetched_is_one_sentence_and_exit_2(
    url: str, words: str
) -> None:
    result = fidelity("probe", "--openapi", url, "--dry-run")
    assert result.returncode == 2, result.stderr
    assert words in result.stderr
    assert "internal error" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_openapi_options_alone_are_a_usage_error() -> None:
    result = fidelity("probe", "http://127.0.0.1:9/", "--only-op", "GET /*")
    assert result.returncode == 2
    assert "add --openapi SPEC" in result.stderr


def test_an_api_behind_a_token_is_surveyed_with_header_and_the_token_is_written_nowhere(
    tmp_path: Path,
) -> None:
    need_module("fastapi")
    calls = tmp_path / "calls.txt"
    calls.touch()
    secret = "s3cr3t-token-for-openapi"
    with serving("openapi_app.py", str(calls), secret) as url:
        words = ("probe", "--openapi", f"{url}/openapi.json", "--only-op", "GET /search",
                 "--families", "quotes")  # fmt: skip
        refused = fidelity(*words)
        out, card = tmp_path / "r.json", tmp_path / "CARD.md"
        result = fidelity(
            *words, "--header", "Authorization: Bearer ${OPENAPI_TOKEN}",
            "--json", str(out), "--card", str(card), env={"OPENAPI_TOKEN": secret},
        )  # fmt: skip
    assert refused.returncode == 3, refused.stdout + refused.stderr
    assert result.returncode == 0, result.stdout + result.stderr
    (only,) = _cards(out).values()
    observations = only["observations"]
    assert isinstance(observations, list)
    assert observations
    assert {o["status"] for o in observations} == {"preserved"}
    for text in (result.stdout, result.stderr, out.read_text(), card.read_text()):
        assert secret not in text


def test_a_put_is_read_back_by_the_get_of_its_url_and_a_json_filter_is_no_text(
    tmp_path: Path,
) -> None:
    spec = _write(
        tmp_path,
        {
            "openapi": "3.0.3",
            "paths": {
                "/todos/{id}": {
                    "parameters": [
                        {
                            "name": "id",
                            "in": "path",
                            "required": True,
                            "schema": {"type": "integer"},
                        }
                    ],
                    "get": {
                        "parameters": [
                            {
                                "name": "filter",
                                "in": "query",
                                "content": {
                                    "application/json": {
                                        "schema": {
                                            "type": "object",
                                            "properties": {"order": {"type": "string"}},
                                        }
                                    }
                                },
                            },
                            {
                                "name": "lang",
                                "in": "query",
                                "content": {"application/json": {"schema": {"type": "string"}}},
                            },
                        ],
                        "responses": {"200": {"description": "the todo"}},
                    },
                    "put": {
                        "requestBody": {
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "object",
                                        "properties": {"title": {"type": "string"}},
                                    }
                                }
                            }
                        },
                        "responses": {"204": {"description": "replaced"}},
                    },
                }
            },
        },
    )
    result = fidelity(
        "probe", "--openapi", spec, "http://127.0.0.1:9", "--yes", "--default", "id=7", "--dry-run",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    put = next(ln for ln in lines if "PUT /todos/{id} body.title" in ln)
    assert put.endswith("read-back: GET /todos/{id} (the URL written)")
    lang = next(ln for ln in lines if "GET /todos/{id} query.lang" in ln)
    assert lang.endswith("serialized as application/json: not sent as plain text")
    assert "query.filter" not in result.stdout  # an object: no text of its own


def test_a_path_level_parameter_is_filled_from_default_in_the_url_sent(
    api: tuple[str, Path], tmp_path: Path
) -> None:
    """``parameters`` declared on the path (not the operation) apply to every operation
    under it: the URL is requested with ``--default item_id=7`` in place, never with
    the template ``{item_id}`` left in it. The app's call log is the truth."""
    url, calls = api
    spec = _write(
        tmp_path,
        {
            "openapi": "3.0.3",
            "servers": [{"url": url}],
            "paths": {
                "/items/{item_id}": {
                    "parameters": [
                        {
                            "name": "item_id",
                            "in": "path",
                            "required": True,
                            "schema": {"type": "integer"},
                        }
                    ],
                    "get": {
                        "parameters": [
                            {"name": "lang", "in": "query", "schema": {"type": "string"}}
                        ],
                        "responses": {"200": {"description": "the item"}},
                    },
                }
            },
        },
    )
    before = len(_calls(calls))
    result = fidelity(
        "probe", "--openapi", spec, "--default", "item_id=7", "--families", "quotes",
        "--quiet", "--json", str(tmp_path / "r.json"),
    )  # fmt: skip
    # (item 7 does not exist: its answers are 404, so the field measures nothing)
    assert result.returncode == 3, result.stderr
    sent = _calls(calls)[before:]
    assert sent  # the operation was called...
    assert set(sent) == {"GET /items/7"}  # ...always at the URL --default made
