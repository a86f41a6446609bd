"""Hypothesis strategies and a deterministic catalogue of adversarial text payloads.

``catalogue()`` is a fixed, ordered tuple of ``fidelity.Payload`` records, one hazard
each, with stable ids (``quotes/left-double-mid``) for sweeps against endpoints where
every request counts. ``text()`` and ``payloads()`` mix hazards of every family for
``@given`` tests and shrink to the smallest value that still shows a rewrite; one
strategy per hazard family (``quotes()``, ``normalization()``, ... or
``family(name)``) exercises a single family; ``from_schema(input_schema)`` generates
tool arguments that satisfy a JSON Schema with hazards in their strings. Names load on
first use: the catalogue never imports Hypothesis.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fidelity._core.lazy import lazy_exports

if TYPE_CHECKING:
    from hypothesis.errors import InvalidArgument

    from strategies._internal.catalogue import catalogue
    from strategies._internal.families import (
        astral,
        bidi,
        bom,
        case,
        coercion,
        compatibility,
        control,
        diacritics,
        escapes,
        family,
        invisible,
        length,
        mojibake,
        newlines,
        normalization,
        nul,
        paths,
        punctuation,
        quotes,
        scripts,
        separators,
        surrogates,
        whitespace,
    )
    from strategies._internal.mixing import payloads, text
    from strategies._internal.schema import from_schema

__all__ = [
    "InvalidArgument",
    "astral",
    "bidi",
    "bom",
    "case",
    "catalogue",
    "coercion",
    "compatibility",
    "control",
    "diacritics",
    "escapes",
    "family",
    "from_schema",
    "invisible",
    "length",
    "mojibake",
    "newlines",
    "normalization",
    "nul",
    "paths",
    "payloads",
    "punctuation",
    "quotes",
    "scripts",
    "separators",
    "surrogates",
    "text",
    "whitespace",
]

#: Marks this package as param-fidelity's, so a shadowing local ``strategies`` is detected.
__param_fidelity__ = True

_FAMILY_NAMES = (
    "astral", "bidi", "bom", "case", "coercion", "compatibility", "control", "diacritics",
    "escapes", "family", "invisible", "length", "mojibake", "newlines", "normalization",
    "nul", "paths", "punctuation", "quotes", "scripts", "separators", "surrogates",
    "whitespace",
)  # fmt: skip

_MODULES: dict[str, tuple[str, ...]] = {
    "hypothesis.errors": ("InvalidArgument",),
    "strategies._internal.catalogue": ("catalogue",),
    "strategies._internal.families": _FAMILY_NAMES,
    "strategies._internal.mixing": ("payloads", "text"),
    "strategies._internal.schema": ("from_schema",),
}


__getattr__, __dir__ = lazy_exports(__name__, _MODULES, globals())
