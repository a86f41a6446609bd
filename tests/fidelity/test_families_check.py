"""One check of hazard family ids, the same at every entry point.

``fidelity._core.kinds.check_families`` is the only validator: the library, the
strategies, both CLI commands and the plugin option give the same answer (families in
specification order, duplicates dropped) and the same sentence for a bad selection.
"""

from __future__ import annotations

import pytest
from _support.cli import fidelity_inprocess as command

import fidelity
import strategies
from fidelity import FAMILIES, Payload, UsageError
from fidelity._core.kinds import check_families, families_from_text

TAIL = "names unknown family id(s) 'emoji'; valid families are: " + ", ".join(FAMILIES) + "."
PAYLOADS = (Payload(id="quotes/x", text="\u201cx\u201d", families=("quotes",)),)


def test_specification_order_and_no_duplicates() -> None:
    assert check_families(["astral", "quotes", "astral"]) == ("quotes", "astral")
    assert families_from_text("astral, quotes astral", option="--families") == (
        "quotes",
        "astral",
    )
    assert next(iter(strategies.catalogue(["astral", "quotes"]))).families == ("quotes",)


@pytest.mark.parametrize("bad", ["quotes", [], ["quotes", "emoji"], 3])
def test_the_library_and_the_strategies_refuse_alike(bad: object) -> None:
    with pytest.raises(UsageError) as from_survey:
        fidelity.survey(str, PAYLOADS, families=bad)  # type: ignore[arg-type]
    with pytest.raises(strategies.InvalidArgument) as from_catalogue:
        strategies.catalogue(bad)  # type: ignore[arg-type]
    assert str(from_survey.value) == str(from_catalogue.value)
    assert str(from_survey.value).endswith("valid families are: " + ", ".join(FAMILIES) + ".")


def test_every_command_line_says_the_same_sentence() -> None:
    probe = command("probe", "http://127.0.0.1:9/", "--families", "quotes,emoji")
    survey = command("survey", "--families", "quotes,emoji")
    assert probe.returncode == survey.returncode == 2
    assert f"--families 'quotes,emoji' {TAIL}" in probe.stderr
    assert f"--families 'quotes,emoji' {TAIL}" in survey.stderr


def test_the_plugin_option_says_it_too(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_x(): pass")
    result = pytester.runpytest_subprocess("--fidelity-families=quotes,emoji")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    # argparse's sentence, without the final full stop it adds its own way.
    assert f"argument --fidelity-families: 'quotes,emoji' {TAIL[:-1]}" in result.stderr.str()
