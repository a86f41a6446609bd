"""Line breaks: CRLF, CR, LF, the Unicode separators, and breaks that became spaces."""

from __future__ import annotations

import re

from fidelity._compare.rules.base import Rule, table_rule

__all__ = ["LINE_BREAKS", "RULES"]

LINE_BREAKS = ("\r\n", "\n", "\r", "\u2028", "\u2029", "\x85")
NEWLINE_TO_SPACE: dict[str, tuple[str, ...]] = dict.fromkeys(LINE_BREAKS, (" ",))
SEPARATOR_TO_LF: dict[str, tuple[str, ...]] = {
    "\u2028": ("\n",),
    "\u2029": ("\n", "\n\n"),
    "\x85": ("\n",),
    "\x0b": ("\n",),
    "\x0c": ("\n",),
}


RULES: tuple[Rule, ...] = (
    table_rule("newline.crlf_to_lf", {"\r\n": ("\n",)}),
    table_rule("newline.cr_to_lf", {"\r": ("\n",)}),
    table_rule("newline.lf_to_crlf", {"\n": ("\r\n",)}, dst=re.compile("\r")),
    table_rule("newline.separator_to_lf", SEPARATOR_TO_LF),
    table_rule("newline.to_space", NEWLINE_TO_SPACE),
)
