"""llama.cpp's "hybriddna" tokenizer (GGUF tokenizer.ggml.model "hybriddna"): BPE for text, and
the DNA between <dna> and </dna> cut into k-mers of 6 letters.

In each text fragment (special tokens already cut out) every "<dna>" starts a DNA run that ends at
the next "</dna>" (or the end of the fragment, which then ends the fragment's tokens): the tags are
their tokens, the run is read in 6-byte chunks (ASCII letters uppercased, the last chunk padded
with 'A'), and each chunk is the token whose text is the chunk followed by U+E000, or <oov>.  The
text outside runs goes through the pre-tokenizer name's BPE.  Without the three tokens <dna>,
</dna> and <oov> it is that BPE alone.
"""
from __future__ import annotations

from ..bytelevel import bytes_to_unicode
from ..models.base import Model, Token

K = 6
KMER_MARKER = "\ue000"


class HybridDNA(Model):
    """`pre_tokenizer` (llama.cpp's regexes for the name) and `bpe` (a LlamaBPE, byte-level when
    `byte_level`) tokenize the text outside DNA runs."""

    kind = "BPE + DNA k-mers"

    def __init__(self, tokens: list[str], pre_tokenizer, bpe, *, byte_level: bool):
        vocab = {}
        for i, t in enumerate(tokens):
            vocab[t] = i
        super().__init__(vocab)
        self.pre_tokenizer = pre_tokenizer
        self.bpe = bpe
        self.byte_level = byte_level
        self.tags = tuple(vocab.get(t) for t in ("<dna>", "</dna>", "<oov>"))

    def describe(self) -> str:
        return "BPE with DNA k-mers between <dna> tags (llama.cpp hybriddna)"

    def tokenize(self, text: str) -> list[Token]:
        begin, end, oov = self.tags
        if begin is None or end is None or oov is None:
            return self._text(text, 0)
        out: list[Token] = []
        pos = 0
        while pos < len(text):
            start = text.find("<dna>", pos)
            if start < 0:
                out += self._text(text[pos:], pos)
                break
            if start > pos:
                out += self._text(text[pos:start], pos)
            out.append((begin, start, start + 5))
            close = text.find("</dna>", start + 5)
            stop = len(text) if close < 0 else close
            out += self._kmers(text[start + 5:stop], start + 5, oov)
            if close < 0:
                break
            out.append((end, close, close + 6))
            pos = close + 6
        return out

    def _kmers(self, seq: str, offset: int, oov: int) -> list[Token]:
        data = seq.encode("utf-8", "surrogatepass").translate(_UPPER)
        char_of = []
        for i, c in enumerate(seq):
            char_of.extend([offset + i] * len(c.encode("utf-8", "surrogatepass")))
        out = []
        for a in range(0, len(data), K):
            chunk = data[a:a + K]
            b = a + len(chunk)
            chunk += b"A" * (K - len(chunk))
            try:
                token = self.vocab.get(chunk.decode("utf-8") + KMER_MARKER, oov)
            except UnicodeDecodeError:
                token = oov
            out.append((token, char_of[a], char_of[b - 1] + 1))
        return out

    def _text(self, text: str, offset: int) -> list[Token]:
        out: list[Token] = []
        for piece, (a, _b) in self.pre_tokenizer.pre_tokenize_str(text):
            if not self.byte_level:
                out.extend((t, offset + a + s, offset + a + e) for t, s, e in self.bpe.tokenize(piece))
                continue
            char_of = []
            for i, c in enumerate(piece):
                char_of.extend([i] * len(c.encode("utf-8", "surrogatepass")))
            encoded = bytes_to_unicode(piece.encode("utf-8", "surrogatepass"))
            for t, s, e in self.bpe.tokenize(encoded):
                out.append((t, offset + a + char_of[s], offset + a + char_of[e - 1] + 1))
        return out


_UPPER = bytes.maketrans(bytes(range(0x61, 0x7B)), bytes(range(0x41, 0x5B)))
