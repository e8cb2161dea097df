"""Pairs of equal count: tokviz's tie rules give the merges of the library each is named after.

"hf": HF tokenizers' BpeTrainer, run in the test.  "minbpe": Karpathy's minbpe, which is not a
package on PyPI; its training loop, written out plainly in tests/test_minbpe.py, is the oracle.
"""
from __future__ import annotations

import json
import random

import pytest

import tokviz
from test_minbpe import minbpe_train
from tokviz.core.patterns import GPT2_PATTERN
from tokviz.train import bpe_core
from tokviz.train.bpe import train_bytelevel_bpe as train_minbpe_style
from tokviz.train.bytelevel import train_bytelevel_bpe
from tokviz.train.options import TrainOptions

SEED_WORDS = {"low": 5, "lowest": 2, "new": 6, "widest": 3}


def random_text(rnd: random.Random, words: int) -> str:
    syllables = ["a", "b", "ab", "ba", "aa", "c", "the", "he", "th", "e", " ", "中", "é"]
    return " ".join("".join(rnd.choice(syllables) for _ in range(rnd.randint(1, 4))) for _ in range(words))


def test_wikipedia_example_minbpe():
    """minbpe's own example: after aa -> 256, the first pair met is (256, 97), merged second."""
    text = "aaabdaaabac"
    result = train_minbpe_style([text], 256 + 3, pattern=None, min_frequency=1, tie_break="minbpe")
    assert result.merges == minbpe_train(text, None, 3) == [(97, 97), (256, 97), (257, 98)]
    # HF's rule takes the pair of the lowest ids instead: (97, 98) before (256, 97)
    hf = train_minbpe_style([text], 256 + 3, pattern=None, min_frequency=1, tie_break="hf")
    assert hf.merges[:2] == [(97, 97), (97, 98)]


@pytest.mark.parametrize("pattern", [None, GPT2_PATTERN])
def test_random_corpora_minbpe(pattern):
    rnd = random.Random(7)
    for _ in range(40):
        text = random_text(rnd, rnd.randint(1, 30))
        n = rnd.randint(1, 40)
        want = minbpe_train(text, pattern, n)
        got = train_minbpe_style([text], 256 + n, pattern=pattern, min_frequency=1, tie_break="minbpe").merges
        assert got == want, text


def _hf_bytelevel(texts, vocab_size, min_frequency):
    tk = pytest.importorskip("tokenizers")
    from tokenizers import models, pre_tokenizers, trainers

    hf = tk.Tokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=min_frequency, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    hf.train_from_iterator(texts, trainer)
    return json.loads(hf.to_str())["model"]


@pytest.mark.parametrize("use_native", [True, False])
def test_random_corpora_hf_bytelevel(use_native, monkeypatch):
    """Merges and vocabulary ids equal HF BpeTrainer's (byte level, no special tokens)."""
    if not use_native:
        monkeypatch.setattr(bpe_core, "_native", None)
    elif not bpe_core.native_available():
        pytest.skip(bpe_core.native_reason)
    rnd = random.Random(11)
    for _ in range(30):
        texts = [random_text(rnd, rnd.randint(1, 12)) for _ in range(rnd.randint(1, 5))]
        vocab_size = 256 + rnd.randint(1, 60)
        min_frequency = rnd.choice([0, 1, 2])
        want = _hf_bytelevel(texts, vocab_size, min_frequency)
        tok = train_bytelevel_bpe(texts, TrainOptions(vocab_size=vocab_size, min_frequency=min_frequency))
        assert [list(m) for m in tok.model.merges] == [m.split(" ") if isinstance(m, str) else m
                                                        for m in want["merges"]], texts
        assert tok.model.vocab == want["vocab"], texts


def _hf_char_bpe(words: dict[str, int], **affixes):
    tk = pytest.importorskip("tokenizers")
    from tokenizers import models, pre_tokenizers, trainers

    hf = tk.Tokenizer(models.BPE(**affixes))
    hf.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    trainer = trainers.BpeTrainer(vocab_size=200, min_frequency=0, show_progress=False, **affixes)
    hf.train_from_iterator([w for w, n in words.items() for _ in range(n)], trainer)
    model = json.loads(hf.to_str())["model"]
    return [tuple(m) if not isinstance(m, str) else tuple(m.split(" ")) for m in model["merges"]], model["vocab"]


