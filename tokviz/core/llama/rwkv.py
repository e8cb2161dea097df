"""llama.cpp's RWKV tokenizer (GGUF tokenizer.ggml.model "rwkv"): greedy longest match over bytes.

The GGUF file stores each RWKV token as text with escapes (\\t \\n \\r, \\xHH, a backslash before
any other character standing for that character); llama.cpp unescapes them into a byte trie, and
cuts the UTF-8 text from left to right into the longest token that matches there.  A byte no
token starts with is the unknown token.  `GreedyBytes` is that algorithm over any byte vocabulary.
"""
from __future__ import annotations

from ...errors import TokvizError
from ..models.base import CachedModel, Token


def unescape_rwkv(text: str) -> bytes:
    """A token's bytes from its escaped GGUF text, as llama.cpp's llama_unescape_rwkv_token reads
    it (hex digits read as lowercase ones: 'A' counts as 'A' - '0')."""
    out = bytearray()
    escaping = False
    hex_left = acc = 0
    for c in text.encode("utf-8"):
        if hex_left:
            value = c - 0x61 + 10 if c >= 0x61 else c - 0x30
            acc = ((acc << 4) + value) & 0xFF
            hex_left -= 1
            if not hex_left:
                out.append(acc)
                acc = 0
            continue
        if escaping:
            escaping = False
            if c == 0x74:
                out.append(0x09)
            elif c == 0x6E:
                out.append(0x0A)
            elif c == 0x72:
                out.append(0x0D)
            elif c == 0x78:
                hex_left = 2
            else:
                out.append(c)
            continue
        if c == 0x5C:
            escaping = True
            continue
        out.append(c)
    return bytes(out)


class GreedyBytes(CachedModel):
    """Greedy longest match over the UTF-8 bytes of each piece (llama.cpp's RWKV session).
    `token_bytes[i]` are token i's bytes; a later token with the same bytes wins, as in
    llama.cpp's trie.  Spans cover the characters a token's bytes touch."""

    kind = "RWKV"

    def __init__(self, tokens: list[str], token_bytes: list[bytes], unk_id: int | None):
        vocab = {}
        for i, t in enumerate(tokens):
            vocab.setdefault(t, i)
        super().__init__(vocab)
        self.by_bytes: dict[bytes, int] = {}
        self.prefixes: set[bytes] = set()  # (every prefix of a token: the trie's nodes)
        for i, data in enumerate(token_bytes):
            if data:
                self.by_bytes[data] = i
                for k in range(1, len(data)):
                    self.prefixes.add(data[:k])
        self.unk_id = unk_id
        self.max_len = max(map(len, self.by_bytes), default=1)

    def describe(self) -> str:
        return "greedy longest byte match (llama.cpp RWKV)"

    def _tokenize(self, text: str) -> list[Token]:
        data = text.encode("utf-8", "surrogatepass")
        char_of = []
        for i, c in enumerate(text):
            char_of.extend([i] * len(c.encode("utf-8", "surrogatepass")))
        by_bytes, prefixes = self.by_bytes, self.prefixes
        out: list[Token] = []
        pos, n = 0, len(data)
        while pos < n:
            best = None
            end = pos + 1
            while end <= n and end - pos <= self.max_len:
                piece = data[pos:end]
                token = by_bytes.get(piece)
                if token is not None:
                    best = (token, end)
                elif piece not in prefixes:
                    break
                if token is not None and piece not in prefixes:
                    break
                end += 1
            if best is None:
                if data[pos:pos + 1] in prefixes:
                    raise TokvizError(f"byte 0x{data[pos]:02X} starts tokens but is none itself: llama.cpp does not "
                                      "move on in this text")
                if self.unk_id is None:
                    raise TokvizError(f"byte 0x{data[pos]:02X} starts no token and the file names no unknown token "
                                      "(llama.cpp gives the id -1)")
                best = (self.unk_id, pos + 1)
            token, stop = best
            out.append((token, char_of[pos], char_of[stop - 1] + 1))
            pos = stop
        return out
