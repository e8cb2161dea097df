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

Plain data, no Qt: the merges view draws these.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass, field

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
    if rank is not None and counts is not None and model.merges is not None and rank < len(counts):
        count = counts[rank]
    return MergeNode(token, model.vocab.get(token), rank, count, left, right, reachable)


def merge_tree(model: BPE | SentencePieceBPE, token: str) -> MergeNode:
    """The tree BPE builds for `token` from its own string; for an unreachable token, the tree its
    listed merges imply (`listed_tree`), its root marked reachable=False."""
    trace = trace_bpe(model, token, whole_words=False)
    nodes = [_node(model, s) for s in trace.initial]
    for step in trace.steps:
        left, right = nodes[step.position], nodes[step.position + 1]
        nodes[step.position : step.position + 2] = [_node(model, step.merged, step.rank, left, right)]
    if len(nodes) == 1 and nodes[0].token == token:
        return nodes[0]
    tree = listed_tree(model, token)
    tree.reachable = False
    return tree


def listed_tree(model: BPE, token: str, _depth: int = 0) -> MergeNode:
    """The tree of the merges listed for `token`: the lowest-ranked merge that makes it, and so
    on down to symbols no merge makes."""
    made = merges_making(model).get(token)
    if made is None or _depth > 256:  # (a cyclic merge list cannot recurse for ever)
        return _node(model, token)
    rank, a, b = made
    return _node(model, token, rank, listed_tree(model, a, _depth + 1), listed_tree(model, b, _depth + 1))


_MAKING: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_USED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def merge_list(model: BPE | SentencePieceBPE) -> list[tuple[int, str, str, str]]:
    """Every merge as (rank, left, right, merged), in rank order.  A tiktoken-style model or a
    sentencepiece BPE lists none: each multi-symbol token's merge is then the last step of its own
    trace (rank = id)."""
    merges = getattr(model, "merges", None)
    if merges is not None:
        return [(r, a, b, model._merged(a, b)) for r, (a, b) in enumerate(merges)]
    out = []
    for token, i in sorted(model.vocab.items(), key=lambda kv: kv[1]):
        if len(token) < 2:
            continue
        trace = trace_bpe(model, token, whole_words=False)
        if trace.steps and trace.result == (token,):
            last = trace.steps[-1]
            out.append((i, last.left, last.right, token))
    return out


def merges_making(model: BPE) -> dict[str, tuple[int, str, str]]:
    """merged token -> (rank, left, right) of the lowest-ranked merge that makes it."""
    table = _MAKING.get(model)
    if table is None:
        table = {}
        for r, a, b, m in merge_list(model):
            table.setdefault(m, (r, a, b))
        _MAKING[model] = table
    return table


def used_by(model: BPE, token: str) -> list[tuple[int, str]]:
    """(rank, merged) of every merge that takes `token` as one of its two parts, by rank: the
    tokens whose trees contain it directly."""
    index = _USED.get(model)
    if index is None:
        index = {}
        for r, a, b, m in merge_list(model):
            index.setdefault(a, []).append((r, m))
            if b != a:
                index.setdefault(b, []).append((r, m))
        _USED[model] = index
    return list(index.get(token, []))
