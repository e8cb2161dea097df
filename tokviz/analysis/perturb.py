"""Text perturbations for robustness checks: pure, seeded, deterministic functions.

    >>> p = perturb("homoglyph", "Hello world", rate=1.0, seed=0)
    >>> p.text                       # the Latin letters with Cyrillic/Greek look-alikes replaced
    'Неllо ԝоrlԁ'
    >>> p.spans[0]                   # (start, end) in the original -> (start, end) in the new text
    Change(start=0, end=1, new_start=0, new_end=1)

Every perturbation finds the *eligible* units of a text (characters, or for OCR confusions short
letter groups such as "rn", for upper/lower case whole words), changes rate × eligible of them
(rounded half up) picked by a generator seeded with (name, seed), and returns the new text with
the list of changed spans.  The same text, rate and seed always give the same result.

The tables are built from Unicode character names at import (`unicodedata.lookup`), so every code
point is the one its name says; tests/test_robustness.py checks them against the names again.
"""
from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import regex

DEFAULT_RATE = 0.3


class Change(NamedTuple):
    """One replaced span: text[start:end] became new_text[new_start:new_end]."""

    start: int
    end: int
    new_start: int
    new_end: int


@dataclass
class Perturbed:
    """A perturbed text: `text`, the `original`, the changed `spans` (sorted; kept as an array of
    rows (start, end, new_start, new_end), made into Change tuples when asked for) and how many
    units were `eligible` for the perturbation."""

    name: str
    original: str
    text: str
    span_array: np.ndarray = field(repr=False)
    eligible: int

    @property
    def changed(self) -> int:
        return len(self.span_array)

    @property
    def spans(self) -> list[Change]:
        return [Change(*row) for row in self.span_array.tolist()]


# fn(text, rate, generator) -> (new text, span rows, eligible units)
PerturbFn = Callable[[str, float, np.random.Generator], tuple[str, np.ndarray, int]]


def _generator(name: str, seed: int | str) -> np.random.Generator:
    digest = hashlib.blake2b(f"{name}:{seed}".encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return np.random.default_rng(int.from_bytes(digest, "little"))


@dataclass(frozen=True)
class Perturbation:
    name: str
    label: str
    description: str
    fn: PerturbFn

    def __call__(self, text: str, rate: float = DEFAULT_RATE, seed: int | str = 0) -> Perturbed:
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"rate must be between 0 and 1, got {rate}")
        new, spans, eligible = self.fn(text, rate, _generator(self.name, seed))
        return Perturbed(self.name, text, new, spans, eligible)


# ---- the common machinery ------------------------------------------------------------------------

_NO_SPANS = np.zeros((0, 4), np.int64)


def _pick(n: int, rate: float, gen: np.random.Generator) -> np.ndarray:
    """rate * n (rounded half up) indices of range(n), sorted, chosen by `gen`."""
    k = min(n, int(rate * n + 0.5))
    if k == n:
        return np.arange(n)
    return np.sort(gen.choice(n, k, replace=False)) if k else np.zeros(0, np.int64)


def _rebuild(text: str, starts: list[int], ends: list[int], news: list[str]) -> tuple[str, np.ndarray]:
    """`text` with text[starts[k]:ends[k]] replaced by news[k] (sorted, apart), skipping those that
    do not change, and the span rows of the changes."""
    out: list[str] = []
    rows: list[tuple[int, int, int, int]] = []
    pos = 0
    shift = 0  # new position - old position
    for start, end, new in zip(starts, ends, news):
        if new == text[start:end]:
            continue
        out.append(text[pos:start])
        out.append(new)
        rows.append((start, end, start + shift, start + shift + len(new)))
        shift += len(new) - (end - start)
        pos = end
    out.append(text[pos:])
    return "".join(out), (np.array(rows, np.int64) if rows else _NO_SPANS)


def _units_perturbation(units: Callable[[str], list[tuple[int, int]]],
                        replace: Callable[[str, np.random.Generator], str]) -> PerturbFn:
    """A perturbation of the spans `units(text)` finds: each chosen one becomes `replace(its text, gen)`."""

    def fn(text: str, rate: float, gen: np.random.Generator):
        spans = units(text)
        chosen = _pick(len(spans), rate, gen).tolist()
        starts = [spans[k][0] for k in chosen]
        ends = [spans[k][1] for k in chosen]
        new, rows = _rebuild(text, starts, ends, [replace(text[a:b], gen) for a, b in zip(starts, ends)])
        return new, rows, len(spans)

    return fn


