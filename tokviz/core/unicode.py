"""Character classes as the reference tokenizers define them (Rust's char methods, BERT's rules).

HF tokenizers' pre-tokenizers each carry their own Unicode version (Rust's `char` methods, the
`unicode_categories` crate, Oniguruma, a table of scripts), none of them this Python's
`unicodedata`: their classes of numbers, punctuation, word characters and scripts are read off
the library itself (tokviz/native/gen_hf_char_classes.py, stored in hf_char_classes.py).
"""
from __future__ import annotations

import bisect
import unicodedata
from functools import lru_cache

from . import hf_char_classes as _hf

# Unicode White_Space, which is what Rust's char::is_whitespace uses (Python's isspace adds \x1c-\x1f).
WHITE_SPACE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)

_ASCII_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def _ranges(text: str) -> list[tuple[int, int]]:
    out = []
    for item in text.split():
        first, _, last = item.partition("-")
        out.append((int(first, 16), int(last or first, 16)))
    return out


def _chars(text: str) -> frozenset[str]:
    return frozenset(chr(cp) for a, b in _ranges(text) for cp in range(a, b + 1))


_HF_NUMERIC = _chars(_hf.NUMERIC)
_HF_PUNCTUATION = _chars(_hf.PUNCTUATION)
_HF_CONTROL = _chars(_hf.CONTROL)

_BERT_CJK = (
    (0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F), (0x2B920, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F),
)


def is_whitespace(c: str) -> bool:
    return c in WHITE_SPACE


def is_control(c: str) -> bool:
    """BERT's control characters as HF tokenizers' BertNormalizer sees them (clean_text drops them):
    categories Cc, Cf, Co (of its Unicode version) except tab, newline and carriage return."""
    return c in _HF_CONTROL


def is_numeric(c: str) -> bool:
    """Any N* category of this Python's `unicodedata`: '²', '½', 'Ⅻ' and '٣' as well as 0-9."""
    return unicodedata.category(c)[0] == "N"


def hf_is_numeric(c: str) -> bool:
    """Rust's char::is_numeric as HF's Digits pre-tokenizer sees it (any N* category, of the Unicode
    version the library was built with)."""
    return c in _HF_NUMERIC


def is_punctuation(c: str) -> bool:
    """BERT's punctuation as HF tokenizers sees it (Punctuation, BertPreTokenizer): ASCII
    punctuation or a P* category of the Unicode version its `unicode_categories` crate knows."""
    return c in _HF_PUNCTUATION


class _WordClasses(dict):
    """str.translate table: each character -> "a" (a word character), " " (white space) or "!"
    (anything else), as the \\w and \\s of HF's Oniguruma class it; filled on first sight."""

    def __init__(self):
        super().__init__()
        self._word = _range_lookup(_hf.WORD)
        self._space = _range_lookup(_hf.SPACE)

    def __missing__(self, code: int) -> str:
        value = "a" if self._word(code) else (" " if self._space(code) else "!")
        self[code] = value
        return value


def _range_lookup(text: str):
    ranges = _ranges(text)
    starts = [a for a, _ in ranges]

    def contains(cp: int) -> bool:
        k = bisect.bisect_right(starts, cp) - 1
        return k >= 0 and cp <= ranges[k][1]

    return contains


_WORD_CLASSES: _WordClasses | None = None


def hf_word_classes(text: str) -> str:
    """`text` with each character replaced by its class for HF's Whitespace pre-tokenizer (`\\w+|[^\\w\\s]+`
    in Oniguruma): "a" word, " " white space, "!" other; the same length, so that an ASCII regex
    over it finds HF's pieces at the same places."""
    global _WORD_CLASSES
    if _WORD_CLASSES is None:
        _WORD_CLASSES = _WordClasses()
    return text.translate(_WORD_CLASSES)


@lru_cache(maxsize=1)
def _script_table() -> tuple[list[int], list[int], list[str]]:
    spans = sorted((a, b, name) for name, text in _hf.SCRIPTS.items() for a, b in _ranges(text))
    return [a for a, _, _ in spans], [b for _, b, _ in spans], [name for _, _, name in spans]


def hf_script(c: str) -> str:
    """The script HF's UnicodeScripts gives `c` (kana and U+30FC count as Han), "Any" for a
    character its table does not hold (it joins whatever is on either side)."""
    starts, ends, names = _script_table()
    cp = ord(c)
    k = bisect.bisect_right(starts, cp) - 1
    return names[k] if k >= 0 and cp <= ends[k] else "Any"


def is_bert_chinese_char(c: str) -> bool:
    o = ord(c)
    return any(a <= o <= b for a, b in _BERT_CJK)
