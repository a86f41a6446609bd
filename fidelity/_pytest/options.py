"""The pytest plugin's ``--fidelity-*`` options.

Loaded with the plugin in every pytest run, so it imports only the standard library,
pytest and the kinds registry (already loaded by ``fidelity``). The settings record
built from the options lives in ``fidelity._pytest.settings``, loaded when needed.
"""

from __future__ import annotations

import argparse

import pytest

from fidelity._core.kinds import FAMILIES, families_from_text

__all__ = ["DEFAULT_SEED", "add_options", "options_given"]

#: Default seed: fixed, so cards written by two runs (or by xdist workers) are identical.
DEFAULT_SEED = 0


def _families(value: str) -> tuple[str, ...]:
    from fidelity._core.errors import UsageError

    try:
        return families_from_text(value, option=None)
    except UsageError as exc:
        raise argparse.ArgumentTypeError(str(exc).rstrip(".")) from None


def _count(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = -1
    if number < 0:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number >= 0")
    return number


def _catalogue(value: str) -> int | None:
    if value == "all":
        return None
    if value == "none":
        return 0
    try:
        return _count(value)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not 'all', 'none' or a number of payloads per family"
        ) from None


def _seed(value: str) -> int | None:
    if value == "random":
        return None
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not an integer or 'random'") from None


def add_options(parser: pytest.Parser) -> None:
    """Register the ``--fidelity-*`` options in their own help group."""
    group = parser.getgroup("fidelity", "param-fidelity (text parameter fidelity of chains)")
    group.addoption(
        "--fidelity-cards",
        metavar="DIR",
        default=None,
        help="write the session's contract cards to DIR, as NAME.md and NAME.json per card "
        "name (cards come from the 'fidelity' fixture's survey()).",
    )
    group.addoption(
        "--fidelity-check",
        metavar="DIR",
        default=None,
        help="compare the session's cards with the committed NAME.json cards in DIR and fail "
        "the run on drift (a kind appears or disappears for a family, or an outcome "
        "changes); the failure shows the old and new rows.",
    )
    group.addoption(
        "--fidelity-families",
        metavar="LIST",
        type=_families,
        default=None,
        help="comma-separated hazard families that surveys cover (default: all). "
        f"Valid: {', '.join(FAMILIES)}.",
    )
    group.addoption(
        "--fidelity-catalogue",
        metavar="all|none|N",
        type=_catalogue,
        default=None,
        help="catalogue payloads per family in each survey: all (default), none, or the "
        "first N of each family.",
    )
    group.addoption(
        "--fidelity-examples",
        metavar="N",
        type=_count,
        default=None,
        help="Hypothesis examples added to each survey, beyond the catalogue (default: 0).",
    )
    group.addoption(
        "--fidelity-seed",
        metavar="N|random",
        type=_seed,
        default=DEFAULT_SEED,
        help=f"seed of the Hypothesis examples in surveys (default: {DEFAULT_SEED}, so cards "
        "are reproducible); 'random' picks one and shows it in the report header.",
    )


def options_given(config: pytest.Config) -> bool:
    """Whether any ``--fidelity-*`` option was given (with a non-default value)."""
    opt = config.option
    return getattr(opt, "fidelity_seed", DEFAULT_SEED) != DEFAULT_SEED or any(
        getattr(opt, name, None) is not None
        for name in (
            "fidelity_families",
            "fidelity_catalogue",
            "fidelity_examples",
            "fidelity_cards",
            "fidelity_check",
        )
    )
