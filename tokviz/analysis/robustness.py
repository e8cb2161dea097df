"""How tokenizations change under perturbations of the text (see `analysis.perturb`).

One text, several tokenizers, one perturbation: the original and perturbed encodings and the change
in token count, with the tokens that touch a changed span:

    >>> r = compare_perturbed({"qwen": qwen, "bert": bert}, "Hello world", "homoglyph", rate=1.0)
    >>> [(d.name, d.original_tokens, d.perturbed_tokens) for d in r.diffs]
    [('qwen', 2, 8), ('bert', 2, 5)]

A corpus: the text is cut into pieces (paragraphs, lines, at most `max_chars` characters), the
pieces are perturbed (a block of them at a time, see `perturbed_pieces`) and for every
perturbation and tokenizer the inflation is perturbed tokens / original tokens, as the mean over
pieces and as the ratio of the totals:

    >>> report = corpus_robustness({"qwen": qwen}, text, rate=0.3, progress=..., cancel=event)
    >>> round(report.cell("ocr", "qwen").mean_inflation, 2)    # 1 MB of ../shared/corpus
    1.35

Plain data, no Qt: `tokviz robustness` and the Robustness view show it.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
import regex

from ..core.token_array import encode_to_array, offsets_arrays
from ..errors import Cancelled
from .perturb import DEFAULT_RATE, PERTURBATIONS, Perturbed, perturbation

MAX_PIECE_CHARS = 4096
COMPACT_CHARS = 64 * 1024  # longer texts are encoded into TokenArrays (no Python object per token)


def _check(cancel) -> None:
    if cancel is not None and (cancel.is_set() if hasattr(cancel, "is_set") else cancel()):
        raise Cancelled("robustness analysis cancelled")


def _encode(tok, text: str):
    return encode_to_array(tok, text) if len(text) > COMPACT_CHARS else tok.encode(text)


def touched_tokens(encoding, spans: Iterable[tuple[int, int]]) -> np.ndarray:
    """Indices of the tokens whose character span overlaps one of `spans` (start, end)."""
    starts, ends = offsets_arrays(encoding)
    n = len(encoding.text)
    if n == 0:
        return np.zeros(0, np.int64)
    delta = np.zeros(n + 1, np.int64)
    for s, e in spans:
        if s == e:  # (a deletion: the character after it, or before it at the end)
            s, e = (s, s + 1) if s < n else (n - 1, n)
        delta[s] += 1
        delta[e] -= 1
    prefix = np.concatenate(([0], np.cumsum(np.cumsum(delta)[:n] > 0)))  # changed chars before i
    s = np.clip(starts, 0, n)
    e = np.clip(np.maximum(ends, starts), 0, n)
    return np.flatnonzero(prefix[e] - prefix[s] > 0)


def map_positions(span_array: np.ndarray, positions: np.ndarray, *, to_perturbed: bool = True) -> np.ndarray:
    """`TextRobustness.map_position` of many positions at once, given a Perturbed's span rows."""
    positions = np.asarray(positions, np.int64)
    if not len(span_array):
        return positions.copy()
    a, b = (0, 2) if to_perturbed else (2, 0)  # (start column in the source text, in the target)
    k = np.searchsorted(span_array[:, a], positions, side="right") - 1
    row = span_array[np.maximum(k, 0)]
    mapped = np.where(positions < row[:, a + 1], row[:, b], positions - row[:, a + 1] + row[:, b + 1])
    return np.where(k < 0, positions, mapped)


@dataclass
class TokenizerDiff:
    """One tokenizer on the original and the perturbed text."""

    name: str
    original: object  # Encoding (or TokenArray)
    perturbed: object
    touched_original: np.ndarray = field(repr=False)  # token indices overlapping a changed span
    touched_perturbed: np.ndarray = field(repr=False)

    @property
    def original_tokens(self) -> int:
        return len(self.original)

    @property
    def perturbed_tokens(self) -> int:
        return len(self.perturbed)

    @property
    def change(self) -> int:
        return self.perturbed_tokens - self.original_tokens

    @property
    def ratio(self) -> float:
        return self.perturbed_tokens / self.original_tokens if self.original_tokens else 1.0


@dataclass
class TextRobustness:
    perturbed: Perturbed
    rate: float
    seed: int
    diffs: list[TokenizerDiff]

    def map_position(self, pos: int, *, to_perturbed: bool = True) -> int:
        """The character position in the other text (perturbed or original) matching `pos`: shifted
        by the changes before it; the start of the change it falls inside."""
        return int(map_positions(self.perturbed.span_array, np.array([pos]), to_perturbed=to_perturbed)[0])

    def rows(self) -> list[dict]:
        return [{"tokenizer": d.name, "original tokens": d.original_tokens, "perturbed tokens": d.perturbed_tokens,
                 "change": d.change, "ratio": round(d.ratio, 4)} for d in self.diffs]

    def as_dict(self) -> dict:
        p = self.perturbed
        return {"perturbation": p.name, "rate": self.rate, "seed": self.seed, "eligible": p.eligible,
                "changed": p.changed, "text": p.original, "perturbed_text": p.text,
                "spans": [list(s) for s in p.spans], "tokenizers": self.rows()}


