"""Running every server of a client's configuration file (``fidelity probe --config
FILE``, ``fidelity.sweep(config=FILE)``), up to ``jobs`` at once, each in its own process.

Each server is surveyed by a child ``fidelity probe --mcp --all-tools`` (so every
``--all-tools`` rule applies to it, the guard and ``--yes`` included) writing its
``--json`` part into a private directory. Its output is kept and given whole to the
caller's listener when it ends (the CLI prints it, so sections never interleave; the
library keeps quiet), then the CLI prints one map of servers x families. The cards of
each server are named ``SERVER.TOOL.PARAM`` and record the server's name as their
target (never its command line or URL), and every secret of the file (env and header
values) is ``***`` in every output. The exit code is the worst of the servers'.

``--skip-tool``/``--only-tool`` apply to the whole file: each child leaves out the
tools they match and writes its tool names (``--config-tools``, internal) instead of
refusing a glob that matches none of them (a server they leave no tool of surveys
nothing, exit 0). A glob that matches no tool of any server reached is a sentence of
the :class:`Fleet`, said after the results are written, with exit 2 (unless a server's
code is worse).
"""

from __future__ import annotations

import contextlib
import dataclasses
import fnmatch
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fidelity._core.errors import ExitCode, UsageError
from fidelity._core.render import safe
from fidelity._sweep.config import HEADER_VARIABLE, ConfigServer, read_config, redact

#: The variables through which a child run gets a stdio server's ``env`` values (its
#: ``--env 'NAME=${FIDELITY_CONFIG_ENV_0}'``): never on its command line.
ENV_VARIABLE = "FIDELITY_CONFIG_ENV_"
#: What the children get, all together, to end after a signal before they are killed.
_END_WAIT = 10.0

if TYPE_CHECKING:
    from fidelity._report.card import Card

__all__ = [
    "Fleet",
    "FleetOptions",
    "Section",
    "check_block_names",
    "fleet_options",
    "run_fleet",
    "server_cards",
]

#: A listener of the servers' sections: the server's name, its exit code, and what it
#: printed (stdout then stderr, secrets hidden, made safe), called as each one ends.
Section = Callable[[str, int, str], None]


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


@dataclass(frozen=True, slots=True)
class FleetOptions:
    """A run over the servers of a configuration file, checked: the servers chosen (in
    the file's order), how many run at once, the flags each server's child is given,
    and the globs and pinned tools said back when they match no tool."""

    servers: tuple[ConfigServer, ...]
    jobs: int
    flags: tuple[str, ...]
    skip_tool: tuple[str, ...] = ()
    only_tool: tuple[str, ...] = ()
    args_for: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Fleet:
    """How the servers of the file ended: their cards (``SERVER.TOOL.PARAM``, in the
    file's order), the servers that could not be surveyed at all with their sentence,
    each server's part (the JSON its child wrote, secrets hidden; ``""``: none), the
    exit code (the worst of the servers'; 2 when ``unmatched``) and the sentence naming
    the globs and pinned tools that matched no tool of any server reached."""

    cards: tuple[Card, ...]
    failed: tuple[tuple[str, str], ...]
    parts: tuple[tuple[str, str], ...]
    exit_code: int
    unmatched: str = ""
    #: The signal (or Ctrl-C) that stopped the run before every server ended: the
    #: children were ended (SIGTERM, then SIGKILL) and what they gave is here.
    stopped: KeyboardInterrupt | None = None


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


def _flags(values: Mapping[str, Any]) -> list[str]:
    flags: list[str] = []
    for dest, flag in _PASSED:
        value = values.get(dest)
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
    env = dict(os.environ)
    for key in [k for k in env if k.startswith((HEADER_VARIABLE, ENV_VARIABLE))]:
        del env[key]
    # The child's temporary files, its --sandbox included, go in the run's own
    # directory: removed with it, even when a child had to be killed.
    env["TMPDIR"] = str(work)
    argv = [sys.executable, "-m", "fidelity", "probe", "--mcp", "--all-tools"]
    argv += [*flags, "--json", str(part), "--config-tools", str(_tools_file(part))]
    if server.url is not None:
        for i, (name, value) in enumerate(sorted(server.headers.items())):
            env[f"{HEADER_VARIABLE}{i}"] = value
            argv += ["--header", f"{name}: ${{{HEADER_VARIABLE}{i}}}"]
        argv.append(server.url)
    else:
        # The server's env map reaches the server (merged over the minimal environment
        # the SDK gives it), its values through variables: never on a command line.
        for i, (name, value) in enumerate(sorted(server.env.items())):
            env[f"{ENV_VARIABLE}{i}"] = value
            argv += ["--env", f"{name}=${{{ENV_VARIABLE}{i}}}"]
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


def check_block_names(servers: Sequence[ConfigServer]) -> None:
    """Refuse, before the first server starts, a server name that cannot begin the
    name of a card block (``SERVER.TOOL.PARAM``)."""
    from fidelity._report.block import check_block_name
    from fidelity._sweep.execute import readable_name

    for server in servers:
        try:
            check_block_name(readable_name(f"{server.name}.tool"))
        except UsageError:
            raise UsageError(
                f"--config server {safe(server.name)!r} cannot name a card block (its blocks "
                "are SERVER.TOOL.PARAM); with --card, name it with letters, digits, spaces "
                "within and . _ - : / @ + only."
            ) from None


