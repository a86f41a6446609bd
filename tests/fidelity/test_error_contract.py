"""The error contract's rules, one at a time: the malformed calls a schema gives, the
verdict of an answer, the excerpt's masking, the card section read back, the drift,
and the verdict ids the docs list. (The whole run against a server is
tests/cli/test_cli_probe_errors.py.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fidelity._report.errors import (
    ERROR_VERDICTS,
    ErrorCall,
    ErrorContract,
    Verdict,
    contract_drift,
)
from fidelity._report.errors_render import contract_markdown, verdicts_from_markdown
from fidelity._sweep.errors_cases import error_cases, unknown_tool_case
from fidelity._sweep.errors_verdict import excerpt, judge, leak
from probes.frontend import RawAnswer, RawOutcome

ROOT = Path(__file__).resolve().parent.parent.parent

SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "minLength": 3},
        "mode": {"type": "string", "enum": ["r", "w"]},
        "n": {"type": "integer", "minimum": 5},
        "tag": {"type": ["string", "null"], "maxLength": 4, "pattern": "^[a-z]+$"},
        "flag": {"type": "boolean"},
    },
    "required": ["path", "n"],
}


def test_the_cases_of_a_schema_in_their_documented_order() -> None:
    cases = error_cases("t", SCHEMA)
    assert [(c.case, dict(c.arguments)) for c in cases] == [
        ("missing:path", {"n": 6}),
        ("missing:n", {"path": "fidelity"}),
        ("type:path", {"path": 12345, "n": 6}),
        ("type:mode", {"path": "fidelity", "n": 6, "mode": 12345}),
        ("type:tag", {"path": "fidelity", "n": 6, "tag": 12345}),
        ("extra", {"path": "fidelity", "n": 6, "fidelity_unexpected_argument": "fidelity"}),
        ("minLength:path", {"path": "xx", "n": 6}),
        ("enum:mode", {"path": "fidelity", "n": 6, "mode": "fidelity-not-an-option"}),
        ("maxLength:tag", {"path": "fidelity", "n": 6, "tag": "xxxxx"}),
        ("pattern:tag", {"path": "fidelity", "n": 6, "tag": ""}),
        ("empty", {}),
    ]
    assert cases[-1].names == ("path", "n")


def test_pins_replace_the_made_values_and_no_required_argument_means_no_empty_case() -> None:
    cases = error_cases("t", SCHEMA, {"path": "/srv/x"})
    assert dict(cases[1].arguments) == {"path": "/srv/x"}
    free = {"type": "object", "properties": {"q": {"type": "string"}}}
    assert [c.case for c in error_cases("f", free)] == ["type:q", "extra"]


def test_the_unknown_tool_is_never_one_the_server_lists() -> None:
    assert unknown_tool_case(["a"]).tool == "fidelity-no-such-tool"
    taken = ["fidelity-no-such-tool", "fidelity-no-such-tool-2"]
    assert unknown_tool_case(taken).tool == "fidelity-no-such-tool-3"


TRACE = 'Traceback (most recent call last):\n  File "x.py", line 1'


def _case(case: str = "missing:path") -> object:
    return next(c for c in error_cases("t", SCHEMA) if c.case == case)


def _refused(text: str, *, data: str = "", rpc: bool = False) -> RawAnswer:
    if rpc:
        return RawAnswer(
            outcome=RawOutcome.RPC_ERROR, code=-32602, text=text, data=data, length=len(text)
        )
    return RawAnswer(outcome=RawOutcome.RESULT, is_error=True, text=text, length=len(text))


@pytest.mark.parametrize(
    ("answer", "case", "verdict"),
    [
        (_refused("missing required argument 'path'"), "missing:path", Verdict.STRUCTURED),
        (_refused("Field required"), "missing:path", Verdict.STRUCTURED),
        (_refused("expected number, received undefined at n"), "missing:n", Verdict.STRUCTURED),
        (_refused("something is off with n"), "missing:n", Verdict.UNNAMED),
        (_refused("argument `n` is needed"), "missing:n", Verdict.STRUCTURED),
        (_refused("Something went wrong."), "missing:path", Verdict.UNNAMED),
        (_refused("Unexpected error"), "extra", Verdict.UNNAMED),
        (_refused("unexpected argument given"), "extra", Verdict.STRUCTURED),
        (_refused("must be one of r, w"), "enum:mode", Verdict.STRUCTURED),
        (_refused("too short"), "minLength:path", Verdict.STRUCTURED),
        (_refused("does not match ^[a-z]+$"), "pattern:tag", Verdict.STRUCTURED),
        (_refused("Internal error", rpc=True), "missing:path", Verdict.STRUCTURED),
        (_refused("bad", data=TRACE, rpc=True), "missing:path", Verdict.LEAKY),
        (_refused("path: " + "x" * 1995), "missing:path", Verdict.LEAKY),
        (_refused("path: " + "x" * 1994), "missing:path", Verdict.STRUCTURED),
        (_refused("KeyError: 'path'"), "missing:path", Verdict.LEAKY),
        (_refused("failed: KeyError('path')"), "missing:path", Verdict.LEAKY),
        (_refused("raises a KeyError when path is missing"), "missing:path", Verdict.STRUCTURED),
        (_refused("TypeError: Cannot read properties of undefined (reading 'path')"),
         "missing:path", Verdict.LEAKY),
        (_refused("Error: missing path"), "missing:path", Verdict.STRUCTURED),
        (_refused("    at Object.run (/app/dist/index.js:10:5)\npath"), "missing:path",
         Verdict.LEAKY),
        (_refused("path missing, see server.py:42"), "missing:path", Verdict.LEAKY),
        (_refused("path missing in C:\\srv\\app"), "missing:path", Verdict.LEAKY),
        (_refused("path missing; see https://errors.example.dev/2.11/v/missing"),
         "missing:path", Verdict.STRUCTURED),
        (RawAnswer(outcome=RawOutcome.RESULT, text="Error: path is required"), "missing:path",
         Verdict.ACCEPTED),
        (RawAnswer(outcome=RawOutcome.CRASHED), "missing:path", Verdict.CRASHED),
        (RawAnswer(outcome=RawOutcome.FAILED), "missing:path", Verdict.CRASHED),
        (RawAnswer(outcome=RawOutcome.TIMEOUT), "missing:path", Verdict.TIMEOUT),
        (RawAnswer(outcome=RawOutcome.TOO_LARGE), "missing:path", Verdict.LEAKY),
    ],
)  # fmt: skip
def test_one_verdict_per_answer(answer: RawAnswer, case: str, verdict: Verdict) -> None:
    assert judge(answer, _case(case))[0] is verdict  # type: ignore[arg-type]


def test_the_length_counted_is_the_whole_answers() -> None:
    cut = RawAnswer(outcome=RawOutcome.RESULT, is_error=True, text="path missing", length=70000)
    assert judge(cut, _case())[1] == "refused with more than 2,000 characters (70,000)"  # type: ignore[arg-type]
    assert leak("/usr/lib/python3/x") == "a file path"
    assert leak("a/b and /c") == ""
    # A JSON pointer is not a file path; a path under a system root, or to a file, is.
    assert leak('"instancePath": "/items/0/name"') == ""
    assert leak("cannot open /x/y/config.json") == "a file path"
    # A path the call sent, echoed back, is the caller's: not a leak.
    assert leak("no repo at '/srv/r/x'", sent={"repo": "/srv/r/x"}) == ""
    assert leak("no repo at '/srv/r/x' (root /srv/r)", sent={"repo": "/srv/r/x"}) == "a file path"


def test_the_excerpt_is_masked_flat_bounded_and_terminal_safe() -> None:
    text = 'bad\n\ttoken=abcdef123 "API_KEY": "k-98765" Bearer zzzzzz s3cr3t-value \x1b[2J'
    shown = excerpt(text + "x" * 1000, secrets=("s3cr3t-value",))
    assert shown.startswith('bad token=*** "API_KEY": "***" Bearer *** *** [U+001B')
    # 300 characters of the answer (297 and "..."), the ESC shown as its 15-character badge.
    assert len(shown) == 300 - 1 + len("[U+001B ESCAPE]")
    assert shown.endswith("x...")


def test_the_card_section_reads_back_and_drift_is_named() -> None:
    calls = (
        ErrorCall(tool="a|b", case="extra", verdict=Verdict.ACCEPTED, excerpt="ok | fine"),
        ErrorCall(tool="a|b", case="missing:x", verdict=Verdict.STRUCTURED, excerpt="x"),
        ErrorCall(tool="c", case="empty", verdict=Verdict.LEAKY, excerpt=""),
    )
    contract = ErrorContract(name="errors", target="t", calls=calls)
    text = contract_markdown(contract)
    assert verdicts_from_markdown(text) == (
        ("a|b", "extra", "accepted"),
        ("a|b", "missing:x", "structured"),
        ("c", "empty", "leaky"),
    )
    assert verdicts_from_markdown("## Parameter transformations\n") is None
    assert contract_drift(
        [("a", "extra", "accepted"), ("a", "empty", "structured")],
        [("a", "extra", "structured"), ("b", "empty", "leaky")],
    ) == (
        "a extra: structured in the card, accepted now",
        "a empty: structured (not in the card)",
        "b empty: leaky in the card, not called now",
    )


def test_the_verdict_ids_are_the_docs_and_are_not_kinds() -> None:
    import fidelity

    page = (ROOT / "docs" / "kinds.md").read_text(encoding="utf-8")
    section = page.split("## Error-contract verdicts", 1)[1]
    assert re.findall(r"^\| `(error\.\w+)` \|", section, re.M) == list(ERROR_VERDICTS)
    assert not set(ERROR_VERDICTS) & set(fidelity.KINDS)
