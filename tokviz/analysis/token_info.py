"""Facts about one token beyond its bytes: the merge that made it, its log-probability.

    >>> token_facts(tok, 1917)
    {'merge rank': 1661}
    >>> token_facts(unigram_tok, 42)
    {'log-probability': -7.31}

Plain data, no Qt: the explorer shows these in a token's details.  With build=False nothing
waits for the model's merge index (`merges.merge_index`, a second or more to build for a large
vocabulary): until it is built a merge rank is `NOT_INDEXED`.
"""
from __future__ import annotations

from ..core.models.bpe import BPE
from ..core.tokenizer import Tokenizer
from .merges import built_merge_index, merge_index


class _NotIndexed:
    """The type of `NOT_INDEXED`."""

    def __repr__(self) -> str:
        return "NOT_INDEXED"


NOT_INDEXED = _NotIndexed()  # a merge rank asked with build=False before the merge index is built


def merge_rank(model: BPE, token: str, *, build: bool = True) -> int | None | _NotIndexed:
    """Index of the merge that produced `token` (its place in the merge list), None for a token no
    merge makes (a byte, a character, a special token).  A tiktoken-style BPE ranks merges by the
    merged token's id, so there the id is the rank.  build=False: NOT_INDEXED rather than build the
    merge index."""
    if not model.has_merge_list:
        i = model.vocab.get(token)
        return i if i is not None and len(token) > 1 else None
    index = merge_index(model) if build else built_merge_index(model)
    return NOT_INDEXED if index is None else index.making_rank(model, token)


def token_facts(tokenizer: Tokenizer, token_id: int, *, build: bool = True) -> dict[str, object]:
    """What the model knows about a token: 'merge rank' (BPE), 'merge count' (BPE trained by
    tokviz: how often the pair occurred when merged), 'log-probability' (Unigram), 'score' (a
    sentencepiece BPE, which merges the best-scoring piece first).  build=False: 'merge rank' is
    NOT_INDEXED (and 'merge count' missing) while the merge index is not built."""
    model = tokenizer.model
    facts: dict[str, object] = {}
    piece = tokenizer.id_to_token(token_id)
    if piece is None:
        return facts
    if isinstance(model, BPE):
        rank = merge_rank(model, piece, build=build)
        if rank is NOT_INDEXED:
            facts["merge rank"] = rank
        elif rank is not None:
            facts["merge rank"] = rank
            counts = model.merge_counts
            if counts is not None and model.has_merge_list and rank < len(counts):
                facts["merge count"] = counts[rank]
    scores = getattr(model, "scores", None)
    if scores is not None and 0 <= token_id < len(scores):
        # a Unigram's scores are log-probabilities; a sentencepiece BPE merges by piece score
        key = "log-probability" if model.kind == "Unigram" else "score"
        facts[key] = round(float(scores[token_id]), 4)
    return facts
