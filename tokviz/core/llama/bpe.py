"""llama.cpp's BPE over UTF-8 text (its "gpt2" tokenizer when the pre-tokenizer does not byte-encode
the pieces: Gemma 4, Sarvam, whitespace), for tokenizers read from GGUF files.

Each piece starts as its characters; the adjacent pair with the lowest merge rank is merged, the
leftmost first, until no pair has a rank.  A final symbol that is no token becomes the <0xXX>
tokens of its bytes (a byte without one is dropped, as llama.cpp drops it).  With ignore_merges a
piece that is a token is taken whole; the Gemma 4 rule takes a run of newlines whole when it is a
token.
"""
from __future__ import annotations

import heapq

from ...errors import TokvizError
from ..models.base import CachedModel, Token
from ..normalizers import Normalizer
from ..pre_tokenizers import PreTokenizer, split_normalized


class LlamaBPE(CachedModel):
    """llama.cpp's BPE session on UTF-8 pieces (no GPT-2 byte encoding)."""

    kind = "BPE"

    def __init__(self, tokens: list[str], merges: list[str], *, ignore_merges: bool = False,
                 whole_newlines: bool = False, byte_level: bool = False):
        """`byte_level`: the pieces are GPT-2 byte-level text, and a symbol that is no token falls
        back to the one-byte tokens of its ASCII bytes (llama.cpp's lookup of each raw byte)."""
        vocab = {}
        for i, t in enumerate(tokens):
            vocab[t] = i  # (a repeated text: the last id, as llama.cpp's map keeps)
        super().__init__(vocab)
        self.ranks: dict[tuple[str, str], int] = {}
        for rank, merge in enumerate(merges):
            cut = merge.find(" ", 1)
            pair = (merge[:cut], merge[cut + 1:]) if cut >= 0 else ("", "")
            self.ranks.setdefault(pair, rank)  # (llama.cpp's emplace keeps the first)
        self.ignore_merges = ignore_merges
        self.whole_newlines = whole_newlines
        self.byte_level = byte_level
        self.byte_fallback = not byte_level  # (its <0xXX> tokens stand for one byte)

    def describe(self) -> str:
        return "BPE (llama.cpp, UTF-8 symbols, <0xXX> byte fallback)"

    def _tokenize(self, word: str) -> list[Token]:
        vocab = self.vocab
        if not word:
            return []
        whole = vocab.get(word)
        if whole is not None and (self.ignore_merges or (self.whole_newlines and not word.strip("\n"))):
            return [(whole, 0, len(word))]
        starts = list(range(len(word)))
        ends = list(range(1, len(word) + 1))
        nxt = list(range(1, len(word) + 1))
        prv = list(range(-1, len(word) - 1))
        nxt[-1] = -1
        alive = [True] * len(word)
        ranks = self.ranks
        heap: list[tuple[int, int, int, str]] = []

        def push(left: int, right: int) -> None:
            if left < 0 or right < 0:
                return
            a, b = word[starts[left]:ends[left]], word[starts[right]:ends[right]]
            if " " in a or " " in b:
                raise TokvizError(f"the piece {word!r} holds a space next to another character: llama.cpp aborts on "
                                  "this text (its merge lookup asserts that no symbol holds a space)")
            rank = ranks.get((a, b))
            if rank is not None:
                heapq.heappush(heap, (rank, left, right, a + b))

        for k in range(1, len(word)):
            push(k - 1, k)
        while heap:
            _, left, right, joined = heapq.heappop(heap)
            if not (alive[left] and alive[right]) or word[starts[left]:ends[right]] != joined or nxt[left] != right:
                continue
            ends[left] = ends[right]
            alive[right] = False
            nxt[left] = nxt[right]
            if nxt[right] >= 0:
                prv[nxt[right]] = left
            push(prv[left], left)
            push(left, nxt[left])
        out: list[Token] = []
        k = 0
        while k >= 0:
            a, b = starts[k], ends[k]
            piece = word[a:b]
            token = vocab.get(piece)
            if token is not None:
                out.append((token, a, b))
            else:
                for i, c in enumerate(piece):
                    for byte in c.encode("utf-8", "surrogatepass"):
                        if self.byte_level:
                            byte_token = vocab.get(chr(byte)) if byte < 0x80 else None
                        else:
                            byte_token = vocab.get(f"<0x{byte:02X}>")
                        if byte_token is not None:
                            out.append((byte_token, a + i, a + i + 1))
            k = nxt[k]
        return out


class LlamaLowercase(Normalizer):
    """llama.cpp's unicode_tolower on every character (one character each: a lowercase that
    Python spells with several keeps its first)."""

    def normalize(self, ns):
        return ns.with_char_map(_lower_one)

    def describe(self) -> str:
        return "llama.cpp lowercase"


def _lower_one(c: str) -> str:
    low = c.lower()
    return low if len(low) == 1 else low[:1]


class DropWhitespace(PreTokenizer):
    """llama.cpp's "whitespace" tokenizer model: the text cut at each whitespace character (its own
    set), which is dropped."""

    def split(self, ns):
        from .vocab import _WIDE_SPACES

        spans = [(i, i + 1) for i, c in enumerate(ns.text) if c in " \t\n\x0b\x0c\r" or ord(c) in _WIDE_SPACES]
        return split_normalized(ns, spans, "Removed")

    def describe(self) -> str:
        return "llama.cpp whitespace drop"
