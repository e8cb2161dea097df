"""llama.cpp's PLaMo-2 tokenizer (GGUF tokenizer.ggml.model "plamo2").

A best-scoring segmentation found from the end of the text backwards over a table of every token
suffix: at each character, the longest suffix string that starts there gives the candidate tokens
(its prefixes that are tokens, longest first), each costing its score times 10^4 rounded to an
integer, and a lone character costs 10^7 and falls back to its <0xXX> byte tokens.  The table is
built and walked as llama.cpp's llm_tokenizer_plamo2 builds and walks it, so its corner cases come
out the same: a token scoring -2000 or less is never chosen, and a row scoring exactly -1000 (the
converter's [PAD] tokens) ends a search as the lone-character row does.
"""
from __future__ import annotations

import math

from ...errors import TokvizError
from ..models.base import CachedModel, Token

INVALID_SCORE = -20_000_000
UNKNOWN_SCORE = -10_000_000


def _scaled(score: float) -> int:
    if not math.isfinite(score):
        return INVALID_SCORE
    x = score * 1e4
    return int(math.floor(x + 0.5)) if x >= 0 else -int(math.floor(-x + 0.5))  # (C's round: half away from 0)


def byte_value(text: str) -> int | None:
    """The byte a byte token written <0xXX> stands for (None for any other text)."""
    if len(text) == 6 and text.startswith("<0x") and text.endswith(">") and all(
            c in "0123456789abcdefABCDEF" for c in text[3:5]):
        return int(text[3:5], 16)
    return None


class PlamoTable(CachedModel):
    """llama.cpp's PLaMo-2 tokenizer over one text fragment."""

    kind = "PLaMo-2"

    def __init__(self, tokens: list[str], scores, is_byte: list[bool]):
        """`is_byte[i]`: whether token i is a byte token (those take no part in the table; each
        byte needs one written <0xXX>)."""
        vocab = {}
        for i, t in enumerate(tokens):
            vocab[t] = i
        super().__init__(vocab)
        byte_ids: dict[int, int] = {}
        for i, (text, flag) in enumerate(zip(tokens, is_byte)):
            value = byte_value(text) if flag else None
            if value is not None:
                byte_ids[value] = i
        missing = [b for b in range(256) if not byte_ids.get(b)]
        if missing:
            raise TokvizError(f"byte token <0x{missing[0]:02X}> is missing (llama.cpp refuses a PLaMo-2 vocabulary "
                              "without all 256, or with one at id 0)")
        self.byte_ids = byte_ids
        byte_tokens = {i for i, flag in enumerate(is_byte) if flag}
        suffix_score: dict[str, float] = {}
        for i, (text, score) in enumerate(zip(tokens, scores)):
            if i in byte_tokens:
                continue
            suffix_score[text] = float(score)
            for k in range(1, len(text)):
                suffix_score.setdefault(text[k:], math.nan)
        suffixes = sorted(suffix_score, key=lambda s: s.encode("utf-8", "surrogatepass")[::-1])
        suffixes.insert(0, "")  # (the empty suffix sorts first)
        suffix_row: dict[str, int] = {}
        self.next_suffix: dict[tuple[int, int], int] = {}
        rows = 0
        for s in suffixes:
            suffix_row[s] = rows
            if s:
                self.next_suffix[(ord(s[0]), suffix_row[s[1:]])] = rows
                rows += 1 + sum(1 for k in range(len(s), 0, -1) if s[:k] in suffix_score)
            else:
                rows += 1
        self.lengths: list[int] = []
        self.token_ids: list[int] = []
        self.scores: list[int] = []
        self.piece_rows: list[int] = []
        for s in suffixes:
            for k in range(len(s), 0, -1):
                piece = s[:k]
                score = suffix_score.get(piece)
                if score is None:
                    continue
                self.lengths.append(k)
                self.token_ids.append(vocab.get(piece, -1))
                self.scores.append(_scaled(score))
                self.piece_rows.append(suffix_row[piece])
            self.lengths.append(1)
            self.token_ids.append(-1)
            self.scores.append(UNKNOWN_SCORE)
            self.piece_rows.append(0)

    def describe(self) -> str:
        return "PLaMo-2 (llama.cpp: suffix table, byte fallback)"

    def _tokenize(self, text: str) -> list[Token]:
        shift = 1 if text.startswith("\ufeff") else 0  # (a byte order mark first is skipped)
        cps = [ord(c) for c in text[shift:]]
        n = len(cps)
        if not n:
            return []
        lengths, token_ids, scores, piece_rows = self.lengths, self.token_ids, self.scores, self.piece_rows
        rows = len(lengths)
        best = [1 << 60] * (n + 1)
        best[n] = 0
        path_len = [0] * (n + 1)
        path_token = [0] * (n + 1)
        suffix = 0
        for i in range(n - 1, -1, -1):
            c = cps[i]
            for p in range(suffix, rows):
                suffix = self.next_suffix.get((c, piece_rows[p]), 0)
                if suffix > 0 or scores[p] == UNKNOWN_SCORE:
                    break
            for p in range(suffix, rows):
                score = scores[p]
                if score > INVALID_SCORE:
                    length = lengths[p]
                    s = best[i + length] - score
                    if s < best[i]:
                        best[i] = s
                        path_len[i] = length
                        path_token[i] = token_ids[p]
                if score == UNKNOWN_SCORE:
                    break
        out: list[Token] = []
        pos = 0
        while pos < n:
            length, token = path_len[pos], path_token[pos]
            a = pos + shift
            if token >= 0:
                out.append((token, a, a + length))
            else:
                for byte in chr(cps[pos]).encode("utf-8", "surrogatepass"):
                    out.append((self.byte_ids[byte], a, a + 1))
            pos += length
        return out
