"""Character classes as the reference tokenizers define them (Rust's char methods, BERT's rules)."""
from __future__ import annotations

import unicodedata

# Unicode White_Space, which is what Rust's char::is_whitespace uses (Python's isspace adds \x1c-\x1f).
WHITE_SPACE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)

_ASCII_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")

_BERT_CJK = (
    (0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F), (0x2B920, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F),
)


def is_whitespace(c: str) -> bool:
    return c in WHITE_SPACE


def is_control(c: str) -> bool:
    """BERT's control characters: categories Cc, Cf, Co, Cs except tab, newline and carriage return.
    (Unassigned code points, Cn, are kept: HF tokenizers' tables do not list them.)"""
    if c in "\t\n\r":
        return False
    cat = unicodedata.category(c)
    return cat[0] == "C" and cat != "Cn"


def is_numeric(c: str) -> bool:
    """Rust's char::is_numeric (what HF's Digits pre-tokenizer splits on): any N* category, so
    '²', '½', 'Ⅻ' and '٣' as well as 0-9."""
    return unicodedata.category(c)[0] == "N"


def is_punctuation(c: str) -> bool:
    """BERT's punctuation: ASCII punctuation or any Unicode P* category."""
    return c in _ASCII_PUNCT or unicodedata.category(c).startswith("P")


def is_bert_chinese_char(c: str) -> bool:
    o = ord(c)
    return any(a <= o <= b for a, b in _BERT_CJK)
