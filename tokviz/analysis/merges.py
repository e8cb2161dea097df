"""How BPE builds tokens: the merge steps that encode a word, and the merge tree of a token.

    >>> trace = trace_bpe(tok.model, "Ġlower")
    >>> [s.merged for s in trace.steps]          # the merges applied, in order
    ['Ġl', 'ow', 'Ġlow', 'er', 'Ġlower']
    >>> tree = merge_tree(tok.model, "Ġlower")   # the same steps as a binary tree
    >>> tree.left.token, tree.right.token
    ('Ġlow', 'er')

The trace replays the model's own rule (the lowest-ranked adjacent pair merges first, the leftmost
of equal ranks; a tiktoken-style BPE ranks a pair by the merged token's id) and its result equals
the model's encoding.  A token's merge tree is the trace of the token's own string: the tree BPE
really builds.  When that trace does not end in the token, the token is *unreachable* (encoding
its own string never produces it); `listed_tree` then shows the tree its listed merges imply.

`merges_making`, `used_by` and `token_info.merge_rank` read one index per model, built on first
use from the merge list and kept while the model lives: numpy arrays by token id, not dicts (see
`_MergeIndex`).  Building it takes a second or more for a large vocabulary, so a view asks
`built_merge_index` (never builds) and has `merge_index` run on a worker; `trace_ready` /
`prepare_trace` do the same for the rank table a trace reads.  Any thread may build: each model's
index is built once.

Plain data, no Qt: the merges view draws these.
"""
from __future__ import annotations

import threading
import weakref
from array import array
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from itertools import repeat

import numpy as np

from ..core.models.bpe import BPE
from ..core.sentencepiece import SentencePieceBPE


@dataclass(frozen=True)
class MergeStep:
    """One merge: symbols[position] and symbols[position + 1] became `merged`; `symbols` is the
    segmentation after it.  `rank` orders a merge list; a sentencepiece BPE has none (rank None)
    and merges the adjacent pair whose piece has the best `score`."""

    rank: int | None
    position: int
    left: str
    right: str
    merged: str
    symbols: tuple[str, ...]
    score: float | None = None


@dataclass(frozen=True)
class BpeTrace:
    """The initial symbols of a word and every merge applied to them."""

    word: str
    initial: tuple[str, ...]
    steps: tuple[MergeStep, ...]
    whole_word: bool = False  # ignore_merges: the word is a token and was taken as it is

    @property
    def result(self) -> tuple[str, ...]:
        if self.whole_word:
            return (self.word,)
        return self.steps[-1].symbols if self.steps else self.initial

    def segmentation(self, step: int) -> tuple[str, ...]:
        """Symbols after `step` merges (0: the initial symbols)."""
        if self.whole_word:
            return self.initial if step == 0 else (self.word,)
        return self.initial if step == 0 else self.steps[step - 1].symbols


def trace_bpe(model: BPE | SentencePieceBPE, word: str, *, whole_words: bool = True) -> BpeTrace:
    """The merges `model` applies to one pre-tokenized word (in the model's alphabet: 'Ġlower'
    for a byte-level model), step by step.  whole_words=False: merges only, even where the model
    takes a word that is a token whole (ignore_merges)."""
    if isinstance(model, SentencePieceBPE):
        return _trace_sentencepiece(model, word)
    syms, _ = model._initial_symbols(word)
    initial = tuple(syms)
    if whole_words and model.ignore_merges and word in model.vocab:
        return BpeTrace(word, initial, (), whole_word=True)
    rank = model._rank
    steps = []
    while len(syms) > 1:
        best, best_rank = None, None
        for i in range(len(syms) - 1):
            r = rank(syms[i], syms[i + 1])
            if r is not None and (best_rank is None or r < best_rank):
                best, best_rank = i, r
        if best is None:
            break
        a, b = syms[best], syms[best + 1]
        syms[best : best + 2] = [model._merged(a, b)]
        steps.append(MergeStep(best_rank, best, a, b, syms[best], tuple(syms)))
    return BpeTrace(word, initial, tuple(steps))


