"""A small notes API with an OpenAPI document, served by uvicorn on loopback.

Run as ``python openapi_app.py CALLS [TOKEN]`` : prints ``listening on URL`` and serves
until stopped. With TOKEN, every request but the document's needs
``Authorization: Bearer TOKEN`` (else 401). Every request's ``METHOD /path`` is
appended to the file CALLS (one line each), so a test sees what was called (the DELETE
above all).

What it stores, per field:
- ``POST /notes``: ``title`` as sent, ``body`` NFC-normalized, ``meta.author``
  stripped, ``tags`` (a string array) as sent, ``kind`` an enum; the stored note is
  the response.
- ``POST /items`` answers only ``{"id": N}``; ``GET /items/{item_id}`` reads the
  item back, its ``name`` casefolded.
- ``POST /things`` answers 201, an empty body and ``Location: /things/N`` (a
  header its document declares); ``GET /things/{thing_id}`` reads the ``label``
  back with CRLF stored as LF.
- ``POST /memos`` answers only ``{"ref": N}``; an OpenAPI link of that response
  names ``GET /memo/{key}`` (not beside ``/memos``: only the link finds it), which
  reads the ``text`` back NFKC-normalized.
- ``GET /search?q=`` echoes ``q`` as it came.

With STORE (``python openapi_app.py CALLS TOKEN STORE``, TOKEN may be ``-``), every
thing and memo stored is appended to STORE as a JSON line ``{"op": ..., "got":
..., "value": ...}`` (the text as it arrived, as it was stored): the truth a test
reads apart from the API.
- ``DELETE /notes/{note_id}`` deletes (and must never be called without ``--yes``).
"""

from __future__ import annotations

import json
import socket
import sys
import unicodedata
from enum import StrEnum
from pathlib import Path

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field, field_validator

CALLS = Path(sys.argv[1]) if len(sys.argv) > 1 else None
TOKEN = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] != "-" else None
STORE = Path(sys.argv[3]) if len(sys.argv) > 3 else None
app = FastAPI(title="notes", version="1")


@app.middleware("http")
async def record(request: Request, call_next):  # type: ignore[no-untyped-def]
    if CALLS is not None:
        with CALLS.open("a", encoding="utf-8") as out:
            out.write(f"{request.method} {request.url.path}\n")
    wanted = f"Bearer {TOKEN}"
    if (
        TOKEN
        and request.url.path != "/openapi.json"
        and request.headers.get("authorization") != wanted
    ):
        return JSONResponse({"detail": "not authenticated"}, status_code=401)
    return await call_next(request)


@app.exception_handler(RequestValidationError)
async def refuse(request: Request, exc: RequestValidationError) -> JSONResponse:
    # The default answer quotes the input, which a lone surrogate makes unwritable.
    return JSONResponse({"detail": "invalid request"}, status_code=422)


def _text(value: str) -> str:
    value.encode("utf-8")  # a lone surrogate is not text: 422, not a 500 on the way out
    return value


class Kind(StrEnum):
    plain = "plain"
    todo = "todo"


class Meta(BaseModel):
    author: str

    @field_validator("author")
    @classmethod
    def _strict(cls, value: str) -> str:
        return _text(value)


class NoteIn(BaseModel):
    title: str
    body: str = ""
    kind: Kind = Kind.plain
    tags: list[str] = Field(default_factory=list)
    meta: Meta

    @field_validator("title", "body")
    @classmethod
    def _strict(cls, value: str) -> str:
        return _text(value)

    @field_validator("tags")
    @classmethod
    def _strict_tags(cls, value: list[str]) -> list[str]:
        return [_text(v) for v in value]


class Note(NoteIn):
    id: int


class ItemIn(BaseModel):
    name: str

    @field_validator("name")
    @classmethod
    def _strict(cls, value: str) -> str:
        return _text(value)


NOTES: dict[int, Note] = {}
ITEMS: dict[int, str] = {}


@app.post("/notes", response_model=Note)
def create_note(note: NoteIn) -> Note:
    stored = Note(
        id=len(NOTES) + 1,
        title=note.title,
        body=unicodedata.normalize("NFC", note.body),
        kind=note.kind,
        tags=list(note.tags),
        meta=Meta(author=note.meta.author.strip()),
    )
    NOTES[stored.id] = stored
    return stored


@app.delete("/notes/{note_id}")
def delete_note(note_id: int) -> dict[str, bool]:
    NOTES.pop(note_id, None)
    return {"deleted": True}


@app.post("/items")
def create_item(item: ItemIn) -> dict[str, int]:
    ITEMS[len(ITEMS) + 1] = item.name.casefold()
    return {"id": len(ITEMS)}


@app.get("/items/{item_id}")
def read_item(item_id: int) -> dict[str, object]:
    if item_id not in ITEMS:
        raise HTTPException(404, "no such item")
    return {"id": item_id, "name": ITEMS[item_id]}


def _stored(op: str, got: str, value: str) -> str:
    if STORE is not None:
        with STORE.open("a", encoding="utf-8") as out:
            out.write(json.dumps({"op": op, "got": got, "value": value}) + "\n")
    return value


THINGS: dict[int, str] = {}
MEMOS: dict[int, str] = {}
_LOCATION = {"Location": {"description": "the thing's URL", "schema": {"type": "string"}}}


class ThingIn(BaseModel):
    label: str

    @field_validator("label")
    @classmethod
    def _strict(cls, value: str) -> str:
        return _text(value)


class MemoIn(BaseModel):
    text: str

    @field_validator("text")
    @classmethod
    def _strict(cls, value: str) -> str:
        return _text(value)


@app.post(
    "/things",
    status_code=201,
    response_class=Response,
    responses={201: {"description": "created", "headers": _LOCATION}},
)
def create_thing(thing: ThingIn) -> Response:
    THINGS[len(THINGS) + 1] = _stored(
        "POST /things", thing.label, thing.label.replace("\r\n", "\n")
    )
    return Response(status_code=201, headers={"Location": f"/things/{len(THINGS)}"})


@app.get("/things/{thing_id}")
def read_thing(thing_id: int) -> dict[str, object]:
    if thing_id not in THINGS:
        raise HTTPException(404, "no such thing")
    return {"label": THINGS[thing_id]}


_MEMO_LINK = {
    "ReadMemo": {"operationId": "read_memo", "parameters": {"key": "$response.body#/ref"}}
}


@app.post("/memos", responses={200: {"description": "stored", "links": _MEMO_LINK}})
def create_memo(memo: MemoIn) -> dict[str, int]:
    text = unicodedata.normalize("NFKC", memo.text)
    MEMOS[len(MEMOS) + 1] = _stored("POST /memos", memo.text, text)
    return {"ref": len(MEMOS)}


@app.get("/memo/{key}", operation_id="read_memo")
def read_memo(key: int) -> dict[str, object]:
    if key not in MEMOS:
        raise HTTPException(404, "no such memo")
    return {"text": MEMOS[key]}


@app.get("/search")
def search(q: str) -> dict[str, str]:
    try:
        return {"q": _text(q)}
    except UnicodeEncodeError:
        raise HTTPException(422, "invalid request") from None


def main() -> None:
    import uvicorn

    sock = socket.socket()
    # Accepted sockets inherit it: uvicorn writes a response's head and body apart, and
    # without it each body waits out the client's delayed ACK (about 40 ms a request).
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)  # before the banner: a request sent at once waits, not refused
    port = sock.getsockname()[1]
    print(f"listening on http://127.0.0.1:{port}", flush=True)
    config = uvicorn.Config(app, log_level="error", access_log=False)
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
