"""An API that wants names unique, with an OpenAPI document, served by uvicorn.

Run as ``python openapi_unique.py``: prints ``listening on URL`` and serves until
stopped. What a newcomer's ``--openapi`` run met on a real workflow server:

- ``POST /projects`` ``{"name", "title", "owner_email"}``: ``name`` (at most 40
  characters) and ``owner_email`` (format email) must be unique: a second project with
  the same one is 409 Conflict; ``title`` is stored as sent. ``GET
  /projects/{project_id}`` reads the project back.
- ``POST /users`` ``{"username", "bio"}``: ``username`` 3 to 16 characters, unique
  (409 otherwise); ``bio`` stored with its whitespace collapsed. ``GET
  /users/{user_id}`` reads the user back.
- ``POST /jobs/{queue}`` ``{"label"}``: answers 500 to everything (a broken
  operation: its fields cannot be measured).
- ``GET /_seen``: the names, e-mails and usernames the API was sent, in order.
"""

from __future__ import annotations

import socket
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

app = FastAPI(title="unique names", version="1")
projects: dict[int, dict[str, Any]] = {}
users: dict[int, dict[str, Any]] = {}
seen: list[str] = []


@app.exception_handler(RequestValidationError)
async def refuse(request: Request, exc: RequestValidationError) -> JSONResponse:
    return JSONResponse({"detail": "invalid request"}, status_code=422)


class NewProject(BaseModel):
    name: str = Field(max_length=40)
    title: str
    owner_email: str = Field(json_schema_extra={"format": "email"})


class NewUser(BaseModel):
    username: str = Field(min_length=3, max_length=16)
    bio: str


class NewJob(BaseModel):
    label: str


@app.post("/projects", status_code=201)
def create_project(project: NewProject) -> dict[str, Any]:
    seen.extend([project.name, project.owner_email])
    for other in projects.values():
        if project.name == other["name"] or project.owner_email == other["owner_email"]:
            raise HTTPException(409, "a project with this name or owner exists")
    ident = len(projects) + 1
    projects[ident] = {"id": ident, **project.model_dump()}
    return projects[ident]


@app.get("/projects/{project_id}")
def read_project(project_id: int) -> dict[str, Any]:
    if project_id not in projects:
        raise HTTPException(404, "no such project")
    return projects[project_id]


@app.post("/users", status_code=201)
def create_user(user: NewUser) -> dict[str, Any]:
    seen.append(user.username)
    if any(user.username == other["username"] for other in users.values()):
        raise HTTPException(409, "this username is taken")
    ident = len(users) + 1
    users[ident] = {"id": ident, "username": user.username, "bio": " ".join(user.bio.split())}
    return users[ident]


@app.get("/users/{user_id}")
def read_user(user_id: int) -> dict[str, Any]:
    if user_id not in users:
        raise HTTPException(404, "no such user")
    return users[user_id]


@app.post("/jobs/{queue}", status_code=201)
def create_job(queue: str, job: NewJob) -> dict[str, Any]:
    raise HTTPException(500, "the job runner is down")


@app.get("/_seen", include_in_schema=False)
def what_was_seen() -> list[str]:
    return seen


def main() -> None:
    import uvicorn

    sock = socket.socket()
    # Accepted sockets inherit it: uvicorn writes a response's head and body apart, and
    # without it each body waits out the client's delayed ACK (about 40 ms a request).
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}", flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="error", access_log=False)).run(sockets=[sock])


if __name__ == "__main__":
    main()
