"""llama.cpp's "test" tokenizer (GGUF tokenizer.ggml.model "test"): not a learned tokenizer but a
stand-in for its own tests.  Each text fragment is cut into chunks of 5 bytes, and each chunk's id
is a hash of its bytes (h = h * 31 + byte, over 64 bits) modulo the vocabulary size.
"""
from __future__ import annotations

from ..models.base import Model, Token

CHUNK = 5


class HashChunks(Model):
    kind = "hash"

    def __init__(self, tokens: list[str]):
        vocab = {}
        for i, t in enumerate(tokens):
            vocab.setdefault(t, i)
        super().__init__(vocab)
        self.size = len(tokens)

    def describe(self) -> str:
        return "llama.cpp test tokenizer (hashes of 5-byte chunks)"

    def tokenize(self, text: str) -> list[Token]:
        data = text.encode("utf-8", "surrogatepass")
        char_of = []
        for i, c in enumerate(text):
            char_of.extend([i] * len(c.encode("utf-8", "surrogatepass")))
        out: list[Token] = []
        for a in range(0, len(data), CHUNK):
            h = 0
            for byte in data[a:a + CHUNK]:
                h = (h * 31 + byte) & 0xFFFFFFFFFFFFFFFF
            b = min(a + CHUNK, len(data))
            out.append((h % self.size, char_of[a], char_of[b - 1] + 1))
        return out
