"""Several tokenizers on one text: where their token boundaries differ, how much of the text they
all cut the same way, which words one of them splits into the most pieces, and a table of counts.

    >>> result = compare_text({"qwen": qwen, "llama3": llama3}, text)
    >>> result.identical_share, result.rows[0]["tokens"]
    (0.83, 1234)

Boundaries are character positions (a token ending inside a character — byte-level BPE on CJK —
ends, for this purpose, at the end of that character).  Plain data, no Qt: the compare view and
`tokviz compare` show it.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import regex

from ..core.token_array import offsets_arrays

_WORD = regex.compile(r"\w+")
MAX_WORD_CHARS = 32
_BYTE_PIECE = regex.compile(r"<0x[0-9A-F]{2}>")


def boundaries(encoding) -> np.ndarray:
    """Sorted character positions strictly inside the text where a token starts or ends."""
    starts, ends = offsets_arrays(encoding)
    n = len(encoding.text)
    is_cut = np.zeros(n + 1, bool)  # (a mask over the text, not np.unique: linear, and short GIL holds)
    is_cut[np.clip(starts, 0, n)] = True
    is_cut[np.clip(ends, 0, n)] = True
    is_cut[0] = is_cut[n] = False
    return np.flatnonzero(is_cut)


@dataclass
class Comparison:
    names: list[str]
    text: str
    encodings: list
    seconds: list[float]
    cut_counts: np.ndarray = field(repr=False)  # per character position 0..n: how many tokenizers cut there
    rows: list[dict] = field(default_factory=list)
    identical_chars: int = 0
    split_words: list[dict] = field(default_factory=list)

    @property
    def identical_share(self) -> float:
        """Share of the text's characters inside tokens that every tokenizer cuts identically."""
        return self.identical_chars / len(self.text) if self.text else 1.0

    def differing_positions(self) -> np.ndarray:
        """Character positions where some tokenizers cut and others do not."""
        k = len(self.names)
        return np.flatnonzero((self.cut_counts > 0) & (self.cut_counts < k))

    def differing_tokens(self, pane: int) -> np.ndarray:
        """Indices of pane `pane`'s tokens that start at a differing position (the diff marks)."""
        k = len(self.names)
        differs = (self.cut_counts > 0) & (self.cut_counts < k)
        starts, _ = offsets_arrays(self.encodings[pane])
        return np.flatnonzero(differs[np.clip(starts, 0, len(self.text))])

    def as_dict(self) -> dict:
        return {"tokenizers": self.names, "chars": len(self.text), "rows": self.rows,
                "identical_share": self.identical_share, "identical_chars": self.identical_chars,
                "differing_positions": int(len(self.differing_positions())), "split_words": self.split_words}


def encode_all(tokenizers: dict, text: str) -> tuple[list, list[float]]:
    """Encode `text` with each tokenizer (timed)."""
    encodings, seconds = [], []
    for tok in tokenizers.values():
        tok.encode("warm up")  # (the first call builds the native encoder: not part of the time)
        t0 = time.perf_counter()
        encodings.append(tok.encode(text))
        seconds.append(time.perf_counter() - t0)
    return encodings, seconds


def compare_text(tokenizers: dict, text: str, *, encodings: list | None = None, seconds: list | None = None,
                 top_words: int = 20) -> Comparison:
    """Compare `tokenizers` (name -> Tokenizer) on `text` (encoded here unless `encodings` and
    their `seconds` are given, in the same order)."""
    names = list(tokenizers)
    if encodings is None:
        encodings, seconds = encode_all(tokenizers, text)
    seconds = list(seconds or [0.0] * len(names))
    n = len(text)
    cut_counts = np.zeros(n + 1, np.int64)
    cut_sets = []
    for enc in encodings:
        b = boundaries(enc)
        cut_sets.append(b)
        cut_counts[b] += 1
    k = len(names)
    comparison = Comparison(names, text, list(encodings), seconds, cut_counts)
    comparison.rows = [_row(name, tok, enc, s) for (name, tok), enc, s in zip(tokenizers.items(), encodings, seconds)]
    comparison.identical_chars = _identical_chars(cut_counts, k, n)
    comparison.split_words = most_split_words(names, encodings, text, top_words)
    return comparison