def _trace_sentencepiece(model: SentencePieceBPE, word: str) -> BpeTrace:
    """sentencepiece's BPE: characters (user-defined symbols whole, never merged), then the adjacent
    pair whose joined piece scores best merges first, the leftmost of equal scores (its heap's
    order).  (Unused pieces that sentencepiece splits back at the end are shown as merged.)"""
    syms, frozen = [], []
    i = 0
    while i < len(word):
        s = model.matcher.match(word, i) if model.matcher else None
        j = i + len(s) if s else i + 1
        syms.append(word[i:j])
        frozen.append(s is not None)
        i = j
    initial = tuple(syms)
    pieces, scores = model.table.normal, model.scores
    steps = []
    while len(syms) > 1:
        best, best_score = None, None
        for k in range(len(syms) - 1):
            if frozen[k] or frozen[k + 1]:
                continue
            i = pieces.get(syms[k] + syms[k + 1])
            if i is not None and (best_score is None or scores[i] > best_score):
                best, best_score = k, scores[i]
        if best is None:
            break
        a, b = syms[best], syms[best + 1]
        syms[best : best + 2] = [a + b]
        frozen[best : best + 2] = [False]
        steps.append(MergeStep(None, best, a, b, a + b, tuple(syms), float(best_score)))
    return BpeTrace(word, initial, tuple(steps))


@dataclass
class MergeNode:
    """A token in a merge tree: leaves are initial symbols (bytes or characters); an inner node
    was merged from `left` and `right` by the merge of rank `rank` (counted `count` times when
    the model was trained, where known)."""

    token: str
    id: int | None
    rank: int | None = None
    count: int | None = None
    left: MergeNode | None = None
    right: MergeNode | None = None
    reachable: bool = True
    children: list[MergeNode] = field(default_factory=list, repr=False)

    def __post_init__(self):
        self.children = [c for c in (self.left, self.right) if c is not None]

    @property
    def is_leaf(self) -> bool:
        return self.left is None

    def walk(self):
        """Every node, parents before children (left before right)."""
        yield self
        for c in self.children:
            yield from c.walk()

    def depth(self) -> int:
        return 1 + max((c.depth() for c in self.children), default=0)

    def leaves(self) -> list[MergeNode]:
        return [n for n in self.walk() if n.is_leaf]


def _node(model, token: str, rank=None, left=None, right=None, reachable=True) -> MergeNode:
    count = None
    counts = getattr(model, "merge_counts", None)
    if rank is not None and counts is not None and getattr(model, "has_merge_list", False) and rank < len(counts):
        count = counts[rank]
    return MergeNode(token, model.vocab.get(token), rank, count, left, right, reachable)


def merge_tree(model: BPE | SentencePieceBPE, token: str) -> MergeNode:
    """The tree BPE builds for `token` from its own string; for an unreachable token, the tree its
    listed merges imply (`listed_tree`), its root marked reachable=False."""
    tree = traced_tree(model, token)
    if tree is None:
        tree = listed_tree(model, token)
        tree.reachable = False
    return tree


def traced_tree(model: BPE | SentencePieceBPE, token: str) -> MergeNode | None:
    """The tree BPE builds for `token` from its own string, None for an unreachable token (unlike
    `merge_tree`, it never reads the merge index)."""
    trace = trace_bpe(model, token, whole_words=False)
    nodes = [_node(model, s) for s in trace.initial]
    for step in trace.steps:
        left, right = nodes[step.position], nodes[step.position + 1]
        nodes[step.position : step.position + 2] = [_node(model, step.merged, step.rank, left, right)]
    if len(nodes) == 1 and nodes[0].token == token:
        return nodes[0]
    return None


def listed_tree(model: BPE, token: str, _depth: int = 0) -> MergeNode:
    """The tree of the merges listed for `token`: the lowest-ranked merge that makes it, and so
    on down to symbols no merge makes."""
    made = merges_making(model).get(token)
    if made is None or _depth > 256:  # (a cyclic merge list cannot recurse for ever)
        return _node(model, token)
    rank, a, b = made
    return _node(model, token, rank, listed_tree(model, a, _depth + 1), listed_tree(model, b, _depth + 1))


