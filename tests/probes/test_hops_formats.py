"""Facts about the real serialization libraries, established through the built-in hops."""

from __future__ import annotations

import itertools
import os
import sys

import pytest
from _needs import need, need_module
from _support.stdlib import minidom_escapes_attribute_whitespace
from _support.text import has_surrogate
from hypothesis import given, settings
from hypothesis import strategies as st

import probes
from fidelity import Status, UsageError

_ANY_CODE_POINT = st.characters(exclude_categories=())  # lone surrogates included


def _observe(hop: probes.ChainHop, text: str):  # type: ignore[no-untyped-def]
    return probes.chain(hop).observe(text)


@settings(max_examples=60, deadline=None)
@given(st.text(_ANY_CODE_POINT, max_size=12))
def test_json_preserves_everything_without_adjacent_surrogates(text: str) -> None:
    ascii_obs = _observe(probes.json(), text)
    utf8_obs = _observe(probes.json(ensure_ascii=False), text)
    if not has_surrogate(text):
        assert ascii_obs.status is Status.PRESERVED
        assert utf8_obs.status is Status.PRESERVED
        return
    # What UTF-8 cannot carry is refused, never silently changed.
    assert utf8_obs.status is Status.REJECTED
    assert utf8_obs.error_type == "UnicodeEncodeError"
    pairs = any(
        0xD800 <= ord(a) <= 0xDBFF and 0xDC00 <= ord(b) <= 0xDFFF
        for a, b in itertools.pairwise(text)
    )
    if not pairs:
        assert ascii_obs.status is Status.PRESERVED


def test_json_merges_a_surrogate_pair_written_as_two_code_points() -> None:
    # "\ud83d\ude00" escapes decode as one astral character: a real JSON rewrite.
    obs = _observe(probes.json(), "a\ud83d\ude00b")
    assert obs.status is Status.TRANSFORMED
    assert obs.received == "a\U0001f600b"


@pytest.mark.parametrize("style", ["block", "flow"])
def test_yaml_rewrites_nel_and_folds_whitespace_around_it(style: str) -> None:
    need_module("yaml")
    hop = probes.yaml(style=style)  # type: ignore[arg-type]
    nel = _observe(hop, "alpha\x85beta")
    assert nel.status is Status.TRANSFORMED
    assert nel.received == "alpha beta"
    folded = _observe(hop, "x\x85\ny")  # a NEL next to a line feed vanishes
    assert folded.received == "x\ny"
    assert _observe(hop, "x\x85\x85y").received == "x\ny"
    assert _observe(hop, "a\u2028b").status is Status.PRESERVED


#: From Python 3.13 on, minidom writes tab and line breaks in attribute values as
#: character references (gh-50002), as ElementTree always did: measured, not assumed.
MINIDOM_ESCAPES_WHITESPACE = minidom_escapes_attribute_whitespace()


def test_xml_attributes_normalize_tab_and_newline_to_spaces() -> None:
    obs = _observe(probes.xml_attr(writer="minidom"), "a\tb\nc\r\nd")
    if MINIDOM_ESCAPES_WHITESPACE:
        assert obs.status is Status.PRESERVED
    else:
        # minidom writes them raw; attribute-value normalization rewrites them.
        assert obs.status is Status.TRANSFORMED
        assert obs.received == "a b c d"
    # ElementTree writes them as character references, so they survive.
    assert _observe(probes.xml_attr(), "a\tb\nc\r\nd").status is Status.PRESERVED


def test_xml_text_normalizes_line_ends_and_refuses_nul() -> None:
    assert _observe(probes.xml_text(), "a\r\nb\rc").received == "a\nb\nc"
    refused = _observe(probes.xml_text(), "a\x00b")
    assert refused.status is Status.REJECTED
    assert refused.error_type == "ParseError"


