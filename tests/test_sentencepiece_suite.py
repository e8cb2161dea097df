"""The cases of sentencepiece's own Python tests (test/sentencepiece_test.py), re-expressed for
tokviz with the sentencepiece library as the oracle, on the models and text those tests use
(tests/data/real/sentencepiece-suite): piece tables, round trips of English and Japanese text
and of every line of botchan.txt, decoding edge cases, special-piece kinds, normalization.

Sampling, n-best and the training API are sentencepiece features tokviz does not offer.
"""
from __future__ import annotations

import lzma
from pathlib import Path

import pytest

import tokviz

spm = pytest.importorskip("sentencepiece")

SUITE = Path(__file__).parent / "data" / "real" / "sentencepiece-suite"
MODELS = ("botchan_en_unigram_1000.model", "botchan_en_bpe_1000.model", "kyoto_ja_unigram_8000.model")


@pytest.fixture(scope="module")
def unpacked(tmp_path_factory):
    root = tmp_path_factory.mktemp("sentencepiece-suite")
    for packed in SUITE.glob("*.xz"):
        (root / packed.stem).write_bytes(lzma.decompress(packed.read_bytes()))
    return root


@pytest.fixture(scope="module")
def botchan(unpacked) -> list[str]:
    return unpacked.joinpath("botchan.txt").read_text(encoding="utf-8").splitlines()


def _pair(unpacked, name):
    path = unpacked / name
    return tokviz.load(path), spm.SentencePieceProcessor(model_file=str(path))


def _same(tok, sp, text: str) -> None:
    ids = tok.encode(text).ids
    assert ids == sp.encode(text), text
    assert [tok.id_to_token(i) for i in ids] == [sp.id_to_piece(i) for i in ids], text
    assert tok.decode(ids) == sp.decode(ids), text


@pytest.mark.parametrize("name", MODELS)
def test_load(unpacked, name):
    tok, sp = _pair(unpacked, name)
    assert tok.vocab_size == sp.get_piece_size()
    for i in range(sp.get_piece_size()):
        piece = sp.id_to_piece(i)
        assert tok.id_to_token(i) == piece
        assert tok.token_to_id(piece) == i


@pytest.mark.parametrize("name, text", [
    ("botchan_en_unigram_1000.model", "I saw a girl with a telescope."),
    ("botchan_en_bpe_1000.model", "I saw a girl with a telescope."),
    ("kyoto_ja_unigram_8000.model", "清水寺は京都にある。"),
])
def test_roundtrip(unpacked, name, text):
    tok, sp = _pair(unpacked, name)
    _same(tok, sp, text)
    assert tok.decode(sp.encode(text)) == text


@pytest.mark.parametrize("name", MODELS[:2])
def test_every_line_of_botchan(unpacked, botchan, name):
    tok, sp = _pair(unpacked, name)
    for line in botchan:
        _same(tok, sp, line)
    whole = "\n".join(botchan)
    assert tok.encode(whole).ids == sp.encode(whole)


def test_decode_invalid_and_empty(unpacked):
    tok, sp = _pair(unpacked, MODELS[0])
    with pytest.raises(IndexError):
        sp.decode([10000])
    with pytest.raises(tokviz.TokvizError, match="10000"):
        tok.decode([10000])
    assert tok.decode([]) == sp.decode([]) == ""


@pytest.mark.parametrize("kind", ["control", "user_defined", "missing"])
def test_special_piece_kinds(unpacked, tmp_path, kind):
    """<s> and </s> as control pieces (never matched in text), as user-defined pieces (always
    matched), or absent: typed in the text, each is cut as sentencepiece cuts it."""
    options = {"control": {}, "user_defined": {"user_defined_symbols": ["<s>", "</s>"], "bos_piece": "<s>",
                                                 "eos_piece": "</s>"},
               "missing": {"bos_id": -1, "eos_id": -1}}[kind]
    prefix = tmp_path / kind
    spm.SentencePieceTrainer.train(input=str(unpacked / "botchan.txt"), model_prefix=str(prefix), vocab_size=1000,
                                   minloglevel=2, **options)
    tok = tokviz.load(prefix.with_suffix(".model"))
    sp = spm.SentencePieceProcessor(model_file=str(prefix.with_suffix(".model")))
    for text in ["a", "<s>a</s>", "x <s> y </s>", "</s></s><s>"]:
        _same(tok, sp, text)


def test_normalize(unpacked):
    tok, sp = _pair(unpacked, MODELS[0])
    for text in ["ＫＡＤＯＫＡＷＡABC", "㍻", "  two  spaces  ", "①②③ ｶﾀｶﾅ"]:
        assert tok.text_normalizer.normalize_str(text) == sp.normalize(text), text
