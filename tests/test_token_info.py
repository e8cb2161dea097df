"""analysis.token_info: merge ranks, merge counts and log-probabilities of tokens."""
from __future__ import annotations

import pytest

import tokviz
from tokviz.analysis.token_info import merge_rank, token_facts
from tokviz.core import Tokenizer
from tokviz.core.models.bpe import BPE
from tokviz.train.charbpe import char_bpe_from_counts
from tokviz.train.options import TrainOptions

from _shared import TOKENIZERS, need, reference


def test_merge_rank_is_the_place_of_the_merge_that_makes_the_token():
    tok = reference(need(TOKENIZERS / "qwen2.5" / "tokenizer.json"))  # (loaded once per session)
    merges = tok.model.merges
    for token in ("Ġworld", "Hello", "ing"):
        rank = merge_rank(tok.model, token)
        a, b = merges[rank]
        assert a + b == token
        assert all(x + y != token for x, y in merges[:rank])  # the first merge that makes it
    assert merge_rank(tok.model, "H") is None  # a byte: no merge makes it


@pytest.mark.shared
def test_merge_rank_from_merge_lines_keeps_no_merge_list():
    tok = tokviz.load(need(TOKENIZERS / "qwen2.5" / "vocab.json"))  # merge lines, as merges.txt holds them
    model = tok.model
    lines = model._merge_lines
    first = {}
    for r, line in enumerate(lines):
        first.setdefault(line.replace(" ", ""), r)
    for token in model.vocab:
        assert merge_rank(model, token) == first.get(token), token
    assert merge_rank(model, "Ġworld") == 1623 and lines[1623] == "Ġw orld"
    assert token_facts(tok, model.vocab["Ġworld"]) == {"merge rank": 1623}
    assert model._merges is None  # (model.merges, a tuple per merge, was never built)


def test_merge_rank_of_a_model_ranked_by_token_id():
    model = BPE({"a": 0, "b": 1, "ab": 2, "ba": 3, "aba": 4}, None)  # tiktoken-style
    assert [merge_rank(model, t) for t in ("a", "ab", "ba", "aba", "abc")] == [None, 2, 3, 4, None]
    assert token_facts(Tokenizer(model), 4) == {"merge rank": 4}
    lowest = BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b"), ("a", "b")])  # (listed twice: the first counts)
    assert merge_rank(lowest, "ab") == 0 and merge_rank(lowest, "b") is None


def test_trained_merges_keep_their_counts():
    tok = char_bpe_from_counts(["low", "lowest", "new", "widest"], [5, 2, 6, 3], TrainOptions(vocab_size=30, min_frequency=1))
    facts = token_facts(tok, tok.model.vocab["w</w>"])
    assert facts == {"merge rank": 0, "merge count": 11}
    assert token_facts(tok, tok.model.vocab["l"]) == {}


@pytest.mark.shared
def test_unigram_and_sentencepiece_scores():
    uni = tokviz.load(need(TOKENIZERS / "sentencepiece" / "unigram_8k.model"))
    i = uni.encode("world").ids[-1]
    assert token_facts(uni, i)["log-probability"] == round(float(uni.model.scores[i]), 4) < 0
    bpe = tokviz.load(need(TOKENIZERS / "sentencepiece" / "bpe_8k.model"))
    assert "score" in token_facts(bpe, bpe.encode("world").ids[-1])
