"""The ``fidelity`` fixture's ``check()``: failures name the rewrite; the marker allows it."""

from __future__ import annotations

import subprocess
import sys

import pytest
from _support.stdlib import keyword_error_suggests
from _support.terminal import assert_terminal_safe as assert_safe_text

#: A Hypothesis test of ``tool.send`` over short texts that may hold U+201C.
HYPOTHESIS_EDIT = """
        from hypothesis import given, settings, strategies as st
        import tool

        @settings(database=None, max_examples=20)
        @given(st.text(alphabet="ab\\u201c", max_size=5))
        def test_edit(fidelity, text):
            fidelity.check(tool.send, text)
        """


def assert_terminal_safe(result: pytest.RunResult) -> None:
    """No raw control, bidi, invisible or odd-space character reached the output lines.

    pytester splits the output with ``str.splitlines``, which swallows raw line
    separators (U+0085, U+2028...): a test about hostile separators reads the raw
    output instead (:func:`run_raw`).
    """
    assert_safe_text("\n".join(result.outlines + result.errlines))


def run_raw(pytester: pytest.Pytester, *args: str) -> tuple[int, str]:
    """Run pytest on ``pytester``'s files in a subprocess; its exit code and its raw
    output (stdout then stderr), decoded without splitting lines."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--color=no", *args],
        cwd=pytester.path,
        capture_output=True,
        timeout=120,
        check=False,
    )
    output = done.stdout + done.stderr
    return done.returncode, output.decode("utf-8", "surrogateescape")


def test_straightened_quotes_fail_with_the_classified_diff(tool_repo: pytest.Pytester) -> None:
    tool_repo.makepyfile(
        test_tool="""
        import tool

        def test_edit(fidelity):
            fidelity.check(tool.send, "say \\u201chi\\u201d")
        """
    )
    result = tool_repo.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*FidelityError: the chain send rewrote the value: quote.straighten (not allowed)",
            "*payload: say “hi”*",
            '*received: say "hi"*',
            "*U+201C*LEFT DOUBLE QUOTATION MARK*",
            "*hint: quote.straighten: a layer normalises typographic quotes to ASCII; compare "
            "both sides normalised, or stop normalising.",
            '*@pytest.mark.fidelity(allow=[[]"quote.straighten"[]])*',
        ]
    )
    # The failure comes from the test, not from the plugin's own frames.
    result.stdout.no_fnmatch_line("*fidelity/_*")
    assert_terminal_safe(result)


def test_allowed_rewrites_pass_and_are_summarised(tool_repo: pytest.Pytester) -> None:
    tool_repo.makepyfile(
        test_tool="""
        import pytest
        import tool

        @pytest.mark.fidelity(allow=["quote.straighten"])
        def test_edit(fidelity):
            observation = fidelity.check(tool.send, "say \\u201chi\\u201d")
            assert observation.kinds == {"quote.straighten"}

        def test_plain(fidelity):
            fidelity.check(tool.send, "plain ascii")
        """
    )
    result = tool_repo.runpytest()
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            "*= param-fidelity =*",
            "chains and rewrites found:",
            "  send [check in test_tool.py::test_edit]: quote.straighten (allowed)",
        ]
    )
    result.stdout.no_fnmatch_line("*test_plain*")


def test_the_hop_that_changed_the_value_is_named(tool_repo: pytest.Pytester) -> None:
    tool_repo.makepyfile(
        test_tool="""
        import fidelity._core.siblings
        import tool

        probes = fidelity._core.siblings.load("probes")

        def test_chain(fidelity):
            chain = probes.chain(tool.wire, tool.normalise, name="edit_file")
            fidelity.check(chain, "\\u2018quoted\\u2019")
        """
    )
    result = tool_repo.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*the chain edit_file rewrote the value: quote.straighten (not allowed)",
            "*changed by hop: normalise*",
            "*hint: quote.straighten (hop normalise): a layer normalises typographic quotes*",
        ]
    )


def test_the_hint_names_the_fix_for_the_hop(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_notes="""
        import fidelity._core.siblings

        probes = fidelity._core.siblings.load("probes")

        def test_saved_notes(fidelity):
            chain = probes.chain(probes.json(ensure_ascii=False), probes.text_file())
            fidelity.check(chain, "line one\\r\\nline two")
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*rewrote the value: newline.crlf_to_lf (not allowed)",
            "*changed by hop: text_file",
            "*hint: newline.crlf_to_lf (hop text_file): the file is read back in text mode, "
            "which turns CR and CRLF into LF; open it with `newline=''` to write and to read.",
            '*if these rewrites are accepted: *(allow=[[]"newline.crlf_to_lf"[]])',
        ]
    )


