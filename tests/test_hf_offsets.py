"""Encoding.offsets of tokenizer.json files equal HF tokenizers' `Encoding.offsets`.

Pipelines are built with the tokenizers library, saved, loaded by tokviz, and both encode
seeded random text; the interesting characters (decomposable letters, combining marks, Indic
two-part vowels, spaces) are drawn densely so every alignment rule is met many times.
"""
from __future__ import annotations

import itertools
import random
import unicodedata

import pytest

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers, processors, trainers  # noqa: E402

import tokviz  # noqa: E402
from _shared import EDGE_CASES  # noqa: E402

# Characters assigned since Unicode 3.2 whose properties changed later (U+1734 became Mn) are left
# out: HF's tables and Python's disagree on them, which is not an alignment question.
_DECOMPOSABLE = [
    chr(c) for c in range(0x20, 0x30000)
    if unicodedata.ucd_3_2_0.category(chr(c))[0] != "C" and c != 0x1734
    and (unicodedata.decomposition(chr(c)) or unicodedata.combining(chr(c)))
][::5]
# Indic two-part vowels (the second part is a starter that composes), Tibetan U+0F73 (a starter
# whose decomposition starts with non-starters), Hangul jamo and syllables, marks that reorder
_TRICKY = list("\u0dd9\u0dcf\u0dca\u0ddf\u0b47\u0b3e\u0b56\u09c7\u09be\u09d7\u1025\u102e\u0d46\u0d3e\u0d57"
               "\u0bc6\u0bbe\u0bd7\u0cc6\u0cd5\u0cc2\u0f73\u0344\u1100\u1161\u11a8\uac00\u3131\uffcd"
               "ae \u0301\u0308\u0323\u0327\u05b0\u0651é\ufb01\u2460")


def _texts(pool: list[str], count: int, seed: int, max_len: int = 12) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(pool) for _ in range(rng.randint(0, max_len))) for _ in range(count)]


def _assert_same(hf: Tokenizer, tmp_path, texts: list[str], name: str = "tokenizer.json") -> None:
    path = tmp_path / name
    hf.save(str(path))
    tok = tokviz.load(path)
    for text in texts:
        for with_specials in (False, True):
            want = hf.encode(text, add_special_tokens=with_specials)
            got = tok.encode(text, add_special_tokens=with_specials)
            assert got.ids == want.ids, (text, with_specials)
            assert [tuple(o) for o in got.offsets] == [tuple(o) for o in want.offsets], (
                [hex(ord(c)) for c in text], with_specials)


def _per_character(normalizer) -> Tokenizer:
    """Every normalized character its own (unknown) token, so its offsets show its alignment."""
    hf = Tokenizer(models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    hf.normalizer = normalizer
    hf.pre_tokenizer = pre_tokenizers.Split(Regex(r"[\s\S]"), "isolated")
    return hf


@pytest.mark.first_cases(1)
@pytest.mark.parametrize("form", ["NFC", "NFD", "NFKC", "NFKD"])
def test_unicode_forms_align_as_hf(form, tmp_path):
    hf = _per_character(getattr(normalizers, form)())
    texts = _texts(_DECOMPOSABLE + list("ab "), 1500, seed=1) + _texts(_TRICKY, 1500, seed=2) + EDGE_CASES
    _assert_same(hf, tmp_path, texts)


@pytest.mark.parametrize("lowercase", [True, False])
def test_bert_normalizer_aligns_as_hf(lowercase, tmp_path):
    """BertNormalizer with strip_accents: NFD then marks dropped (the native BERT encoder)."""
    pool = _DECOMPOSABLE[::3] + _TRICKY + [" "] * 8 + list("中文,.!")
    vocab = {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2}
    for c in sorted(set("".join(pool).lower() + unicodedata.normalize("NFD", "".join(pool)))):
        vocab.setdefault(c, len(vocab))
        vocab.setdefault("##" + c, len(vocab))
    hf = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    hf.normalizer = normalizers.BertNormalizer(strip_accents=True, lowercase=lowercase)
    hf.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    hf.post_processor = processors.BertProcessing(("[SEP]", 2), ("[CLS]", 1))
    _assert_same(hf, tmp_path, _texts(pool, 1500, seed=3, max_len=25) + EDGE_CASES)


@pytest.mark.parametrize("pattern, content", [
    ("  ", "_"), (" ", ""), ("ab", "XYZ"), (Regex(r"\s+"), " "), (Regex("a|b"), ""), (Regex("(?=x)"), "<"),
    # Oniguruma's meaning: an interval then "+" repeats it, ^ starts a line, \h is a hex digit
    (Regex(r"\d{1,2}+"), "#"), (Regex("^a"), "A"), (Regex(r"\h+"), "h"),
])
def test_replace_aligns_as_hf(pattern, content, tmp_path):
    texts = _texts(list("ab  xy\n\t,.é中文😀1234"), 400, seed=4, max_len=16)
    _assert_same(_per_character(normalizers.Replace(pattern, content)), tmp_path, texts)


@pytest.fixture(scope="module")
def byte_level_bpe():
    rng = random.Random(5)
    corpus = ["".join(rng.choice("ab  xy\n\t,.é中文😀the quick") for _ in range(60)) for _ in range(200)]
    hf = Tokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.train_from_iterator(corpus, trainers.BpeTrainer(
        vocab_size=500, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), special_tokens=["<s>", "</s>"]))
    return hf


