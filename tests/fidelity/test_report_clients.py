"""The clients' section at its edges: a difference in one direction of a split probe
while the others agree, the order of the differences, and one client alone. Expected
differences are written out from the section's definition."""

from __future__ import annotations

import json

from fidelity import Direction, Observation, Status
from fidelity._report.clients import ClientResult, ClientsSection


def _split(pid: str, family: str, response: str) -> Observation:
    """A value measured apart: it arrives whole, and comes back as ``response``."""
    sent = "\u201cq\u201d"
    status = Status.PRESERVED if response == sent else Status.TRANSFORMED
    request = Observation(
        sent=sent, status=Status.PRESERVED, received=sent, direction=Direction.REQUEST
    )
    back = Observation(sent=sent, status=status, received=response, direction=Direction.RESPONSE)
    return Observation(
        sent=sent,
        status=Status.PRESERVED,
        received=sent,
        parts=(request, back),
        payload_id=pid,
        families=(family,),
    )


def test_clients_that_agree_on_the_round_trip_can_differ_on_the_response_path() -> None:
    kept = (_split("quotes/a", "quotes", "\u201cq\u201d"),)
    keeps = ClientResult(client="python", observations=kept)
    straightened = (_split("quotes/a", "quotes", '"q"'),)
    rewrites = ClientResult(client="typescript", observations=straightened)
    (difference,) = ClientsSection.of([keeps, rewrites]).differences
    assert (difference.payload_id, difference.direction) == ("quotes/a", "response")
    assert [(o.client, o.status) for o in difference.outcomes] == [
        ("python", "preserved"),
        ("typescript", "transformed"),
    ]


def test_differences_go_by_family_then_payload_then_direction() -> None:
    ids = (("quotes/b", "quotes"), ("newlines/a", "newlines"), ("quotes/a", "quotes"))
    one = ClientResult(client="one", observations=tuple(_split(p, f, "x") for p, f in ids))
    two = ClientResult(client="two", observations=tuple(_split(p, f, "y") for p, f in ids))
    section = ClientsSection.of([one, two])
    assert [(d.payload_id, d.direction) for d in section.differences] == [
        ("quotes/a", "response"),
        ("quotes/b", "response"),
        ("newlines/a", "response"),
    ]


def test_one_client_alone_has_no_differences() -> None:
    alone = ClientResult(client="python", observations=(_split("quotes/a", "quotes", "x"),))
    section = ClientsSection.of([alone])
    assert section.differences == ()
    assert [r.client for r in section.runs] == ["python"]


def test_a_run_is_found_by_a_name_that_came_from_elsewhere() -> None:
    # A name typed on the command line or read from JSON: equal, not the same object.
    alone = ClientResult(client="python", observations=(_split("quotes/a", "quotes", "x"),))
    section = ClientsSection.of([alone])
    found = section.run(json.loads('"python"'))
    assert found is not None
    assert found.client == "python"
    assert section.run("typescript") is None
