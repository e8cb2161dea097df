"""What every model (BPE, WordPiece, Unigram) offers the pipeline."""
from __future__ import annotations

from abc import ABC, abstractmethod

# A token found in a piece: (id, start, end), start/end in characters of the piece's text.
Token = tuple[int, int, int]


class Model(ABC):
    """A vocabulary plus the algorithm that cuts one pre-tokenized piece into tokens."""

    kind = "model"

    def __init__(self, vocab: dict[str, int]):
        self.vocab = vocab
        self._id_to_token: list[str | None] | None = None

    @abstractmethod
    def tokenize(self, text: str) -> list[Token]:
        """Tokens of one pre-tokenized piece: (id, start, end) in its characters."""

    def token_to_id(self, token: str) -> int | None:
        return self.vocab.get(token)

    def id_to_token(self, id: int) -> str | None:
        table = self._id_to_token
        if table is None:
            size = max(self.vocab.values(), default=-1) + 1
            table = [None] * size
            for tok, i in self.vocab.items():
                table[i] = tok
            self._id_to_token = table
        return table[id] if 0 <= id < len(table) else None

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def describe(self) -> str:
        return self.kind


class BoundedCache(dict):
    """A dict that forgets everything once it holds `limit` entries (cheap and good enough for
    the skewed distribution of words in text)."""

    def __init__(self, limit: int = 100_000):
        super().__init__()
        self.limit = limit

    def put(self, key, value):
        if len(self) >= self.limit:
            self.clear()
        self[key] = value


class CachedModel(Model):
    """A model whose `_tokenize` is slow enough to remember: each piece's tokens are kept in a
    `BoundedCache` (the lists are shared: callers never change them)."""

    def __init__(self, vocab: dict[str, int]):
        super().__init__(vocab)
        self._cache = BoundedCache()

    def tokenize(self, text: str) -> list[Token]:
        found = self._cache.get(text)
        if found is None:
            found = self._tokenize(text)
            self._cache.put(text, found)
        return found

    @abstractmethod
    def _tokenize(self, text: str) -> list[Token]:
        """Tokens of one piece, computed."""