def merge_list(model: BPE | SentencePieceBPE) -> list[tuple[int, str, str, str]]:
    """Every merge as (rank, left, right, merged), in rank order.  A tiktoken-style model or a
    sentencepiece BPE lists none: each multi-symbol token's merge is then the last step of its own
    trace (rank = id)."""
    return list(iter_merges(model))


def iter_merges(model: BPE | SentencePieceBPE) -> Iterator[tuple[int, str, str, str]]:
    """`merge_list` one merge at a time (from the model's merge lines: `model.merges` is not built)."""
    if getattr(model, "has_merge_list", False):
        merged = model._merged
        pairs = model._merges if model._merges is not None else map(str.split, model._merge_lines, repeat(" "))
        for r, (a, b) in enumerate(pairs):
            yield r, a, b, merged(a, b)
        return
    for token, i in sorted(model.vocab.items(), key=lambda kv: kv[1]):
        if len(token) < 2:
            continue
        trace = trace_bpe(model, token, whole_words=False)
        if trace.steps and trace.result == (token,):
            last = trace.steps[-1]
            yield i, last.left, last.right, token


def merges_making(model: BPE) -> Mapping[str, tuple[int, str, str]]:
    """merged token -> (rank, left, right) of the lowest-ranked merge that makes it (a read-only
    view of the model's merge index, in the order of those ranks)."""
    return _Making(model, merge_index(model))


def used_by(model: BPE, token: str) -> list[tuple[int, str]]:
    """(rank, merged) of every merge that takes `token` as one of its two parts, by rank: the
    tokens whose trees contain it directly."""
    return merge_index(model).users(model, token)


def trace_ready(model: BPE | SentencePieceBPE) -> bool:
    """Whether `trace_bpe` and `traced_tree` run at once on `model`: a BPE with a merge list builds
    its {merge: rank} table on the first trace (tens of milliseconds for 150k merges)."""
    return not (isinstance(model, BPE) and model.has_merge_list) or model._ranks is not None


_RANKS_PER_STEP = 20_000


def prepare_trace(model: BPE | SentencePieceBPE) -> None:
    """Build what `trace_ready` waits for: the table `BPE.ranks` builds, the same entries, but a
    slice of the merges at a time.  (One dict(zip(...)) over 280k merges is a single call that
    holds the interpreter lock for 60 ms: a worker building it would stall the UI thread as long.)"""
    if not isinstance(model, BPE) or trace_ready(model):
        return
    merges = model._merge_lines if model._merge_lines is not None else model._merges
    ranks: dict = {}
    for start in range(0, len(merges), _RANKS_PER_STEP):
        stop = start + _RANKS_PER_STEP
        ranks.update(zip(merges[start:stop], range(start, stop)))  # (a later duplicate keeps its rank)
    if model._ranks is None:
        model._ranks = ranks


# model -> its _MergeIndex.  Weak keys: the index holds no reference to its model, so a dropped
# tokenizer takes its index with it.
_INDEX: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_BUILDING: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # model -> lock held while it is built
_GUARD = threading.Lock()  # over _INDEX and _BUILDING


def merge_index(model: BPE | SentencePieceBPE) -> _MergeIndex:
    """The model's merge index, built on first use and kept as long as the model lives.  Threads
    that ask while another builds it wait for that build."""
    index = _INDEX.get(model)
    if index is not None:
        return index
    with _GUARD:
        index = _INDEX.get(model)
        if index is not None:
            return index
        building = _BUILDING.get(model)
        if building is None:
            building = _BUILDING[model] = threading.Lock()
    with building:
        index = _INDEX.get(model)
        if index is None:
            index = _MergeIndex(model)
            with _GUARD:
                _INDEX[model] = index
                _BUILDING.pop(model, None)
    return index


def built_merge_index(model: BPE | SentencePieceBPE) -> _MergeIndex | None:
    """The model's merge index if it is built, else None (never builds: for the UI thread)."""
    return _INDEX.get(model)


