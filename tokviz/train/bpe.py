"""minbpe-style byte-level BPE training: merges as id pairs, merge i making id 256 + i.

A thin layer over tokviz.train.bpe_core (count the pre-tokenized words, then merge the most
frequent pair, ties as minbpe breaks them: to the pair that occurs first in the text as it stands).  Used by resources/build_demo.py to build the demo
tokenizer saved as a minbpe `.model`; `tokviz.train.bytelevel.train_bytelevel_bpe` builds a full
HF-style tokenizer instead.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ..core.patterns import GPT2_PATTERN
from . import bpe_core


@dataclass
class BPEResult:
    """Merges as id pairs (new id = 256 + index), each with its count when it was made."""

    pattern: str
    merges: list[tuple[int, int]] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)
    special_tokens: dict[str, int] = field(default_factory=dict)


def count_words(texts: Iterable[str], pattern: str) -> Counter:
    """Occurrences of each pre-tokenized piece (as bytes), in order of first appearance."""
    pieces, counts = bpe_core.count_pieces(texts, pattern, dialect="rust")
    return Counter(dict(zip(pieces, counts)))


def train_bytelevel_bpe(
    texts: Iterable[str],
    vocab_size: int,
    *,
    pattern: str = GPT2_PATTERN,
    special_tokens: list[str] = (),
    min_frequency: int = 2,
    progress: Callable[[int, int, tuple[int, int], int], None] | None = None,
    tie_break: str = "minbpe",
) -> BPEResult:
    """Train merges until the vocabulary (256 bytes + merges + specials) reaches `vocab_size`.
    progress(merges made, merges wanted, pair, count) after each merge.  `tie_break`: see
    bpe_core (with "minbpe" and min_frequency=1 the merges are minbpe's RegexTokenizer's)."""
    n_merges = max(0, vocab_size - 256 - len(special_tokens))
    pieces, counts = bpe_core.count_pieces(texts, pattern, dialect="rust")  # as minbpe files are read
    report = None
    if progress is not None:
        def report(fraction, made, pair, count):
            progress(made, n_merges, pair, count)
    merges = bpe_core.learn_merges(
        pieces, counts, 256, n_merges, min_frequency=min_frequency, progress=report, progress_every=1,
        tie_break=tie_break,
    )
    result = BPEResult(pattern=pattern)
    result.merges = [(m.left, m.right) for m in merges]
    result.counts = [m.count for m in merges]
    for k, s in enumerate(special_tokens):
        result.special_tokens[s] = 256 + len(result.merges) + k
    return result
