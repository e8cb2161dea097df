"""The cases of HF tokenizers' own Python binding tests (bindings/python/tests/bindings:
test_pre_tokenizers, test_normalizers, test_decoders, test_processors), re-expressed for tokviz:
each component is configured as those tests configure it, saved in a tokenizer.json by the
tokenizers library, read by tokviz, and run on those tests' inputs (and the edge cases) by both.

Instantiation, pickling and custom Python components are API features of the library, not
behaviour tokviz reads from files.
"""
from __future__ import annotations

import pytest

import tokviz
from _shared import EDGE_CASES

tk = pytest.importorskip("tokenizers")
from tokenizers import Regex, decoders, models, normalizers, pre_tokenizers, processors  # noqa: E402

INPUTS = [
    "Hey friend!     How are you?!?", "HeyThere!?-ThisIsLife", "Hey, friend!", "Hey123 friend!",
    "My name is Anthony", "▁Hey friend", "Hello—world", "  Hey  friend  ", "Héllò hôw are ü?",
    "ＫＡＤＯＫＡＷＡ ㍻ ﬁ", "How are you 👋 ?", "a-b-c--d", "123456 7 89", "你好世界 and Ελληνικά",
    *EDGE_CASES,
]


def _tokenizer(tmp_path, name, *, normalizer=None, pre_tokenizer=None, decoder=None, post=None):
    """A tokenizer whose model makes one (unknown) token per pre-tokenized piece, so that its
    offsets show the normalizer's and the pre-tokenizer's work."""
    hf = tk.Tokenizer(models.WordLevel({"[UNK]": 0, "[CLS]": 1, "[SEP]": 2}, unk_token="[UNK]"))
    for attr, value in (("normalizer", normalizer), ("pre_tokenizer", pre_tokenizer), ("decoder", decoder),
                        ("post_processor", post)):
        if value is not None:
            setattr(hf, attr, value)
    path = tmp_path / f"{name}.json"
    hf.save(str(path))
    return hf, tokviz.load(path)


PRE_TOKENIZERS = {
    "bert-like sequence": lambda: pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation()]),
    "whitespace": pre_tokenizers.Whitespace,
    "whitespace-split": pre_tokenizers.WhitespaceSplit,
    "bert": pre_tokenizers.BertPreTokenizer,
    "metaspace": pre_tokenizers.Metaspace,
    "metaspace-dash-first": lambda: pre_tokenizers.Metaspace(replacement="-", prepend_scheme="first"),
    "metaspace-never-nosplit": lambda: pre_tokenizers.Metaspace(prepend_scheme="never", split=False),
    "char-delimiter": lambda: pre_tokenizers.CharDelimiterSplit("-"),
    "punctuation": pre_tokenizers.Punctuation,
    "punctuation-merged-next": lambda: pre_tokenizers.Punctuation("merged_with_next"),
    "digits": pre_tokenizers.Digits,
    "digits-individual": lambda: pre_tokenizers.Digits(individual_digits=True),
    "unicode-scripts": pre_tokenizers.UnicodeScripts,
    "split-removed": lambda: pre_tokenizers.Split(" ", "removed"),
    "split-regex-contiguous": lambda: pre_tokenizers.Split(Regex(r"\s+"), "contiguous"),
    "split-inverted": lambda: pre_tokenizers.Split(Regex(r"\w+"), "merged_with_previous", invert=True),
    "bytelevel": pre_tokenizers.ByteLevel,
    "bytelevel-no-prefix-no-regex": lambda: pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
}


@pytest.mark.parametrize("name", PRE_TOKENIZERS)
def test_pre_tokenizer(name, tmp_path):
    hf, tok = _tokenizer(tmp_path, name, pre_tokenizer=PRE_TOKENIZERS[name]())
    for text in INPUTS:
        want = hf.encode(text)
        got = tok.encode(text)
        assert got.ids == want.ids, text
        assert [tuple(o) for o in got.offsets] == [tuple(o) for o in want.offsets], text


