"""What a run's observations say beyond the map: the rules a CI gate relies on.

A run that measured nothing must not pass. :func:`judge` reads the observations of a
finished run and returns a :class:`Verdict`:

- no payload sent to the target arrived and came back (none ``preserved`` or
  ``transformed``): a failure (exit 3) that says nothing was measured and quotes the
  most common error;
- the client library could not parse the target's reply (``broken``, error type
  ``UnparsableReply``) for more than half of the payloads sent: a failure, a protocol
  failure of the chain; for fewer, a warning;
- more than half of the payloads sent were rejected by the target: a warning with the
  most common error in full (its first line);
- every value that arrived differs from what was sent by the same prefix and/or suffix:
  a warning with the ``--read`` that removes it;
- more than half of the values that came back are one and the same text, for at least
  three different payloads: a warning that the read-back may read one stale entry
  rather than each payload's own (its kinds then describe two unrelated texts).

Refusals in the client library before anything was sent (``client_side``) count toward
none of these: the target never saw those payloads.

A run over many parameters (``--all-tools``) is judged per parameter as above, then as a
whole by :func:`unmeasured`: any parameter it set out to survey that measured nothing
(no read-back found, arguments that could not be made, every payload lost or rejected)
fails the run (exit 3, the results kept); a parameter the user left out is not counted.

The exit code of a run that found something and could not measure something else is
:func:`exit_rule`'s, the one rule of every output (the terminal, the JUnit file, the
JSON result, the Python API): 1 when any finding beyond ``--allow`` exists (a rewrite,
a payload ``lost``, an edit that never applied), even if other parameters measured
nothing; 3 only when nothing was found and something could not be measured; 0 when
everything was measured and nothing is beyond ``--allow``.

A payload ``rejected`` with ``silent`` set (an edit that answered without an error flag
and did not apply: see ``--expect``) is a finding like a rewrite beyond ``--allow``: a
run that saw one exits 1 (:func:`not_applied`). ``--allow`` names rewrite kinds and
accepts none of these: an agent cannot see such a failure, so no run passes with one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from fidelity._core.kinds import Status
from fidelity._core.render import safe
from fidelity._probe.failures import FailureKind
from fidelity._probe.observation import Observation
from fidelity._report.card_records import CardObservation
from fidelity._run.messages import one_line

__all__ = [
    "REPLY_TOO_LARGE",
    "UNPARSABLE",
    "Verdict",
    "broke",
    "common_error",
    "error_of",
    "exit_rule",
    "judge",
    "measured_counts",
    "not_applied",
    "recorded",
    "unmeasured",
    "wrapped",
]

#: The error type of an observation whose reply the client library could not parse.
UNPARSABLE = FailureKind.UNPARSABLE.value
#: The error type of an observation whose reply was longer than ``--max-reply``.
REPLY_TOO_LARGE = FailureKind.REPLY_TOO_LARGE.value
#: A quoted error: its first line, at most this many characters.
_ERROR_CHARS = 200
_ARRIVED = (Status.PRESERVED, Status.TRANSFORMED)
#: The value inside an error is replaced by this when grouping errors, if it is at
#: least this long (a shorter one could be any part of the message).
_PAYLOAD = "<payload>"
_MIN_QUOTED = 4
#: Different payloads that must have come back as one text before it is suspected.
_SAME_PAYLOADS = 3
#: Parameters named in the sentence of a run over many; the others are counted.
_NAMED = 6


@dataclass(frozen=True, slots=True, kw_only=True)
class Verdict:
    """``failure``: one sentence when the run must exit 3 (else ``""``), and whether it
    is a failure of the chain's protocol (``protocol``; otherwise nothing was measured);
    ``warnings``: one sentence each, printed and recorded in the result."""

    failure: str = ""
    protocol: bool = False
    warnings: tuple[str, ...] = ()


def broke(observations: Sequence[Observation], *, through: str = "") -> str:
    """``N of M payloads broke the chain (first: REASON)`` when any payload broke the
    chain on its way (``through`` a client, if named), else ``""``. A reply the client
    library could not parse is not counted here (:func:`judge` weighs those), nor a
    value the client refused before sending."""
    broken = [
        o
        for o in observations
        if o.status is Status.BROKEN and not o.client_side and o.error_type != UNPARSABLE
    ]
    if not broken:
        return ""
    first = broken[0]
    reason = one_line(safe(first.error or first.error_type or "no detail")).rstrip(". ")
    where = f" through {through}" if through else ""
    return f"{len(broken)} of {len(observations)} payloads broke the chain{where} (first: {reason})"


def _first_line(observation: Observation) -> str:
    message = observation.error or observation.error_type or observation.status.value
    if observation.error_type and observation.error and observation.error_type not in message:
        message = f"{observation.error_type}: {message}"
    if len(observation.sent) >= _MIN_QUOTED:
        # An error that quotes the value (``Invalid reference 'refs/heads/X'``) is the
        # same error for every value, as written or escaped (Python's repr, JSON).
        for quoted in _quoted_forms(observation.sent):
            message = message.replace(quoted, _PAYLOAD)
    first = next((line.strip() for line in message.splitlines() if line.strip()), "")
    first = safe(first)
    return first if len(first) <= _ERROR_CHARS else first[: _ERROR_CHARS - 3].rstrip() + "..."


def _quoted_forms(sent: str) -> tuple[str, ...]:
    """``sent`` as an error message may quote it: as it is, then escaped the ways
    servers escape it (Python's ``repr`` and ``unicode_escape``, a JSON string), the
    longest first."""
    import json

    forms = {
        sent,
        repr(sent)[1:-1],
        sent.encode("unicode_escape").decode("ascii"),
        json.dumps(sent)[1:-1],
        json.dumps(sent, ensure_ascii=False)[1:-1],
    }
    return tuple(sorted(forms, key=lambda f: (-len(f), f)))


def common_error(observations: Sequence[Observation]) -> tuple[str, int]:
    """The most common first line of the errors of ``observations`` (the first seen
    on a tie; the payload inside it written ``<payload>``), terminal-safe and bounded,
    and how many times it occurred."""
    counts = Counter(_first_line(o) for o in observations)
    if not counts:
        return "", 0
    line, count = counts.most_common(1)[0]
    return line, count


def wrapped(observations: Sequence[Observation]) -> tuple[str, str] | None:
    """The prefix and suffix every arrived value carries around the value sent, when
    all of them carry the same ones (not both empty); else ``None``."""
    arrived = [o for o in observations if o.status in _ARRIVED]
    if not arrived or any(o.status is Status.PRESERVED for o in arrived):
        return None
    candidates: set[tuple[str, str]] | None = None
    for obs in arrived:
        received, sent = obs.received, obs.sent
        if not isinstance(received, str) or len(received) <= len(sent):
            return None
        extra = len(received) - len(sent)
        here = {
            (received[:k], received[len(received) - (extra - k) :])
            for k in range(extra + 1)
            if received[k : len(received) - (extra - k)] == sent
        }
        candidates = here if candidates is None else candidates & here
        if not candidates:
            return None
    assert candidates
    return max(candidates, key=lambda pair: (len(pair[0]), pair))


def _counts(observations: Sequence[Observation]) -> str:
    tally = Counter(o.status for o in observations)
    return ", ".join(f"{tally[s]} {s.value}" for s in Status if tally[s])


def judge(observations: Sequence[Observation], *, read: str | None, read_found: bool) -> Verdict:
    """The verdict on a finished run (see the module). ``read`` is the read-back as the
    user gave it (``None`` when it was located, then ``read_found``), for the advice
    on a common prefix or suffix."""
    sent = [o for o in observations if not o.client_side]
    if not sent:
        return Verdict()
    arrived = [o for o in sent if o.status in _ARRIVED]
    unparsable = [o for o in sent if o.error_type == UNPARSABLE]
    rejected = [o for o in sent if o.status is Status.REJECTED]
    warnings: list[str] = []
    failure = ""
    protocol = False
    if unparsable:
        error, _ = common_error(unparsable)
        what = (
            f"the target's reply to {len(unparsable)} of the {len(sent)} payloads sent could "
            f"not be parsed (a protocol failure of the chain, counted as broken; the most "
            f"common error: {error})"
        )
        if 2 * len(unparsable) > len(sent):
            failure, protocol = what[0].upper() + what[1:] + ".", True
        else:
            warnings.append(what + ".")
    if not arrived and not failure:
        error, count = common_error([o for o in sent if o.status not in _ARRIVED])
        failure = (
            f"nothing was measured: none of the {len(sent)} payloads sent to the target "
            f"came back ({_counts(sent)}); the most common error ({count} of {len(sent)}): "
            f"{error}"
        )
        failure = failure.rstrip(".") + "."
    if arrived and 2 * len(rejected) > len(sent):
        error, count = common_error(rejected)
        warnings.append(
            f"{len(rejected)} of the {len(sent)} payloads sent were rejected by the target; "
            f"the most common error ({count} of {len(rejected)}): {error}"
        )
    around = wrapped(sent)
    if around is not None:
        warnings.append(_wrapped_advice(*around, read=read, read_found=read_found))
    same = _same_value(arrived)
    if same:
        warnings.append(same)
    return Verdict(failure=failure, protocol=protocol, warnings=tuple(warnings))


def _same_value(arrived: Sequence[Observation]) -> str:
    """The warning when most values that came back are one text read for different
    payloads (``""`` otherwise)."""
    counts = Counter(
        o.received
        for o in arrived
        if o.status is Status.TRANSFORMED and isinstance(o.received, str)
    )
    if not counts:
        return ""
    received, count = counts.most_common(1)[0]
    value = str(received)
    payloads = {o.sent for o in arrived if o.received == value}
    if len(payloads) < _SAME_PAYLOADS or 2 * count <= len(arrived):
        return ""
    shown = safe(value if len(value) <= 40 else value[:37] + "...")
    return (
        f"{count} of the {len(arrived)} values that came back are the same text {shown!r}, "
        "for different payloads: the read-back may read one stale entry (a list that keeps "
        "old values, a fixed name) rather than each payload's own, and the kinds then "
        "compare unrelated texts; check where the value is read."
    )


def _wrapped_advice(prefix: str, suffix: str, *, read: str | None, read_found: bool) -> str:
    import shlex

    from probes._payload.locate import regex_literal

    if prefix and suffix:
        what = f"between the same prefix {safe(prefix)!r} and suffix {safe(suffix)!r}"
    elif prefix:
        what = f"after the same prefix {safe(prefix)!r}"
    else:
        what = f"followed by the same suffix {safe(suffix)!r}"
    pattern = rf"(?s)\A{regex_literal(prefix)}(.*){regex_literal(suffix)}\Z"
    option = f"--read {shlex.quote('regex:' + pattern)}"
    if read in ("text", "body"):
        return (
            f"every value came back {what}: {option} reads the value alone (or leave --read "
            "out to locate the read-back automatically)."
        )
    # A pattern over the raw text would not read a field of a document (a JSON value, a
    # structured field): no --read is suggested that was not tried on these replies.
    where = "the located read-back" if read_found else f"--read {safe(read or '')}"
    return (
        f"every value came back {what}, at {where}: the target adds it to every value "
        "(counted as a rewrite); name a --read that gives the value alone, if the target "
        "has one, or leave --read out to locate it."
    )


def recorded(observations: Sequence[CardObservation]) -> tuple[Observation, ...]:
    """The observations of a card's records, as much as the verdict reads of them
    (statuses, values, errors, client side), so a result file is judged by the same
    rules as the run that wrote it."""
    return tuple(
        Observation(
            sent=str(o.sent.value()),
            status=Status(o.status),
            received=None if o.received is None else o.received.value(),
            error_type=o.error_type,
            error=o.error,
            client_side=o.client_side,
            payload_id=o.payload_id,
            families=o.families,
        )
        for o in observations
    )


def error_of(observations: Sequence[CardObservation], *, complete: bool = True) -> str:
    """The sentence that makes a recorded run an error (``""`` when none): it did not
    complete, payloads broke the chain, or the verdict failed (nothing measured, a
    protocol failure). The same for a run and for the result file it wrote."""
    if not complete:
        return "the run did not complete; the result holds what it saw"
    seen = recorded(observations)
    if not seen:
        return "nothing was measured: no payload was sent"
    broken = broke(seen)
    if broken:
        return broken
    return judge(seen, read="", read_found=False).failure


def unmeasured(names: Sequence[str], *, surveyed: int, noun: str = "tool parameter") -> str:
    """The failure of a run over ``surveyed`` parameters when those ``names`` measured
    nothing (``""`` when none did): one sentence, naming them, for exit 3 (``noun``
    names a row: ``tool parameter``, ``operation field``)."""
    if not names:
        return ""
    shown = ", ".join(safe(n) for n in names[:_NAMED])
    if len(names) > _NAMED:
        shown += f" and {len(names) - _NAMED} more"
    return (
        f"{len(names)} of the {surveyed} {noun}s surveyed measured nothing ({shown}); "
        "the lines above say why, and the results of the others are kept."
    )


def measured_counts(measured: int, unmeasured_count: int, noun: str = "parameter") -> str:
    """``N parameters measured, M measured nothing`` for a run's summary line (``noun``
    names a row: ``parameter``, ``field``)."""
    line = f"{measured} {noun}{'s' if measured != 1 else ''} measured"
    if unmeasured_count:
        line += f", {unmeasured_count} measured nothing"
    return line


def not_applied(observations: Sequence[Observation]) -> int:
    """How many payloads were silently not applied (``rejected`` with ``silent``): each
    makes the run exit 1, as a rewrite beyond ``--allow`` does."""
    return sum(1 for o in observations if o.silent and o.status is Status.REJECTED)


def exit_rule(*, findings: bool, unmeasured: bool) -> int:
    """The exit code of a finished run (see the module): ``findings`` when any rewrite
    beyond ``--allow``, payload lost or edit that never applied was seen,
    ``unmeasured`` when something the run set out to measure could not be (a target
    that broke, a parameter that measured nothing). A finding outranks what could not
    be measured: a CI gate that sees 1 knows the target rewrites, not that it was
    unreachable."""
    if findings:
        return 1
    return 3 if unmeasured else 0
