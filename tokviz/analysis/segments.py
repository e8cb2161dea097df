"""How WordPiece and Unigram cut a word: the greedy longest-match steps, and the Unigram lattice
with its best (Viterbi) path and N best segmentations.

    >>> [s.piece for s in wordpiece_trace(bert.model, "unaffable").steps]
    ['una', '##ff', '##able']
    >>> lattice = unigram_lattice(sp.model, "▁hello")
    >>> [(seg.pieces, round(seg.probability, 3)) for seg in lattice.n_best(3)]

Plain data, no Qt: the trace view draws these.
"""
from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

from ..core.models.unigram import Unigram
from ..core.models.wordpiece import WordPiece

# ---- WordPiece ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class WordPieceStep:
    """At character `start` the longest piece in the vocabulary was `piece` (characters start..end;
    id None: nothing matched and the whole word became the unknown token); `tried` lists the
    longer candidates that were not in the vocabulary, longest first."""

    start: int
    end: int
    piece: str
    id: int | None
    tried: tuple[str, ...]


@dataclass(frozen=True)
class WordPieceTrace:
    word: str
    steps: tuple[WordPieceStep, ...]
    unknown: bool  # the word came out as the unknown token
    too_long: bool = False  # longer than max_input_chars_per_word: unknown without trying


def wordpiece_trace(model: WordPiece, word: str, max_tried: int = 12) -> WordPieceTrace:
    """The greedy longest-match steps of `model` on one pre-tokenized word (at most `max_tried`
    failed candidates are kept per step)."""
    if len(word) > model.max_input_chars_per_word:
        return WordPieceTrace(word, (), True, True)
    steps = []
    start = 0
    n = len(word)
    while start < n:
        tried = []
        end = min(n, start + model.max_token_chars)
        found = None
        while end > start:
            piece = (model.prefix if start else "") + word[start:end]
            found = model.vocab.get(piece)
            if found is not None:
                break
            if len(tried) < max_tried:
                tried.append(piece)
            end -= 1
        if found is None:
            steps.append(WordPieceStep(start, start, "", None, tuple(tried)))
            return WordPieceTrace(word, tuple(steps), True)
        steps.append(WordPieceStep(start, end, piece, found, tuple(tried)))
        start = end
    return WordPieceTrace(word, tuple(steps), False)


# ---- Unigram --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LatticeEdge:
    """A piece that matches characters start..end (id -1: an unknown character), its score."""

    start: int
    end: int
    id: int
    piece: str
    score: float


@dataclass(frozen=True)
class Segmentation:
    """One way to cut the text: its edges, total log-probability `score`, and `probability`
    (exp(score) over the sum for every segmentation of the text)."""

    edges: tuple[LatticeEdge, ...]
    score: float
    probability: float

    @property
    def pieces(self) -> list[str]:
        return [e.piece for e in self.edges]

    @property
    def ids(self) -> list[int]:
        return [e.id for e in self.edges]


@dataclass
class UnigramLattice:
    """Every piece of the vocabulary that matches the text, by start position; the best path is
    what the model encodes (`best`), and `n_best(n)` the n most probable segmentations."""

    text: str
    edges: list[LatticeEdge]
    log_z: float  # log of the summed probability of every segmentation

    def ending_at(self, end: int) -> list[LatticeEdge]:
        return [e for e in self.edges if e.end == end]

    def n_best(self, n: int = 5) -> list[Segmentation]:
        """The n best segmentations, best first (an N-best Viterbi over the lattice)."""
        length = len(self.text)
        by_end: dict[int, list[LatticeEdge]] = {}
        for e in self.edges:
            by_end.setdefault(e.end, []).append(e)
        # paths[pos]: up to n (score, edges) reaching pos, best first
        paths: list[list[tuple[float, tuple]]] = [[] for _ in range(length + 1)]
        paths[0] = [(0.0, ())]
        for end in range(1, length + 1):
            candidates = []
            for e in by_end.get(end, ()):
                for score, edges in paths[e.start]:
                    candidates.append((score + e.score, edges + (e,)))
            paths[end] = heapq.nlargest(n, candidates, key=lambda c: c[0])
        return [Segmentation(edges, score, math.exp(score - self.log_z)) for score, edges in paths[length]]

    def best(self) -> Segmentation | None:
        found = self.n_best(1)
        return found[0] if found else None


def unigram_lattice(model: Unigram, text: str) -> UnigramLattice:
    """The lattice of `text` under `model`'s pieces and scores (an unknown character gets the
    model's unknown score, as its Viterbi does)."""
    match, prefixes = model._match, model._prefixes
    scores = getattr(model, "_lattice_scores", model.scores)
    n = len(text)
    edges = []
    for start in range(n):
        has_single = False
        end = start + 1
        while end <= n:
            piece = text[start:end]
            i = match.get(piece)
            if i is not None:
                edges.append(LatticeEdge(start, end, i, piece, float(scores[i])))
                has_single |= end == start + 1
            if piece not in prefixes:
                break
            end += 1
        if not has_single:
            edges.append(LatticeEdge(start, start + 1, -1, text[start], float(model.unk_score)))
    # forward pass in log space: the sum over every segmentation
    alpha = [-math.inf] * (n + 1)
    alpha[0] = 0.0
    for e in sorted(edges, key=lambda e: e.start):
        if alpha[e.start] > -math.inf:
            alpha[e.end] = _log_add(alpha[e.end], alpha[e.start] + e.score)
    return UnigramLattice(text, edges, alpha[n] if n else 0.0)


def _log_add(a: float, b: float) -> float:
    if a == -math.inf:
        return b
    if b == -math.inf:
        return a
    hi, lo = (a, b) if a > b else (b, a)
    return hi + math.log1p(math.exp(lo - hi))


# ---- words ----------------------------------------------------------------------------------------


def words_of(tokenizer, text: str) -> list[tuple[str, str]]:
    """The words the model sees for `text`, after normalization and pre-tokenization (in the
    model's alphabet: 'Ġlower' for a byte-level BPE), each with the source text it came from;
    added tokens are left out (the model never sees them)."""
    return [(word, text[a:b]) for word, a, b in word_spans(tokenizer, text)]


def word_spans(tokenizer, text: str) -> list[tuple[str, int, int]]:
    """`words_of`, each word with its [start, end) span in `text`."""
    pre = tokenizer.pre_tokenizer
    out = []
    for seg, tok in tokenizer._segments(text, tokenizer.special_in_text):  # (the pipeline's own cut)
        if tok is not None or not seg.text:
            continue
        for piece in (pre.pre_tokenize([seg]) if pre else [seg]):
            if piece.text:
                a, b = piece.original_span(0, len(piece.text))
                out.append((piece.text, a, b))
    return out