NORMALIZERS = {
    "bert": normalizers.BertNormalizer,
    "bert-keep-case-and-accents": lambda: normalizers.BertNormalizer(lowercase=False, strip_accents=False,
                                                                     handle_chinese_chars=False, clean_text=False),
    "bert-strip-accents-only": lambda: normalizers.BertNormalizer(lowercase=False, strip_accents=True),
    "nfc": normalizers.NFC, "nfd": normalizers.NFD, "nfkc": normalizers.NFKC, "nfkd": normalizers.NFKD,
    "lowercase": normalizers.Lowercase,
    "strip": normalizers.Strip,
    "strip-left": lambda: normalizers.Strip(left=True, right=False),
    "strip-accents": lambda: normalizers.Sequence([normalizers.NFD(), normalizers.StripAccents()]),
    "nmt": normalizers.Nmt,
    "replace": lambda: normalizers.Replace("a", "e"),
    "replace-regex": lambda: normalizers.Replace(Regex(r"\s+"), " "),
    "prepend": lambda: normalizers.Prepend("▁"),
    "sequence": lambda: normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase(), normalizers.Strip()]),
}


@pytest.mark.parametrize("name", NORMALIZERS)
def test_normalizer(name, tmp_path):
    normalizer = NORMALIZERS[name]()
    hf, tok = _tokenizer(tmp_path, name, normalizer=normalizer, pre_tokenizer=pre_tokenizers.WhitespaceSplit())
    for text in INPUTS:
        assert tok.normalizer.normalize_str(text) == normalizer.normalize_str(text), text
        want = hf.encode(text)
        assert [tuple(o) for o in tok.encode(text).offsets] == [tuple(o) for o in want.offsets], text


DECODERS = {
    "bytelevel": (decoders.ByteLevel, ["My", "Ġname", "Ġis", "ĠJohn", "Ġ", "ðŁ", "ĳ", "ĭ"]),
    "wordpiece": (decoders.WordPiece, ["My", "na", "##me", "is", "Jo", "##hn", ",", "they", "'", "re", "##uelo"]),
    "wordpiece-no-cleanup": (lambda: decoders.WordPiece(prefix="##", cleanup=False), ["My", "na", "##me", "is", "?"]),
    "metaspace": (decoders.Metaspace, ["▁My", "▁name", "▁is", "▁John", "▁▁", "x▁y"]),
    "metaspace-dash-never": (lambda: decoders.Metaspace(replacement="-", prepend_scheme="never"), ["-My", "-name"]),
    "bpe-decoder": (decoders.BPEDecoder, ["My</w>", "na", "me</w>", "is</w>", "John</w>"]),
    "ctc": (decoders.CTC, ["<pad>", "<pad>", "h", "e", "e", "l", "l", "<pad>", "l", "o", "o", "o", "<pad>", "|", "w"]),
    "ctc-no-cleanup": (lambda: decoders.CTC(cleanup=False), ["<pad>", "h", "h", "|", "|", "i", "'", "s"]),
    "byte-fallback": (decoders.ByteFallback, ["<0x61>", "My", "<0xE5>", "<0x8f>", "<0xab>", "<0xE5>", "<0x8f>", "x"]),
    "fuse": (decoders.Fuse, ["My", " na", "me"]),
    "strip": (lambda: decoders.Strip(content="H", left=1, right=0), ["Hey", "HH", " friend", "H"]),
    "replace": (lambda: decoders.Replace("_", " "), ["My_name", "_is", "_John"]),
    "sequence": (lambda: decoders.Sequence([decoders.ByteFallback(), decoders.Fuse(), decoders.Strip(" ", 1, 0)]),
                 [" ", "<0x61>", "b", "<0xE5>", "<0x8f>", "<0xab>"]),
}


@pytest.mark.parametrize("name", DECODERS)
def test_decoder(name, tmp_path):
    make, tokens = DECODERS[name]
    decoder = make()
    _, tok = _tokenizer(tmp_path, name, decoder=decoder)
    for k in range(len(tokens) + 1):
        assert tok.decoder.decode(tokens[:k]) == decoder.decode(tokens[:k]), tokens[:k]


