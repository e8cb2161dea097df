"""Greedy longest match over bytes: from the start of the text, take the longest token its bytes
begin with, then go on after it (RWKV's "world" tokenizer, TRIE_TOKENIZER in the rwkv package).

No merges and no scores: the vocabulary alone decides.  Tokens are held as byte-level strings
(each byte one character, as tiktoken vocabularies are), so a token may be any bytes, UTF-8 or not.
"""
from __future__ import annotations

import numpy as np

from ...errors import TokvizError
from ..bytelevel import unicode_to_bytes
from .base import Model, Token


class LongestMatch(Model):
    """`vocab`: byte-level token string -> id.  The empty token, if any, is never matched."""

    kind = "LongestMatch"

    def __init__(self, vocab: dict[str, int]):
        super().__init__(vocab)
        # The bytes of every token and every proper prefix of one -> (id + 1, or 0 for a prefix that
        # is no token) * 2 + (1 when a longer token starts with them): one lookup per byte walked.
        steps: dict[bytes, int] = {}
        for token, i in vocab.items():
            data = unicode_to_bytes(token)
            if not data:
                continue
            for k in range(1, len(data)):
                prefix = data[:k]
                steps[prefix] = steps.get(prefix, 0) | 1
            steps[data] = (i + 1) * 2 | (steps.get(data, 0) & 1)
        self._steps = steps

    def tokenize(self, text: str) -> list[Token]:
        data = text.encode("utf-8")
        if text.isascii():
            char_of = None
        else:  # the character each byte belongs to: count the bytes that start a character
            starts = (np.frombuffer(data, dtype=np.uint8) & 0xC0) != 0x80
            char_of = (np.cumsum(starts) - 1).tolist()
        out = []
        for token_id, start, end in self.match_bytes(data):
            if char_of is None:
                out.append((token_id, start, end))
            else:  # (a token that ends inside a character spans all of it, as byte-level pieces do)
                out.append((token_id, char_of[start], char_of[end - 1] + 1))
        return out

    def match_bytes(self, data: bytes) -> list[tuple[int, int, int]]:
        """(id, start, end) of the tokens of `data`, start and end in bytes."""
        get = self._steps.get
        out = []
        append = out.append
        i, n = 0, len(data)
        while i < n:
            best = 0
            j = i + 1
            while j <= n:
                code = get(data[i:j])
                if code is None:
                    break
                if code > 1:
                    best = code >> 1
                    end = j
                if not code & 1:
                    break
                j += 1
            if not best:
                raise TokvizError(f"no token matches the bytes at byte {i} ({data[i:i + 8]!r}...): "
                                  "the vocabulary has no token for them")
            append((best - 1, i, end))
            i = end
        return out

    def describe(self) -> str:
        return f"LongestMatch (greedy longest match over bytes, {len(self.vocab)} tokens)"
