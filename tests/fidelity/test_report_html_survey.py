"""The survey page at its edges: the exact split of a mixed cell (each share at least
18 % of the cell), the sentence of a cell where everything arrived, and the chain's
description in its column header. Colours and words are written out here."""

from __future__ import annotations

import re

import fidelity
from fidelity import Payload

PRESERVED, REJECTED = "#cfe9d6", "#e4776b"


def _quotes(n: int) -> list[Payload]:
    return [
        Payload(id=f"quotes/p{i}", text=f"q{i}\u201c" if i == 0 else f"q{i}", families=("quotes",))
        for i in range(n)
    ]


def _refuses_curly(text: str) -> str:
    if "\u201c" in text:
        raise ValueError("refused")
    return text


def _cell(page: str, outcome: str) -> str:
    found = re.search(
        rf'<td class="c col o-{outcome}" data-chain="c" data-family="quotes"[^>]*>', page
    )
    assert found, page
    return found.group(0)


def test_a_mixed_cell_is_split_by_shares_of_at_least_eighteen_percent() -> None:
    page = fidelity.surveys_to_html([fidelity.survey(_refuses_curly, _quotes(20), name="c")])
    # 19 preserved (0.95) and 1 rejected (0.05, drawn as 0.18), scaled to 100 %:
    # 0.95 / 1.13 = 84.1 %.
    stops = re.findall(r"(#[0-9a-f]{6}) ([\d.]+)% ([\d.]+)%", _cell(page, "mixed"))
    assert stops == [(PRESERVED, "0.0", "84.1"), (REJECTED, "84.1", "100.0")]
    # shares above the minimum keep their size: 2 of 4 is half the cell
    page = fidelity.surveys_to_html([fidelity.survey(_refuses_curly, _quotes(2), name="c")])
    stops = re.findall(r"(#[0-9a-f]{6}) ([\d.]+)% ([\d.]+)%", _cell(page, "mixed"))
    assert stops == [(PRESERVED, "0.0", "50.0"), (REJECTED, "50.0", "100.0")]


def test_a_cell_where_everything_arrived_says_so_in_the_singular_or_plural() -> None:
    one = fidelity.surveys_to_html([fidelity.survey(str, _quotes(2)[1:], name="c")])
    assert "The payload arrived byte for byte." in one
    assert f'style="background:{PRESERVED}"' in _cell(one, "preserved")
    two = fidelity.surveys_to_html([fidelity.survey(str, _quotes(3)[1:], name="c")])
    assert "All 2 payloads arrived byte for byte." in two
    assert "The payload arrived" not in two


def test_the_chain_description_heads_its_column_and_a_complete_run_is_not_marked() -> None:
    survey = fidelity.survey(str, _quotes(2), name="c")
    page = fidelity.surveys_to_html([survey], descriptions={"c": "copies the text as it is"})
    assert "copies the text as it is" in page
    assert "(incomplete run)" not in page
    assert "This chain's run was interrupted." not in page