def fleet_options(values: Mapping[str, Any]) -> FleetOptions:
    """The run of ``config`` (a file) as asked by the option values of ``fidelity
    probe`` (by their parsed names: ``server``, ``jobs``, ``skip_tool``, ...), checked;
    the file is read (:class:`UsageError`: a bad option, file or server name)."""
    from fidelity._sweep.isolation import tool_globs

    tool_globs("--skip-tool", values.get("skip_tool"))
    tool_globs("--only-tool", values.get("only_tool"))
    jobs = _jobs(values.get("jobs"))
    return FleetOptions(
        servers=tuple(read_config(values["config"], values.get("server") or ())),
        jobs=jobs,
        flags=tuple(_flags(values)),
        skip_tool=tuple(values.get("skip_tool") or ()),
        only_tool=tuple(values.get("only_tool") or ()),
        args_for=tuple(values.get("args_for") or ()),
    )


def _jobs(value: str | None) -> int:
    if value is None:
        return 1
    if not value.isdigit() or not 1 <= int(value) <= 64:
        raise UsageError(f"--jobs {safe(value)} must be a whole number from 1 to 64.")
    return int(value)


def _unmatched(options: FleetOptions, ends: Sequence[tuple[str, _Ended]]) -> str:
    """The sentence naming the ``--skip-tool``/``--only-tool`` globs and the
    ``--args-for`` tools that match no tool of any server the run reached (``""``: none,
    or no server reached), in the file's order."""
    reached = [name for name, ended in ends if ended.tools is not None]
    names = {n for _, ended in ends for n in ended.tools or ()}
    missed = [
        f"{option} {safe(glob.strip())!r}"
        for option, globs in (
            ("--skip-tool", options.skip_tool),
            ("--only-tool", options.only_tool),
        )
        for glob in globs or ()
        if not any(fnmatch.fnmatchcase(n, glob.strip()) for n in names)
    ]
    pinned = [pin.partition("=")[0].strip() for pin in options.args_for]
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


def _ended(child: _Child, code: int, done: dict[str, _Ended], section: Section | None) -> None:
    """Note a child's end and give its section whole to ``section``."""
    secrets = child.server.secrets
    out, err = _read(child.out, secrets), _read(child.err, secrets)
    part = child.part.read_text("utf-8") if child.part.exists() else ""
    done[child.server.name] = _Ended(
        code, redact(part, secrets), _sentence(err), _tool_names(child.part)
    )
    if section is not None:
        section(child.server.name, code, "\n".join(t for t in (out, err) if t))


def _stop(running: list[_Child], done: dict[str, _Ended], section: Section | None) -> None:
    """End the children still running: SIGTERM, so each ends its servers' process
    groups, removes its sandbox and writes its partial part; SIGKILL for those not
    ended within ``_END_WAIT`` seconds in all."""
    for child in running:
        with contextlib.suppress(ProcessLookupError):
            child.process.terminate()
    deadline = time.monotonic() + _END_WAIT
    for child in running:
        try:
            code = child.process.wait(timeout=max(deadline - time.monotonic(), 0.01))
        except subprocess.TimeoutExpired:
            child.process.kill()
            code = child.process.wait(timeout=10)
        _ended(child, code, done, section)
    running.clear()


def _run_all(
    servers: Sequence[ConfigServer],
    flags: Sequence[str],
    jobs: int,
    work: Path,
    section: Section | None,
) -> tuple[dict[str, _Ended], KeyboardInterrupt | None]:
    """Run the servers, ``jobs`` at once; give each section whole to ``section`` as it
    ends; return each server's end, and the signal (or Ctrl-C) that stopped the run."""
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
                _ended(child, code, done, section)
            time.sleep(0.05)
    except KeyboardInterrupt as stop:  # Ctrl-C, SIGTERM, SIGHUP: end the children well
        _stop(running, done, section)
        return done, stop
    finally:
        for child in running:
            child.process.kill()
            child.process.wait(timeout=10)
    return done, None


def run_fleet(options: FleetOptions, section: Section | None = None) -> Fleet:
    """Run every server of ``options``, ``jobs`` at once, each section given to
    ``section`` as it ends; return how they ended. Nothing is printed or written."""
    from fidelity._core.secrets import remember, remember_env

    for server in options.servers:  # the file's secrets are the run's, masked everywhere
        remember(*server.headers.values())
        remember_env(server.env)
    with tempfile.TemporaryDirectory(prefix="fidelity-config-") as work:
        done, stop = _run_all(options.servers, options.flags, options.jobs, Path(work), section)
    cards: list[Card] = []
    failed: list[tuple[str, str]] = []
    for server in options.servers:
        ended = done.get(server.name)
        if ended is None:  # never started: the run was stopped first
            failed.append((server.name, "not surveyed: the run was stopped before it started"))
            continue
        shown = server_cards(server.name, ended.part) if ended.part else ()
        cards += shown
        if not shown and ended.code:
            failed.append((server.name, ended.sentence or f"exit {ended.code}"))
    # A child ended by a signal (a negative code) or by an unknown code broke: exit 3.
    known = {c.value for c in ExitCode}
    codes = [e.code if e.code in known else ExitCode.TARGET for e in done.values()]
    # A glob no server's tool matches is the user's typo (a tool meant to be left out
    # may have been called): said once the results are written, with the usage error's
    # code (a server that broke, exit 3, still wins).
    unmatched = _unmatched(
        options,
        [(server.name, done[server.name]) for server in options.servers if server.name in done],
    )
    if unmatched:
        codes.append(ExitCode.USAGE)
    worst = max(codes, default=ExitCode.OK)
    # A finding outranks what could not be measured (the one exit rule of a run).
    if worst == ExitCode.TARGET and ExitCode.DIFFERENT in codes:
        worst = ExitCode.DIFFERENT
    return Fleet(
        cards=tuple(cards),
        failed=tuple(failed),
        parts=tuple(
            (name, done[name].part) for name in (s.name for s in options.servers) if name in done
        ),
        exit_code=int(worst),
        unmatched=unmatched,
        stopped=stop,
    )
