"""analysis.token_info: merge ranks, merge counts and log-probabilities of tokens."""
from __future__ import annotations

import tokviz
from tokviz.analysis.token_info import merge_rank, token_facts
from tokviz.train.charbpe import char_bpe_from_counts
from tokviz.train.options import TrainOptions

from _shared import TOKENIZERS, need


def test_merge_rank_is_the_place_of_the_merge_that_makes_the_token():
    tok = tokviz.load(need(TOKENIZERS / "qwen2.5" / "tokenizer.json"))
    merges = tok.model.merges
    for token in ("Ġworld", "Hello", "ing"):
        rank = merge_rank(tok.model, token)
        a, b = merges[rank]
        assert a + b == token
        assert all(x + y != token for x, y in merges[:rank])  # the first merge that makes it
    assert merge_rank(tok.model, "H") is None  # a byte: no merge makes it


def test_trained_merges_keep_their_counts():
    tok = char_bpe_from_counts(["low", "lowest", "new", "widest"], [5, 2, 6, 3], TrainOptions(vocab_size=30, min_frequency=1))
    facts = token_facts(tok, tok.model.vocab["w</w>"])
    assert facts == {"merge rank": 0, "merge count": 11}
    assert token_facts(tok, tok.model.vocab["l"]) == {}


def test_unigram_and_sentencepiece_scores():
    uni = tokviz.load(need(TOKENIZERS / "sentencepiece" / "unigram_8k.model"))
    i = uni.encode("world").ids[-1]
    assert token_facts(uni, i)["log-probability"] == round(float(uni.model.scores[i]), 4) < 0
    bpe = tokviz.load(need(TOKENIZERS / "sentencepiece" / "bpe_8k.model"))
    assert "score" in token_facts(bpe, bpe.encode("world").ids[-1])