def compare_perturbed(tokenizers: dict, text: str, name: str, rate: float = DEFAULT_RATE, seed: int = 0, *,
                      cancel=None) -> TextRobustness:
    """Perturb `text` with the perturbation `name` and encode both texts with every tokenizer."""
    p = perturbation(name)(text, rate, seed)
    old_spans = p.span_array[:, 0:2].tolist()
    new_spans = p.span_array[:, 2:4].tolist()
    diffs = []
    for tok_name, tok in tokenizers.items():
        _check(cancel)
        a = _encode(tok, text)
        _check(cancel)
        b = _encode(tok, p.text)
        diffs.append(TokenizerDiff(tok_name, a, b, touched_tokens(a, old_spans), touched_tokens(b, new_spans)))
    return TextRobustness(p, rate, seed, diffs)


# ---- corpus ---------------------------------------------------------------------------------------

_PARAGRAPH = regex.compile(r"\n[ \t]*\n\s*")
_LINE = regex.compile(r"(?<=\n)(?=.)", regex.DOTALL)
_SPACE = regex.compile(r"(?<=\s)(?=\S)")
_CUTTERS = (_LINE, _SPACE, None)  # a paragraph is cut at line ends, a line between words, a word anywhere


def piece_spans(text: str, max_chars: int = MAX_PIECE_CHARS) -> list[tuple[int, int]]:
    """(start, end) of the pieces of `text` (see `split_pieces`), in order."""
    spans: list[tuple[int, int]] = []

    def add(a: int, b: int, level: int) -> None:
        if b - a <= max_chars:
            if not text[a:b].isspace() and b > a:
                spans.append((a, b))
            return
        cutter = _CUTTERS[level]
        if cutter is None:
            for k in range(a, b, max_chars):
                add(k, min(b, k + max_chars), level)
            return
        start = last = a
        for cut in [m.start() for m in cutter.finditer(text, a, b)] + [b]:
            if cut - start > max_chars and last > start:
                add(start, last, level + 1)
                start = last
            last = cut
        add(start, b, level + 1)

    pos = 0
    for m in _PARAGRAPH.finditer(text):
        add(pos, m.start(), 0)
        pos = m.end()
    add(pos, len(text), 0)
    return spans


def split_pieces(text: str, max_chars: int = MAX_PIECE_CHARS) -> list[str]:
    """`text` cut into pieces of at most `max_chars` characters: paragraphs (blank lines between),
    a longer paragraph at line ends, a longer line between words, a longer word anywhere.  Pieces of
    only white space are left out."""
    return [text[a:b] for a, b in piece_spans(text, max_chars)]


BLOCK_CHARS = 256 * 1024  # the corpus is perturbed a block of whole pieces at a time


def perturbed_pieces(text: str, name: str, rate: float = DEFAULT_RATE, seed: int = 0, *,
                     max_chars: int = MAX_PIECE_CHARS, spans: list[tuple[int, int]] | None = None,
                     cancel=None):
    """Yield (piece, perturbed piece, changed, eligible) for the pieces of `text`.

    The text is perturbed in blocks of whole pieces (up to BLOCK_CHARS characters, a generator
    seeded by (seed, block number) each), rather than piece by piece: the rate is then the share of
    a block's eligible units changed, and a block costs one call.  A perturbed piece is the part of
    the perturbed block between the images of the piece's ends; a change across a piece's end (only
    where a word longer than a piece was cut) goes to the next piece.  `changed` and `eligible` are
    the block's, given with its first piece (0 with the others)."""
    pert = perturbation(name)
    spans = piece_spans(text, max_chars) if spans is None else spans
    k = 0
    block = 0
    while k < len(spans):
        _check(cancel)
        first = k
        while k < len(spans) and (k == first or spans[k][1] - spans[first][0] <= BLOCK_CHARS):
            k += 1
        lo, hi = spans[first][0], spans[k - 1][1]
        p = pert(text[lo:hi], rate, f"{seed}.{block}")
        block += 1
        ends = np.array(spans[first:k], np.int64).reshape(-1) - lo  # start, end, start, end...
        mapped = map_positions(p.span_array, ends).tolist()
        for j in range(first, k):
            new = p.text[mapped[2 * (j - first)]:mapped[2 * (j - first) + 1]]
            yield (text[spans[j][0]:spans[j][1]], new) + ((p.changed, p.eligible) if j == first else (0, 0))


@dataclass
class Inflation:
    """One perturbation, one tokenizer, over the pieces of a corpus."""

    perturbation: str
    tokenizer: str
    pieces: int  # pieces counted (those the tokenizer gives at least one token)
    original_tokens: int
    perturbed_tokens: int
    mean_inflation: float  # mean over pieces of perturbed / original tokens

    @property
    def ratio(self) -> float:
        """Perturbed / original tokens of the whole corpus."""
        return self.perturbed_tokens / self.original_tokens if self.original_tokens else 1.0


