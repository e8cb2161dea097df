"""Byte-level BPE training: count pre-tokenized words, then repeatedly merge the most frequent pair.

Pair counts are kept up to date incrementally: a merge only revisits the words that contain the
merged pair.  Ties between equally frequent pairs go to the pair seen first in the corpus, so
training is deterministic.
"""
from __future__ import annotations

import heapq
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ..core.patterns import GPT2_PATTERN, compile_pattern


@dataclass
class BPEResult:
    """Merges as id pairs (new id = 256 + index), each with its count when it was made."""

    pattern: str
    merges: list[tuple[int, int]] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)
    special_tokens: dict[str, int] = field(default_factory=dict)


def count_words(texts: Iterable[str], pattern: str) -> Counter:
    """Occurrences of each pre-tokenized piece (as bytes), in order of first appearance."""
    regex = compile_pattern(pattern, "rust")
    words: Counter = Counter()
    for text in texts:
        words.update(m.group().encode("utf-8") for m in regex.finditer(text))
    return words


def train_bytelevel_bpe(
    texts: Iterable[str],
    vocab_size: int,
    *,
    pattern: str = GPT2_PATTERN,
    special_tokens: list[str] = (),
    min_frequency: int = 2,
    progress: Callable[[int, int, tuple[int, int], int], None] | None = None,
) -> BPEResult:
    """Train merges until the vocabulary (256 bytes + merges + specials) reaches `vocab_size`."""
    n_merges = max(0, vocab_size - 256 - len(special_tokens))
    words = count_words(texts, pattern)
    symbols = [list(w) for w in words]
    freqs = list(words.values())

    pair_count: Counter = Counter()
    where: dict[tuple[int, int], set[int]] = defaultdict(set)
    first_seen: dict[tuple[int, int], int] = {}
    for wi, syms in enumerate(symbols):
        for pair in zip(syms, syms[1:]):
            pair_count[pair] += freqs[wi]
            where[pair].add(wi)
            first_seen.setdefault(pair, len(first_seen))
    heap = [(-c, first_seen[p], p) for p, c in pair_count.items()]
    heapq.heapify(heap)

    result = BPEResult(pattern=pattern)
    next_id = 256
    while len(result.merges) < n_merges and heap:
        neg, _, pair = heapq.heappop(heap)
        count = pair_count.get(pair, 0)
        if count != -neg:
            if count > 0:
                heapq.heappush(heap, (-count, first_seen[pair], pair))
            continue
        if count < min_frequency:
            break
        new = next_id
        next_id += 1
        result.merges.append(pair)
        result.counts.append(count)
        changed: set[tuple[int, int]] = set()
        for wi in sorted(where.pop(pair, ())):
            syms, f = symbols[wi], freqs[wi]
            for p in zip(syms, syms[1:]):
                pair_count[p] -= f
                changed.add(p)
            merged = []
            i = 0
            while i < len(syms):
                if i + 1 < len(syms) and syms[i] == pair[0] and syms[i + 1] == pair[1]:
                    merged.append(new)
                    i += 2
                else:
                    merged.append(syms[i])
                    i += 1
            symbols[wi] = merged
            for p in zip(merged, merged[1:]):
                pair_count[p] += f
                where[p].add(wi)
                first_seen.setdefault(p, len(first_seen))
                changed.add(p)
        pair_count.pop(pair, None)
        for p in changed:
            c = pair_count.get(p, 0)
            if c > 0:
                heapq.heappush(heap, (-c, first_seen[p], p))
            else:
                pair_count.pop(p, None)
        if progress is not None:
            progress(len(result.merges), n_merges, pair, count)
    for k, s in enumerate(special_tokens):
        result.special_tokens[s] = 256 + len(result.merges) + k
    return result
