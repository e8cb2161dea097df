"""BertNormalizer and BertPreTokenizer on a fast path, for whole texts.

Both are, on almost every text, a rule per character: the normalized text is one `str.translate`
over a table filled from the reference normalizer character by character, and the words are cut
by one regex.  Where that would differ from the reference classes — a combining mark (the
reference gives a base character the span of its whole cluster), a capital sigma (lower-casing
depends on what follows), a character whose punctuation class the `regex` module's Unicode tables
see differently from `unicodedata` — `needs_reference(text)` says so and callers use the classes.
Used by the WordPiece trainer (tokviz/train/wordpiece.py) to count words; encoding with the native
extension does both stages in C instead (tokviz/native/bert.py, src/bert_pre.c).
"""
from __future__ import annotations

from functools import lru_cache

import regex

from .normalizers import BertNormalizer
from .unicode import WHITE_SPACE, is_punctuation

_CONTEXT = regex.compile(r"[\p{M}\u03a3]")
_PUNCT = r"\p{P}!-/:-@\[-`{-~"  # BERT's punctuation: Unicode P* and the ASCII symbols


class _Table(dict):
    """str.translate table: each character -> what the reference normalizer makes of it."""

    def __init__(self, normalizer: BertNormalizer):
        super().__init__()
        self.normalizer = normalizer

    def __missing__(self, code: int) -> str:
        value = self.normalizer.normalize_str(chr(code))
        self[code] = value
        return value


class _OneToOne(dict):
    """str.translate table: '' for a character normalized to exactly one character, else itself;
    a text translated to '' keeps its positions."""

    def __init__(self, table: _Table):
        super().__init__()
        self.table = table

    def __missing__(self, code: int) -> str:
        value = "" if len(self.table[code]) == 1 else chr(code)
        self[code] = value
        return value


@lru_cache(maxsize=1)
def bert_word_pattern() -> tuple[regex.Pattern, regex.Pattern | None]:
    """BertPreTokenizer as one regex (runs of anything but white space and punctuation, or one
    punctuation mark), and a regex of the characters where the `regex` module's Unicode tables
    disagree with `unicodedata`'s, which the reference uses (characters a newer Unicode version
    assigned), or None.  Built on first use (about 0.4 s, once per process: it compares both
    tables over every code point)."""
    spaces = "".join(f"\\U{ord(c):08x}" for c in sorted(WHITE_SPACE))
    words = regex.compile(f"[^{spaces}{_PUNCT}]+|[{_PUNCT}]")
    everything = "".join(map(chr, range(0x110000)))
    theirs = {m.start() for m in regex.finditer(f"[{_PUNCT}]", everything)}
    ours = {k for k, c in enumerate(everything) if is_punctuation(c)}
    odd = sorted(theirs ^ ours)
    disagree = regex.compile("[" + "".join(f"\\U{k:08x}" for k in odd) + "]") if odd else None
    return words, disagree


class BertFastPath:
    """The fast path for one BertNormalizer (whatever its options)."""

    def __init__(self, normalizer: BertNormalizer):
        self.normalizer = normalizer
        self.table = _Table(normalizer)
        self._one_to_one = _OneToOne(self.table)

    @staticmethod
    def needs_reference(text: str) -> bool:
        """True when per-character rules would not give the reference result for `text`."""
        if _CONTEXT.search(text):
            return True
        disagree = bert_word_pattern()[1]
        return disagree is not None and disagree.search(text) is not None

    def normalize_str(self, text: str) -> str:
        """BertNormalizer's text for `text` (exact: the reference where needed)."""
        if self.needs_reference(text):
            return self.normalizer.normalize_str(text)
        return text.translate(self.table)

    def keeps_positions(self, text: str) -> bool:
        """Whether every character of `text` is normalized to exactly one character."""
        return not text.translate(self._one_to_one)
