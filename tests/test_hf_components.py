"""Every HF pipeline component tokviz reads behaves as in HF tokenizers.

Small tokenizers are trained with HF tokenizers itself (so their vocabularies are real), given
each normalizer / pre-tokenizer / model option / decoder / post-processor, saved as tokenizer.json,
and loaded by tokviz; ids and decodes must match on varied text.
"""
from __future__ import annotations

import base64
import json

import pytest
from hypothesis import HealthCheck, given, settings

import tokviz
from _shared import EDGE_CASES, TOKENIZERS, assigned_text, examples
from tokviz.defaults import resource_path, sample_text

tk = pytest.importorskip("tokenizers")
from tokenizers import decoders, models, normalizers, pre_tokenizers, processors, trainers  # noqa: E402

TRAIN = resource_path("training.txt").read_text(encoding="utf-8").split("\n")
TEXTS = EDGE_CASES + [sample_text()] + TRAIN[:40]


def build(model, trainer, *, normalizer=None, pre_tokenizer=None, decoder=None, post=None, added=(), special=()):
    tok = tk.Tokenizer(model)
    if normalizer is not None:
        tok.normalizer = normalizer
    if pre_tokenizer is not None:
        tok.pre_tokenizer = pre_tokenizer
    if decoder is not None:
        tok.decoder = decoder
    tok.train_from_iterator(TRAIN, trainer)
    if post is not None:
        tok.post_processor = post
    if added:
        tok.add_tokens(list(added))
    if special:
        tok.add_special_tokens(list(special))
    return tok


def bpe_trainer(**kw):
    return trainers.BpeTrainer(vocab_size=400, special_tokens=["<unk>", "<s>", "</s>"], show_progress=False, **kw)


def wp_trainer():
    return trainers.WordPieceTrainer(vocab_size=400, special_tokens=["[UNK]", "[CLS]", "[SEP]"], show_progress=False)


def uni_trainer():
    return trainers.UnigramTrainer(vocab_size=700, special_tokens=["<unk>", "<s>", "</s>"], unk_token="<unk>", show_progress=False)