def _merges_with_hf_ids(words: dict[str, int], vocab: dict[str, int], prefix: str, suffix: str, n: int):
    """bpe_core.learn_merges(tie_break="hf") over `words` spelled as HF spells them, the initial
    symbols ranked by the ids HF gave them (HF numbers its prefixed / suffixed symbols in the order
    of a hash map, which differs between runs: the rule is compared given the same ids)."""
    def core(token: str) -> str:
        return token.removeprefix(prefix).removesuffix(suffix) if len(token) > 1 else token

    spell = sorted((t for t in vocab if len(core(t)) == 1), key=vocab.get)  # HF's ids order them
    symbol = {t: i for i, t in enumerate(spell)}
    seqs = []
    for w in words:
        parts = [(prefix if k else "") + c + (suffix if k == len(w) - 1 else "") for k, c in enumerate(w)]
        seqs.append([symbol[p] for p in parts])
    merges = bpe_core.learn_merges(seqs, list(words.values()), len(spell), n, tie_break="hf")
    for m in merges:
        a, b = spell[m.left], spell[m.right]
        spell.append(a + b[len(prefix):] if prefix and b.startswith(prefix) else a + b)
    return [(spell[m.left], spell[m.right]) for m in merges]


@pytest.mark.parametrize("affixes", [{}, {"end_of_word_suffix": "</w>"}, {"continuing_subword_prefix": "##"},
                                     {"end_of_word_suffix": "</w>", "continuing_subword_prefix": "##"}])
def test_seed_example_and_random_words_hf(affixes):
    """The seed example {low: 5, lowest: 2, new: 6, widest: 3} and random word counts: the merges
    of the "hf" rule are HF BpeTrainer's, with and without an end-of-word suffix and a prefix."""
    rnd = random.Random(5)
    cases = [SEED_WORDS] + [
        {"".join(rnd.choice("abcde") for _ in range(rnd.randint(1, 6))): rnd.randint(1, 6) for _ in range(8)}
        for _ in range(40)
    ]
    for words in cases:
        want, vocab = _hf_char_bpe(words, **affixes)
        got = _merges_with_hf_ids(words, vocab, affixes.get("continuing_subword_prefix", ""),
                                  affixes.get("end_of_word_suffix", ""), len(want))
        assert got == want, words


def test_seed_example_char_bpe_trainer():
    """The char-BPE trainer with the suffix glued on (as HF) learns HF's merges on the seed example;
    its vocabulary numbers the suffixed characters in code point order."""
    from tokviz.train.charbpe import char_bpe_from_counts

    want, _ = _hf_char_bpe(SEED_WORDS, end_of_word_suffix="</w>")
    tok = char_bpe_from_counts(list(SEED_WORDS), list(SEED_WORDS.values()),
                               TrainOptions(vocab_size=200, min_frequency=0), end_of_word="glued")
    assert [tuple(m) for m in tok.model.merges] == want


def test_tie_break_option_is_checked():
    with pytest.raises(tokviz.TokvizError, match="tie_break"):
        TrainOptions(vocab_size=300, tie_break="random")


def test_native_and_python_agree_on_every_rule():
    """The C core (hf, first-seen) and the Python reference give the same merges; minbpe runs the
    reference whatever is asked."""
    if not bpe_core.native_available():
        pytest.skip(bpe_core.native_reason)
    rnd = random.Random(3)
    for _ in range(60):
        words = [bytes(rnd.choice(b"abcab ") for _ in range(rnd.randint(1, 8))) for _ in range(rnd.randint(1, 12))]
        counts = [rnd.randint(0, 5) for _ in words]
        ranks = list(range(256))
        rnd.shuffle(ranks)
        for rule, given in (("hf", ranks), ("hf", None), ("first-seen", None), ("minbpe", None)):
            kwargs = {"tie_break": rule, "ranks": given, "min_frequency": rnd.choice([0, 1, 2]),
                      "mode": rnd.choice(["count", "wordpiece"])}
            native = bpe_core.learn_merges(words, counts, 256, 30, use_native=True, **kwargs)
            python = bpe_core.learn_merges(words, counts, 256, 30, use_native=False, **kwargs)
            assert native == python, (words, counts, rule)


def test_bad_ranks_are_refused():
    with pytest.raises(ValueError, match="permutation"):
        bpe_core.learn_merges([b"ab"], [1], 256, 1, tie_break="hf", ranks=[0] * 256)
    with pytest.raises(ValueError, match="tie_break"):
        bpe_core.learn_merges([b"ab"], [1], 256, 1, tie_break="lowest")
    if bpe_core.native_available():
        from tokviz import _bpetrain

        for ranks in ([0], [300] * 256, [-1] * 256, ["x"] * 256, 5):
            with pytest.raises((ValueError, TypeError)):
                _bpetrain.learn_merges([b"ab"], [1], 256, 1, ranks=ranks)