def _char_class(chars) -> regex.Pattern:
    return regex.compile("[" + "".join(regex.escape(c) for c in sorted(chars)) + "]")


def _table_perturbation(table: dict[str, str] | dict[str, tuple[str, ...]]) -> PerturbFn:
    """A perturbation that replaces single characters by their entry in `table` (one of several
    entries, picked by the generator)."""
    options = {k: (v,) if isinstance(v, str) else tuple(v) for k, v in table.items()}
    keys = np.array([ord(k) for k in options], np.int64)
    size = int(keys.max()) + 2  # (the last entry, not a key, stands for every larger code point)
    is_key = np.zeros(size, bool)
    is_key[keys] = True
    one_for_one = all(len(v) == 1 for vs in options.values() for v in vs)
    if one_for_one:  # code point -> its options' code points (a row per key), and how many
        width = max(len(vs) for vs in options.values())
        choice = np.zeros((size, width), np.uint32)
        count = np.ones(size, np.int64)
        for k, vs in options.items():
            choice[ord(k), :len(vs)] = [ord(v) for v in vs]
            count[ord(k)] = len(vs)

    def fn(text: str, rate: float, gen: np.random.Generator):
        # (on the code points as an array: no Python object per character)
        codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), np.uint32)
        positions = np.flatnonzero(is_key[np.minimum(codes, size - 1)])
        chosen = positions[_pick(len(positions), rate, gen)]
        if not len(chosen):
            return text, _NO_SPANS, len(positions)
        if one_for_one:
            key = codes[chosen]
            which = (gen.random(len(chosen)) * count[key]).astype(np.int64) if width > 1 else 0
            new_codes = codes.copy()
            new_codes[chosen] = choice[key, which]
            rows = np.repeat(chosen[:, None], 4, axis=1) + np.array([0, 1, 0, 1])
            return new_codes.tobytes().decode("utf-32-le", "surrogatepass"), rows, len(positions)
        at = chosen.tolist()
        news = [vs[int(gen.random() * len(vs))] if len(vs := options[text[i]]) > 1 else vs[0] for i in at]
        new, rows = _rebuild(text, at, [i + 1 for i in at], news)
        return new, rows, len(positions)

    return fn


# ---- homoglyphs ----------------------------------------------------------------------------------

# Latin letter -> the Unicode name of a Cyrillic or Greek letter drawn the same way in common fonts.
_HOMOGLYPH_NAMES = {
    "a": "CYRILLIC SMALL LETTER A", "c": "CYRILLIC SMALL LETTER ES", "d": "CYRILLIC SMALL LETTER KOMI DE",
    "e": "CYRILLIC SMALL LETTER IE", "h": "CYRILLIC SMALL LETTER SHHA",
    "i": "CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I", "j": "CYRILLIC SMALL LETTER JE",
    "o": "CYRILLIC SMALL LETTER O", "p": "CYRILLIC SMALL LETTER ER", "q": "CYRILLIC SMALL LETTER QA",
    "s": "CYRILLIC SMALL LETTER DZE", "w": "CYRILLIC SMALL LETTER WE", "x": "CYRILLIC SMALL LETTER HA",
    "y": "CYRILLIC SMALL LETTER U", "v": "GREEK SMALL LETTER NU",
    "A": "CYRILLIC CAPITAL LETTER A", "B": "CYRILLIC CAPITAL LETTER VE", "C": "CYRILLIC CAPITAL LETTER ES",
    "E": "CYRILLIC CAPITAL LETTER IE", "H": "CYRILLIC CAPITAL LETTER EN",
    "I": "CYRILLIC CAPITAL LETTER BYELORUSSIAN-UKRAINIAN I", "J": "CYRILLIC CAPITAL LETTER JE",
    "K": "CYRILLIC CAPITAL LETTER KA", "M": "CYRILLIC CAPITAL LETTER EM", "O": "CYRILLIC CAPITAL LETTER O",
    "P": "CYRILLIC CAPITAL LETTER ER", "S": "CYRILLIC CAPITAL LETTER DZE", "T": "CYRILLIC CAPITAL LETTER TE",
    "X": "CYRILLIC CAPITAL LETTER HA", "Y": "CYRILLIC CAPITAL LETTER STRAIGHT U",
    "N": "GREEK CAPITAL LETTER NU", "Z": "GREEK CAPITAL LETTER ZETA",
}
HOMOGLYPHS: dict[str, str] = {k: unicodedata.lookup(v) for k, v in _HOMOGLYPH_NAMES.items()}