S = pre_tokenizers.Split
CONFIGS = {
    "bytelevel-gpt2": lambda: build(models.BPE(), bpe_trainer(initial_alphabet=pre_tokenizers.ByteLevel.alphabet()),
                                    pre_tokenizer=pre_tokenizers.ByteLevel(add_prefix_space=True), decoder=decoders.ByteLevel()),
    "bpe-unk-fuse": lambda: build(models.BPE(unk_token="<unk>", fuse_unk=True), bpe_trainer(),
                                  pre_tokenizer=pre_tokenizers.Whitespace()),
    "bpe-unk-nofuse": lambda: build(models.BPE(unk_token="<unk>"), bpe_trainer(), pre_tokenizer=pre_tokenizers.WhitespaceSplit()),
    "bpe-prefix-suffix": lambda: build(
        models.BPE(unk_token="<unk>", continuing_subword_prefix="##", end_of_word_suffix="</w>"),
        bpe_trainer(continuing_subword_prefix="##", end_of_word_suffix="</w>"),
        pre_tokenizer=pre_tokenizers.BertPreTokenizer(), decoder=decoders.BPEDecoder(suffix="</w>")),
    "bpe-metaspace-bytefallback": lambda: _with_byte_fallback(build(
        models.BPE(unk_token="<unk>", byte_fallback=True), bpe_trainer(),
        normalizer=normalizers.Sequence([normalizers.NFKC(), normalizers.Replace(" ", "▁")]),
        decoder=decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(), decoders.Strip(" ", 1, 0)]))),
    "metaspace-first": lambda: build(models.BPE(unk_token="<unk>"), bpe_trainer(),
                                     pre_tokenizer=pre_tokenizers.Metaspace(prepend_scheme="first"),
                                     decoder=decoders.Metaspace(prepend_scheme="first"), special=["<sep>"]),
    "metaspace-never-nosplit": lambda: build(models.BPE(unk_token="<unk>"), bpe_trainer(),
                                             pre_tokenizer=pre_tokenizers.Metaspace(prepend_scheme="never", split=False),
                                             decoder=decoders.Metaspace(prepend_scheme="never")),
    "split-behaviors": lambda: build(models.BPE(unk_token="<unk>"), bpe_trainer(), pre_tokenizer=pre_tokenizers.Sequence([
        S(" ", "merged_with_next"), S(tk.Regex(r"\d"), "contiguous"), S(",", "merged_with_previous"),
        S(tk.Regex(r"[.!?]"), "isolated"), S(tk.Regex(r"\t"), "removed"), S(tk.Regex(r"[^\n]+"), "isolated", invert=True)])),
    "digits-punct-scripts": lambda: build(models.BPE(unk_token="<unk>"), bpe_trainer(), pre_tokenizer=pre_tokenizers.Sequence([
        pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Digits(individual_digits=True),
        pre_tokenizers.Punctuation("merged_with_previous"), pre_tokenizers.UnicodeScripts()])),
    "normalizers-mix": lambda: build(models.BPE(unk_token="<unk>"), bpe_trainer(), normalizer=normalizers.Sequence([
        normalizers.NFD(), normalizers.StripAccents(), normalizers.Lowercase(), normalizers.Strip(),
        normalizers.Replace(tk.Regex(r"\s+"), " "), normalizers.Prepend("▁"), normalizers.NFC()]),
        pre_tokenizer=pre_tokenizers.Whitespace()),
    "nfkd-nmt": lambda: build(models.BPE(unk_token="<unk>"), bpe_trainer(),
                              normalizer=normalizers.Sequence([normalizers.Nmt(), normalizers.NFKD()]),
                              pre_tokenizer=pre_tokenizers.CharDelimiterSplit(" ")),
    "bert-cased": lambda: build(models.WordPiece(unk_token="[UNK]"), wp_trainer(),
                                normalizer=normalizers.BertNormalizer(lowercase=False, strip_accents=True, handle_chinese_chars=False),
                                pre_tokenizer=pre_tokenizers.BertPreTokenizer(), decoder=decoders.WordPiece(cleanup=False),
                                post=processors.BertProcessing(("[SEP]", 2), ("[CLS]", 1))),
    "unigram-metaspace": lambda: build(models.Unigram(), uni_trainer(), pre_tokenizer=pre_tokenizers.Metaspace(),
                                       decoder=decoders.Metaspace(),
                                       post=processors.TemplateProcessing(single="<s> $A </s>", special_tokens=[("<s>", 1), ("</s>", 2)])),
    "added-token-flags": lambda: _added_flags(build(models.BPE(unk_token="<unk>"), bpe_trainer(),
                                              pre_tokenizer=pre_tokenizers.ByteLevel(), decoder=decoders.ByteLevel(),
                                              normalizer=normalizers.Lowercase(),
                                              post=processors.RobertaProcessing(("</s>", 2), ("<s>", 1))))
}


def _with_byte_fallback(tok):
    """Add the 256 <0xNN> byte tokens a byte-fallback vocabulary needs."""
    data = json.loads(tok.to_str())
    vocab = data["model"]["vocab"]
    for b in range(256):
        vocab.setdefault(f"<0x{b:02X}>", len(vocab))
    return tk.Tokenizer.from_str(json.dumps(data))


def _added_flags(tok):
    tok.add_tokens([
        tk.AddedToken("<mask>", lstrip=True, special=True),
        tk.AddedToken("[tool]", rstrip=True),
        tk.AddedToken("cat", single_word=True),
        tk.AddedToken("DOG", normalized=True),
        tk.AddedToken("Upper", normalized=False),
    ])
    return tok


EXTRA = ["a <mask> b  <mask>c [tool]   x", "cat concat cat. (cat)", "DOG dog Dog", "Upper upper", "0123 456,78.9!", "x\ty\tz", "Ünïcödé façade"]

_cache = {}


def pair(name, tmp_path_factory):
    if name not in _cache:
        ref = CONFIGS[name]()
        path = tmp_path_factory.mktemp(name) / "tokenizer.json"
        path.write_text(ref.to_str(), encoding="utf-8")
        _cache[name] = (tokviz.load(path), ref)
    return _cache[name]


def check(tok, ref, text, special=False):
    want = ref.encode(text, add_special_tokens=special).ids
    got = tok.encode(text, add_special_tokens=special).ids
    assert got == want, f"{text[:60]!r}: {tok.encode(text).pieces} vs {ref.encode(text, add_special_tokens=False).tokens}"
    assert tok.decode(got) == ref.decode(want), f"decode of {text[:60]!r}"


