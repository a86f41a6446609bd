"""Running ``fidelity probe --config FILE``: every server of the file, up to ``--jobs``
at once, each in its own process.

Each server is surveyed by a child ``fidelity probe --mcp --all-tools`` (so every
``--all-tools`` rule applies to it, the guard and ``--yes`` included) writing its
``--json`` part into a private directory. Its output is kept and printed whole when it
ends, so sections never interleave; then one map of servers x families. The cards of
each server are named ``SERVER.TOOL.PARAM`` and record the server's name as their
target (never its command line or URL), and every secret of the file (env and header
values) is ``***`` in every output. The exit code is the worst of the servers'.

``--skip-tool``/``--only-tool`` apply to the whole file: each child leaves out the
tools they match and writes its tool names (``--config-tools``, internal) instead of
refusing a glob that matches none of them (a server they leave no tool of surveys
nothing, exit 0). A glob that matches no tool of any server reached is said in one
sentence after the results are written, with exit 2 (unless a server's code is worse).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fidelity._core.errors import ExitCode, UsageError
from fidelity._core.render import safe
from fidelity._sweep.config import HEADER_VARIABLE, ConfigServer, read_config, redact

if TYPE_CHECKING:
    import argparse

    from fidelity._report.card import Card

__all__ = ["execute_config", "server_cards"]


#: The options of ``fidelity probe`` a child is given as they were: (dest, flag).
_PASSED = (
    ("families", "--families"),
    ("examples", "--examples"),
    ("max_requests", "--max-requests"),
    ("rate", "--rate"),
    ("timeout", "--timeout"),
    ("seed", "--seed"),
    ("max_reply", "--max-reply"),
    ("allow", "--allow"),
    ("args_for", "--args-for"),
    ("yes", "--yes"),
    ("quiet", "--quiet"),
    ("sandbox", "--sandbox"),
    ("skip_tool", "--skip-tool"),
    ("only_tool", "--only-tool"),
    ("default", "--default"),
)
#: Options that describe one target, refused with --config.
_ONE_TARGET = (
    "target", "tool", "param", "args", "before", "send", "read", "read_tool", "read_args",
    "read_url", "id_from", "clients", "check", "html", "list_tools", "dry_run",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class _Ended:
    """A server's child, ended: its exit code, its part (JSON text, ``""`` when none),
    its last sentence, and the tool names it listed (``None``: it never reached them)."""

    code: int
    part: str
    sentence: str
    tools: list[str] | None


@dataclass(slots=True)
class _Child:
    server: ConfigServer
    process: subprocess.Popen[bytes]
    part: Path
    out: Any
    err: Any
    code: int | None = None


def _flags(args: argparse.Namespace) -> list[str]:
    flags: list[str] = []
    for dest, flag in _PASSED:
        value = getattr(args, dest, None)
        if value is None or value is False or value == []:
            continue
        if value is True:
            flags.append(flag)
        elif isinstance(value, list):
            for item in value:
                flags += [flag, str(item)]
        else:
            flags += [flag, str(value)]
    return flags


def _start(server: ConfigServer, flags: Sequence[str], work: Path, index: int) -> _Child:
    part = work / f"part{index}.json"
    env = {**os.environ, **server.env}
    for key in [k for k in env if k.startswith(HEADER_VARIABLE)]:
        del env[key]
    argv = [sys.executable, "-m", "fidelity", "probe", "--mcp", "--all-tools"]
    argv += [*flags, "--json", str(part), "--config-tools", str(_tools_file(part))]
    if server.url is not None:
        for i, (name, value) in enumerate(sorted(server.headers.items())):
            env[f"{HEADER_VARIABLE}{i}"] = value
            argv += ["--header", f"{name}: ${{{HEADER_VARIABLE}{i}}}"]
        argv.append(server.url)
    else:
        argv += ["--", *server.command]
    # Closed when read (_read), once the child ended.
    out = tempfile.TemporaryFile(dir=work)  # noqa: SIM115
    err = tempfile.TemporaryFile(dir=work)  # noqa: SIM115
    process = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env, cwd=server.cwd
    )
    return _Child(server=server, process=process, part=part, out=out, err=err)


def _tools_file(part: Path) -> Path:
    """Where a server's child writes its tool names (once it listed them)."""
    return part.with_suffix(".tools.json")