def test_text_mode_files_translate_newlines() -> None:
    obs = _observe(probes.text_file(), "a\r\nb\rc\nd")
    assert obs.status is Status.TRANSFORMED
    assert obs.received == "a\nb\nc\nd"
    assert obs.blame == "text_file"


def test_text_mode_pipes_translate_newlines() -> None:
    assert _observe(probes.pipe(), "a\r\nb\rc").received == "a\nb\nc"
    assert _observe(probes.pipe(), "“q” é\u2028").status is Status.PRESERVED


@pytest.mark.parametrize("make", [probes.argv, probes.env], ids=["argv", "env"])
def test_argv_and_env_reject_nul(make: object) -> None:
    hop = make()  # type: ignore[operator]
    refused = _observe(hop, "a\x00b")
    assert refused.status is Status.REJECTED
    assert refused.error_type == "ValueError"
    assert "null" in refused.error
    assert _observe(hop, "“q” é -x\u2028").status is Status.PRESERVED


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX argv bytes")
def test_argv_reports_bytes_that_are_not_utf8() -> None:
    # os.fsencode turns U+DC80 into the raw byte 0x80: the child receives that byte.
    obs = _observe(probes.argv(), "\udc80")
    assert obs.status is Status.TRANSFORMED
    assert obs.received == b"\x80"


def test_csv_form_query_toml_keep_awkward_text() -> None:
    need_module("tomli_w")
    text = 'a,"b"\r\n+c %20&d=e#f'
    for hop in (probes.csv(), probes.form(), probes.query(), probes.toml()):
        assert _observe(hop, text).status is Status.PRESERVED, hop.name


def test_utf8_formats_refuse_lone_surrogates() -> None:
    need_module("tomli_w")
    for hop in (probes.csv(), probes.form(), probes.toml(), probes.text_file()):
        obs = _observe(hop, "a\ud800b")
        assert obs.status is Status.REJECTED, hop.name
        assert obs.error_type == "UnicodeEncodeError"


def test_email_headers_refuse_line_breaks_and_strip_leading_space() -> None:
    assert _observe(probes.email_header(), "a\nb").status is Status.REJECTED
    stripped = _observe(probes.email_header(), " beta")
    assert stripped.status is Status.TRANSFORMED
    assert stripped.received == "beta"


def test_builtin_hops_list_every_hop_with_availability() -> None:
    hops = probes.builtin_hops()
    names = [h.name for h in hops]
    assert len(names) == len(set(names))
    for expected in ("json", "yaml", "xml_text", "xml_attr", "toml", "csv", "form", "query"):
        assert expected in names
    for expected in ("email_header", "text_file", "pipe", "argv", "env"):
        assert expected in names
    assert all(h.description for h in hops)
    need(all(h.available for h in hops), "every optional hop library installed")


def test_a_missing_library_makes_the_hop_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "yaml", None)  # import yaml now raises ImportError
    monkeypatch.setitem(sys.modules, "tomli_w", None)
    for hop, package in ((probes.yaml(), "PyYAML"), (probes.toml(), "tomli-w")):
        assert not hop.available
        assert package in hop.unavailable
        with pytest.raises(UsageError, match="unavailable"):
            hop("x")
        with pytest.raises(UsageError, match=package):
            probes.chain(hop)


@pytest.mark.parametrize(
    "call",
    [
        lambda: probes.yaml(style="folded"),
        lambda: probes.xml_attr(writer="lxml"),
        lambda: probes.pipe(timeout=0),
        lambda: probes.argv(timeout=-1),
        lambda: probes.env(timeout="1"),
    ],
)
def test_bad_hop_options_are_usage_errors(call: object) -> None:
    with pytest.raises(UsageError):
        call()  # type: ignore[operator]


def test_env_child_sees_only_the_value_it_was_given() -> None:
    value = "x=y;$HOME `id`"
    obs = _observe(probes.env(), value)
    assert obs.received == value
    assert os.environ.get("FIDELITY_VALUE") is None
