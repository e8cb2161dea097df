"""WordLevel: each pre-tokenized piece is one token, or the unknown token."""
from __future__ import annotations

from ...errors import TokvizError
from .base import Model, Token


class WordLevel(Model):
    kind = "WordLevel"

    def __init__(self, vocab: dict[str, int], *, unk_token: str = "<unk>"):
        super().__init__(vocab)
        self.unk_token = unk_token

    def tokenize(self, text: str) -> list[Token]:
        id = self.vocab.get(text)
        if id is None:
            id = self.vocab.get(self.unk_token)
            if id is None:
                raise TokvizError(f"WordLevel cannot encode {text!r}: unknown token {self.unk_token!r} is not in the vocabulary")
        return [(id, 0, len(text))]
