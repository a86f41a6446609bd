"""The headline failure: an edit tool that straightens quotes in ``old_string``,
found and named by a survey through probes.mcp, on the request path."""

from __future__ import annotations

import pytest
from _support.mcp import catalogue, quote_edit

import fidelity
from fidelity import Direction, Status

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_quote_straightening_edit_server_is_found_on_the_request_path() -> None:
    quotes = tuple(p for p in catalogue() if "quotes" in p.families)
    plain = tuple(p for p in catalogue() if p.families[0] == "scripts")[:3]
    with quote_edit() as probe:
        survey = fidelity.survey(probe, payloads=quotes + plain)
    assert "quote.straighten" in survey.kinds
    curly = [o for o in survey.observations if set(o.sent) & set("“”‘’")]
    assert curly
    for obs in curly:
        assert obs.direction is Direction.REQUEST
        assert obs.status is Status.TRANSFORMED
        assert "quote.straighten" in obs.kinds
    for obs in survey.observations:
        if obs.payload_id.startswith("scripts/"):
            assert obs.status is Status.PRESERVED
    row = survey.card(name="edit.old_string").row("quotes", Direction.REQUEST)
    assert row is not None
    assert "quote.straighten" in row.kinds
