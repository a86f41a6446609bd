"""The settings record of the pytest plugin, built from its ``--fidelity-*`` options."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from fidelity._pytest.options import DEFAULT_SEED, options_given

__all__ = ["PluginSettings"]


@dataclass(frozen=True, slots=True, kw_only=True)
class PluginSettings:
    """The plugin's settings for one session, from the ``--fidelity-*`` options.

    ``catalogue`` is ``None`` for the whole catalogue, else payloads per family;
    ``explicit`` says whether any option was given on the command line.
    """

    seed: int = DEFAULT_SEED
    families: tuple[str, ...] | None = None
    catalogue: int | None = None
    examples: int = 0
    cards_dir: str | None = None
    check_dir: str | None = None
    explicit: bool = False

    @classmethod
    def from_config(cls, config: pytest.Config, *, seed: int | None = None) -> PluginSettings:
        """Read the options; ``seed`` overrides (an xdist worker gets the controller's)."""
        opt = config.option
        chosen = opt.fidelity_seed
        if seed is None:
            seed = chosen if chosen is not None else random.randrange(2**32)
        return cls(
            seed=seed,
            families=opt.fidelity_families,
            catalogue=opt.fidelity_catalogue,
            examples=opt.fidelity_examples or 0,
            cards_dir=opt.fidelity_cards,
            check_dir=opt.fidelity_check,
            explicit=options_given(config),
        )

    def header(self) -> str:
        """One report-header line with the seed and settings."""
        catalogue = {None: "all", 0: "none"}.get(self.catalogue, f"{self.catalogue} per family")
        parts = [
            f"seed={self.seed}",
            f"families={','.join(self.families) if self.families else 'all'}",
            f"catalogue={catalogue}",
            f"examples={self.examples}",
        ]
        if self.cards_dir is not None:
            parts.append(f"cards={self.cards_dir}")
        if self.check_dir is not None:
            parts.append(f"check={self.check_dir}")
        return "fidelity: " + ", ".join(parts)
