"""The survey map as a page: ``fidelity survey --html`` and ``fidelity.surveys_to_html``.

The page is read as text (escaping, cells, size), then used in a real headless
Chromium as a person would: a screenshot must show the grid's colours, a mouse click on
a cell must show that chain and family's examples side by side, the filters must hide
and mark cells, and hostile payloads, chain names and error messages must not run
script (a control page with the same policy shows that the check catches script that
does run).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from _support.chromium import Chromium, Page
from _support.cli import fidelity_inprocess as run_fidelity
from _support.cli import start, stop
from _support.png import colours
from _support.processes import wait_for
from _support.stdlib import minidom_escapes_attribute_whitespace

import fidelity
import probes
from fidelity import Payload, UsageError
from fidelity._report.html.survey import LEGEND, render_survey_html

PAYLOADS = (
    Payload(id="quotes/curly", text="say \u201chi\u201d", families=("quotes",)),
    Payload(id="quotes/ascii", text='say "hi"', families=("quotes",)),
    Payload(id="newlines/crlf-mid", text="alpha\r\nbeta", families=("newlines",)),
    Payload(id="newlines/lf-mid", text="alpha\nbeta", families=("newlines",)),
    Payload(id="bidi/rlo-mid", text="abc\u202edef", families=("bidi",)),
    Payload(id="nul/mid", text="a\x00b", families=("nul",)),
    Payload(id="surrogates/lone-mid", text="x\ud800y", families=("surrogates",)),
)
GROUPS = {
    "straighten": "serialization",
    "json+text_file": "files and processes",
    "strict": "HTTP",
    "identity": "MCP",
}


def straighten(text: str) -> object:
    return text.replace("\u201c", '"').replace("\u201d", '"')


def strict(text: str) -> object:
    if "\x00" in text or "\u202e" in text:
        raise ValueError("refused a control character")
    return text


def _surveys() -> list[fidelity.Survey]:
    return [
        fidelity.survey(straighten, PAYLOADS, name="straighten"),
        fidelity.survey(
            probes.chain(probes.json(ensure_ascii=False), probes.text_file()),
            PAYLOADS,
            name="json+text_file",
        ),
        fidelity.survey(strict, PAYLOADS, name="strict"),
        fidelity.survey(str, PAYLOADS, name="identity"),
    ]


@pytest.fixture(scope="module")
def page() -> str:
    return fidelity.surveys_to_html(
        _surveys(),
        descriptions={"straighten": "curly quotes become straight"},
        groups=GROUPS,
    )


def _cell(page: str, chain: str, family: str) -> str:
    found = re.search(
        rf'<td class="c col o-(\w+)" data-chain="{re.escape(chain)}" '
        rf'data-family="{family}"[^>]*>',
        page,
    )
    assert found, (chain, family)
    return found.group(0)


def _detail(page: str, chain: str, family: str) -> str:
    start = page.index(f'<section class="detail" data-chain="{chain}" data-family="{family}"')
    return page[start : page.index("</section>", start)]


def test_a_cell_per_chain_and_family_coloured_by_outcome(page: str) -> None:
    assert page.count('<td class="c col') == 5 * 4  # five families by four chains
    # One quotes payload is curly (straightened), one is ASCII (kept): mixed, half each.
    straightened = _cell(page, "straighten", "quotes")
    assert 'class="c col o-mixed"' in straightened
    assert "2 payloads: 1 preserved, 1 transformed" in straightened
    assert 'class="c col o-preserved"' in _cell(page, "identity", "quotes")
    assert 'class="c col o-rejected"' in _cell(page, "strict", "nul")
    newlines = _cell(page, "json+text_file", "newlines")
    assert "o-mixed" in newlines
    # A mixed cell is split by its outcomes' shares; the counts are in its tooltip.
    assert "linear-gradient" in newlines
    assert "2 payloads: 1 preserved, 1 transformed" in newlines
    assert 'data-kinds="newline.crlf_to_lf"' in newlines
    # The chain's name is readable and its description is its tooltip.
    assert 'title="straighten\ncurly quotes become straight"><span>straighten</span>' in page
    # Every outcome has a colour and a legend entry.
    assert {name for name, *_ in LEGEND} == {s.value for s in fidelity.Status} | {"mixed"}
    for name, *_ in LEGEND:
        assert f'class="swatch o-{name}"' in page


def test_a_cell_opens_its_kinds_and_smallest_examples(page: str) -> None:
    quotes = _detail(page, "straighten", "quotes")
    assert '<span class="kind">quote.straighten</span>' in quotes
    sent, received = quotes.split('class="side received"')
    assert '<mark class="chg">\u201c</mark>' in sent
    assert '<mark class="chg">&quot;</mark>' in received
    refused = _detail(page, "strict", "nul")
    assert "ValueError: refused a control character" in refused
    assert 'title="U+0000 NULL">U+0000</span>' in refused
    assert "All 2 payloads arrived byte for byte." in _detail(page, "identity", "quotes")


def test_a_multi_hop_chain_names_the_hop_that_changed_the_value(page: str) -> None:
    newlines = _detail(page, "json+text_file", "newlines")
    assert "Which hop changed the value" in newlines
    blamed = re.search(
        r'<tr class=blamed><td class="hop-name">([^<]+)</td><td>([^<]+)</td>', newlines
    )
    assert blamed is not None
    assert blamed.groups() == ("text_file", "1 transformed")
    assert '<td class="hop-name">json(ensure_ascii=False)</td><td>nothing</td>' in newlines
    # The example shows the value after each hop: JSON kept the CR, the file did not.
    trail = newlines[newlines.index('class="trail"') :]
    assert 'json(ensure_ascii=False)</span> <span class="none">unchanged' in trail
    assert '<li class="changed blamed"><span class="hop-name">text_file</span>' in trail
    # A value the first hop refused is blamed on it too.
    surrogates = _detail(page, "json+text_file", "surrogates")
    assert '<td class="hop-name">json(ensure_ascii=False)</td><td>1 rejected</td>' in surrogates
    assert '<td class="hop-name">text_file</td><td>nothing</td>' in surrogates
    # The page sums up the chain's hops too.
    summary = page[page.index("<h2>Which hop changed the value</h2>") :]
    assert '<td class="hop-name">json(ensure_ascii=False)</td><td>1 rejected</td>' in summary
    assert "<td>newlines</td>" in summary


def test_filters_list_the_groups_and_kinds(page: str) -> None:
    group = page[page.index('<select id="f-group">') : page.index("</select>")]
    assert re.findall(r'<option value="([^"]*)">', group) == ["", *GROUPS.values()]
    kinds = page[page.index('<select id="f-kind">') :]
    kinds = kinds[: kinds.index("</select>")]
    assert re.findall(r'<option value="([^"]*)">', kinds) == [
        "",
        "newline.crlf_to_lf",
        "quote.straighten",
    ]


def test_self_contained_and_escaped(page: str) -> None:
    assert "default-src 'none'" in page
    assert not re.search(r"""\b(?:src|href)\s*=""", page)
    assert "url(" not in page
    assert "@import" not in page
    for raw in ("\u202e", "\x00", "\r"):
        assert raw not in page
    assert page.count("<script>") == 1


def test_the_page_holds_examples_not_every_observation() -> None:
    def pages(n: int) -> int:
        many = tuple(
            Payload(id=f"quotes/q{i}", text=f"{'x' * i}\u201cq\u201d", families=("quotes",))
            for i in range(n)
        )
        return len(fidelity.surveys_to_html([fidelity.survey(straighten, many, name="s")]))

    small, large = pages(10), pages(400)
    # Forty times the payloads: the counts grow a digit, the page does not grow with them.
    assert large - small < 200, (small, large)


def test_surveys_to_html_takes_cards_and_refuses_what_it_cannot_draw() -> None:
    survey = fidelity.survey(straighten, PAYLOADS, name="straighten")
    card = fidelity.Card.from_json(survey.card().to_json())
    assert fidelity.surveys_to_html([card]).count('<td class="c col') == 5
    with pytest.raises(UsageError, match="one or more Survey"):
        fidelity.surveys_to_html([])
    with pytest.raises(UsageError, match="not str"):
        fidelity.surveys_to_html(["straighten"])  # type: ignore[list-item]
    with pytest.raises(UsageError, match="two surveys are named 'straighten'"):
        fidelity.surveys_to_html([survey, survey])


def test_builtin_chains_come_in_four_groups() -> None:
    from probes._builtin import builtin_targets

    groups = {t.name: t.group for t in builtin_targets()}
    assert set(groups.values()) <= {"serialization", "files and processes", "HTTP", "MCP"}
    assert groups["json"] == groups["xml_attr"] == groups["email_header"] == "serialization"
    for name in ("text_file", "json+text_file", "pipe", "argv", "env"):
        assert groups[name] == "files and processes"
    assert groups.get("http json", "HTTP") == "HTTP"
    assert groups.get("mcp.stdio", "MCP") == "MCP"


# -- the command ------------------------------------------------------------------------

FAST = ["--chains", "json,json+text_file,xml_attr_minidom", "--families", "newlines,nul,quotes"]


def test_survey_html_writes_the_page_and_prints_the_same_map(tmp_path: Path) -> None:
    out = tmp_path / "survey.html"
    plain = run_fidelity("survey", *FAST)
    with_page = run_fidelity("survey", *FAST, "--html", str(out))
    assert (plain.returncode, with_page.returncode) == (0, 0), with_page.stderr
    assert with_page.stdout == plain.stdout
    page = out.read_text(encoding="utf-8")
    # The page's grid is the terminal's map: the same families, the same letter per cell.
    lines = plain.stdout.split("\nfamily ", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    terminal = {line.split()[0]: line.split()[1:] for line in lines}
    assert terminal["nul"][2] == "R"  # XML cannot carry NUL
    grid = {
        family: re.findall(r"<td [^>]*>([^<]+)</td>", cells)
        for family, cells in re.findall(
            r'<tr><th class="family" scope="row">([^<]+)</th>(.*?)</tr>', page, re.S
        )
    }
    assert grid == terminal
    # And both are what the chains do: JSON keeps everything; a text-mode file turns CR
    # and CRLF into LF but keeps LF (mixed); a minidom attribute turns every line break
    # into a space and cannot carry NUL; no chain touches quotes.
    assert grid == {
        "quotes": [".", ".", "."],
        "nul": [".", ".", "R"],
        # 3.13's minidom escapes line breaks in attribute values: the chain keeps them.
        "newlines": [".", "M", "." if minidom_escapes_attribute_whitespace() else "T"],
    }
    assert 'data-group="files and processes"' in page
    # The built-in description is the column's tooltip; the XML chain refuses NUL.
    assert "attribute value: minidom" in page
    assert 'class="c col o-rejected" data-chain="xml_attr_minidom" data-family="nul"' in page
    assert not Path(f"{out}.partial").exists()


def test_an_interrupted_survey_still_writes_its_page(tmp_path: Path) -> None:
    page, result = tmp_path / "survey.html", tmp_path / "survey.json"
    chains = ["--chains", "json,pipe,argv,env"]
    proc = start("survey", "--quiet", *chains, "--json", str(result), "--html", str(page))
    assert wait_for(result.exists, bound=60)
    assert not page.exists()  # written at the end, not after each chain
    returncode, err = stop(proc)
    assert returncode == 130, err
    assert "Traceback" not in err
    written = page.read_text(encoding="utf-8")
    columns = re.findall(r'<th class="chain col([^"]*)"[^>]*><span>([^<]+)</span>', written)
    assert columns[0] == ("", "json")
    assert 2 <= len(columns) < 4  # json, and the chain that was cut short
    assert columns[-1][0] == " incomplete"
    assert f"Interrupted runs (the page holds what they observed): {columns[-1][1]}." in written
    assert "<li><b>env</b>: the run was interrupted first.</li>" in written


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("-", "--html needs a file name"),
        ("{tmp}/missing/survey.html", "the directory"),
        ("{tmp}", "is a directory"),
    ],
)
def test_survey_html_bad_destination_is_a_usage_error(
    tmp_path: Path, value: str, message: str
) -> None:
    done = run_fidelity("survey", *FAST, "--html", value.format(tmp=tmp_path))
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr


# -- in a real browser --------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator[Chromium]:
    with Chromium() as chromium:
        yield chromium


@pytest.fixture
def opened(page: str, browser: Chromium, tmp_path: Path) -> Page:
    path = tmp_path / "survey.html"
    path.write_text(page, encoding="utf-8")
    return browser.open(path.as_uri(), width=1280, height=900)


def _visible_details(tab: Page) -> list[list[str]]:
    return list(
        tab.evaluate(
            "Array.prototype.map.call(document.querySelectorAll('section.detail:not([hidden])'),"
            " function (s) {"
            " return [s.getAttribute('data-chain'), s.getAttribute('data-family')]; })"
        )
    )


def test_chromium_screenshot_shows_the_grid_in_colour(opened: Page) -> None:
    seen = colours(opened.screenshot())
    assert len(seen) > 20  # not a blank page
    # The legend's colours, as the page promises them: green, red, amber.
    for name, colour in (
        ("preserved", "cfe9d6"),
        ("rejected", "e4776b"),
        ("transformed", "f2b44c"),
    ):
        assert bytes.fromhex(colour) in seen, name


def test_chromium_click_on_a_cell_shows_its_examples(opened: Page) -> None:
    assert _visible_details(opened) == []
    opened.click_element('#grid td.c[data-chain="straighten"][data-family="quotes"]')
    assert _visible_details(opened) == [["straighten", "quotes"]]
    assert opened.evaluate("location.hash") == "#chain=straighten&family=quotes"
    assert opened.evaluate("document.querySelector('td.c.sel').getAttribute('data-family')") == (
        "quotes"
    )
    shown = opened.evaluate("document.querySelector('section.detail:not([hidden])').innerText")
    assert "quote.straighten" in shown
    assert "quotes/curly" in shown
    # The click brought the examples into view: both highlight colours are on screen.
    seen = colours(opened.screenshot(), step=1)
    assert bytes((0xFF, 0xD7, 0xD5)) in seen  # the sent side's changed code point
    assert bytes((0xCD, 0xF3, 0xD2)) in seen  # the received side's
    # Another cell replaces it; a second click on the same cell closes it.
    opened.click_element('#grid td.c[data-chain="json+text_file"][data-family="newlines"]')
    assert _visible_details(opened) == [["json+text_file", "newlines"]]
    opened.click_element('#grid td.c[data-chain="json+text_file"][data-family="newlines"]')
    assert _visible_details(opened) == []
    assert opened.exceptions() == []


def test_chromium_kind_and_group_filters(opened: Page) -> None:
    opened.evaluate(
        "var s = document.getElementById('f-kind'); s.value = 'newline.crlf_to_lf';"
        " s.dispatchEvent(new Event('change'))"
    )
    hits = opened.evaluate(
        "Array.prototype.map.call(document.querySelectorAll('td.c.hit'),"
        " function (td) { return td.getAttribute('data-chain') + '/' +"
        " td.getAttribute('data-family'); })"
    )
    assert hits == ["json+text_file/newlines"]
    assert opened.evaluate("document.querySelectorAll('td.c.dim').length") == 19
    assert "seen in 1 cell of 1 chain" in opened.evaluate(
        "document.getElementById('count').textContent"
    )
    opened.evaluate(
        "var s = document.getElementById('f-group'); s.value = 'HTTP';"
        " s.dispatchEvent(new Event('change'))"
    )
    shown = opened.evaluate(
        "Array.prototype.filter.call(document.querySelectorAll('td.c'),"
        " function (td) { return td.offsetParent !== null; }).map("
        " function (td) { return td.getAttribute('data-chain'); })"
    )
    assert shown == ["strict"] * 5
    assert opened.evaluate("location.hash") == "#group=HTTP&kind=newline.crlf_to_lf"
    assert opened.exceptions() == []


def test_chromium_a_page_without_groups_or_rewrites(browser: Chromium, tmp_path: Path) -> None:
    path = tmp_path / "plain.html"
    path.write_text(fidelity.surveys_to_html([fidelity.survey(str, PAYLOADS)]), encoding="utf-8")
    tab = browser.open(path.as_uri())
    assert tab.evaluate("document.getElementById('f-group')") is None
    tab.click_element('#grid td.c[data-family="bidi"]')
    assert _visible_details(tab) == [["str", "bidi"]]
    assert "The payload arrived byte for byte." in tab.evaluate(
        "document.getElementById('details').innerText"
    )
    assert tab.exceptions() == []


HOSTILE_NAME = '<img src=x onerror="window.pwned=1">\u202eevil</th><script>window.pwned=2</script>'
HOSTILE = (
    Payload(id="escapes/script", text="<script>window.pwned=3</script>", families=("escapes",)),
    Payload(id="escapes/img", text='"><img src=x onerror="window.pwned=4">', families=("escapes",)),
    Payload(id="bidi/rlo", text="\u202e<svg onload=window.pwned=5>", families=("bidi",)),
    Payload(id="control/esc", text="a\x1b[31m<b>b</b>", families=("control",)),
)


def mangle(text: str) -> object:
    if "\x1b" in text:
        raise ValueError("<script>window.pwned=6</script> refused \x1b[2J")
    return text.replace("<", "&lt;")  # rewritten: the page shows both sides


def _pwned(tab: Page) -> object:
    return tab.evaluate("typeof window.pwned === 'undefined' ? null : window.pwned")


def test_chromium_hostile_payloads_and_names_cannot_run_script(
    browser: Chromium, tmp_path: Path
) -> None:
    surveys = [
        fidelity.survey(mangle, HOSTILE, name=HOSTILE_NAME),
        fidelity.survey(str, HOSTILE, name="plain"),
    ]
    page = fidelity.surveys_to_html(
        surveys,
        descriptions={HOSTILE_NAME: "<script>window.pwned=7</script>"},
        groups={HOSTILE_NAME: '<b onmouseover="window.pwned=8">', "plain": "x"},
    )
    for raw in ("\u202e", "\x1b", "<script>window", "<img", "<svg"):
        assert raw not in page
    path = tmp_path / "hostile.html"
    path.write_text(page, encoding="utf-8")
    tab = browser.open(path.as_uri())
    count = tab.evaluate("document.querySelectorAll('#grid td.c').length")
    assert count == 6
    for i in range(count):
        tab.click_element("#grid td.c", i)
        assert _visible_details(tab), i
    # The hostile chain's name made it to the page as text, and its examples opened.
    assert "evil" in tab.evaluate("document.getElementById('grid').innerText")
    tab.click_element('#grid td.c[data-family="escapes"]', 0)  # the hostile chain
    shown = tab.evaluate("document.getElementById('details').innerText")
    assert "<script>window.pwned=3</script>" in shown
    assert "&lt;script>window.pwned=3&lt;/script>" in shown
    assert _pwned(tab) is None
    # A hostile fragment is only compared with what the page holds, never inserted.
    tab = browser.open(
        path.as_uri() + "#chain=%3Cimg%20src%3Dx%20onerror%3D%22window.pwned%3D9%22%3E&kind=%3Cb%3E"
    )
    assert _visible_details(tab) == []
    assert _pwned(tab) is None
    assert tab.evaluate("document.querySelectorAll('script').length") == 1
    assert tab.evaluate("document.querySelectorAll('img, svg').length") == 0
    handlers = tab.evaluate(
        "Array.prototype.filter.call(document.querySelectorAll('*'), function (el) {"
        " return Array.prototype.some.call(el.attributes, function (a) {"
        " return a.name.indexOf('on') === 0; }); }).length"
    )
    assert handlers == 0


def test_chromium_the_script_check_catches_script_that_runs(
    browser: Chromium, tmp_path: Path
) -> None:
    """The control: a payload pasted in raw runs once the policy is taken away (so the
    check above can see script that runs); under the page's policy, which allows only
    the page's own script by its hash, even pasted raw it does not run, while the
    page's script does (the grid answers a click)."""
    page = render_survey_html([fidelity.survey(str, HOSTILE[:1], name="plain").card()])
    raw = page.replace("</main>", "<script>window.pwned=3</script></main>")
    path = tmp_path / "raw.html"
    path.write_text(raw, encoding="utf-8")
    tab = browser.open(path.as_uri())
    assert _pwned(tab) is None
    tab.click_element("#grid td.c", 0)
    assert _visible_details(tab)
    policy = re.search(r'<meta http-equiv="Content-Security-Policy"[^>]*>', raw)
    assert policy is not None
    path.write_text(raw.replace(policy.group(0), ""), encoding="utf-8")
    assert _pwned(browser.open(path.as_uri())) == 3