def _identical_chars(cut_counts: np.ndarray, k: int, n: int) -> int:
    """Characters in spans between two consecutive places where every tokenizer cuts (or the text's
    ends) with no cut of any tokenizer in between: tokens all of them share."""
    if n == 0:
        return 0
    all_cut = np.flatnonzero(cut_counts == k)
    any_cut = np.flatnonzero(cut_counts > 0)
    points = np.concatenate(([0], all_cut[(all_cut > 0) & (all_cut < n)], [n]))
    # a span between consecutive common cuts is shared when no other cut lies strictly inside it
    inside = np.searchsorted(any_cut, points[1:], side="left") - np.searchsorted(any_cut, points[:-1], side="right")
    lengths = np.diff(points)
    return int(lengths[inside == 0].sum())


def _row(name: str, tok, enc, seconds: float) -> dict:
    n = len(enc)
    text = enc.text
    nbytes = len(text.encode("utf-8", "surrogatepass"))
    model = tok.model
    unk = getattr(model, "unk_id", None)
    if unk is None and getattr(model, "unk_token", None) is not None:
        unk = model.vocab.get(model.unk_token)
    ids = np.asarray(enc.ids, dtype=np.int64)
    unknown = int(np.count_nonzero(ids == unk)) if unk is not None and n else 0
    byte_fallback = 0
    if getattr(model, "byte_fallback", False) and n:
        byte_ids = np.array([i for t, i in model.vocab.items() if len(t) == 6 and _BYTE_PIECE.fullmatch(t)], np.int64)
        byte_fallback = int(np.isin(ids, byte_ids).sum())
    return {
        "tokenizer": name,
        "vocab size": tok.vocab_size,
        "tokens": n,
        "bytes/token": round(nbytes / n, 3) if n else 0.0,
        "chars/token": round(len(text) / n, 3) if n else 0.0,
        "unknown": unknown,
        "byte fallback": byte_fallback,
        "time (ms)": round(seconds * 1000, 2),
    }


def most_split_words(names: list[str], encodings: list, text: str, top: int = 20) -> list[dict]:
    """Words (runs of word characters) that one tokenizer cuts into the most pieces relative to the
    others: for each distinct word, the pieces each tokenizer needs (tokens overlapping it), ranked
    by how far the most-splitting tokenizer is above the fewest (ties: more pieces first)."""
    spans = np.array([m.span() for m in _WORD.finditer(text)], np.int64).reshape(-1, 2)
    if not len(spans) or not encodings:
        return []
    a, b = spans[:, 0], spans[:, 1]
    counts = []
    for enc in encodings:
        starts, ends = offsets_arrays(enc)
        # tokens overlapping [a, b): start < b and end > a; tokens are in order, so count by bisection
        first = np.searchsorted(ends, a, side="right")
        last = np.searchsorted(starts, b, side="left")
        counts.append(np.maximum(last - first, 0))
    per_word = np.stack(counts, axis=1)  # words x tokenizers
    gaps = per_word.max(axis=1) - per_word.min(axis=1)
    gaps[(b - a) > MAX_WORD_CHARS] = 0  # (a run of CJK text is one \w+ "word": not a word)
    best = []
    seen: set[str] = set()
    # candidates by gap, then pieces (numpy); only they are looked at in Python
    order = np.lexsort((-per_word.max(axis=1), -gaps))
    for w in order:
        if gaps[w] <= 0 or len(best) >= top * 4:
            break
        word = text[a[w]:b[w]]
        if word not in seen:
            seen.add(word)
            best.append((int(gaps[w]), int(per_word[w].max()), word, per_word[w]))
    best.sort(key=lambda t: (-t[0], -t[1], t[2]))
    return [{"word": word, "pieces": {n: int(x) for n, x in zip(names, c)}, "most": names[int(np.argmax(c))]}
            for _, _, word, c in best[:top]]
