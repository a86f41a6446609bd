"""The command line of ``fidelity probe --config FILE``: its options checked, the run
(:mod:`~fidelity._sweep.servers`), then what it prints and writes: each server's
section whole as it ends, the map of servers x families, the outputs, and the sentence
of a glob that matched no tool."""

from __future__ import annotations

import argparse
import sys

from fidelity._core.errors import UsageError
from fidelity._core.render import safe

__all__ = ["run_config"]

#: Options that describe one target, refused with --config.
_ONE_TARGET = (
    "target", "tool", "param", "args", "before", "send", "read", "read_tool", "read_args",
    "read_url", "id_from", "clients", "check", "html", "list_tools", "dry_run",
)  # fmt: skip


def _check(args: argparse.Namespace) -> None:
    given = [d for d in _ONE_TARGET if getattr(args, d, None) not in (None, False, [], ())]
    if given:
        flag = "a target" if given[0] == "target" else f"--{given[0].replace('_', '-')}"
        raise UsageError(
            f"--config surveys every server of the file with the --all-tools rules; {flag} "
            "describes one target: drop it, or probe that server on its own."
        )
    if args.json == "-":
        raise UsageError("--config needs --json FILE (the servers' sections use stdout).")


def _section(server: str, code: int, text: str) -> None:
    """A server's section, printed whole (its text is already safe and redacted)."""
    lines = [f"== {safe(server)} (exit {code})", *([text] if text else [])]
    sys.stdout.write("\n".join(lines) + "\n\n")
    sys.stdout.flush()


def run_config(args: argparse.Namespace) -> int:
    """Run ``fidelity probe --config FILE`` as asked; return the worst exit code."""
    from fidelity._cli import error
    from fidelity._report.results import writable
    from fidelity._sweep.joined import servers_map, write_cards
    from fidelity._sweep.servers import check_block_names, fleet_options, run_fleet

    _check(args)
    options = fleet_options(vars(args))
    for option, path in (("--json", args.json), ("--card", args.card), ("--junit", args.junit)):
        if path is not None:
            writable(path, option)
    if args.card is not None:
        check_block_names(options.servers)  # before the first server starts
    fleet = run_fleet(options, _section)
    sys.stdout.write(servers_map(fleet.cards, fleet.failed))
    if fleet.stopped is not None:
        # What the servers gave so far goes to --json and --junit; a card block is
        # replaced only by a complete card.
        write_cards(fleet.cards, json_path=args.json, junit_path=args.junit, failed=fleet.failed)
        write_cards([c for c in fleet.cards if c.complete], card_path=args.card)
        raise fleet.stopped
    write_cards(
        fleet.cards,
        json_path=args.json,
        card_path=args.card,
        junit_path=args.junit,
        failed=fleet.failed,
    )
    if fleet.unmatched:
        error(fleet.unmatched)
    return fleet.exit_code