@dataclass
class RobustnessReport:
    tokenizers: list[str]
    perturbations: list[str]
    rate: float
    seed: int
    chars: int
    pieces: int
    original_tokens: dict[str, int]
    cells: dict[tuple[str, str], Inflation]
    changed: dict[str, int]  # perturbation -> units changed over the corpus
    eligible: dict[str, int]  # perturbation -> units eligible
    seconds: float = 0.0

    def cell(self, perturbation_name: str, tokenizer: str) -> Inflation:
        return self.cells[(perturbation_name, tokenizer)]

    def mean_matrix(self) -> np.ndarray:
        """Mean inflation, perturbations x tokenizers (for the bar chart)."""
        return np.array([[self.cells[(p, t)].mean_inflation for t in self.tokenizers] for p in self.perturbations])

    def rows(self) -> list[dict]:
        """One row per perturbation: what it changed, then per tokenizer the mean inflation over pieces
        and the whole-corpus ratio."""
        out = []
        for p in self.perturbations:
            row: dict[str, object] = {"perturbation": p, "changed": self.changed[p], "eligible": self.eligible[p]}
            for t in self.tokenizers:
                c = self.cells[(p, t)]
                row[f"{t} mean ×"] = c.mean_inflation
                row[f"{t} corpus ×"] = c.ratio
            out.append(row)
        return out

    def as_dict(self) -> dict:
        return {
            "rate": self.rate, "seed": self.seed, "chars": self.chars, "pieces": self.pieces,
            "seconds": round(self.seconds, 3), "tokenizers": self.tokenizers,
            "original_tokens": self.original_tokens,
            "perturbations": [
                {"name": p, "description": PERTURBATIONS[p].description, "changed": self.changed[p],
                 "eligible": self.eligible[p],
                 "tokenizers": {t: {"perturbed_tokens": c.perturbed_tokens, "mean_inflation": c.mean_inflation,
                                    "corpus_inflation": c.ratio, "pieces": c.pieces}
                                for t in self.tokenizers for c in [self.cells[(p, t)]]}}
                for p in self.perturbations
            ],
        }


def _counts(tok, pieces: list[str]) -> np.ndarray:
    return np.fromiter((len(ids) for ids in tok.encode_ids_batch(pieces, threads=1)), np.int64, len(pieces))


def corpus_robustness(tokenizers: dict, text: str, perturbations: Iterable[str] | None = None, *,
                      rate: float = DEFAULT_RATE, seed: int = 0, max_chars: int = MAX_PIECE_CHARS,
                      progress: Callable[[int, int], None] | None = None, cancel=None,
                      batch: int = 64) -> RobustnessReport:
    """Token-count inflation of every perturbation (default: all) for every tokenizer over `text`
    cut into pieces (see the module docstring).  `progress(done, total)` counts pieces times passes
    (the original, then each perturbation); `cancel` (an Event or a callable) raises Cancelled."""
    t0 = time.perf_counter()
    names = list(perturbations) if perturbations is not None else list(PERTURBATIONS)
    for name in names:
        perturbation(name)  # (an unknown name fails before any work)
    spans = piece_spans(text, max_chars)
    pieces = [text[a:b] for a, b in spans]
    n = len(pieces)
    total = n * (1 + len(names))
    done = 0

    def counts_of(make_batch: Callable[[int, int], list[str]]) -> dict[str, np.ndarray]:
        """Token counts of every piece as `make_batch(first, last)` gives them, batch by batch (the
        perturbing, too, between progress reports and cancel checks)."""
        nonlocal done
        out = {t: np.zeros(n, np.int64) for t in tokenizers}
        for k in range(0, n, batch):
            _check(cancel)
            chunk = make_batch(k, min(n, k + batch))
            for t, tok in tokenizers.items():
                out[t][k:k + len(chunk)] = _counts(tok, chunk)
            done += len(chunk)
            if progress is not None:
                progress(done, total)
        return out

    if progress is not None:
        progress(0, total)
    original = counts_of(lambda first, last: pieces[first:last])
    cells: dict[tuple[str, str], Inflation] = {}
    changed: dict[str, int] = {}
    eligible: dict[str, int] = {}
    for name in names:
        changed[name] = eligible[name] = 0
        stream = perturbed_pieces(text, name, rate, seed, spans=spans, cancel=cancel)

        def perturbed(first: int, last: int) -> list[str]:
            out = []
            for _ in range(first, last):
                _, new, c, e = next(stream)
                changed[name] += c
                eligible[name] += e
                out.append(new)
            return out

        counts = counts_of(perturbed)
        for t in tokenizers:
            o, c = original[t], counts[t]
            ok = o > 0
            mean = float(np.mean(c[ok] / o[ok])) if ok.any() else 1.0
            cells[(name, t)] = Inflation(name, t, int(ok.sum()), int(o.sum()), int(c.sum()), mean)
    return RobustnessReport(list(tokenizers), names, rate, seed, len(text), n,
                            {t: int(v.sum()) for t, v in original.items()}, cells, changed, eligible,
                            time.perf_counter() - t0)
