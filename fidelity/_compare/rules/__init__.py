"""The rewrite behind every kind, as something that can be replayed.

Each kind is a :class:`~fidelity._compare.rules.base.Rule`: cheap gates, a replay check
for a hunk (``match``) and the concrete rewrite functions a chain applies to a whole
value (``apply``). The rules live by theme (``quotes``, ``newlines``, ``whitespace``,
``tabs``, ``invisible``, ``escapes``, ``shell``, ``unicode``, ``encoding``, ``mojibake``,
``paths``, ``normpath``); this module puts them in the order of preference the classifier tries them
in: the most specific explanation comes first.
"""

from __future__ import annotations

from fidelity._compare.rules import (
    encoding,
    escapes,
    invisible,
    mojibake,
    newlines,
    normpath,
    paths,
    quotes,
    shell,
    tabs,
    unicode,
    whitespace,
)
from fidelity._compare.rules.base import Context, Rule
from fidelity._compare.rules.mojibake import (
    MOJIBAKE_CODECS,
    chardet_codecs,
    misreadings,
    mojibake_apply,
    reread,
    reread_codecs,
)
from fidelity._compare.rules.newlines import LINE_BREAKS
from fidelity._compare.rules.paths import one_style
from fidelity._compare.rules.tabs import TAB_BY_EIGHT, expands_tabs, tab_expansions

__all__ = [
    "LINE_BREAKS",
    "RULES",
    "RULES_BY_KIND",
    "TAB_BY_EIGHT",
    "Context",
    "Rule",
    "expands_tabs",
    "one_style",
    "reread",
    "reread_codecs",
    "rewrite_as",
    "tab_expansions",
    "whole_rewrites",
]

#: Every rule, in order of preference: the most specific explanation comes first.
RULES: tuple[Rule, ...] = (
    *newlines.RULES,
    *tabs.RULES,
    *whitespace.RULES,
    *quotes.RULES,
    *escapes.RULES,
    *shell.RULES,
    *invisible.RULES,
    newlines.REMOVED,
    *unicode.RULES,
    *encoding.RULES,
    *mojibake.RULES,
    *normpath.RULES,
    *paths.RULES,
)

#: Rules by kind id.
RULES_BY_KIND: dict[str, Rule] = {rule.kind: rule for rule in RULES}


def whole_rewrites(rule: Rule, text: str, received: str, ctx: Context) -> list[tuple[str, str]]:
    """``rule``'s concrete rewrites of a whole value, with their details.

    For ``encoding.mojibake`` every known codec is tried (and those ``chardet``
    proposes for ``received``), not only the most frequent ones.
    """
    if rule.kind != "encoding.mojibake":
        return list(rule.apply(text, ctx))
    out = list(mojibake_apply(text, ctx))
    for codec in dict.fromkeys((*MOJIBAKE_CODECS[5:], *chardet_codecs(received[:4096], ctx))):
        out.extend((o, codec) for o in misreadings(text, codec))
    return out


def rewrite_as(rule: Rule, detail: str, text: str, ctx: Context) -> list[str]:
    """The outputs of ``rule`` on ``text`` that carry ``detail``."""
    if rule.kind == "encoding.mojibake" and "," not in detail and "+" not in detail:
        return misreadings(text, detail)
    return [o for o, d in rule.apply(text, ctx) if d == detail]