class _MergeIndex:
    """Every merge of one model as token ids in numpy arrays: what `merges_making`, `used_by` and
    `token_info.merge_rank` look up.  (Dicts of tuples took millions of small Python objects per
    open tokenizer.)

    Entry k is the k-th merge of `iter_merges`; its rank is k, or ranks[k] for a model without a
    merge list.  By entry: `left`, `right`, `merged` (token ids).  By token id: `making` (the first
    entry that makes it, -1 none) and, in compressed-row form, `used[used_ptr[i]:used_ptr[i + 1]]`
    (the entries taking token i as a part, in order).  A string no id names (not a token, or one
    of several strings sharing an id) is -1 in the arrays: entries with one keep their strings in
    `odd`, and `odd_making` / `odd_used` answer for those strings.  They are few: a loader refuses
    a merge whose result is not a token.
    """

    def __init__(self, model):
        vocab_ids, size = _nameable_ids(model)
        self.aliased = vocab_ids is not model.vocab  # (then some tokens are not named by their id)
        get = vocab_ids.get
        by_list = getattr(model, "has_merge_list", False)
        code = "i" if size < 2**31 else "q"  # (machine ints while building: no list of int objects)
        left, right, merged, ranks = array(code), array(code), array(code), array(code)
        odd: dict[int, tuple[str, str, str]] = {}
        for k, (r, a, b, m) in enumerate(iter_merges(model)):
            i, j, t = get(a, -1), get(b, -1), get(m, -1)
            left.append(i)
            right.append(j)
            merged.append(t)
            if not by_list:
                ranks.append(r)
            if i < 0 or j < 0 or t < 0:
                odd[k] = (a, b, m)
        id_type = np.dtype(f"i{left.itemsize}")
        self.size = size
        self.left = np.frombuffer(left, dtype=id_type)
        self.right = np.frombuffer(right, dtype=id_type)
        self.merged = np.frombuffer(merged, dtype=id_type)
        self.ranks = None if by_list else np.frombuffer(ranks, dtype=id_type)
        self.odd = odd
        n = len(self.merged)

        # making: by token id, the first entry whose result is that token
        self.making = np.full(size, n, dtype=np.int32)
        made = np.flatnonzero(self.merged >= 0)
        np.minimum.at(self.making, self.merged[made], made)
        self.making[self.making == n] = -1
        self.odd_making: dict[str, int] = {}
        for k, (a, b, m) in odd.items():
            if get(m, -1) < 0:
                self.odd_making.setdefault(m, k)

        # used by: entries taking each token as a part (once when it is both), in entry order
        entries = np.arange(n, dtype=np.int32)
        as_left = self.left >= 0
        as_right = (self.right >= 0) & (self.right != self.left)
        parts = np.concatenate([self.left[as_left], self.right[as_right]])
        users = np.concatenate([entries[as_left], entries[as_right]])
        self.used = users[np.lexsort((users, parts))]
        self.used_ptr = np.zeros(size + 1, dtype=np.int32 if len(users) < 2**31 else np.int64)
        np.cumsum(np.bincount(parts, minlength=size), out=self.used_ptr[1:])
        self.odd_used: dict[str, list[int]] = {}
        for k, (a, b, m) in odd.items():
            if get(a, -1) < 0:
                self.odd_used.setdefault(a, []).append(k)
            if get(b, -1) < 0 and b != a:
                self.odd_used.setdefault(b, []).append(k)

    def nbytes(self) -> int:
        arrays = (self.left, self.right, self.merged, self.ranks, self.making, self.used, self.used_ptr)
        return sum(a.nbytes for a in arrays if a is not None)

    # ---- one entry ------------------------------------------------------------------------------
    def rank(self, k: int) -> int:
        return k if self.ranks is None else self.ranks.item(k)

    def parts(self, model, k: int) -> tuple[str, str]:
        odd = self.odd.get(k)
        if odd is not None:
            return odd[0], odd[1]
        return model.id_to_token(self.left.item(k)), model.id_to_token(self.right.item(k))

    def result(self, model, k: int) -> str:
        t = self.merged.item(k)
        return model.id_to_token(t) if t >= 0 else self.odd[k][2]

    # ---- by token -------------------------------------------------------------------------------
    def id_of(self, model, token: str) -> int:
        """The token's id, -1 for a string the arrays do not name (see the class docstring)."""
        i = model.vocab.get(token)
        if i is None:
            return -1
        if self.aliased and (not 0 <= i < self.size or model.id_to_token(i) != token):
            return -1
        return i

    def making_entry(self, model, token: str) -> int:
        """The first entry that makes `token`, -1 when none does."""
        i = self.id_of(model, token)
        return self.making.item(i) if i >= 0 else self.odd_making.get(token, -1)

    def making_rank(self, model, token: str) -> int | None:
        k = self.making_entry(model, token)
        return self.rank(k) if k >= 0 else None

    def users(self, model, token: str) -> list[tuple[int, str]]:
        """(rank, merged) of every entry taking `token` as a part, in entry order."""
        i = self.id_of(model, token)
        if i < 0:
            return [(self.rank(k), self.result(model, k)) for k in self.odd_used.get(token, ())]
        start, end = self.used_ptr.item(i), self.used_ptr.item(i + 1)
        if start == end:
            return []
        name, merged, ranks = model.id_to_token, self.merged, self.ranks
        out = []
        for k in self.used[start:end].tolist():  # (.item beats fancy indexing on a few entries)
            t = merged.item(k)
            out.append((k if ranks is None else ranks.item(k), name(t) if t >= 0 else self.odd[k][2]))
        return out

    def later_parts(self) -> np.ndarray:
        """Per entry, whether a part of it is only made by a later-ranked merge (also True for
        every entry with a string the arrays do not name: check those by string)."""
        n = len(self.merged)
        rank = np.arange(n) if self.ranks is None else self.ranks
        later = np.zeros(n, dtype=bool)
        for part in (self.left, self.right):
            first = np.full(n, -1, dtype=np.int64)
            named = part >= 0
            first[named] = self.making[part[named]]
            made = np.flatnonzero(first >= 0)
            later[made] |= rank[first[made]] > rank[made]
        later[list(self.odd)] = True
        return later


