"""BERT's WordPiece tokenizers natively: the fast path of tokviz.core.bert_fast (BertNormalizer as
one str.translate, BertPreTokenizer as one regex) in front of the C WordPiece model, each word with
the original span of every character.  Texts the fast path cannot do exactly go through the
reference classes.

    >>> tok = tokviz.load("bert-minilm/tokenizer.json")
    >>> tok.native_encoder().describe()
    'native WordPiece model, BERT normalizer and pre-tokenizer on a fast path'
"""
from __future__ import annotations

from dataclasses import dataclass

from ..core.bert_fast import BertFastPath, bert_word_pattern
from ..core.normalized import NormalizedString
from . import NativeModel


@dataclass
class _Piece:
    """A word for NativeModel._run: its text and where its characters are in the original text
    (`base` + position when they map one to one, else per-character `starts` / `ends`)."""

    text: str
    base: int
    starts: list[int] | None = None
    ends: list[int] | None = None


class NativeBert(NativeModel):
    """NativeModel for a WordPiece tokenizer whose normalizer is BertNormalizer and whose
    pre-tokenizer is BertPreTokenizer: it takes raw text (`normalizes`) and does both itself."""

    normalizes = True

    def __init__(self, model, normalizer, pre_tokenizer):
        super().__init__(model, pre_tokenizer, "WordPiece")
        self.normalizer = normalizer
        self.fast = BertFastPath(normalizer)

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
        if not seg.is_identity or self.fast.needs_reference(text):
            normalized = self.normalizer.normalize(seg)
            return [p for p in self.pre_tokenizer.pre_tokenize([normalized]) if p.text]
        table = self.fast.table
        out = text.translate(table)
        base = seg.base
        words = bert_word_pattern()[0].finditer(out)
        if self.fast.keeps_positions(text):
            return [_Piece(m.group(), base + m.start()) for m in words]
        origin = []
        for k, c in enumerate(text):
            origin.extend([base + k] * len(table[ord(c)]))
        return [
            _Piece(m.group(), -1, origin[m.start():m.end()], [o + 1 for o in origin[m.start():m.end()]])
            for m in words
        ]
