"""The stable, recognisable name of an MCP target, for probe names, cards and maps.

A stdio target is named after the server it runs, not the interpreter that runs it:
``[python, /abs/tests/servers/mcp_quote_edit.py]`` is ``mcp_quote_edit.py``,
``[npx, -y, @modelcontextprotocol/server-everything]`` is the package,
``[python, -m, mcp_server_fetch]`` the module. Names never hold absolute paths,
temporary directories or ephemeral loopback ports, so cards of the same chain compare
across machines and runs.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Sequence
from pathlib import PurePath, PurePosixPath, PureWindowsPath
from urllib.parse import urlsplit

from fidelity._core.render import safe

__all__ = ["target_label"]

#: Programs that run the server named by a later argument.
_RUNNERS = re.compile(
    r"(python[\d.]*w?|pypy[\d.]*|py|node(js)?|deno|bun|bunx|npx|pnpx|pnpm|npm|yarn|"
    r"uv|uvx|pipx|tsx|ts-node|ruby|perl|php|sh|bash|zsh|env|exec|nohup|time)"
)
#: Runners whose next argument is a package to fetch and run.
_PACKAGE_RUNNERS = frozenset({"npx", "pnpx", "bunx", "uvx", "pipx"})
#: Subcommands of those runners that come before the server (``uv run``, ``npm exec``).
_SUBCOMMANDS = frozenset({"run", "x", "exec", "dlx", "tool"})
#: Runner options whose value is the next argument.
_VALUED = frozenset(
    {
        "-X",
        "-W",
        "-r",
        "--require",
        "--import",
        "--loader",
        "--experimental-loader",
        "-p",
        "--package",
        "--with",
        "--python",
        "--from",
        "--directory",
        "--project",
        "--prefix",
        "--cwd",
        "--spec",
    }
)
#: Runner options whose value is code: the name is then ``python -c``.
_EVAL = frozenset({"-c", "-e", "--eval", "--print"})
#: The runner of ``probes.mcp_module``: the server is the object spec after it.
_OBJECT_RUNNER = "probes._mcp.serve_object"
#: Entry-point names too generic alone (``index.js``): named from the package's folder on,
#: e.g. ``server-filesystem/dist/index.js``.
_GENERIC = frozenset({"index", "main", "__main__", "cli"})
#: Folders skipped on the way up from a generic entry point to its package.
_BUILD_DIRS = frozenset({"dist", "build", "lib", "src", "bin", "out", "esm", "cjs"})
_LOOPBACK_PORT = re.compile(r"^(127\.0\.0\.1|localhost|\[::1\]):\d+$")
_ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def _program(arg: str) -> str:
    name = _path(arg).name.lower()
    return name[:-4] if name.endswith(".exe") else name


def _path(arg: str) -> PurePath:
    return PureWindowsPath(arg) if "\\" in arg else PurePosixPath(arg)


def _temp_root(path: PurePath) -> bool:
    """True for a temporary directory root (``/tmp``, ``%TEMP%``), where names are random."""
    roots = {PurePosixPath(tempfile.gettempdir()).as_posix().lower(), "/tmp", "/var/tmp"}
    text = path.as_posix().lower().rstrip("/")
    return text in roots or text.endswith("/temp")


def _script(arg: str) -> str:
    """A script path as its basename; a generic entry point with its package's folder.

    The folder is never one made directly in a temporary directory (its name is random),
    and the result does not depend on where the checkout lives.
    """
    path = _path(arg)
    if path.stem.lower() not in _GENERIC:
        return path.name
    for parent in path.parents:
        if parent.name and parent.name.lower() not in _BUILD_DIRS:
            if _temp_root(parent.parent):
                return path.name
            return path.relative_to(parent.parent).as_posix()
    return path.name


def _stdio_label(argv: Sequence[str]) -> str:
    runner = ""
    index = 0
    while index < len(argv):
        arg = argv[index]
        index += 1
        if runner and arg.startswith("-"):
            if arg in _EVAL:
                return f"{runner} {arg}"
            if arg == "-m" and index < len(argv):
                if argv[index] == _OBJECT_RUNNER and index + 1 < len(argv):
                    return argv[index + 1]  # probes.mcp_module: the object's import path
                return argv[index]  # the module is the server
            if arg in _VALUED:
                index += 1
            continue
        if runner == "env" and _ENV_ASSIGNMENT.match(arg):
            continue
        if runner and arg in _SUBCOMMANDS:
            continue
        if _RUNNERS.fullmatch(_program(arg)):
            runner = _program(arg)
            continue
        if not runner:
            return _path(arg).name or arg
        if runner in _PACKAGE_RUNNERS or (arg.startswith("@") and arg.count("/") == 1):
            return arg  # a package spec
        if not any(sep in arg for sep in "/\\") and "." not in arg:
            return arg  # a command name
        return _script(arg)
    return runner or (argv[0] if argv else "")


def _url_label(url: str) -> str:
    """The URL without credentials, query or fragment, and without a loopback port."""
    try:
        parts = urlsplit(url)
        host = parts.netloc.rpartition("@")[2]
    except ValueError:
        return url
    host = _LOOPBACK_PORT.sub(r"\1:<port>", host)
    return f"{parts.scheme}://{host}{parts.path}"


def target_label(target: Sequence[str] | str) -> str:
    """How a probe names an MCP target: the server a stdio argv runs, or a stable URL.

    Terminal-safe; no absolute paths, temporary directories or loopback ports.
    """
    label = _url_label(target) if isinstance(target, str) else _stdio_label(target)
    return safe(label)
