"""``surveys_to_html``: the map of several surveys as one page, as ``fidelity survey --html``
writes it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from fidelity._core.errors import UsageError
from fidelity._report.card import Card
from fidelity._report.html.survey import render_survey_html
from fidelity._survey.result import Survey

__all__ = ["surveys_to_html"]


def surveys_to_html(
    surveys: Iterable[Survey | Card],
    *,
    descriptions: Mapping[str, str] | None = None,
    groups: Mapping[str, str] | None = None,
) -> str:
    """One self-contained HTML page: hazard families by chains, one column per survey.

    Each cell is coloured by what the chain did to the family over the round trip
    (preserved, transformed, rejected, lost, timeout, broken, or mixed), with its
    counts in its tooltip; a click on it shows the kinds seen and the smallest example
    of each, sent and received side by side with the changed code points highlighted,
    and for a chain of several hops which hop changed the value. A kind filter marks
    every cell where the kind was seen.

    ``surveys`` are ``Survey`` results (or their cards, e.g. read back with
    ``Card.from_json``), each with its own name. ``descriptions`` maps a chain's name to
    what it does (shown on hover; default: the survey's chain); ``groups`` maps it to a
    group such as ``"HTTP"``, and the page then filters by group. The page has no
    external resource and a Content-Security-Policy that forbids any network access;
    every payload is escaped, invisible and control characters shown as badges.
    """
    cards = []
    for item in surveys:
        if isinstance(item, Survey):
            cards.append(item.card())
        elif isinstance(item, Card):
            cards.append(item)
        else:
            raise UsageError(
                f"surveys_to_html takes Survey results or Cards, not {type(item).__name__}."
            )
    if not cards:
        raise UsageError("surveys_to_html needs one or more Survey results.")
    names = [c.name for c in cards]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UsageError(
            f"two surveys are named {twice[0]!r}: give each chain its own name "
            "(fidelity.survey(target, name=...))."
        )
    return render_survey_html(cards, descriptions=descriptions, groups=groups)
