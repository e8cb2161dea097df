"""Unigram language model: the segmentation with the highest total log-probability (Viterbi).

Ties keep the first path found, scanning positions left to right and, at each position,
pieces from short to long: the order of HF tokenizers and sentencepiece.
"""
from __future__ import annotations

from ...errors import TokvizError
from .base import BoundedCache, Model, Token

UNK_PENALTY = 10.0


class Unigram(Model):
    kind = "Unigram"

    def __init__(
        self,
        pieces: list[tuple[str, float]],
        *,
        unk_id: int | None = None,
        byte_fallback: bool = False,
        fuse_unk: bool = True,
    ):
        """`pieces[i]` is (piece, log-probability) of id i.  (sentencepiece's variant, with its own
        rules for which pieces match and how scores round, is in core/sentencepiece.py.)"""
        vocab = {}
        for i, (p, _) in enumerate(pieces):
            vocab.setdefault(p, i)
        super().__init__(vocab)
        self.pieces = pieces
        self.scores = [s for _, s in pieces]
        self.unk_id = unk_id
        self.byte_fallback = byte_fallback
        self.fuse_unk = fuse_unk
        matchable = [i for i in range(len(pieces)) if pieces[i][0]]
        self.min_score = min(self.scores, default=0.0)  # (over all pieces, an empty one too, as HF)
        self.unk_score = self.min_score - UNK_PENALTY
        self._match: dict[str, int] = {}  # a piece listed twice is matched as its last id, as in HF
        prefixes: set[str] = set()
        for i in matchable:
            p = pieces[i][0]
            self._match[p] = i
            for k in range(1, len(p)):
                prefixes.add(p[:k])
        self._prefixes = prefixes
        self._cache = BoundedCache()

    def viterbi(self, text: str, *, refuse_unknown: bool = False) -> list[tuple[int, int, int]]:
        """Best path as (id, start, end); an unknown character gets id -1 (to be mapped by the caller).
        `refuse_unknown`: raise as soon as an unknown character's node is the best one to its end so
        far, as HF tokenizers does for a model without an unknown token (even off the final path)."""
        n = len(text)
        best_score = [0.0] * (n + 1)
        best_start = [-1] * (n + 1)
        best_id = [-1] * (n + 1)
        match, prefixes, scores = self._match, self._prefixes, self.scores
        for start in range(n):
            if start and best_start[start] < 0:
                continue
            base = best_score[start]
            has_single = False
            end = start + 1
            while end <= n:
                piece = text[start:end]
                id = match.get(piece)
                if id is not None:
                    score = base + scores[id]
                    if best_start[end] < 0 or score > best_score[end]:
                        best_score[end], best_start[end], best_id[end] = score, start, id
                    if end == start + 1:
                        has_single = True
                if piece not in prefixes:
                    break
                end += 1
            if not has_single:
                score = base + self.unk_score
                if best_start[start + 1] < 0 or score > best_score[start + 1]:
                    if refuse_unknown:
                        raise TokvizError(f"Unigram model cannot encode {text[start]!r}: it has no unknown token")
                    best_score[start + 1], best_start[start + 1], best_id[start + 1] = score, start, -1
        path = []
        end = n
        while end > 0:
            start = best_start[end]
            path.append((best_id[end], start, end))
            end = start
        path.reverse()
        return path

    def tokenize(self, text: str) -> list[Token]:
        """HF tokenizers' Unigram: the Viterbi path, where a run of unknown characters and pieces
        whose id is the unknown token's (its literal text, "<unk>") is fused into one token — the
        piece the run spells if there is one, else its bytes (byte fallback, each with the span of
        the whole run) or the unknown token."""
        cached = self._cache.get(text)
        if cached is not None:
            return cached
        out: list[Token] = []
        unk = self.unk_id
        path = self.viterbi(text, refuse_unknown=unk is None)
        fuse = self.fuse_unk
        i = 0
        while i < len(path):
            id, a, b = path[i]
            i += 1
            if id >= 0 and not (fuse and id == unk):
                out.append((id, a, b))
                continue
            if fuse:
                while i < len(path) and (path[i][0] < 0 or path[i][0] == unk):
                    b = path[i][2]
                    i += 1
                known = self._match.get(text[a:b])
                if known is not None:
                    out.append((known, a, b))
                    continue
            elif id >= 0:
                out.append((id, a, b))
                continue
            if self.byte_fallback:
                byte_ids = [self._match.get(f"<0x{byte:02X}>") for byte in text[a:b].encode("utf-8")]
                if None not in byte_ids:
                    out.extend((piece, a, b) for piece in byte_ids)
                    continue
            out.append((unk, a, b))  # (also a byte without its <0xNN> piece, as HF tokenizers does)
        self._cache.put(text, out)
        return out

    def id_to_token(self, id: int) -> str | None:
        """The piece of id `id` (also the later id of a piece listed twice, which HF matches)."""
        return self.pieces[id][0] if 0 <= id < len(self.pieces) else None

    @property
    def vocab_size(self) -> int:
        return len(self.pieces)

    def describe(self):
        return "Unigram" + (", byte fallback" if self.byte_fallback else "")
