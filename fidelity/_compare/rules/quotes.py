"""Quotes and punctuation: straightened and educated (smart-quote filters)."""

from __future__ import annotations

from fidelity._compare.rules.base import Rule, table_rule

__all__ = ["RULES"]


#: Typographic quotes and what straighteners make of them. Guillemets are quotes
#: too (``«`` is a quotation mark in French, German, Russian...): a chain that turns
#: them into ``"`` or ``<<`` straightened a quote. Primes are punctuation.
STRAIGHT_QUOTES: dict[str, tuple[str, ...]] = {
    "\u2018": ("'", "`"),
    "\u2019": ("'",),
    "\u201a": ("'", ","),
    "\u201b": ("'",),
    "\u201c": ('"', "``"),
    "\u201d": ('"', "''"),
    "\u201e": ('"', ",,"),
    "\u201f": ('"',),
    "\u00ab": ('"', "<<"),
    "\u00bb": ('"', ">>"),
    "\u2039": ("'", "<"),
    "\u203a": ("'", ">"),
    "\u02bc": ("'",),
    "\u02bb": ("'",),
    "\u00b4": ("'",),
    "\u301d": ('"',),
    "\u301e": ('"',),
    "\u301f": ('"',),
    "\u275b": ("'",),
    "\u275c": ("'",),
    "\u275d": ('"',),
    "\u275e": ('"',),
}

EDUCATED_QUOTES: dict[str, tuple[str, ...]] = {
    "``": ("\u201c",),
    "''": ("\u201d",),
    "'": ("\u2019", "\u2018", "\u201a", "\u02bc", "\u2039", "\u203a", "\u201b"),
    '"': ("\u201c", "\u201d", "\u201e", "\u00ab", "\u00bb", "\u201f", "\u301d", "\u301e"),
    "`": ("\u2018",),
    "<<": ("\u00ab",),
    ">>": ("\u00bb",),
}

_OPENERS = frozenset(" \t\n\r([{<\u00a0-\u2014\u2013/")


def _educate(text: str) -> str:
    """Curl quotes the way smart-quote filters do: opening after space or bracket."""
    out: list[str] = []
    for i, ch in enumerate(text):
        if ch in "'\"":
            opening = i == 0 or text[i - 1] in _OPENERS
            if ch == '"':
                out.append("\u201c" if opening else "\u201d")
            else:
                out.append("\u2018" if opening else "\u2019")
        else:
            out.append(ch)
    return "".join(out)


# -- punctuation -----------------------------------------------------------------

STRAIGHT_PUNCT: dict[str, tuple[str, ...]] = {
    "\u2014": ("--", "---", "-"),
    "\u2013": ("-", "--"),
    "\u2012": ("-",),
    "\u2015": ("--", "-"),
    "\u2010": ("-",),
    "\u2011": ("-",),
    "\u2212": ("-",),
    "\u2026": ("...", ". . ."),
    "\u2032": ("'",),
    "\u2033": ('"', "''"),
    "\u2034": ("'''",),
    "\u2035": ("`",),
    "\u2044": ("/",),
    "\u2022": ("*", "-"),
}

EDUCATED_PUNCT: dict[str, tuple[str, ...]] = {
    "---": ("\u2014",),
    "--": ("\u2014", "\u2013"),
    "...": ("\u2026",),
    ". . .": ("\u2026",),
    "-": ("\u2013", "\u2010", "\u2212"),
    "'": ("\u2032",),
    '"': ("\u2033",),
}

RULES: tuple[Rule, ...] = (
    table_rule("quote.straighten", STRAIGHT_QUOTES),
    table_rule(
        "quote.educate",
        EDUCATED_QUOTES,
        apply=lambda s, ctx: ((_educate(s), ""),),
    ),
    table_rule("punct.straighten", STRAIGHT_PUNCT),
    table_rule("punct.educate", EDUCATED_PUNCT),
)
