"""Character-level BPE and WordPiece trainers: the worked examples, the parameters, the outputs."""
from __future__ import annotations

import pytest

from tokviz.errors import Cancelled, TokvizError
from tokviz.formats import save
from tokviz.train import train
from tokviz.train.charbpe import char_bpe_from_counts, train_char_bpe
from tokviz.train.options import TrainOptions
from tokviz.core.bert_fast import BertFastPath
from tokviz.train.wordpiece import train_wordpiece, wordpiece_from_counts

from _shared import EDGE_CASES, corpus_samples

PAPER = (["low", "lowest", "new", "widest"], [5, 2, 6, 3])
TEXT = ("The quick brown fox jumps over the lazy dog. The dog sleeps; the fox runs away quickly!\n" * 20
        + "Lower, lowest, newer, newest, wider, widest. 1234 5678\n" * 10)


def test_char_bpe_reproduces_the_subword_units_example():
    tok = char_bpe_from_counts(*PAPER, TrainOptions(vocab_size=30, min_frequency=1))
    merges, counts = tok.model.merges, tok.model.merge_counts
    assert merges[:2] == [("w", "</w>"), ("l", "o")]
    assert counts[:2] == [11, 7]
    assert counts == sorted(counts, reverse=True)  # BPE counts never grow
    assert tok.encode("lowest").pieces == ["lowest</w>"]


def test_ties_follow_the_chosen_rule():
    """Equal counts: by default (HF's rule) the pair of the lower ids, 潮 (U+6F6E) before 长 (U+957F),
    whichever comes first; with minbpe's rule the pair that occurs first in the text."""
    for line in ("潮潮潮潮潮潮长长长长长长", "长长长长长长潮潮潮潮潮潮"):
        tok = train_char_bpe([line], TrainOptions(vocab_size=12, min_frequency=1))
        assert tok.model.merges[0] == ("潮", "潮"), line
        tok = train_char_bpe([line], TrainOptions(vocab_size=12, min_frequency=1, tie_break="minbpe"))
        assert tok.model.merges[0] == (line[0], line[0]), line


def test_vocab_size_specials_reserved_and_padding_are_honoured():
    opts = TrainOptions(vocab_size=120, special_tokens=["<unk>", "<s>", "</s>"], reserved_tokens=3,
                        user_defined_symbols=["<sep>"], pad_to_multiple_of=64, min_frequency=1)
    tok = train_char_bpe([TEXT], opts)
    assert tok.vocab_size == 128  # 120 rounded up to a multiple of 64 with reserved tokens
    vocab = tok.model.vocab
    assert [vocab[t] for t in ("<unk>", "<s>", "</s>")] == [0, 1, 2]
    assert [vocab[f"<|reserved_special_token_{i}|>"] for i in range(3)] == [3, 4, 5]
    assert "<sep>" in tok.encode("a<sep>b").pieces
    assert len(set(vocab.values())) == len(vocab) == 128


def test_rare_characters_become_unknown_and_byte_fallback_keeps_them():
    text = TEXT + "ω\n"
    tok = train_char_bpe([text], TrainOptions(vocab_size=80, character_coverage=0.999, min_frequency=1))
    assert "ω" not in tok.model.vocab and tok.encode("ω").pieces == ["<unk>", "</w>"]
    tok = train_char_bpe([text], TrainOptions(vocab_size=400, character_coverage=0.999, byte_fallback=True))
    assert tok.encode("ω").pieces == ["<0xCF>", "<0x89>", "</w>"]
    assert tok.decode(tok.encode("ω").ids) == "ω"


def test_min_frequency_and_max_token_length_limit_the_merges():
    tok = train_char_bpe([TEXT], TrainOptions(vocab_size=5000, min_frequency=10))
    assert min(tok.model.merge_counts) >= 10 and tok.vocab_size < 5000
    tok = train_char_bpe([TEXT], TrainOptions(vocab_size=5000, min_frequency=1, max_token_length=3))
    assert max(len(t.replace("</w>", "")) for t in tok.model.vocab if not t.startswith("<")) <= 3


def test_char_bpe_round_trips_words_and_reports_progress(tmp_path):
    seen = []
    path = tmp_path / "corpus.txt"
    path.write_text(TEXT, encoding="utf-8")
    tok = train("bpe", [path], TrainOptions(vocab_size=200, special_tokens=["<unk>"]),
                progress=lambda f, m: seen.append((f, m)))
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert any(m.startswith("merge 1: ") for _, m in seen)
    text = "the lazy dog jumps over the brown fox"
    assert tok.decode(tok.encode(text).ids) == text


