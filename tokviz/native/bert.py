"""BERT's normalizer and pre-tokenizer on a fast path, in front of the C WordPiece model.

BertNormalizer (clean text, pad CJK characters with spaces, strip accents, lower-case) and
BertPreTokenizer (cut at white space, isolate punctuation) are, on almost every text, a rule per
character.  So the normalized text is one `str.translate` over a table filled from the reference
normalizer character by character, each output character points at the character it came from,
and the words are cut by one regex.  Where that would differ from the reference — a combining mark
(the reference gives a base character the span of its whole cluster) or a capital sigma (lower-
casing depends on what follows) — the text goes through the reference classes instead.

    >>> tok = tokviz.load("bert-minilm/tokenizer.json")
    >>> tok.native_encoder().describe()
    'native WordPiece model, BERT normalizer and pre-tokenizer on a fast path'
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import regex

from ..core.normalized import NormalizedString
from ..core.unicode import WHITE_SPACE, is_punctuation
from . import NativeModel

# what per-character normalization cannot reproduce (see the module docstring)
_CONTEXT = regex.compile(r"[\p{M}\u03a3]")


@dataclass
class _Piece:
    """A word for NativeModel._run: its text and where its characters are in the original text
    (`base` + position when they map one to one, else per-character `starts` / `ends`)."""

    text: str
    base: int
    starts: list[int] | None = None
    ends: list[int] | None = None


class _Table(dict):
    """str.translate table: each character -> what the reference normalizer makes of it."""

    def __init__(self, normalizer):
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


_PUNCT = r"\p{P}!-/:-@\[-`{-~"  # BERT's punctuation: Unicode P* and the ASCII symbols


@lru_cache(maxsize=1)
def _word_pattern() -> tuple[regex.Pattern, regex.Pattern | None]:
    """BertPreTokenizer as one regex (runs of anything but white space and punctuation, or one
    punctuation mark), and a regex of the characters where the `regex` module's Unicode tables
    disagree with `unicodedata`'s, which the reference uses (characters a newer Unicode version
    assigned): a text holding one goes through the reference.  Built on first use (about 0.4 s,
    once per process: it compares both tables over every code point)."""
    spaces = "".join(f"\\U{ord(c):08x}" for c in sorted(WHITE_SPACE))
    words = regex.compile(f"[^{spaces}{_PUNCT}]+|[{_PUNCT}]")
    everything = "".join(map(chr, range(0x110000)))
    theirs = {m.start() for m in regex.finditer(f"[{_PUNCT}]", everything)}
    ours = {k for k, c in enumerate(everything) if is_punctuation(c)}
    odd = sorted(theirs ^ ours)
    disagree = regex.compile("[" + "".join(f"\\U{k:08x}" for k in odd) + "]") if odd else None
    return words, disagree


class NativeBert(NativeModel):
    """NativeModel for a WordPiece tokenizer whose normalizer is BertNormalizer and whose
    pre-tokenizer is BertPreTokenizer: it takes raw text (`normalizes`) and does both itself."""

    normalizes = True

    def __init__(self, model, normalizer, pre_tokenizer):
        super().__init__(model, pre_tokenizer, "WordPiece")
        self.normalizer = normalizer
        self._table = _Table(normalizer)
        self._one_to_one = _OneToOne(self._table)

    def describe(self) -> str:
        return "native WordPiece model, BERT normalizer and pre-tokenizer on a fast path"

    def _pieces(self, segments):
        pieces = []
        per_segment = []
        for seg in segments:
            got = self._words(seg)
            pieces.extend(got)
            per_segment.append(len(got))
        return pieces, per_segment

    def _words(self, seg: NormalizedString) -> list:
        text = seg.text
        words_re, disagree = _word_pattern()
        if not seg.is_identity or _CONTEXT.search(text) or (disagree is not None and disagree.search(text)):
            normalized = self.normalizer.normalize(seg)
            return [p for p in self.pre_tokenizer.pre_tokenize([normalized]) if p.text]
        out = text.translate(self._table)
        base = seg.base
        words = words_re.finditer(out)
        if not text.translate(self._one_to_one):  # every character stays one character
            return [_Piece(m.group(), base + m.start()) for m in words]
        origin = []
        for k, c in enumerate(text):
            origin.extend([base + k] * len(self._table[ord(c)]))
        return [
            _Piece(m.group(), -1, origin[m.start():m.end()], [o + 1 for o in origin[m.start():m.end()]])
            for m in words
        ]
