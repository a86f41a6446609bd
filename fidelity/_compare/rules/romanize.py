"""ASCII spellings of letters: Latin letters with no decomposition, Greek and Cyrillic.

``unicode.ascii_fold`` replays a transliteration letter by letter with these tables.
They are written from the published romanization systems, not taken from any
library: for Cyrillic, the Russian GOST 7.79 system B, BGN/PCGN, the ICAO passport
table (Doc 9303), the scholarly system without its diacritics, and the national
Ukrainian, Belarusian, Serbian, Macedonian and Bulgarian systems; for Greek, ELOT 743 /
ISO 843 and the common "Greeklish" spellings. Where the systems differ, a letter has
several spellings, the most common first; the replay takes any of them. Letters that
decompose (``ά``, ``й``, ``ё``) are first read without their marks, then spelled.
"""

from __future__ import annotations

__all__ = ["ROMANIZATIONS"]

#: Latin letters that carry no decomposition but have a customary ASCII spelling.
_LATIN: dict[str, tuple[str, ...]] = {
    "ß": ("ss", "s"),
    "ẞ": ("SS", "Ss"),
    "æ": ("ae",),
    "Æ": ("AE", "Ae"),
    "ø": ("o", "oe"),
    "Ø": ("O", "Oe"),
    "ł": ("l",),
    "Ł": ("L",),
    "đ": ("d", "dj"),
    "Đ": ("D", "Dj"),
    "ð": ("d", "dh"),
    "Ð": ("D", "Dh"),
    "þ": ("th",),
    "Þ": ("Th", "TH"),
    "œ": ("oe",),
    "Œ": ("OE", "Oe"),
    "ı": ("i",),
    "ĸ": ("k", "q"),
    "ŋ": ("n", "ng"),
    "Ŋ": ("N", "NG"),
    "ħ": ("h",),
    "Ħ": ("H",),
    "ŧ": ("t",),
    "Ŧ": ("T",),
    "ſ": ("s",),
    "ƒ": ("f",),
    "ä": ("ae",),
    "ö": ("oe",),
    "ü": ("ue",),
    "Ä": ("Ae", "AE"),
    "Ö": ("Oe", "OE"),
    "Ü": ("Ue", "UE"),
    "å": ("aa",),
    "Å": ("Aa", "AA"),
}

#: Cyrillic lower-case letters (Russian, Ukrainian, Belarusian, Serbian, Macedonian,
#: Bulgarian). The hard and soft signs may vanish or become an apostrophe.
_CYRILLIC: dict[str, tuple[str, ...]] = {
    "а": ("a",),
    "б": ("b",),
    "в": ("v", "w"),
    "г": ("g", "h"),
    "д": ("d",),
    "е": ("e", "ye", "je"),
    "ё": ("e", "yo", "io", "jo"),
    "ж": ("zh", "z", "j"),
    "з": ("z",),
    "и": ("i", "y"),
    "й": ("i", "y", "j"),
    "к": ("k",),
    "л": ("l",),
    "м": ("m",),
    "н": ("n",),
    "о": ("o",),
    "п": ("p",),
    "р": ("r",),
    "с": ("s",),
    "т": ("t",),
    "у": ("u",),
    "ф": ("f",),
    "х": ("kh", "h", "x", "ch"),
    "ц": ("ts", "c", "tc", "cz", "tz"),
    "ч": ("ch", "c"),
    "ш": ("sh", "s"),
    "щ": ("shch", "sch", "sht", "shh"),
    "ъ": ("", '"', "'", "ie", "``", "a"),
    "ы": ("y", "i", "y'"),
    "ь": ("", "'", "`"),
    "э": ("e", "eh", "e'"),
    "ю": ("yu", "iu", "ju"),
    "я": ("ya", "ia", "ja"),
    "є": ("ye", "ie", "je"),
    "і": ("i",),
    "ї": ("yi", "i", "ji"),
    "ґ": ("g",),
    "ў": ("u", "w"),
    "ђ": ("dj", "d"),
    "ј": ("j",),
    "љ": ("lj",),
    "њ": ("nj",),
    "ћ": ("c", "ch", "tj"),
    "џ": ("dz", "dzh", "dj"),
    "ѓ": ("gj", "g"),
    "ќ": ("kj", "k"),
    "ѕ": ("dz", "z"),
}

#: Greek lower-case letters (ELOT 743 / ISO 843, and the common Greeklish spellings).
_GREEK: dict[str, tuple[str, ...]] = {
    "α": ("a",),
    "β": ("v", "b"),
    "γ": ("g", "gh", "y"),
    "δ": ("d", "dh"),
    "ε": ("e",),
    "ζ": ("z",),
    "η": ("i", "e", "h"),
    "θ": ("th",),
    "ι": ("i",),
    "κ": ("k",),
    "λ": ("l",),
    "μ": ("m",),
    "ν": ("n",),
    "ξ": ("x", "ks"),
    "ο": ("o",),
    "π": ("p",),
    "ρ": ("r", "rh"),
    "σ": ("s",),
    "ς": ("s",),
    "τ": ("t",),
    "υ": ("y", "u", "i"),
    "φ": ("f", "ph"),
    "χ": ("ch", "kh", "x", "h"),
    "ψ": ("ps",),
    "ω": ("o", "w"),
    # ELOT 743 spells these pairs as one sound.
    "αυ": ("av", "af"),
    "ευ": ("ev", "ef"),
    "ηυ": ("iv", "if"),
    "ου": ("ou", "u"),
    "μπ": ("b", "mb", "mp"),
    "ντ": ("d", "nd", "nt"),
    "γγ": ("ng",),
    "γκ": ("gk", "g", "ng"),
    "γξ": ("nx",),
    "γχ": ("nch",),
}


def _with_capitals(table: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    """``table`` and its capital letters: each spelling capitalised, or all capitals."""
    out = dict(table)
    for key, reps in table.items():
        for upper in (key[0].upper() + key[1:], key.upper()):
            if upper == key or len(upper) != len(key):
                continue
            spelled = [r.capitalize() for r in reps] + [r.upper() for r in reps]
            out.setdefault(upper, tuple(dict.fromkeys(spelled)))
    return out


#: Every letter or pair of letters with its ASCII spellings, the most common first.
ROMANIZATIONS: dict[str, tuple[str, ...]] = {
    **_LATIN,
    **_with_capitals(_CYRILLIC),
    **_with_capitals(_GREEK),
}
