"""The native WordPiece and (HF) Unigram models (tokviz._native.WordPieceModel / UnigramModel) give
the same ids and offsets as the Python pipeline (use_native(False)): BERT's shared tokenizer (as
tokenizer.json and as vocab.txt) and WordPiece / Unigram tokenizers trained here with HF tokenizers,
with and without byte fallback."""
from __future__ import annotations

import functools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokviz
from tokviz.core.models.unigram import Unigram
from tokviz.core.models.wordpiece import WordPiece
from tokviz.core.tokenizer import Tokenizer

from _shared import CORPUS_FILES, EDGE_CASES, TOKENIZERS, assigned_text, corpus_samples, examples, need

_native = pytest.importorskip("tokviz._native", reason="the C extension tokviz._native is not built")


@functools.lru_cache(maxsize=None)
def _train(kind: str) -> str:
    """tokenizer.json text of a small tokenizer trained with HF tokenizers (once: training may vary)."""
    tk = pytest.importorskip("tokenizers")
    from tokenizers import models, normalizers, pre_tokenizers, trainers

    from tokviz.defaults import resource_path

    train = resource_path("training.txt").read_text(encoding="utf-8").split("\n")
    if kind == "wordpiece":
        tok = tk.Tokenizer(models.WordPiece(unk_token="[UNK]", max_input_chars_per_word=12))
        tok.normalizer = normalizers.BertNormalizer(lowercase=False, strip_accents=True, handle_chinese_chars=True)
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        trainer = trainers.WordPieceTrainer(vocab_size=400, special_tokens=["[UNK]", "[CLS]", "[SEP]"], show_progress=False)
    else:
        tok = tk.Tokenizer(models.Unigram())
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        trainer = trainers.UnigramTrainer(vocab_size=700, special_tokens=["<unk>", "<s>", "</s>"], unk_token="<unk>",
                                          show_progress=False)
    tok.train_from_iterator(train, trainer)
    data = json.loads(tok.to_str())
    if kind == "unigram-bytefallback":
        vocab = data["model"]["vocab"]
        low = min(score for _, score in vocab)
        vocab.extend([f"<0x{b:02X}>", low - 1.0] for b in range(256))
        data["model"]["byte_fallback"] = True
    return json.dumps(data)


PATHS = {
    "bert-minilm-json": TOKENIZERS / "bert-minilm" / "tokenizer.json",
    "bert-minilm-vocab": TOKENIZERS / "bert-minilm" / "vocab.txt",
    "wordpiece-trained": "wordpiece",
    "unigram-trained": "unigram",
    "unigram-bytefallback": "unigram-bytefallback",
}
NAMES = list(PATHS) + ["unigram-nofuse", "wordpiece-tiny"]


@functools.lru_cache(maxsize=None)
def load(name: str):
    if name == "unigram-nofuse":  # tokviz's own option, no pre-tokenizer: whole texts go to Viterbi
        base = load("unigram-trained").model
        return Tokenizer(Unigram(base.pieces, unk_id=base.unk_id, fuse_unk=False))
    if name == "wordpiece-tiny":  # an empty prefix, a short word limit
        vocab = {t: i for i, t in enumerate(["[UNK]", "a", "b", "ab", "abc", "c", "é", "中文", "x"])}
        from tokviz.core import pre_tokenizers as pre

        return Tokenizer(WordPiece(vocab, continuing_subword_prefix="", max_input_chars_per_word=6),
                         pre_tokenizer=pre.Whitespace())
    where = PATHS[name]
    if isinstance(where, str):
        import tempfile
        from pathlib import Path

        path = Path(tempfile.mkdtemp(prefix="tokviz-native-models-")) / "tokenizer.json"
        path.write_text(_train(where), encoding="utf-8")
        return tokviz.load(path)
    return tokviz.load(need(where))


def assert_same(tok, text, **kwargs):
    native = tok.use_native(True).encode(text, **kwargs)
    python = tok.use_native(False).encode(text, **kwargs)
    tok.use_native(True)
    assert native.ids == python.ids, text
    assert native.offsets == python.offsets, text
    assert native == python
    assert tok.encode_ids(text, **kwargs) == python.ids


@pytest.mark.parametrize("name", NAMES)
def test_uses_native(name):
    tok = load(name)
    native = tok.native_encoder()
    from tokviz.native import NativeModel

    assert isinstance(native, NativeModel)  # (BERT's: NativeBert, which also normalizes)
    assert tok.describe()["encoder"] == "native"
    assert tok.use_native(False).describe()["encoder"] == "python"
    tok.use_native(True)


def test_bert_minilm_reports_native():
    tok = load("bert-minilm-json")
    assert tok.describe()["encoder"] == "native"
    assert "WordPiece" in tok.native_encoder().describe()


@pytest.mark.parametrize("name", NAMES)
def test_edge_cases(name):
    tok = load(name)
    for text in EDGE_CASES:
        assert_same(tok, text)
        assert_same(tok, text, allow_special=True)
        assert_same(tok, text, add_special_tokens=True)


