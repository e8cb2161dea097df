"""WordPiece: greedy longest match from the left, later pieces marked with a prefix ("##")."""
from __future__ import annotations

from functools import cached_property

from .base import BoundedCache, Model, Token


class WordPiece(Model):
    kind = "WordPiece"

    def __init__(
        self,
        vocab: dict[str, int],
        *,
        unk_token: str = "[UNK]",
        continuing_subword_prefix: str = "##",
        max_input_chars_per_word: int = 100,
    ):
        super().__init__(vocab)
        self.unk_token = unk_token
        self.prefix = continuing_subword_prefix
        self.max_input_chars_per_word = max_input_chars_per_word
        self._cache = BoundedCache()

    @cached_property
    def max_token_chars(self) -> int:
        """Length of the longest token: no match is tried beyond it (computed on first encode)."""
        return max(map(len, self.vocab), default=1)

    def _unknown(self, word: str) -> list[Token]:
        unk = self.vocab.get(self.unk_token)
        if unk is None:
            from ...errors import TokvizError

            raise TokvizError(f"WordPiece cannot encode {word!r}: its unknown token {self.unk_token!r} is not in the vocabulary")
        return [(unk, 0, len(word))]

    def tokenize(self, word: str) -> list[Token]:
        cached = self._cache.get(word)
        if cached is not None:
            return cached
        if len(word) > self.max_input_chars_per_word:
            return self._unknown(word)
        vocab = self.vocab
        out: list[Token] = []
        start = 0
        n = len(word)
        while start < n:
            end = min(n, start + self.max_token_chars)
            found = None
            while end > start:
                piece = word[start:end]
                if start:
                    piece = self.prefix + piece
                found = vocab.get(piece)
                if found is not None:
                    break
                end -= 1
            if found is None:
                out = self._unknown(word)
                break
            out.append((found, start, end))
            start = end
        self._cache.put(word, out)
        return out

    def describe(self):
        return f"WordPiece, prefix {self.prefix!r}, unk {self.unk_token!r}"
