"""The public names are pinned; importing the core stays light."""

from __future__ import annotations

import subprocess
import sys

import pytest

import fidelity
import probes

FIDELITY_ALL = {
    "FAMILIES",
    "KINDS",
    "Card",
    "Comparison",
    "Direction",
    "ExitCode",
    "FamilyOutcome",
    "FidelityError",
    "Hint",
    "Hop",
    "Kind",
    "Observation",
    "Payload",
    "Probe",
    "Status",
    "Survey",
    "Sweep",
    "SweepRow",
    "TargetError",
    "Transformation",
    "UsageError",
    "__version__",
    "assert_faithful",
    "compare",
    "safe",
    "survey",
    "surveys_to_html",
    "sweep",
}

PROBES_ALL = {
    "BuiltinTarget",
    "DestructiveToolRefused",
    "ChainHop",
    "ChainProbe",
    "HttpProbe",
    "HttpReflector",
    "McpProbe",
    "McpReflector",
    "McpTool",
    "argv",
    "builtin_hops",
    "chain",
    "csv",
    "email_header",
    "env",
    "form",
    "function",
    "hop",
    "http",
    "http_reflector",
    "json",
    "mcp",
    "mcp_module",
    "mcp_reflector",
    "pipe",
    "query",
    "text_file",
    "toml",
    "xml_attr",
    "xml_text",
    "yaml",
}


def test_fidelity_all_is_pinned() -> None:
    assert set(fidelity.__all__) == FIDELITY_ALL
    assert len(fidelity.__all__) == len(FIDELITY_ALL)


def test_every_fidelity_name_resolves_and_is_documented() -> None:
    for name in fidelity.__all__:
        value = getattr(fidelity, name)
        if callable(value) and not isinstance(value, type(fidelity)):
            assert (value.__doc__ or "").strip(), f"fidelity.{name} has no docstring"


def test_probes_all_is_pinned() -> None:
    assert set(probes.__all__) == PROBES_ALL


def test_every_probes_name_resolves() -> None:
    for name in probes.__all__:
        value = getattr(probes, name)
        assert (value.__doc__ or "").strip(), f"probes.{name} has no docstring"


@pytest.mark.parametrize("module", [fidelity, probes])
def test_unknown_attribute_is_an_attribute_error(module: object) -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        module.no_such_name  # type: ignore[attr-defined]  # noqa: B018


def _modules_after(statement: str) -> set[str]:
    code = f"{statement}\nimport sys\nprint('\\n'.join(sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    return set(out.split())


HEAVY = {
    "hypothesis",
    "httpx",
    "mcp",
    "strategies",
    "probes._http.probe",
    "probes._mcp.probe",
    "yaml",
}


def test_import_fidelity_is_light() -> None:
    loaded = _modules_after("import fidelity; fidelity.compare('a', 'b')")
    assert not (HEAVY & loaded), sorted(HEAVY & loaded)


def test_import_probes_is_light() -> None:
    loaded = _modules_after("import probes")
    assert not (HEAVY & loaded), sorted(HEAVY & loaded)


def test_exit_codes_are_one_int_enum() -> None:
    # Every exit of the command goes through ExitCode (as pytest's ExitCode).
    from fidelity import ExitCode

    assert [(c.name, int(c)) for c in ExitCode] == [
        ("OK", 0), ("DIFFERENT", 1), ("USAGE", 2), ("TARGET", 3), ("INTERNAL", 4),
        ("INTERRUPTED", 130),
    ]  # fmt: skip
    assert ExitCode.__module__ == "fidelity"
    assert ExitCode.for_signal(15) == 143


def test_failure_kinds_name_the_probes_exceptions() -> None:
    # The run's rules read these names; the probes' exceptions must bear them.
    from fidelity._probe.failures import FailureKind
    from probes._mcp.failures import UnparsableReply
    from probes._mcp.reply_limit import ReplyTooLarge

    assert UnparsableReply.__name__ == FailureKind.UNPARSABLE
    assert ReplyTooLarge.__name__ == FailureKind.REPLY_TOO_LARGE
