"""The headline failure: an edit tool that straightens quotes in ``old_string``,
found and named by a survey through probes.mcp, on the request path."""

from __future__ import annotations

import pytest

import fidelity
from fidelity import Direction, Status

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_quote_straightening_edit_server_is_found_on_the_request_path(
    quote_edit_survey: fidelity.Survey,
) -> None:
    survey = quote_edit_survey  # the quotes payloads and three plain ones
    assert "quote.straighten" in survey.kinds
    curly = [o for o in survey.observations if set(o.sent) & set("“”‘’")]
    assert curly
    for obs in curly:
        assert obs.direction is Direction.REQUEST
        assert obs.status is Status.TRANSFORMED
        assert "quote.straighten" in obs.kinds
    plain = [o for o in survey.observations if o.payload_id.startswith("scripts/")]
    assert len(plain) == 3
    for obs in plain:
        assert obs.status is Status.PRESERVED
    row = survey.card(name="edit.old_string").row("quotes", Direction.REQUEST)
    assert row is not None
    assert "quote.straighten" in row.kinds
