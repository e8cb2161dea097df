"""tokviz.train.bytelevel.train_bytelevel_bpe: the trained tokenizer and the TrainOptions it honours."""
from __future__ import annotations

from pathlib import Path

import pytest

from tokviz.core.bytelevel import BYTE_TO_CHAR
from tokviz.defaults import resource_path, sample_text
from tokviz.train import bpe_core
from tokviz.train.bpe_core import Cancelled
from tokviz.train.bytelevel import byte_alphabet, train_bytelevel_bpe
from tokviz.train.options import TrainOptions

from _shared import CORPUS, EDGE_CASES, corpus_samples, need

TRAINING = resource_path("training.txt").read_text(encoding="utf-8")
native = pytest.mark.skipif(not bpe_core.native_available(), reason=bpe_core.native_reason or "C core not built")


@pytest.fixture(scope="module")
def tok():
    return train_bytelevel_bpe([TRAINING], TrainOptions(vocab_size=1000, special_tokens=["<|endoftext|>", "<pad>"]))


def test_layout_specials_then_bytes_then_merges(tok):
    vocab = tok.model.vocab
    assert [t.content for t in tok.added.tokens] == ["<|endoftext|>", "<pad>"]
    assert [t.id for t in tok.added.tokens] == [0, 1]
    assert [vocab[BYTE_TO_CHAR[b]] for b in byte_alphabet()] == list(range(2, 258))
    assert vocab["!"] == 2 and vocab["Ā"] == 2 + 188  # '!' first; byte 0 after the 188 printable bytes
    assert max(vocab.values()) == tok.vocab_size - 1 == len(vocab) + 1
    assert tok.vocab_size <= 1000


def test_merge_counts_kept(tok):
    merges, counts = tok.model.merges, tok.model.merge_counts
    assert len(merges) == len(counts) > 500
    assert counts == sorted(counts, reverse=True)  # count mode: never rises
    assert min(counts) >= 2  # min_frequency's default


@pytest.mark.first_cases(6)
@pytest.mark.parametrize("text", EDGE_CASES + [sample_text()])
def test_round_trip(tok, text):
    assert tok.decode(tok.encode(text).ids, skip_special_tokens=False) == text


@native
def test_encodes_natively(tok):
    assert tok.describe()["encoder"] == "native"
    text = sample_text()
    ids = tok.encode(text).ids
    assert ids == tok.use_native(False).encode(text).ids


@pytest.mark.shared
def test_round_trip_on_corpora():
    texts = corpus_samples("multi", 10) + corpus_samples("code", 10) + corpus_samples("zh", 10)
    tok = train_bytelevel_bpe(texts[::2], TrainOptions(vocab_size=2000), pattern="cl100k")
    for text in texts[1::2]:
        assert tok.decode(tok.encode(text).ids) == text


def test_same_result_from_file_and_text(tmp_path: Path):
    path = tmp_path / "train.txt"
    path.write_text(TRAINING, encoding="utf-8")
    opts = TrainOptions(vocab_size=600)
    a = train_bytelevel_bpe([path], opts)
    b = train_bytelevel_bpe([TRAINING], opts, threads=1)
    assert a.model.vocab == b.model.vocab and a.model.merges == b.model.merges


def test_python_path_gives_the_same_tokenizer(monkeypatch):
    opts = TrainOptions(vocab_size=700, min_frequency=1)
    fast = train_bytelevel_bpe([TRAINING], opts)
    monkeypatch.setattr(bpe_core, "_native", None)
    slow = train_bytelevel_bpe([TRAINING], opts)
    assert fast.model.merges == slow.model.merges and fast.model.merge_counts == slow.model.merge_counts


def test_chinese_tie_break():
    tok = train_bytelevel_bpe(["潮潮潮潮潮潮 长长长长长长\n"], TrainOptions(vocab_size=300, min_frequency=1))
    made = ["".join(pair) for pair in tok.model.merges]
    from tokviz.core.bytelevel import bytes_to_unicode

    assert made.index(bytes_to_unicode("潮潮".encode())) < made.index(bytes_to_unicode("长长".encode()))


def test_options_reserved_user_defined_padding():
    opts = TrainOptions(
        vocab_size=500, special_tokens=["<s>"], reserved_tokens=2, user_defined_symbols=["<sep>"],
        pad_to_multiple_of=64, min_frequency=50,
    )
    tok = train_bytelevel_bpe([TRAINING], opts)
    added = [(t.content, t.id, t.special) for t in tok.added.tokens]
    assert added[:4] == [("<s>", 0, True), ("<|reserved_special_token_0|>", 1, True),
                         ("<|reserved_special_token_1|>", 2, True), ("<sep>", 3, False)]
    assert tok.vocab_size % 64 == 0
    assert tok.model.vocab[BYTE_TO_CHAR[byte_alphabet()[0]]] == 4
    assert tok.encode("a<sep>b").ids[1] == 3


def test_split_digits_and_max_token_length():
    text = TRAINING + " 2024 1999 31415926 " * 50
    opts = TrainOptions(vocab_size=800, split_digits=True, max_token_length=4, min_frequency=1)
    tok = train_bytelevel_bpe([text], opts)
    from tokviz.core.bytelevel import unicode_to_bytes

    for token in tok.model.vocab:
        data = unicode_to_bytes(token)
        assert len(data) <= 4
        assert len(data) == 1 or not any(48 <= b <= 57 for b in data)  # a digit is only ever alone
    ids = tok.encode("year 2024").ids
    assert tok.decode(ids) == "year 2024"
    assert len(ids) >= 5  # every digit alone


def test_progress_and_cancel():
    seen = []
    train_bytelevel_bpe([TRAINING], TrainOptions(vocab_size=800), progress=lambda f, m: seen.append((f, m)))
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[-1] == pytest.approx(1.0)
    assert seen[0][1] == "counting words" and seen[-1][1].startswith("merge ")
    calls = []

    def cancel():
        calls.append(1)
        return len(calls) > 3

    with pytest.raises(Cancelled):
        train_bytelevel_bpe([TRAINING], TrainOptions(vocab_size=2000, min_frequency=1), cancel=cancel)


def test_tiny_and_empty_corpora():
    for corpus in ([], [""], ["a"], ["ab"]):
        tok = train_bytelevel_bpe(corpus, TrainOptions(vocab_size=300, min_frequency=1))
        assert tok.vocab_size >= 256
        assert tok.decode(tok.encode("hello ab").ids) == "hello ab"
    tok = train_bytelevel_bpe(["tiny"], TrainOptions(vocab_size=10))  # smaller than the alphabet
    assert tok.vocab_size == 256


@pytest.mark.shared
def test_close_to_hf_on_the_same_pieces():
    tokenizers = pytest.importorskip("tokenizers")
    text = need(CORPUS / "en.txt").read_text(encoding="utf-8")[:1_500_000]
    cut = text.rfind("\n", 0, 1_200_000) + 1
    train, held_out = text[:cut], text[cut:]
    ours = train_bytelevel_bpe([train], TrainOptions(vocab_size=4000, special_tokens=["<|endoftext|>"]))
    from tokenizers import models, pre_tokenizers, trainers

    hf = tokenizers.Tokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(vocab_size=4000, min_frequency=2, special_tokens=["<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    hf.train_from_iterator(bpe_core.cut_text(train), trainer)
    assert len(ours.model.vocab.keys() - hf.get_vocab().keys()) < 0.02 * 4000  # ties broken differently
    ours_n, hf_n = len(ours.encode(held_out).ids), len(hf.encode(held_out).ids)
    assert abs(ours_n - hf_n) / hf_n < 0.01