def test_refusals_fail_unless_accepted(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_refuse="""
        def refuse(text):
            raise ValueError("no curly quotes here")

        def test_refused(fidelity):
            fidelity.check(refuse, "\\u201c")

        def test_accepted(fidelity):
            observation = fidelity.check(refuse, "\\u201c", accept=["rejected"])
            assert observation.status == "rejected"

        def test_bad_accept(fidelity):
            fidelity.check(refuse, "x", accept=["refused"])
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*the chain refuse did not deliver the value: rejected",
            "*outcome: rejected (ValueError: no curly quotes here)*",
            "*accept names unknown outcome(s) 'refused'; valid outcomes are: preserved,*",
        ]
    )


def test_unknown_kind_in_allow_is_a_clear_test_error(tool_repo: pytest.Pytester) -> None:
    tool_repo.makepyfile(
        test_tool="""
        import pytest
        import tool

        @pytest.mark.fidelity(allow=["quote.straight"])
        def test_typo(fidelity):
            fidelity.check(tool.send, "x")

        @pytest.mark.fidelity(alow=["quote.straighten"])
        def test_bad_keyword():
            pass

        @pytest.mark.fidelity(allow="quote.straighten")
        def test_string_not_list():
            pass

        def test_others_still_run(fidelity):
            fidelity.check(tool.send, "x")
        """
    )
    result = tool_repo.runpytest()
    result.assert_outcomes(passed=1, errors=3)
    result.stdout.fnmatch_lines(
        [
            "@pytest.mark.fidelity: allow names unknown kind id(s) 'quote.straight'; "
            "valid kinds are: quote.straighten, quote.educate,*",
        ]
    )
    # Python 3.13 adds "Did you mean 'allow'?" to the TypeError: one stop either way.
    suggestion = " Did you mean 'allow'[?]" if keyword_error_suggests() else ""
    result.stdout.fnmatch_lines(
        [
            "@pytest.mark.fidelity takes (allow=[[]kind ids[]], card='name'): "
            f"it got an unexpected keyword argument 'alow'.{suggestion}"
        ]
    )
    assert "?." not in result.stdout.str()
    result.stdout.fnmatch_lines(
        ["@pytest.mark.fidelity: allow='quote.straighten' must be a list of kind ids*"]
    )
    result.stdout.no_fnmatch_line("*Traceback*")
    result.stdout.no_fnmatch_line("*INTERNALERROR*")


def test_hostile_payloads_stay_terminal_safe(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_hostile="""
        def strip_controls(text):
            return "".join(c for c in text if c.isprintable())

        def test_hostile(fidelity):
            fidelity.check(strip_controls, "a\\u202eb\\x1b[31mred\\u200b\\u0085end")
        """
    )
    code, output = run_raw(pytester)
    assert code == pytest.ExitCode.TESTS_FAILED, output
    lines = pytest.LineMatcher(output.split("\n"))
    lines.fnmatch_lines(["*1 failed in *"])
    # fnmatch reads "[...]" as a character class: the brackets are escaped as [[] and []].
    for name in ("U+202E RIGHT-TO-LEFT OVERRIDE", "U+001B ESCAPE", "U+0085 NEXT LINE"):
        lines.fnmatch_lines([f"*[[]{name}[]]*"])
    assert_safe_text(output)


def test_hypothesis_shows_the_shrunk_payload(tool_repo: pytest.Pytester) -> None:
    tool_repo.makepyfile(
        test_tool="""
        from hypothesis import Phase, given, settings
        import strategies
        import tool

        @settings(database=None, phases=[Phase.generate, Phase.shrink])
        @given(strategies.text())
        def test_any_text(fidelity, text):
            fidelity.check(tool.send, text)
        """
    )
    result = tool_repo.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*FidelityError: the chain send rewrote the value: quote.straighten (not allowed)",
            "*payload (as shrunk by Hypothesis): *U+20*",
            # "Falsifying example:" or, in newer Hypothesis, "Failing test case:"
            "*Fa*ing *: test_any_text(*",
        ]
    )
    assert_terminal_safe(result)


def test_hypothesis_explanations_keep_user_lines_and_drop_ours(pytester: pytest.Pytester) -> None:
    # Hypothesis's explain phase lists the lines run only by failing examples: the
    # user's branch below, and our classifier naming the rewrite (dropped: noise).
    pytester.makepyfile(
        tool="""
        def send(text):
            if "\\u201c" in text:
                return text.replace("\\u201c", '"')
            return text
        """,
        test_tool=HYPOTHESIS_EDIT,
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*payload (as shrunk by Hypothesis): “  [[]U+201C[]]",
            "*Explanation:",
            "*These lines were always and only run by failing test cases:",
            "*tool.py:3",
        ]
    )
    explanation = result.stdout.str().split("Explanation:", 1)[1].split("test_tool.py:", 1)[0]
    assert "fidelity" not in explanation
    assert "fidelity/_" not in result.stdout.str()  # no frame or line of our modules


def test_explanations_only_about_our_code_are_dropped(tool_repo: pytest.Pytester) -> None:
    tool_repo.makepyfile(test_tool=HYPOTHESIS_EDIT)
    result = tool_repo.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*Fa*ing *: test_edit(*"])
    result.stdout.no_fnmatch_line("*Explanation:*")
    result.stdout.no_fnmatch_line("*fidelity/_*")