# ---- mathematical styled letters -----------------------------------------------------------------

_DIGIT_NAMES = ("ZERO", "ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE")
# Letters the Mathematical Alphanumeric Symbols block leaves out because an older character has them
_STYLE_HOLES = {"ITALIC SMALL H": "PLANCK CONSTANT"}
STYLES = {"bold": "BOLD", "italic": "ITALIC", "sans": "SANS-SERIF", "mono": "MONOSPACE"}


def _styled_table(style: str) -> dict[str, str]:
    table = {}
    for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz":
        key = f"{style} {'CAPITAL' if c.isupper() else 'SMALL'} {c.upper()}"
        try:
            table[c] = unicodedata.lookup(f"MATHEMATICAL {key}")
        except KeyError:
            table[c] = unicodedata.lookup(_STYLE_HOLES[key])
    for d, name in enumerate(_DIGIT_NAMES):  # (italic has no digits)
        try:
            table[str(d)] = unicodedata.lookup(f"MATHEMATICAL {style} DIGIT {name}")
        except KeyError:
            pass
    return table


STYLED: dict[str, dict[str, str]] = {k: _styled_table(v) for k, v in STYLES.items()}


# ---- full-width forms ----------------------------------------------------------------------------

FULLWIDTH: dict[str, str] = {chr(c): chr(c + 0xFEE0) for c in range(0x21, 0x7F)}


# ---- diacritics ----------------------------------------------------------------------------------

_MARKS = "\u0301\u0300\u0308\u0302\u0303\u030c\u030a\u0327\u0304\u0306\u0307\u0328\u0323\u030b"


def _accented_table() -> dict[str, tuple[str, ...]]:
    """ASCII letter -> the precomposed letters that are it with one combining mark."""
    table = {}
    for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz":
        forms = tuple(f for m in _MARKS if len(f := unicodedata.normalize("NFC", c + m)) == 1)
        if forms:
            table[c] = forms
    return table


ACCENTED: dict[str, tuple[str, ...]] = _accented_table()