def _nameable_ids(model) -> tuple[dict[str, int], int]:
    """token -> id for the tokens an id names (`model.id_to_token(id) == token`), and the size of
    an array indexed by id.  That is the vocabulary itself unless several tokens share an id or an
    id is negative, which a hand-built model may do."""
    vocab = model.vocab
    ids = np.fromiter(vocab.values(), dtype=np.int64, count=len(vocab))
    if not len(ids):
        return vocab, 0
    if ids.min() >= 0:
        seen = np.zeros(int(ids.max()) + 1, dtype=bool)
        seen[ids] = True
        if np.count_nonzero(seen) == len(ids):
            return vocab, len(seen)
    name = model.id_to_token
    named = {t: i for t, i in vocab.items() if name(i) == t}
    return named, max(named.values(), default=-1) + 1


class _Making(Mapping):
    """`merges_making`'s answer: merged token -> (rank, left, right), read from the index."""

    __slots__ = ("_model", "_index")

    def __init__(self, model, index: _MergeIndex):
        self._model = model
        self._index = index

    def __getitem__(self, token: str) -> tuple[int, str, str]:
        found = self.get(token)
        if found is None:
            raise KeyError(token)
        return found

    def get(self, token: str, default=None):
        k = self._index.making_entry(self._model, token)
        return default if k < 0 else (self._index.rank(k), *self._index.parts(self._model, k))

    def __contains__(self, token) -> bool:
        return self._index.making_entry(self._model, token) >= 0

    def __len__(self) -> int:
        return int(np.count_nonzero(self._index.making >= 0)) + len(self._index.odd_making)

    def __iter__(self) -> Iterator[str]:
        index = self._index
        odd = np.fromiter(index.odd_making.values(), dtype=np.int64, count=len(index.odd_making))
        for k in np.sort(np.concatenate([index.making[index.making >= 0], odd])).tolist():
            yield index.result(self._model, k)
