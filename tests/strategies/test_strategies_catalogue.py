"""The payload catalogue: fixed, ordered, small, every family covered, ids stable."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

import fidelity
import strategies
from fidelity._core.text import utf8_len

_SNAPSHOT = Path(__file__).with_name("catalogue_ids.txt")


def test_catalogue_ids_match_the_committed_snapshot() -> None:
    committed = _SNAPSHOT.read_text(encoding="utf-8").split()
    ids = [p.id for p in strategies.catalogue()]
    removed = [i for i in committed if i not in ids]
    assert not removed, f"catalogue ids are public and must not disappear: {removed}"
    assert ids == committed, "new ids: update catalogue_ids.txt (appending keeps old ids stable)"


def test_catalogue_is_small_unique_and_covers_every_family() -> None:
    payloads = strategies.catalogue()
    assert isinstance(payloads, tuple)
    assert 0 < len(payloads) <= 300
    ids = [p.id for p in payloads]
    assert len(set(ids)) == len(ids)
    assert set(Counter(p.families[0] for p in payloads)) == set(fidelity.FAMILIES)
    for p in payloads:
        assert isinstance(p, fidelity.Payload)
        assert re.fullmatch(r"[a-z]+/[a-z0-9-]+", p.id), p.id
        assert p.id.split("/")[0] == p.families[0]
        assert set(p.families) <= set(fidelity.FAMILIES)


def test_catalogue_is_ordered_by_family_and_cached() -> None:
    payloads = strategies.catalogue()
    order = [fidelity.FAMILIES.index(p.families[0]) for p in payloads]
    assert order == sorted(order)
    assert strategies.catalogue() is payloads


def test_hazards_sit_at_start_middle_and_end() -> None:
    by_id = {p.id: p.text for p in strategies.catalogue()}
    assert by_id["quotes/left-double-start"] == "\u201c beta"
    assert by_id["quotes/left-double-mid"] == "alpha \u201c beta"
    assert by_id["quotes/left-double-end"] == "alpha \u201c"
    assert by_id["whitespace/nbsp-mid"] == "alpha\u00a0beta"
    assert by_id["coercion/octal-010"] == "010"
    for family in fidelity.FAMILIES:
        if family in ("coercion", "length", "bom", "nul"):
            continue
        ids = [p.id for p in strategies.catalogue([family])]
        assert any(i.endswith("-start") for i in ids), family
        assert any(i.endswith("-mid") for i in ids), family
        assert any(i.endswith("-end") for i in ids), family


@pytest.mark.parametrize("boundary", [255, 256, 4096, 65536])
def test_length_values_straddle_each_boundary(boundary: int) -> None:
    texts = [p.text for p in strategies.catalogue(["length"])]
    sizes = [utf8_len(t) for t in texts]
    assert boundary in sizes
    straddling = [t for t in texts if utf8_len(t[:-1]) == boundary - 1 and utf8_len(t) > boundary]
    assert straddling, f"no multi-byte character straddles {boundary}"
    assert sum(utf8_len(t) for t in texts) < 200_000


def test_catalogue_selects_families_in_catalogue_order() -> None:
    chosen = strategies.catalogue(families=("nul", "quotes"))
    assert {p.families[0] for p in chosen} == {"quotes", "nul"}
    assert chosen == tuple(p for p in strategies.catalogue() if p.families[0] in ("quotes", "nul"))


@pytest.mark.parametrize(
    ("families", "message"),
    [
        (
            ["quotes", "emoji"],
            r"families=\['quotes', 'emoji'\] names unknown family id\(s\) 'emoji'",
        ),
        ("quotes", r"families='quotes' must be a list of family ids"),
        ([], r"families=\[\] selects no family"),
    ],
)
def test_catalogue_rejects_bad_families(families: object, message: str) -> None:
    with pytest.raises(strategies.InvalidArgument, match=message) as info:
        strategies.catalogue(families)  # type: ignore[arg-type]
    # Every refusal, the empty list included, lists the valid families.
    assert "; valid families are: quotes, punctuation, " in str(info.value)


def test_catalogue_import_is_cheap() -> None:
    code = (
        "import sys, strategies; strategies.catalogue(); "
        "assert 'hypothesis' not in sys.modules, 'catalogue imported hypothesis'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