@pytest.mark.shared
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("corpus", CORPUS_FILES)
def test_corpus(name, corpus):
    tok = load(name)
    for text in corpus_samples(corpus, 4, 500, 3000):
        assert_same(tok, text)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=examples(80), deadline=None)
@given(text=assigned_text(80))
def test_random_text(name, text):
    assert_same(load(name), text)


@pytest.mark.parametrize("name", NAMES)
def test_long_and_odd_words(name):
    tok = load(name)
    texts = ["a" * 5000, "ab" * 700, "é" * 300, "中" * 400, "🙂" * 200, "x" * 101, "x" * 100, "abcabcabcabc" * 30,
             "unaffable" * 20, "\x00" * 50, "\u0301" * 20, " " * 3000 + "x", "[UNK]" * 5, "<unk><unk>", "▁" * 50,
             "".join(chr(c) for c in range(0x20, 0x3000, 7)), "\U0010ffff\U000e0001\ue000"]
    for text in texts:
        assert_same(tok, text)


@pytest.mark.shared
@pytest.mark.first_cases(6)
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("threads", [1, 2, 4])
def test_batch_equals_sequential(name, threads):
    tok = load(name)
    texts = EDGE_CASES + corpus_samples("multi", 6, 200, 3000) + corpus_samples("en", 6, 2000, 8000)
    sequential = [tok.use_native(False).encode(t) for t in texts]
    tok.use_native(True)
    assert tok.encode_batch(texts, threads=threads) == sequential
    assert tok.encode_batch(texts, threads=threads, allow_special=True, add_special_tokens=True) == [
        tok.encode(t, allow_special=True, add_special_tokens=True) for t in texts
    ]
    assert tok.encode_ids_batch(texts, threads=threads) == [e.ids for e in sequential]


@settings(max_examples=examples(30), deadline=None)
@given(texts=st.lists(assigned_text(40), max_size=6))
def test_random_batches(texts):
    for name in ("bert-minilm-json", "unigram-bytefallback"):
        tok = load(name)
        expected = [tok.use_native(False).encode(t) for t in texts]
        tok.use_native(True)
        assert tok.encode_batch(texts, threads=3) == expected


def test_unigram_byte_fallback_like_hf():
    """The byte-fallback tokenizer (built here) is also what HF tokenizers gives."""
    tk = pytest.importorskip("tokenizers")
    ref = tk.Tokenizer.from_str(_train("unigram-bytefallback"))
    tok = load("unigram-bytefallback")
    for text in EDGE_CASES + ["ŋ ǂ ꙮ 𓀀 ☃ 中文"]:
        assert tok.encode(text).ids == ref.encode(text, add_special_tokens=False).ids, text


def test_models_check_their_input():
    wp = load("bert-minilm-json").native_encoder().model
    uni = load("unigram-bytefallback").native_encoder().model
    for model in (wp, uni):
        assert model.encode_words([]) == ([], b"", b"")
        ids, counts, offs = model.encode_words(["", "", ""], 4)
        assert ids == [] and len(counts) == 12 and offs == b""
        with pytest.raises(TypeError):
            model.encode_words([b"bytes"])
        with pytest.raises(TypeError):
            model.encode_words(None)
        with pytest.raises(ValueError):
            model.encode_words(["a", "b"], 1, [0])
        with pytest.raises(TypeError):
            model.encode_words(["a"], 1, ["x"])
        with pytest.raises(ValueError):
            model.encode_words(["ab"], 1, None, [None, None])
        with pytest.raises(ValueError):
            model.encode_words(["ab"], 1, None, [([0], [1])])  # shorter than the word
        with pytest.raises(ValueError):
            model.encode_words(["ab"], 1, None, [[[0, 1], [1, 2]]])  # not a tuple
        with pytest.raises(ValueError):
            model.encode_words(["ab"], 1, None, [([0, -5], [1, 2])])
        with pytest.raises(TypeError):
            model.encode_words(["ab"], 1, None, [([0, "x"], [1, 2])])
        ids, counts, offs = model.encode_words(["ab", "ab"], 1, [7, 3], [None, ([10, 11], [11, 12])])  # spans win over bases
        pairs, first = list(memoryview(offs).cast("i")), 2 * memoryview(counts).cast("i")[0]
        assert min(pairs[:first]) == 7 and max(pairs[:first]) == 9
        assert min(pairs[first:]) == 10 and max(pairs[first:]) == 12
        model.encode_words(["x" * 100000, "y" * 100000], 8)  # big words, several threads
        model.encode_words(["a"], -5)
        model.encode_words(["a"], 10**6)
    with pytest.raises(ValueError, match="surrogate"):
        uni.encode_words(["\ud800"])  # (the Tokenizer refuses lone surrogates before)
    with pytest.raises(TypeError):
        _native.WordPieceModel({1: 2}, {}, 0, 100, 10)
    with pytest.raises(ValueError):
        _native.UnigramModel({"a": 5}, [], [0.0], 0, -10.0, True, None)
    with pytest.raises(ValueError):
        _native.UnigramModel({"a": 0}, [], [0.0], 0, -10.0, True, [0] * 255)
    with pytest.raises(RuntimeError):
        _native.WordPieceModel.__new__(_native.WordPieceModel).encode_words(["a"])
