"""Surveys: every payload observed, grouped per family and direction, never dying."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import pytest

import fidelity
import probes
import strategies
from fidelity import Direction, Observation, Payload, Probe, Status, UsageError

PAYLOADS = (
    Payload(id="newlines/crlf-mid", text="alpha\r\nbeta", families=("newlines",)),
    Payload(id="newlines/lf-mid", text="alpha\nbeta", families=("newlines",)),
    Payload(id="newlines/cr", text="a\rb", families=("newlines",)),
    Payload(id="quotes/curly", text="“q”", families=("quotes",)),
    Payload(id="nul/mid", text="a\x00b", families=("nul", "control")),
)


def test_survey_of_a_real_chain_maps_each_family() -> None:
    seen: list[Observation] = []
    result = fidelity.survey(probes.chain(probes.text_file()), PAYLOADS, on_observation=seen.append)
    assert [o.payload_id for o in result.observations] == [p.id for p in PAYLOADS]
    assert seen == list(result.observations)
    assert result.observations[4].families == ("nul", "control")
    assert result.statuses[Status.TRANSFORMED] == 2
    assert result.statuses[Status.PRESERVED] == 3
    assert result.statuses[Status.BROKEN] == 0
    newlines = result.families["newlines"][Direction.ROUND_TRIP]
    assert newlines.outcome == "mixed"
    assert dict(newlines.statuses) == {Status.PRESERVED: 1, Status.TRANSFORMED: 2}
    assert newlines.count == 3
    assert result.families["quotes"][Direction.ROUND_TRIP].outcome == "preserved"
    # The nul payload is filed under both of its families.
    assert set(result.families) == {"quotes", "control", "nul", "newlines"}
    assert [r.family for r in result.outcomes] == ["quotes", "control", "nul", "newlines"]
    assert result.name == result.chain == "text_file"


def test_smallest_example_per_kind_and_failure() -> None:
    result = fidelity.survey(probes.chain(probes.xml_text()), PAYLOADS)
    newlines = result.families["newlines"][Direction.ROUND_TRIP]
    assert newlines.kinds == ("newline.cr_to_lf", "newline.crlf_to_lf")
    for kind in newlines.kinds:
        example = newlines.example(kind)
        assert example is not None
        showing = [o for o in result.observations if kind in o.kinds]
        smallest = min(showing, key=lambda o: (len(o.sent.encode()), o.payload_id))
        assert (example.payload_id, example.sent) == (smallest.payload_id, smallest.sent)
        assert example.received == smallest.received
    cr = newlines.example("newline.cr_to_lf")
    assert cr is not None
    assert (cr.payload_id, cr.received) == ("newlines/cr", "a\nb")
    nul = result.families["nul"][Direction.ROUND_TRIP]
    assert nul.outcome == "rejected"
    failure = nul.example("rejected")
    assert failure is not None
    assert failure.error_type == "ParseError"


def test_a_chain_that_always_raises_gives_a_card_full_of_rejected() -> None:
    def refuse(text: str) -> object:
        raise RuntimeError(f"refused {text!r}")

    result = fidelity.survey(refuse, PAYLOADS, name="refuser")
    assert result.statuses[Status.REJECTED] == len(PAYLOADS)
    card = result.card()
    assert {r.outcome for r in card.rows} == {"rejected"}
    assert "refused" in card.to_markdown()


class _Flaky(Probe):
    """A probe whose own machinery fails on one payload (not a refusal by a chain)."""

    name = "flaky"

    def observe(self, text: str) -> Observation:
        if "\r" in text:
            raise OSError("connection dropped")
        return fidelity._probe.contract.observe_value(text, text)


class _Short(Probe):
    """A probe whose batch entry point stops after two results."""

    name = "short"

    def observe(self, text: str) -> Observation:
        return fidelity._probe.contract.observe_value(text, text)

    def observe_many(self, texts: Iterable[str]) -> Iterator[Observation]:
        for _, text in zip(range(2), texts, strict=False):
            yield self.observe(text)


class _Liar(Probe):
    name = "liar"

    def observe(self, text: str) -> Observation:
        return "not an observation"  # type: ignore[return-value]


def test_a_probe_failure_breaks_one_payload_and_the_survey_goes_on() -> None:
    result = fidelity.survey(_Flaky(), PAYLOADS)
    statuses = [o.status for o in result.observations]
    assert statuses == [
        Status.BROKEN,
        Status.PRESERVED,
        Status.BROKEN,
        Status.PRESERVED,
        Status.PRESERVED,
    ]
    broken = result.observations[0]
    assert (broken.error_type, broken.error) == ("OSError", "connection dropped")
    assert broken.payload_id == "newlines/crlf-mid"


def test_missing_or_malformed_observations_are_broken() -> None:
    short = fidelity.survey(_Short(), PAYLOADS)
    assert [o.status for o in short.observations][2:] == [Status.BROKEN] * 3
    liar = fidelity.survey(_Liar(), PAYLOADS[:2])
    assert {o.status for o in liar.observations} == {Status.BROKEN}
    assert "str" in liar.observations[0].error


class _Reflector(Probe):
    """Measures the request and response paths apart, like the reflector probes."""

    name = "split"

    def observe(self, text: str) -> Observation:
        from fidelity._probe.contract import observe_value

        request = observe_value(text, text.replace("\r\n", "\n"), direction=Direction.REQUEST)
        response = observe_value(text, text, direction=Direction.RESPONSE)
        whole = observe_value(text, request.received)
        return Observation(
            sent=text,
            status=whole.status,
            received=whole.received,
            comparison=whole.comparison,
            parts=(request, response),
        )


def test_parts_give_one_row_per_direction() -> None:
    result = fidelity.survey(_Reflector(), PAYLOADS)
    rows = result.families["newlines"]
    assert list(rows) == [Direction.ROUND_TRIP, Direction.REQUEST, Direction.RESPONSE]
    assert rows[Direction.REQUEST].outcome == "mixed"
    assert rows[Direction.RESPONSE].outcome == "preserved"
    part = result.observations[0].parts[0]
    assert part.payload_id == "newlines/crlf-mid"
    card = result.card()
    assert card.row("newlines", "request") is not None
    assert card.row("newlines", Direction.RESPONSE) is not None


def test_allow_and_unexpected() -> None:
    result = fidelity.survey(str.upper, PAYLOADS[3:4], allow=["unicode.case"])
    assert result.allow == ("unicode.case",)
    assert result.unexpected == result.kinds - {"unicode.case"}
    with pytest.raises(UsageError, match="unknown kind"):
        fidelity.survey(str.upper, PAYLOADS, allow=["not.a.kind"])
    with pytest.raises(UsageError):
        fidelity.survey(str.upper, PAYLOADS, allow="unicode.case")


def test_families_filter_and_validation() -> None:
    result = fidelity.survey(str, PAYLOADS, families=["quotes"])
    assert [o.payload_id for o in result.observations] == ["quotes/curly"]
    with pytest.raises(UsageError, match="unknown family"):
        fidelity.survey(str, PAYLOADS, families=["emoji"])


@pytest.mark.parametrize(
    "kwargs",
    [{"examples": -1}, {"examples": True}, {"seed": "7"}, {"payloads": ["text"]}],
)
def test_bad_survey_arguments(kwargs: dict[str, object]) -> None:
    arguments: dict[str, object] = {"payloads": PAYLOADS, **kwargs}
    with pytest.raises(UsageError):
        fidelity.survey(str, **arguments)  # type: ignore[arg-type]
    with pytest.raises(UsageError):
        fidelity.survey(42, PAYLOADS)  # type: ignore[arg-type]


def test_default_payloads_are_the_catalogue() -> None:
    result = fidelity.survey(probes.chain(probes.json()), families=["quotes", "nul"])
    expected = strategies.catalogue(["quotes", "nul"])
    assert [o.payload_id for o in result.observations] == [p.id for p in expected]
    assert result.catalogue_size == len(expected)


def test_hypothesis_examples_are_reproducible_from_the_seed() -> None:
    chain = probes.chain(probes.csv())  # keeps line breaks: nothing new to shrink
    first = fidelity.survey(chain, payloads=(), examples=6, seed=11, families=["newlines"])
    again = fidelity.survey(chain, payloads=(), examples=6, seed=11, families=["newlines"])
    texts = [o.sent for o in first.observations]
    assert texts
    assert texts == [o.sent for o in again.observations]
    assert first.seed == 11
    assert all(o.families == ("newlines",) for o in first.observations)
    assert all("/hypothesis-" in o.payload_id for o in first.observations)


def test_an_example_showing_a_new_kind_is_shrunk() -> None:
    # The catalogue part is empty, so every kind the examples show is new.
    result = fidelity.survey(
        probes.chain(probes.text_file()), payloads=(), examples=4, seed=3, families=["newlines"]
    )
    shrunk = [o for o in result.observations if "/shrunk-" in o.payload_id]
    shown = {k for o in result.observations if "/hypothesis-" in o.payload_id for k in o.kinds}
    assert shown  # seed 3 draws CR and CRLF examples, which a text-mode file rewrites
    assert shrunk
    for obs in shrunk:
        kind = obs.payload_id.split("/shrunk-")[1]
        assert kind in obs.kinds
        longest = max(len(o.sent) for o in result.observations if kind in o.kinds)
        assert len(obs.sent) <= longest


class _Mixed(Probe):
    """Every outcome at once: split directions, rewrites, refusals and losses."""

    name = "mixed"

    def observe(self, text: str) -> Observation:
        from fidelity._probe.contract import observe_value

        if "\x00" in text:
            return Observation(sent=text, status=Status.REJECTED, error_type="E", error="nul")
        if text.startswith("“"):
            return Observation(sent=text, status=Status.LOST, error="gone")
        if "\r" in text:
            return _Reflector().observe(text)
        return observe_value(text, text.upper())


def test_the_fast_survey_summary_equals_the_reference_grouping() -> None:
    from fidelity._report.outcomes import entries as _entries
    from fidelity._report.outcomes import summarize

    result = fidelity.survey(_Mixed(), PAYLOADS + PAYLOADS[:2])
    assert result.outcomes == summarize(_entries(result.observations))
    assert {r.outcome for r in result.outcomes} >= {"mixed", "lost", "rejected"}
    assert result.kinds == {k for o in result.observations for p in (o, *o.parts) for k in p.kinds}
    assert sum(result.statuses.values()) == len(result.observations)
    assert result.catalogue_size == len(PAYLOADS)


def test_a_callable_that_exits_does_not_end_the_survey() -> None:
    import sys

    def exits(text: str) -> object:
        sys.exit(2)

    chained = fidelity.survey(probes.chain(exits), PAYLOADS)
    assert {o.status for o in chained.observations} == {Status.REJECTED}
    assert chained.observations[0].error_type == "SystemExit"
    wrapped = fidelity.survey(exits, PAYLOADS)
    assert len(wrapped.observations) == len(PAYLOADS)
    assert {o.error_type for o in wrapped.observations} == {"SystemExit"}


def test_odd_callables_get_stable_names_without_addresses() -> None:
    import functools

    class Upper:
        def __call__(self, text: str) -> str:
            return text.upper()

    def generate(text: str) -> Iterator[str]:
        yield text

    def swap(text: str, old: str, new: str) -> str:
        return text.replace(old, new)

    partial = functools.partial(swap, old="“", new='"')
    named = ((Upper(), "Upper"), (partial, "partial(swap)"), (str.upper, "str.upper"))
    for fn, name in named:
        assert fidelity.survey(fn, PAYLOADS[3:4]).chain == name
        assert probes.function(fn).name == name
    assert probes.chain(Upper(), lambda t: t).name == "Upper -> hop2"
    card = fidelity.survey(generate, PAYLOADS[3:4]).card()
    assert "0x" not in card.to_json()
    assert card.observations[0].received is not None
    assert card.observations[0].received.data.startswith("<generator object ")


def test_shrinking_stops_at_its_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    from fidelity._survey import run as _survey

    monkeypatch.setattr(_survey, "SHRINK_SECONDS", 0.0)
    result = fidelity.survey(
        probes.chain(probes.text_file()), payloads=(), examples=4, seed=3, families=["newlines"]
    )
    assert any(o.kinds for o in result.observations)  # there was something to shrink
    assert not [o for o in result.observations if "/shrunk-" in o.payload_id]
