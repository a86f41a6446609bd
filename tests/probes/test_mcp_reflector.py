"""Survey the reference MCP reflectors: Python SDK over stdio and Streamable HTTP,
TypeScript SDK over stdio. What each chain does is established by running it."""

from __future__ import annotations

import subprocess
import sys

import pytest
from _needs import need, need_executable, need_module
from _support.mcp import catalogue, node_ready, one_per_family
from _support.servers import SERVERS
from _support.text import has_surrogate

import fidelity
import probes
from fidelity import Direction, Status

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _by_direction(survey: fidelity.Survey) -> dict[Direction, list[fidelity.Observation]]:
    out: dict[Direction, list[fidelity.Observation]] = {d: [] for d in Direction}
    for obs in survey.observations:
        for measured in (obs, *obs.parts):
            out[measured.direction].append(measured)
    return out


def _check_chain(survey: fidelity.Survey, response_surrogates: set[Status]) -> None:
    """Everything but lone surrogates is preserved in every direction; surrogates are
    refused by the client library on the way in (``rejected``, ``client_side``), and are
    ``response_surrogates`` on the way out."""
    seen = _by_direction(survey)
    for direction, observations in seen.items():
        assert observations, direction
        for obs in observations:
            if not has_surrogate(obs.sent):
                assert obs.status is Status.PRESERVED, (direction, obs.payload_id, obs.error)
            elif direction is Direction.RESPONSE:
                assert obs.status in response_surrogates, (obs.payload_id, obs.status, obs.error)
                assert not obs.client_side
            else:
                assert obs.status is Status.REJECTED, (direction, obs.payload_id, obs.error)
                assert obs.client_side, obs.error
                assert "could not encode" in obs.error
    assert any(has_surrogate(o.sent) for o in survey.observations)


#: Two of the surrogate payloads (each one costs a reflector restart over stdio).
SURROGATES = ("surrogates/lone-high-mid", "surrogates/pair-as-code-points-mid")


def test_python_reflector_over_stdio() -> None:
    """The catalogue through the built-in ``mcp.stdio`` chain (what ``fidelity survey`` runs)."""
    need_module("mcp")
    from probes._mcp.reflector import builtin_targets

    target = next(t for t in builtin_targets() if t.name == "mcp.stdio")
    payloads = tuple(p for p in catalogue() if not has_surrogate(p.text))
    payloads += tuple(p for p in catalogue() if p.id in SURROGATES)
    with target.open() as probe:
        assert isinstance(probe, probes.McpProbe)
        assert probe.splits_directions
        assert probe.max_requests_per_observation == 3
        survey = fidelity.survey(probe, payloads=payloads)
        calls = probe.requests
    # The Python SDK server cannot write a lone surrogate: its stdio transport dies, and
    # the session is re-established for the next payload. The client cannot encode one
    # either: that call fails alone (nothing sent) and the round trip is not attempted.
    _check_chain(survey, {Status.BROKEN})
    # Per surrogate payload only emit is sent (reflect cannot be, the round trip is not).
    assert calls == 3 * len(payloads) - 2 * len(SURROGATES)


def test_python_reflector_over_streamable_http() -> None:
    """``fidelity reflect mcp --transport http`` announces its URL on stderr (stdout stays
    empty), and the catalogue (one payload per family) is surveyed through it."""
    need_module("mcp")
    need_module("uvicorn")
    payloads = one_per_family(catalogue())
    proc = subprocess.Popen(
        [sys.executable, "-m", "fidelity", "reflect", "mcp", "--transport", "http"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline().decode()
        assert line.startswith("mcp reflector listening on http://127.0.0.1:")
        url = line.split()[-1]
        assert url.endswith("/mcp")
        with probes.mcp(url) as probe:
            survey = fidelity.survey(probe, payloads=payloads)
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=10)
    assert out == b""
    # Over HTTP the server escapes the lone surrogate; the Python client cannot parse it:
    # a reply it cannot parse is a protocol failure of the chain (broken).
    _check_chain(survey, {Status.BROKEN})
    response = [o for o in _by_direction(survey)[Direction.RESPONSE] if has_surrogate(o.sent)]
    assert response
    assert all(o.error_type == "UnparsableReply" for o in response)
    assert all("Invalid JSON" in o.error for o in response)


def test_typescript_reflector_over_stdio() -> None:
    need_module("mcp")
    node = need_executable("node")
    need(node_ready(), "tests/servers/node_modules is missing: run npm ci --prefix tests/servers")
    payloads = catalogue()
    with probes.mcp([node, str(SERVERS / "mcp_reflector.mjs")]) as probe:
        assert probe.splits_directions
        survey = fidelity.survey(probe, payloads=payloads)
    # A JS string holds UTF-16 code units: a high+low surrogate pair sent as two code
    # points arrives back as the one astral character; a lone surrogate is written as a
    # JSON escape that the Python client cannot parse (it drops the line).
    _check_chain(survey, {Status.BROKEN, Status.TRANSFORMED})
    response = [o for o in _by_direction(survey)[Direction.RESPONSE] if has_surrogate(o.sent)]
    joined = [o for o in response if o.status is Status.TRANSFORMED]
    lone = [o for o in response if o.status is Status.BROKEN]
    assert joined
    assert lone
    for obs in joined:
        assert obs.sent.encode("utf-16", "surrogatepass").decode("utf-16") == obs.received
    for obs in lone:
        assert obs.error_type == "UnparsableReply"
        assert b"\\ud" in (obs.wire or b"").lower()


def test_reflector_rejects_unknown_transport() -> None:
    with pytest.raises(fidelity.UsageError, match="not an MCP transport"):
        probes.mcp_reflector("sse")  # type: ignore[arg-type]


def test_builtin_targets_name_the_python_chains() -> None:
    from probes._mcp.reflector import builtin_targets

    targets = {t.name: t for t in builtin_targets()}
    assert {"mcp.stdio", "mcp.http"} <= set(targets)
    assert all(not t.unavailable for t in targets.values())
    # mcp.stdio is opened and surveyed in test_python_reflector_over_stdio, mcp.http's
    # reflector in test_mcp_probe (module fixture).
