"""The plugin's face: options with help texts, the marker, the header, start-up cost."""

from __future__ import annotations

import subprocess
import sys

import pytest


def test_help_lists_every_option_with_its_help(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--help")
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "param-fidelity (text parameter fidelity of chains):",
            "*--fidelity-cards=DIR*write the session's contract cards to DIR*",
            "*--fidelity-check=DIR*compare the session's cards with the committed*",
            "*--fidelity-families=LIST*",
            "*comma-separated hazard families*",
            "*--fidelity-catalogue=all|none|N*",
            "*catalogue payloads per family*",
            "*--fidelity-examples=N*",
            "*Hypothesis examples added to each survey*",
            "*--fidelity-seed=N|random*",
            "*seed of the Hypothesis examples*",
        ]
    )


def test_markers_show_the_marker_with_its_signature(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--markers")
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        ["@pytest.mark.fidelity(allow=(), card=None): allow lists the kind ids*"]
    )


def test_header_shows_seed_and_settings_only_when_options_are_given(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile("def test_nothing():\n    pass\n")
    plain = pytester.runpytest()
    plain.assert_outcomes(passed=1)
    plain.stdout.no_fnmatch_line("*fidelity:*")
    plain.stdout.no_fnmatch_line("*param-fidelity =*")
    configured = pytester.runpytest(
        "--fidelity-seed=random", "--fidelity-families=quotes,newlines", "--fidelity-catalogue=2"
    )
    configured.assert_outcomes(passed=1)
    header = [line for line in configured.outlines if line.startswith("fidelity: ")]
    assert len(header) == 1
    seed, settings = header[0].removeprefix("fidelity: seed=").split(", ", 1)
    assert seed.isdigit()
    assert settings == "families=quotes,newlines, catalogue=2 per family, examples=0"
    # Nothing was recorded: no summary section.
    configured.stdout.no_fnmatch_line("*param-fidelity =*")


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (
            "--fidelity-families=quotes,smart",
            "*argument --fidelity-families: 'quotes,smart' names unknown family id(s) 'smart'; "
            "valid families are: quotes,*",
        ),
        ("--fidelity-examples=-1", "*'-1' is not a whole number >= 0*"),
        ("--fidelity-catalogue=some", "*'some' is not 'all', 'none' or a number*"),
        ("--fidelity-seed=x", "*'x' is not an integer or 'random'*"),
    ],
)
def test_bad_option_values_are_usage_errors(
    pytester: pytest.Pytester, option: str, message: str
) -> None:
    result = pytester.runpytest(option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert "Traceback" not in result.stderr.str()


def test_loading_the_plugin_imports_nothing_heavy() -> None:
    code = (
        "import sys, fidelity._pytest.plugin\n"
        "heavy = ('hypothesis', 'httpx', 'mcp', 'strategies', 'probes',\n"
        "         'fidelity._survey.run', 'fidelity._report.card', 'fidelity._pytest.recorder',\n"
        "         'fidelity._pytest.report', 'fidelity._report.drift', 'fidelity._pytest.notes',\n"
        "         'fidelity._pytest.shadowing',\n"
        "         'starlette', 'uvicorn', 'anyio', 'yaml')\n"
        "print(' '.join(sorted(m for m in heavy if m in sys.modules)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == ""