@pytest.mark.parametrize("add_prefix_space", [False, True])
@pytest.mark.parametrize("trim_offsets", [False, True])
@pytest.mark.parametrize("processor", ["ByteLevel", "RobertaProcessing"])
def test_byte_level_trim_offsets_as_hf(byte_level_bpe, processor, trim_offsets, add_prefix_space, tmp_path):
    hf = byte_level_bpe
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space)
    if processor == "ByteLevel":
        hf.post_processor = processors.ByteLevel(trim_offsets=trim_offsets, add_prefix_space=add_prefix_space)
    else:
        hf.post_processor = processors.RobertaProcessing(
            ("</s>", hf.token_to_id("</s>")), ("<s>", hf.token_to_id("<s>")),
            trim_offsets=trim_offsets, add_prefix_space=add_prefix_space)
    texts = _texts(list("ab  xy\n\t,.é中文😀") + ["the ", "  quick"], 300, seed=6, max_len=16) + EDGE_CASES
    _assert_same(hf, tmp_path, texts)


@pytest.mark.parametrize("pre", [None, "Metaspace", "WhitespaceSplit"])
@pytest.mark.parametrize("processor", ["ByteLevel", "RobertaProcessing"])
def test_trim_offsets_of_unigram_unknowns_as_hf(pre, processor, tmp_path):
    """HF trims a Unigram unknown token by the text it stands for, not by "<unk>"."""
    pieces = [("<unk>", 0.0), ("<s>", 0.0), ("</s>", 0.0), ("x", -1.0), ("\u2581", -2.0), ("W", -3.0),
              ("a", -1.5), ("ab", -1.0), ("\u2581a", -1.2)]
    hf = Tokenizer(models.Unigram(pieces, unk_id=0))
    hf.normalizer = normalizers.Replace("\t", " ")
    if pre == "Metaspace":
        hf.pre_tokenizer = pre_tokenizers.Metaspace()
    elif pre == "WhitespaceSplit":
        hf.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    if processor == "ByteLevel":
        hf.post_processor = processors.ByteLevel(trim_offsets=True, add_prefix_space=True)
    else:
        hf.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 1), trim_offsets=True)
    _assert_same(hf, tmp_path, _texts(list("x \tWab\u3000\u00e9\n") + ["\u2581"], 300, seed=8, max_len=10))


def test_byte_fallback_and_fused_unknowns_as_hf(tmp_path):
    vocab = {"<unk>": 0, **{f"<0x{b:02X}>": b + 1 for b in range(256)}, "a": 257, "b": 258}
    texts = _texts(list("ab  xy\n\t,.é中文😀"), 300, seed=7, max_len=16)
    for fallback in (True, False):
        hf = Tokenizer(models.BPE(vocab, [], unk_token="<unk>", byte_fallback=fallback, fuse_unk=True))
        _assert_same(hf, tmp_path, texts, f"fallback-{fallback}.json")


def test_display_offsets_put_closing_specials_after_the_text(tmp_path):
    """Encoding.offsets give a closing special token (0, 0) as HF does; the arrays the views lay
    tokens out with place it at the end of the text."""
    from tokviz.core.token_array import offsets_arrays

    vocab = {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "hello": 3, "world": 4}
    hf = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    hf.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    hf.post_processor = processors.BertProcessing(("[SEP]", 2), ("[CLS]", 1))
    path = tmp_path / "tokenizer.json"
    hf.save(str(path))
    enc = tokviz.load(path).encode("hello world", add_special_tokens=True)
    assert [tuple(o) for o in enc.offsets] == [tuple(o) for o in hf.encode("hello world").offsets]
    starts, ends = offsets_arrays(enc)
    assert list(starts) == [0, 0, 6, 11] and list(ends) == [0, 5, 11, 11]


@pytest.mark.parametrize("normalized", [False, True])
@pytest.mark.parametrize("special", [False, True])
def test_added_token_flags_as_hf(special, normalized, tmp_path):
    """single_word, lstrip and rstrip under a lowercasing normalizer: ids, offsets and decode (HF
    keeps a special token on decode when the normalizer changed it)."""
    from tokenizers import AddedToken

    base = Tokenizer(models.BPE(unk_token="[UNK]"))
    base.pre_tokenizer = pre_tokenizers.Whitespace()
    base.train_from_iterator(["hello world the quick brown fox [MASK] <x> ab"] * 30,
                             trainers.BpeTrainer(vocab_size=80, special_tokens=["[UNK]"]))
    rng = random.Random(f"{special}-{normalized}")
    pieces = ["[MASK]", "[mask]", "ab", "AB", "<X>", "<x>", " ", "  ", "\n", "hello", "x", "é", "wor"]
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 8))) for _ in range(60)]
    for k, (single, lstrip, rstrip) in enumerate(itertools.product([False, True], repeat=3)):
        hf = Tokenizer.from_str(base.to_str())
        hf.normalizer = normalizers.Lowercase()
        flags = dict(single_word=single, lstrip=lstrip, rstrip=rstrip, normalized=normalized, special=special)
        tokens = [AddedToken(content, **flags) for content in ("[MASK]", "ab", "<X>")]
        (hf.add_special_tokens if special else hf.add_tokens)(tokens)
        _assert_same(hf, tmp_path, texts, f"flags-{k}.json")
        tok = tokviz.load(tmp_path / f"flags-{k}.json")
        for text in texts:
            ids = hf.encode(text).ids
            assert tok.decode(ids) == hf.decode(ids), text