def test_cancel_stops_training():
    from tokviz.train.options import check_cancel

    with pytest.raises(Cancelled, match="cancelled"):
        check_cancel(lambda: True)
    check_cancel(None)
    check_cancel(lambda: False)
    calls = []

    def cancel():
        calls.append(1)
        return len(calls) > 3

    with pytest.raises(Cancelled):
        train_char_bpe([TEXT * 5], TrainOptions(vocab_size=300, min_frequency=1), cancel=cancel,
                       progress=lambda f, m: None)


def test_glued_char_bpe_writes_a_tokenizer_json_that_hf_reads_the_same(tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    tok = train_char_bpe([TEXT], TrainOptions(vocab_size=150, special_tokens=["<unk>"]), end_of_word="glued")
    out = save(tok, tmp_path / "bpe.json")
    ref = tokenizers.Tokenizer.from_file(str(out))
    for text in [TEXT[:300], "the newest fox!", "ünknown wörds"] + EDGE_CASES:
        assert ref.encode(text, add_special_tokens=False).ids == tok.encode(text).ids, text
    separate = train_char_bpe([TEXT], TrainOptions(vocab_size=150))
    with pytest.raises(TokvizError, match="glue"):
        save(separate, tmp_path / "separate.json")


def test_wordpiece_merges_by_likelihood_score():
    # a-b is frequent, but a and b are far more frequent alone; x-y is rarer but x and y only occur together
    words = ["ab", "a", "b", "xy"]
    counts = [10, 100, 100, 3]
    tok = wordpiece_from_counts(words, counts, TrainOptions(vocab_size=20, min_frequency=1))
    assert tok.model.vocab["xy"] < tok.model.vocab["ab"]  # merged first: 3/(3*3) beats 10/(110*10)
    assert tok.encode("ab xy").pieces == ["ab", "xy"]


def test_wordpiece_trains_a_bert_style_tokenizer(tmp_path):
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok = train_wordpiece([TEXT], TrainOptions(vocab_size=150, special_tokens=specials, min_frequency=2))
    assert tok.vocab_size == 150 or tok.vocab_size < 150
    assert [tok.model.vocab[t] for t in specials] == list(range(5))
    enc = tok.encode("The quick fox", add_special_tokens=True)
    assert enc.pieces[0] == "[CLS]" and enc.pieces[-1] == "[SEP]"
    assert all(p == "[UNK]" or p in tok.model.vocab for p in tok.encode("Quickly, the newest! ω").pieces)
    tokenizers = pytest.importorskip("tokenizers")
    out = save(tok, tmp_path / "wp.json")
    ref = tokenizers.Tokenizer.from_file(str(out))
    for text in [TEXT[:400], "Ünïcode façade, ÀÉÎ!"] + EDGE_CASES:
        assert ref.encode(text, add_special_tokens=False).ids == tok.encode(text).ids, text
    vocab_txt = save(tok, tmp_path / "vocab.txt")
    assert vocab_txt.read_text(encoding="utf-8").split("\n")[:5] == specials


@pytest.mark.shared
@pytest.mark.parametrize("lowercase", [True, False])
def test_fast_training_normalizer_equals_bert_normalizer(lowercase):
    from tokviz.core.normalizers import BertNormalizer

    texts = EDGE_CASES + corpus_samples("multi", 5) + corpus_samples("zh", 3)
    for text in texts:
        assert BertFastPath(BertNormalizer(lowercase=lowercase)).normalize_str(text) == BertNormalizer(lowercase=lowercase).normalize_str(text)


def test_bad_parameters_and_corpora_are_clear_errors(tmp_path):
    with pytest.raises(TokvizError, match="vocab_size"):
        TrainOptions(vocab_size=0)
    with pytest.raises(TokvizError, match="listed twice"):
        TrainOptions(vocab_size=10, special_tokens=["<s>"], user_defined_symbols=["<s>"])
    with pytest.raises(TokvizError, match="smaller than"):
        train_char_bpe([TEXT], TrainOptions(vocab_size=5))
    with pytest.raises(TokvizError, match="unknown model"):
        train("sentencepiece", [TEXT], TrainOptions(vocab_size=100))
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("caf\xe9\n".encode("latin-1") * 10)
    with pytest.raises(TokvizError, match="latin1.txt.*UTF-8|UTF-8.*latin1.txt"):
        train("bpe", [bad], TrainOptions(vocab_size=100))
