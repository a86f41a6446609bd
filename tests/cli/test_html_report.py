"""The HTML report: escaping, badges and highlights, and a real headless Chromium.

The browser renders the page to a screenshot (decoded here: it must show the sent
side's highlight colour, so the page really rendered its rows) and dumps the DOM
after the family filter read from the URL fragment has run.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

import pytest
from _needs import need_executable
from _support.chromium import FLAGS
from _support.png import pixels as _pixels

import fidelity
from fidelity import Payload
from fidelity._report.html.card import render_html

PAYLOADS = (
    Payload(id="quotes/script", text="say \u201chi\u201d <script>x</script>", families=("quotes",)),
    Payload(id="bidi/rlo-mid", text="abc\u202edef", families=("bidi",)),
    Payload(id="invisible/zwsp-mid", text="a\u200bb", families=("invisible",)),
    Payload(id="nul/mid", text="a\x00b", families=("nul",)),
    Payload(id="separators/ls-mid", text="a\u2028b", families=("separators",)),
    Payload(id="surrogates/lone", text="x\ud800y", families=("surrogates",)),
    Payload(id="coercion/octal", text="010", families=("coercion",)),
    Payload(id="length/long", text="x" * 2000 + "\u201c" + "y" * 2000, families=("length",)),
)  # fmt: skip


def chain(text: str) -> object:
    if text == "010":
        return 8
    if "\ud800" in text:
        raise ValueError("cannot encode <b>surrogate</b> \x1b[31m")
    for old, new in (("\u201c", '"'), ("\u201d", '"'), ("\u202e", ""), ("\u200b", "")):
        text = text.replace(old, new)
    return text.replace("\x00", " ").replace("\u2028", "\n")


@pytest.fixture(scope="module")
def page() -> str:
    card = fidelity.survey(chain, payloads=PAYLOADS, name="edit.old_string").card()
    html = card.to_html()
    assert html == render_html(card.name, card.facts, card.rows, card.observations, card.hints())
    return html


def test_payload_text_is_escaped_and_badged(page: str) -> None:
    assert "<script>x" not in page
    assert "&lt;script&gt;x&lt;/script&gt;" in page
    assert "<b>surrogate</b>" not in page
    for raw in ("\u202e", "\u200b", "\x00", "\u2028", "\x1b"):
        assert raw not in page
    assert 'title="U+202E RIGHT-TO-LEFT OVERRIDE">U+202E</span>' in page
    assert 'title="U+200B ZERO WIDTH SPACE">U+200B</span>' in page
    assert 'title="U+0000 NULL">U+0000</span>' in page
    assert page.encode("utf-8")  # no lone surrogate left in the document


def test_changed_code_points_are_marked_side_by_side(page: str) -> None:
    section = page[page.index('data-families="quotes"') :]
    section = section[: section.index("</section>")]
    sent, received = section.split('class="side received"')
    assert '<mark class="chg">\u201c</mark>' in sent
    assert '<mark class="chg">&quot;</mark>' in received
    assert "quote.straighten" in section
    # A long value is shown around its edit only.
    assert "code points \u2026" in page


def test_self_contained(page: str) -> None:
    assert "default-src 'none'" in page
    assert not re.search(r"""\b(?:src|href)\s*=""", page)
    assert "url(" not in page
    assert "@import" not in page


def test_only_the_pages_own_script_may_run(page: str) -> None:
    # The policy names the one inline script by its hash: markup that slipped past
    # escaping (a payload's <script>, an onerror= attribute) would not run.
    import base64
    import hashlib

    (policy,) = re.findall(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page)
    assert "unsafe-inline" not in policy.split("script-src", 1)[1]
    (script,) = re.findall(r"<script>(.*?)</script>", page, re.DOTALL)
    assert "\r" not in script  # the browser hashes the text unchanged
    assert "\x00" not in script
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in policy


def _chromium(url: str, *extra: str) -> subprocess.CompletedProcess[bytes]:
    binary = need_executable("chromium")
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run(
            [
                binary,
                *FLAGS,
                f"--user-data-dir={profile}",
                *extra,
                url,
            ],
            capture_output=True,
            timeout=120,
            check=False,
        )


def test_chromium_renders_the_page(page: str, tmp_path: Path) -> None:
    report = tmp_path / "report.html"
    report.write_text(page, encoding="utf-8")
    shot = tmp_path / "shot.png"
    done = _chromium(report.as_uri(), f"--screenshot={shot}", "--window-size=1200,1600")
    assert shot.exists(), done.stderr.decode(errors="replace")[-2000:]
    width, height, channels, pixels = _pixels(shot.read_bytes())
    assert (width, height) == (1200, 1600)
    colours = {pixels[i : i + 3] for i in range(0, len(pixels), channels * 7)}
    assert len(colours) > 20  # not a blank page
    assert bytes((0xFF, 0xD7, 0xD5)) in colours  # the sent side's highlight is on screen
    assert bytes((0xCD, 0xF3, 0xD2)) in colours  # and the received side's


def test_chromium_filter_by_family_from_the_fragment(page: str, tmp_path: Path) -> None:
    report = tmp_path / "report.html"
    report.write_text(page, encoding="utf-8")
    done = _chromium(report.as_uri() + "#family=bidi", "--dump-dom")
    dom = done.stdout.decode("utf-8")
    assert 'data-filter="family=bidi;kind="' in dom
    items = re.findall(r'<(?:tr|section) class="[^"]*f-item[^"]*"[^>]*>', dom)
    assert len(items) > 8
    for tag in items:
        if 'data-families="bidi"' in tag:
            assert "hidden" not in tag
        else:
            assert "hidden" in tag, tag
    assert "1 of 8 listed shown" in dom


def test_chromium_filter_by_kind(page: str, tmp_path: Path) -> None:
    report = tmp_path / "report.html"
    report.write_text(page, encoding="utf-8")
    dom = _chromium(report.as_uri() + "#kind=type.coerced", "--dump-dom").stdout.decode("utf-8")
    shown = [
        tag
        for tag in re.findall(r'<(?:tr|section) class="[^"]*f-item[^"]*"[^>]*>', dom)
        if "hidden" not in tag
    ]
    assert shown
    assert all('data-families="coercion"' in tag for tag in shown)
    # The hints follow the filter: the coercion hint stays, the quotes one is hidden.
    hints = re.findall(r'<li class="f-item hint"[^>]*>', dom)
    assert [t for t in hints if "hidden" not in t] == [
        '<li class="f-item hint" data-families="coercion" data-kinds="type.coerced">'
    ]
    assert any('data-kinds="quote.straighten"' in t and "hidden" in t for t in hints)


def test_failed_payloads_are_counted_by_the_filter(tmp_path: Path) -> None:
    def refuse(text: str) -> object:
        raise ValueError("refused")

    payloads = PAYLOADS[1:3]  # bidi and invisible: nothing is rewritten, both fail
    html = fidelity.survey(refuse, payloads=payloads, name="t.x").card().to_html()
    assert ">2 payloads sent, 2 listed below (rewritten or failed)</span>" in html
    report = tmp_path / "report.html"
    report.write_text(html, encoding="utf-8")
    dom = _chromium(report.as_uri() + "#family=bidi", "--dump-dom").stdout.decode("utf-8")
    assert "1 of 2 listed shown" in dom
    # Back to no filter: the count of every payload sent comes back.
    dom = _chromium(report.as_uri() + "#family=", "--dump-dom").stdout.decode("utf-8")
    assert ">2 payloads sent, 2 listed below (rewritten or failed)</span>" in dom


def test_the_header_counts_every_payload_sent(tmp_path: Path) -> None:
    # A new user's report said "190 payloads" for a run that sent 298: the preserved
    # ones were left out of the count.
    html = fidelity.survey(lambda text: text, payloads=PAYLOADS, name="t.x").card().to_html()
    assert f">{len(PAYLOADS)} payloads sent, 0 listed below (rewritten or failed)</span>" in html
    report = tmp_path / "report.html"
    report.write_text(html, encoding="utf-8")
    dom = _chromium(report.as_uri(), "--dump-dom").stdout.decode("utf-8")
    assert f">{len(PAYLOADS)} payloads sent, 0 listed below (rewritten or failed)</span>" in dom
