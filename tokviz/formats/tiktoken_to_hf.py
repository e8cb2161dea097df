"""A merge list for a BPE that ranks pairs by the merged token (a .tiktoken file), so that HF
tokenizers' BPE, which ranks pairs by a merge list, cuts the same tokens.

tiktoken merges, again and again, the adjacent pair whose concatenation has the lowest rank.  HF
merges the pair that comes first in its merge list.  Listing, for every token in rank order, each
way to cut it into two tokens gives HF the same order of merges: a pair's place in the list is
first decided by the rank of the token it makes.  Which cut of a token is listed first only
matters when two different cuts of one token are both next to each other in a word at the same
time, which the tests on real text have not met.  With `ignore_merges` (a piece that is a token
is taken whole), as tiktoken does, the written file encodes as tiktoken's `encode_ordinary`.
"""
from __future__ import annotations


def merges_from_ranks(vocab: dict[str, int]) -> list[tuple[str, str]]:
    """Every (left, right) cut of every token of `vocab` (token -> rank; byte-level strings, one
    character a byte) into two tokens, ordered by the rank of the token, then by the ranks of
    the left and right parts."""
    found: list[tuple[int, int, int, str, str]] = []
    get = vocab.get
    for token, rank in vocab.items():
        for cut in range(1, len(token)):
            left, right = token[:cut], token[cut:]
            left_rank = get(left)
            if left_rank is None:
                continue
            right_rank = get(right)
            if right_rank is not None:
                found.append((rank, left_rank, right_rank, left, right))
    found.sort()
    return [(left, right) for _, _, _, left, right in found]