# Letters with a stroke or bar: no canonical decomposition, but a diacritic all the same
_STROKED = {"ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "ħ": "h", "Ħ": "H"}
_SCRIPTS = ("LATIN ", "GREEK ", "CYRILLIC ")


def _plain_table() -> dict[str, str]:
    """Precomposed Latin/Greek/Cyrillic letter -> its base letter (canonical decomposition minus
    combining marks), and the stroked letters."""
    table = dict(_STROKED)
    for cp in range(0xC0, 0x2000):
        c = chr(cp)
        d = unicodedata.normalize("NFD", c)
        if len(d) < 2 or not d[0].isalpha() or not unicodedata.name(c, "").startswith(_SCRIPTS):
            continue
        if all(unicodedata.category(m) == "Mn" for m in d[1:]):
            table[c] = d[0]
    return table


PLAIN: dict[str, str] = _plain_table()
_STRIP = regex.compile(_char_class(PLAIN).pattern + r"\p{Mn}*|\p{Mn}+")
_MARKED_SCRIPT = regex.compile(r"[\p{Latin}\p{Greek}\p{Cyrillic}]")


def _accent_units(text: str) -> list[tuple[int, int]]:
    # (marks standing after a letter of another script, as a Devanagari vowel sign, are not accents)
    return [m.span() for m in _STRIP.finditer(text)
            if m.group()[0] in PLAIN or (m.start() > 0 and _MARKED_SCRIPT.match(text, m.start() - 1))]


_remove_diacritics = _units_perturbation(_accent_units, lambda s, gen: PLAIN.get(s[0], ""))


# ---- case ----------------------------------------------------------------------------------------

_WORD = regex.compile(r"\p{L}+")


def _word_case(to_upper: bool) -> PerturbFn:
    convert = str.upper if to_upper else str.lower

    def units(text: str) -> list[tuple[int, int]]:
        return [m.span() for m in _WORD.finditer(text) if convert(m.group()) != m.group()]

    return _units_perturbation(units, lambda s, gen: convert(s))


_swap_case = None
# The code points of every letter that has a case (Unicode 15: Latin, Greek, Coptic, Cyrillic,
# Armenian, Georgian, Cherokee, Glagolitic, full-width Latin, Deseret, Osage, Vithkuqi, Old
# Hungarian, Warang Citi, Medefaidrin, Adlam); tests check it against a scan of all of them.
_CASED_RANGES = ((0x41, 0x600), (0x10A0, 0x1100), (0x13A0, 0x1400), (0x1C80, 0x1CC0), (0x1D00, 0x2000),
                 (0x2100, 0x2200), (0x2C00, 0x2D30), (0xA640, 0xA800), (0xAB30, 0xABC0), (0xFF21, 0xFF5B),
                 (0x10400, 0x10500), (0x10570, 0x105C0), (0x10C80, 0x10D00), (0x118A0, 0x118E0),
                 (0x16E40, 0x16E80), (0x1E900, 0x1E950))


def _swap_table() -> dict[str, str]:
    """Letter -> the other case, for the letters whose case swaps one for one and back (ß -> SS is
    a spelling change, not a case change)."""
    table = {}
    for cp in (cp for lo, hi in _CASED_RANGES for cp in range(lo, hi)):
        c = chr(cp)
        w = c.swapcase()
        if w != c and len(w) == 1 and w.swapcase() == c and unicodedata.category(c) in ("Lu", "Ll"):
            table[c] = w
    return table


def _random_case(text: str, rate: float, gen: np.random.Generator):
    global _swap_case
    if _swap_case is None:  # (built on first use: a scan of the code points that import need not pay)
        _swap_case = _table_perturbation(_swap_table())
    return _swap_case(text, rate, gen)


# ---- OCR confusions ------------------------------------------------------------------------------

# What a scanner reads one glyph (or glyph pair) as; longer patterns match first.
OCR_CONFUSIONS: dict[str, tuple[str, ...]] = {
    "rn": ("m",), "cl": ("d",), "vv": ("w",), "li": ("h",), "ri": ("n",),
    "m": ("rn",), "d": ("cl",), "w": ("vv",), "h": ("li",),
    "l": ("1", "I"), "I": ("l", "1"), "1": ("l", "I"), "O": ("0",), "0": ("O",), "o": ("0",),
    "e": ("c",), "c": ("e",), "S": ("5",), "5": ("S",), "B": ("8",), "8": ("B",),
    "Z": ("2",), "g": ("9",), "u": ("v",), "n": ("h",),
}
_OCR = regex.compile("|".join(regex.escape(k) for k in sorted(OCR_CONFUSIONS, key=len, reverse=True)))


def _ocr_replace(s: str, gen: np.random.Generator) -> str:
    options = OCR_CONFUSIONS[s]
    return options[int(gen.random() * len(options))] if len(options) > 1 else options[0]


_ocr = _units_perturbation(lambda text: [m.span() for m in _OCR.finditer(text)], _ocr_replace)


# ---- LaTeX ---------------------------------------------------------------------------------------

# combining mark -> LaTeX accent command (a symbol command takes the letter directly: \'e)
LATEX_ACCENTS = {
    "\u0301": "\\'", "\u0300": "\\`", "\u0302": "\\^", "\u0308": '\\"', "\u0303": "\\~", "\u0304": "\\=",
    "\u0307": "\\.", "\u0327": "\\c", "\u030c": "\\v", "\u0306": "\\u", "\u030a": "\\r", "\u030b": "\\H",
    "\u0328": "\\k", "\u0323": "\\d",
}
LATEX_LETTERS = {"ß": "\\ss{}", "æ": "\\ae{}", "Æ": "\\AE{}", "œ": "\\oe{}", "Œ": "\\OE{}", "ø": "\\o{}",
                 "Ø": "\\O{}", "ł": "\\l{}", "Ł": "\\L{}", "ı": "\\i{}"}
LATEX_SPECIALS = {"&": "\\&", "%": "\\%", "$": "\\$", "#": "\\#", "_": "\\_", "{": "\\{", "}": "\\}",
                  "~": "\\textasciitilde{}", "^": "\\textasciicircum{}", "\\": "\\textbackslash{}"}
_GREEK_CAPITALS = {"GAMMA", "DELTA", "THETA", "LAMDA", "XI", "PI", "SIGMA", "UPSILON", "PHI", "PSI", "OMEGA"}
LATEX_SYMBOLS = {
    "×": "\\times", "÷": "\\div", "±": "\\pm", "≤": "\\leq", "≥": "\\geq", "≠": "\\neq", "≈": "\\approx",
    "≡": "\\equiv", "∞": "\\infty", "→": "\\to", "←": "\\leftarrow", "⇒": "\\Rightarrow", "⇔": "\\Leftrightarrow",
    "∑": "\\sum", "∏": "\\prod", "∫": "\\int", "√": "\\sqrt{}", "∈": "\\in", "∉": "\\notin", "⊂": "\\subset",
    "∪": "\\cup", "∩": "\\cap", "∀": "\\forall", "∃": "\\exists", "∂": "\\partial", "∇": "\\nabla",
    "·": "\\cdot", "°": "^\\circ", "²": "^2", "³": "^3", "¹": "^1", "½": "\\frac{1}{2}", "…": "\\ldots",
    "∅": "\\emptyset", "¬": "\\neg", "∧": "\\wedge", "∨": "\\vee",
}


def _latex_table() -> dict[str, str]:
    table = dict(LATEX_SPECIALS)
    table.update(LATEX_LETTERS)
    for c, cmd in LATEX_SYMBOLS.items():
        table[c] = f"${cmd}$"
    for cp in range(0x391, 0x3CA):  # Greek letters in math mode
        name = unicodedata.name(chr(cp), "")
        word = name.rsplit(" ", 1)[-1]
        if not name.startswith("GREEK ") or " WITH " in name or word == "OMICRON" or cp == 0x3C2:
            continue  # (omicron is a Latin o in LaTeX; final sigma has no command)
        cmd = "lambda" if word == "LAMDA" else word.lower()
        if "CAPITAL" in name:
            if word not in _GREEK_CAPITALS:
                continue  # (a capital alpha, beta... is a Latin capital in LaTeX)
            cmd = cmd.capitalize()
        table[chr(cp)] = f"$\\{cmd}$"
    for cp in range(0xC0, 0x250):  # Latin letters with one accent LaTeX writes as a command
        c = chr(cp)
        d = unicodedata.normalize("NFD", c)
        if len(d) == 2 and d[0].isascii() and d[1] in LATEX_ACCENTS:
            cmd = LATEX_ACCENTS[d[1]]
            base = "\\i" if d[0] == "i" else d[0]
            table[c] = f"{cmd}{base}" if not cmd[1].isalpha() and base != "\\i" else f"{cmd}{{{base}}}"
    return table


LATEX: dict[str, str] = _latex_table()


# ---- the catalogue -------------------------------------------------------------------------------

PERTURBATIONS: dict[str, Perturbation] = {
    p.name: p
    for p in (
        Perturbation("homoglyph", "homoglyphs", "Latin letters replaced by Cyrillic/Greek look-alikes",
                     _table_perturbation(HOMOGLYPHS)),
        *(Perturbation(f"styled-{k}", f"math {k}", f"letters and digits as mathematical {STYLES[k].lower()} "
                       "alphanumerics", _table_perturbation(STYLED[k])) for k in STYLES),
        Perturbation("fullwidth", "full-width", "ASCII as full-width forms (ＡＢＣ１２３！)",
                     _table_perturbation(FULLWIDTH)),
        Perturbation("diacritics-add", "+diacritics", "ASCII letters given an accent (e → é, è, ë...)",
                     _table_perturbation(ACCENTED)),
        Perturbation("diacritics-remove", "−diacritics", "accents removed (é → e, ø → o)", _remove_diacritics),
        Perturbation("upper", "UPPER", "words in upper case", _word_case(True)),
        Perturbation("lower", "lower", "words in lower case", _word_case(False)),
        Perturbation("random-case", "rAnDoM case", "letters' case swapped at random", _random_case),
        Perturbation("ocr", "OCR typos", "OCR confusions: rn↔m, cl↔d, l↔1, O↔0, e↔c...", _ocr),
        Perturbation("latex", "LaTeX", "LaTeX escapes: accents (\\'e), special characters (\\&), math "
                     "($\\alpha$, $\\leq$)", _table_perturbation(LATEX)),
    )
}


def perturbation(name: str) -> Perturbation:
    try:
        return PERTURBATIONS[name]
    except KeyError:
        raise ValueError(f"unknown perturbation {name!r}: choose from {', '.join(PERTURBATIONS)}") from None


def perturb(name: str, text: str, rate: float = DEFAULT_RATE, seed: int | str = 0) -> Perturbed:
    """Apply the perturbation called `name` (see PERTURBATIONS) to `text`."""
    return perturbation(name)(text, rate, seed)