PROCESSORS = {
    "bert": lambda: processors.BertProcessing(("[SEP]", 2), ("[CLS]", 1)),
    "roberta": lambda: processors.RobertaProcessing(("[SEP]", 2), ("[CLS]", 1)),
    "roberta-no-trim": lambda: processors.RobertaProcessing(("[SEP]", 2), ("[CLS]", 1), trim_offsets=False),
    "bytelevel-trim": lambda: processors.ByteLevel(trim_offsets=True),
    "template": lambda: processors.TemplateProcessing(single="[CLS] $0 [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
                                                      special_tokens=[("[CLS]", 1), ("[SEP]", 2)]),
    "sequence": lambda: processors.Sequence([processors.ByteLevel(), processors.TemplateProcessing(
        single="[CLS] $0", special_tokens=[("[CLS]", 1)])]),
}


@pytest.mark.parametrize("name", PROCESSORS)
def test_processor(name, tmp_path):
    hf, tok = _tokenizer(tmp_path, name, pre_tokenizer=pre_tokenizers.ByteLevel(add_prefix_space=True),
                         post=PROCESSORS[name]())
    for text in INPUTS:
        for with_specials in (False, True):
            want = hf.encode(text, add_special_tokens=with_specials)
            got = tok.encode(text, add_special_tokens=with_specials)
            assert got.ids == want.ids, text
            assert [tuple(o) for o in got.offsets] == [tuple(o) for o in want.offsets], (text, with_specials)


# ---- trainers (the BpeTrainer cases of the library's trainer tests): tokviz's trainers learn the
# ---- merges BpeTrainer learns, ties included

TRAINER_WORDS = {"roses": 1, "are": 2, "red": 1, "voilets": 1, "blue": 1, "BERT": 1, "is": 2, "big": 1, "and": 1,
                 "so": 1, "GPT-2": 1}
SEED_WORDS = {"low": 5, "lowest": 2, "new": 6, "widest": 3}


def _merges(model: dict) -> list[tuple[str, str]]:
    return [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in model["merges"]]


@pytest.mark.parametrize("min_frequency", [0, 2])
def test_bpe_trainer_byte_level(min_frequency):
    import json

    from tokenizers import trainers

    from tokviz.train.bytelevel import train_bytelevel_bpe
    from tokviz.train.options import TrainOptions

    texts = [" ".join(w for w, n in TRAINER_WORDS.items() for _ in range(n)), " ".join(SEED_WORDS) * 3]
    for vocab_size in (260, 280, 400):
        hf = tk.Tokenizer(models.BPE())
        hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        hf.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=min_frequency,
                                                          show_progress=False,
                                                          initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
        want = json.loads(hf.to_str())["model"]
        ours = train_bytelevel_bpe(texts, TrainOptions(vocab_size=vocab_size, min_frequency=min_frequency))
        assert [tuple(m) for m in ours.model.merges] == _merges(want)
        assert ours.model.vocab == want["vocab"]


def test_bpe_trainer_seed_example_with_end_of_word_suffix():
    """low x5, lowest x2, new x6, widest x3 with "</w>" glued to each word's last character."""
    import json

    from tokenizers import trainers

    from tokviz.train.charbpe import char_bpe_from_counts
    from tokviz.train.options import TrainOptions

    hf = tk.Tokenizer(models.BPE(end_of_word_suffix="</w>"))
    hf.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    hf.train_from_iterator([w for w, n in SEED_WORDS.items() for _ in range(n)],
                           trainers.BpeTrainer(vocab_size=40, min_frequency=0, show_progress=False,
                                               end_of_word_suffix="</w>"))
    want = _merges(json.loads(hf.to_str())["model"])
    ours = char_bpe_from_counts(list(SEED_WORDS), list(SEED_WORDS.values()), TrainOptions(vocab_size=40, min_frequency=0),
                                end_of_word="glued")
    assert [tuple(m) for m in ours.model.merges] == want
