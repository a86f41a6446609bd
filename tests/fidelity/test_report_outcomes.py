"""The family map at its edges: the smallest example kept whatever the order the values
came in, one status per row or "mixed", the rows' order, and the request-path failure
that only a value the client refused before sending adds. Expected rows are written
out from the map's definition."""

from __future__ import annotations

from types import SimpleNamespace

from fidelity import Direction, Observation, Status
from fidelity._report.outcomes import Entry, entries, failed_on_request, summarize

RT = Direction.ROUND_TRIP


def _entry(pid: str, sent: str, status: Status, kinds: tuple[str, ...] = (), **kw: object) -> Entry:
    return Entry(
        payload_id=pid,
        families=kw.get("families", ("quotes",)),  # type: ignore[arg-type]
        direction=kw.get("direction", RT),  # type: ignore[arg-type]
        status=status,
        kinds=frozenset(kinds),
        sent=sent,
        received=kw.get("received"),
        error_type="",
        error="",
    )


def test_the_smallest_example_is_kept_whichever_comes_first() -> None:
    small = _entry("quotes/b", "\u201c", Status.TRANSFORMED, ("quote.straighten",))
    large = _entry("quotes/a", "\u201cab\u201d", Status.TRANSFORMED, ("quote.straighten",))
    same_size = _entry("quotes/c", "\u201d", Status.TRANSFORMED, ("quote.straighten",))
    for order in ([small, large, same_size], [large, same_size, small], [same_size, small]):
        (row,) = summarize(order)
        (example,) = row.examples
        # smallest in UTF-8 bytes, then by payload id
        assert (example.key, example.payload_id) == ("quote.straighten", "quotes/b")


def test_a_row_has_its_one_status_or_is_mixed() -> None:
    (one,) = summarize([_entry("quotes/a", "a", Status.REJECTED)] * 2)
    assert (one.outcome, one.count, one.statuses) == ("rejected", 2, ((Status.REJECTED, 2),))
    assert [(e.key, e.payload_id) for e in one.examples] == [("rejected", "quotes/a")]
    (mixed,) = summarize(
        [_entry("quotes/a", "a", Status.LOST), _entry("quotes/b", "b", Status.PRESERVED)]
    )
    assert mixed.outcome == "mixed"
    assert mixed.statuses == ((Status.PRESERVED, 1), (Status.LOST, 1))
    assert [e.key for e in mixed.examples] == ["lost"]


def test_rows_go_by_family_order_then_direction_in_enum_order_and_unfiled_entries_have_a_row() -> (
    None
):
    found = summarize(
        [
            _entry("x", "a", Status.PRESERVED, families=("zzz-custom",)),
            _entry("n", "a", Status.PRESERVED, families=("newlines",), direction=RT),
            _entry("n", "a", Status.PRESERVED, families=("newlines",), direction=Direction.REQUEST),
            _entry("q", "a", Status.PRESERVED, families=("quotes",)),
            _entry("u", "a", Status.PRESERVED, families=()),
        ]
    )
    assert [(r.family, r.direction) for r in found] == [
        ("quotes", RT),
        ("newlines", RT),
        ("newlines", Direction.REQUEST),
        ("unfiled", RT),
        ("zzz-custom", RT),
    ]


def test_only_a_value_refused_before_sending_fails_on_the_request_path() -> None:
    refused_here = SimpleNamespace(client_side=True, parts=())
    refused_there = SimpleNamespace(client_side=False, parts=())
    measured_apart = SimpleNamespace(client_side=True, parts=("a request part",))
    assert failed_on_request(refused_here, True) is True
    assert failed_on_request(refused_here, False) is False
    assert failed_on_request(refused_there, True) is False
    assert failed_on_request(measured_apart, True) is False


def test_entries_add_the_request_failure_of_a_client_refusal_only() -> None:
    request = Observation(
        sent="a", status=Status.PRESERVED, received="a", direction=Direction.REQUEST
    )
    split = Observation(
        sent="a",
        status=Status.PRESERVED,
        received="a",
        parts=(request,),
        payload_id="quotes/a",
        families=("quotes",),
    )
    by_client = Observation(
        sent="b",
        status=Status.REJECTED,
        client_side=True,
        payload_id="quotes/b",
        families=("quotes",),
    )
    by_server = Observation(
        sent="c", status=Status.REJECTED, payload_id="quotes/c", families=("quotes",)
    )
    found = [(e.payload_id, e.direction, e.status) for e in entries([split, by_client, by_server])]
    assert found == [
        ("quotes/a", RT, Status.PRESERVED),
        ("quotes/a", Direction.REQUEST, Status.PRESERVED),
        ("quotes/b", RT, Status.REJECTED),
        ("quotes/b", Direction.REQUEST, Status.REJECTED),
        ("quotes/c", RT, Status.REJECTED),
    ]