def _tool_names(part: Path) -> list[str] | None:
    """The tool names a child wrote; ``None`` when it never listed them (not reached)."""
    try:
        names = json.loads(_tools_file(part).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return [n for n in names if isinstance(n, str)] if isinstance(names, list) else None


def _read(stream: Any, secrets: Sequence[str]) -> str:
    stream.seek(0)
    text = stream.read().decode("utf-8", "replace")
    stream.close()
    return "\n".join(safe(line) for line in redact(text, secrets).splitlines())


def _sentence(err: str) -> str:
    """The child's sentence: its last line that says ``fidelity: ...``."""
    said = [line for line in err.splitlines() if line.startswith("fidelity: ")]
    return said[-1].removeprefix("fidelity: ") if said else ""


def server_cards(server: str, text: str, secrets: Sequence[str] = ()) -> tuple[Card, ...]:
    """The cards of one server's part, named ``SERVER.NAME``, their target the server's
    name, its secrets hidden."""
    from fidelity._report.card import cards_from_json
    from fidelity._sweep.execute import readable_name

    cards = []
    for card in cards_from_json(redact(text, secrets)):
        facts = card.facts
        if facts.setup is not None:
            setup = dataclasses.replace(facts.setup, target=server)
            chain = f"{facts.setup.transport} {server}"
            facts = dataclasses.replace(facts, setup=setup, chain=chain)
        name = readable_name(f"{server}.{card.name}")
        cards.append(dataclasses.replace(card, name=name, facts=facts))
    return tuple(cards)


def _check(args: argparse.Namespace) -> None:
    from fidelity._sweep.isolation import tool_globs

    tool_globs("--skip-tool", args.skip_tool)
    tool_globs("--only-tool", args.only_tool)
    given = [d for d in _ONE_TARGET if getattr(args, d, None) not in (None, False, [], ())]
    if given:
        flag = "a target" if given[0] == "target" else f"--{given[0].replace('_', '-')}"
        raise UsageError(
            f"--config surveys every server of the file with the --all-tools rules; {flag} "
            "describes one target: drop it, or probe that server on its own."
        )
    if args.json == "-":
        raise UsageError("--config needs --json FILE (the servers' sections use stdout).")


def _jobs(value: str | None) -> int:
    if value is None:
        return 1
    if not value.isdigit() or not 1 <= int(value) <= 64:
        raise UsageError(f"--jobs {safe(value)} must be a whole number from 1 to 64.")
    return int(value)


def _unmatched(args: argparse.Namespace, ends: Sequence[tuple[str, _Ended]]) -> str:
    """The sentence naming the ``--skip-tool``/``--only-tool`` globs and the
    ``--args-for`` tools that match no tool of any server the run reached (``""``: none,
    or no server reached), in the file's order."""
    reached = [name for name, ended in ends if ended.tools is not None]
    names = {n for _, ended in ends for n in ended.tools or ()}
    missed = [
        f"{option} {safe(glob.strip())!r}"
        for option, globs in (("--skip-tool", args.skip_tool), ("--only-tool", args.only_tool))
        for glob in globs or ()
        if not any(fnmatch.fnmatchcase(n, glob.strip()) for n in names)
    ]
    pinned = [pin.partition("=")[0].strip() for pin in args.args_for or ()]
    missed += [f"--args-for {safe(tool)!r}" for tool in pinned if tool not in names]
    if not reached or not missed:
        return ""
    which = ", ".join(missed[:-1]) + " and " + missed[-1] if len(missed) > 1 else missed[0]
    servers, their = ("servers", "their") if len(reached) > 1 else ("server", "its")
    return (
        f"{which} {'match' if len(missed) > 1 else 'matches'} no tool of the {servers} "
        f"reached ({', '.join(safe(n) for n in reached)}); {their} results are kept; correct "
        f"{'them' if len(missed) > 1 else 'it'}."
    )


def _run_all(
    servers: Sequence[ConfigServer], flags: Sequence[str], jobs: int, work: Path
) -> dict[str, _Ended]:
    """Run the servers, ``jobs`` at once; print each section whole as it ends; return
    each server's end."""
    waiting = list(enumerate(servers))
    running: list[_Child] = []
    done: dict[str, _Ended] = {}
    try:
        while waiting or running:
            while waiting and len(running) < jobs:
                index, server = waiting.pop(0)
                running.append(_start(server, flags, work, index))
            for child in list(running):
                code = child.process.poll()
                if code is None:
                    continue
                running.remove(child)
                secrets = child.server.secrets
                out, err = _read(child.out, secrets), _read(child.err, secrets)
                part = child.part.read_text("utf-8") if child.part.exists() else ""
                done[child.server.name] = _Ended(
                    code, redact(part, secrets), _sentence(err), _tool_names(child.part)
                )
                section = [f"== {safe(child.server.name)} (exit {code})"]
                section += [line for line in (out, err) if line]
                sys.stdout.write("\n".join(section) + "\n\n")
                sys.stdout.flush()
            time.sleep(0.05)
    finally:
        for child in running:
            child.process.kill()
            child.process.wait(timeout=10)
    return done


def execute_config(args: argparse.Namespace) -> int:
    """Run ``fidelity probe --config FILE`` as asked; return the worst exit code."""
    from fidelity._cli.joined import servers_map, write_cards
    from fidelity._report.results import writable

    _check(args)
    jobs = _jobs(args.jobs)
    servers = read_config(args.config, args.server or ())
    for option, path in (("--json", args.json), ("--card", args.card), ("--junit", args.junit)):
        if path is not None:
            writable(path, option)
    with tempfile.TemporaryDirectory(prefix="fidelity-config-") as work:
        done = _run_all(servers, _flags(args), jobs, Path(work))
    cards: list[Card] = []
    failed: list[tuple[str, str]] = []
    for server in servers:
        ended = done[server.name]
        shown = server_cards(server.name, ended.part) if ended.part else ()
        cards += shown
        if not shown and ended.code:
            failed.append((server.name, ended.sentence or f"exit {ended.code}"))
    sys.stdout.write(servers_map(cards, failed))
    write_cards(
        cards, json_path=args.json, card_path=args.card, junit_path=args.junit, failed=failed
    )
    # A child ended by a signal (a negative code) or by an unknown code broke: exit 3.
    known = {c.value for c in ExitCode}
    codes = [e.code if e.code in known else ExitCode.TARGET for e in done.values()]
    # A glob no server's tool matches is the user's typo (a tool meant to be left out
    # may have been called): said once the results are written, with the usage error's
    # code (a server that broke, exit 3, still wins).
    unmatched = _unmatched(args, [(server.name, done[server.name]) for server in servers])
    if unmatched:
        from fidelity._cli import error

        error(unmatched)
        codes.append(ExitCode.USAGE)
    return int(max(codes, default=ExitCode.OK))