@pytest.mark.parametrize("name", CONFIGS)
def test_component_parity(name, tmp_path_factory):
    tok, ref = pair(name, tmp_path_factory)
    for text in TEXTS + EXTRA:
        check(tok, ref, text)
        check(tok, ref, text, special=True)


@pytest.mark.first_cases(4)
@pytest.mark.parametrize("name", CONFIGS)
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=assigned_text(40))
def test_component_random(name, text, tmp_path_factory):
    tok, ref = pair(name, tmp_path_factory)
    check(tok, ref, text)


@pytest.mark.shared
def test_precompiled_charsmap_like_hf(tmp_path):
    """HF's Precompiled normalizer, fed the charsmap of a real sentencepiece model."""
    model = TOKENIZERS / "sentencepiece" / "unigram_8k.model"
    if not model.exists():
        pytest.skip(f"shared test data not found: {model}")
    pb = pytest.importorskip("sentencepiece.sentencepiece_model_pb2")
    proto = pb.ModelProto()
    proto.ParseFromString(model.read_bytes())
    charsmap = base64.b64encode(proto.normalizer_spec.precompiled_charsmap).decode()
    data = json.loads(CONFIGS["unigram-metaspace"]().to_str())
    data["normalizer"] = {"type": "Precompiled", "precompiled_charsmap": charsmap}
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    ref = tk.Tokenizer.from_file(str(path))
    tok = tokviz.load(path)
    for text in TEXTS + ["ｱｲｳ ①②③ ﬁ ™ ㍿ ﾊﾝｶｸ", "\u3000full\u00a0width\u2003spaces", "e\u0301\u0302x"]:
        check(tok, ref, text)


def test_digits_splits_every_numeric_character_like_hf():
    """HF's Digits uses Rust's char::is_numeric: '²', '½', 'Ⅻ', '٣' are digits too (found by hypothesis)."""
    from tokviz.core.pre_tokenizers import Digits

    for individual in (False, True):
        ref = pre_tokenizers.Digits(individual_digits=individual)
        for text in ("a²bⅫc٣d½e໐f〇g", "12½x", "¼\ue000", "abc 123 ４５"):
            assert Digits(individual).pre_tokenize_str(text) == ref.pre_tokenize_str(text)


def test_unigram_byte_fallback_without_byte_pieces_like_hf(tmp_path):
    """byte_fallback on, but the vocabulary has only some <0xNN> pieces: a character whose bytes
    all have pieces becomes them, any other the unknown token (as HF does; no crash)."""
    vocab = [("<unk>", 0.0), ("a", -1.0), ("b", -2.0), ("ab", -1.5), ("<0xC3>", -5.0), ("<0xA9>", -5.0)]
    hf = tk.Tokenizer(models.Unigram(vocab, unk_id=0, byte_fallback=True))
    path = tmp_path / "tokenizer.json"
    path.write_text(hf.to_str(), encoding="utf-8")
    tok = tokviz.load(path)
    for text in ["abé", "a中b", "é中é", "中", "aab\u00e9\u00e9x"]:
        assert tok.encode(text).ids == hf.encode(text).ids, text


@pytest.mark.parametrize("start, stop", [(0, 0), (1, 0), (0, 2), (1, 1), (2, 1)])
def test_strip_decoder_like_hf(start, stop, tmp_path):
    """(HF panics when a token has fewer `content` characters than start + stop: not compared.)"""
    hf = tk.Tokenizer(models.WordLevel({"_a_": 0, "__b": 1, "c__": 2, "___": 3, "d": 4}, unk_token="d"))
    hf.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    hf.decoder = decoders.Strip(content="_", left=start, right=stop)
    path = tmp_path / "tokenizer.json"
    path.write_text(hf.to_str(), encoding="utf-8")
    ids = [0, 1, 2, 3, 4, 1, 0]
    assert tokviz.load(path).decode(ids) == hf.decode(ids)


def test_strip_decoder_takes_at_most_what_is_there():
    from tokviz.core.decoders import Strip

    assert Strip("_", 1024, 1024).decode_chain(["__a_b__", "____", "x"]) == ["a_b", "", "x"]
    assert Strip("_", 1, 2).decode_chain(["__a___"]) == ["_a_"]
