"""The readers give what the reference libraries give for the same files: tiny real-format files are
written to tmp_path, loaded by tokviz and by HF tokenizers / transformers / tiktoken, and compared
(ids, offsets, decode) on fixed and random texts; what tokviz does not implement is refused by name."""
from __future__ import annotations

import base64
import json
import random

import pytest

import tokviz
from tokviz.core import decoders as dec
from tokviz.core.bytelevel import BYTE_TO_CHAR
from tokviz.errors import TokvizError
from tokviz.formats.hf_json_writer import write_hf_json

tk = pytest.importorskip("tokenizers")
from tokenizers import AddedToken, Regex, decoders, models  # noqa: E402
from tokenizers import normalizers as hf_norm  # noqa: E402
from tokenizers import pre_tokenizers as hf_pre  # noqa: E402


def both_paths(tok):
    """The tokenizer on the native path (when it has one) and forced onto the Python path."""
    yield tok.use_native(True)
    yield tok.use_native(False)
    tok.use_native(True)


def random_texts(rng: random.Random, alphabet: list[str], count: int, max_parts: int = 10) -> list[str]:
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, max_parts))) for _ in range(count)]


# ---- 1. vocab.json + merges.txt, read as transformers reads the folder -------------------------

MERGES = [("Ġ", "t"), ("h", "e"), ("Ġt", "he"), ("i", "n"), ("Ġ", "a"), ("e", "r"), ("Ġ", "<")]


def write_gpt2_folder(folder, config=None, extra_tokens=()):
    """A byte-level vocab.json (all 256 bytes, MERGES' results, extra_tokens) and merges.txt."""
    folder.mkdir(parents=True, exist_ok=True)
    vocab = {BYTE_TO_CHAR[b]: b for b in range(256)}
    for a, b in MERGES:
        vocab[a + b] = len(vocab)
    for t in extra_tokens:
        vocab[t] = len(vocab)
    (folder / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    lines = "".join(f"{a} {b}\n" for a, b in MERGES)
    (folder / "merges.txt").write_text("#version: 0.2\n" + lines, encoding="utf-8")
    if config is not None:
        (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder


GPT2_TEXTS = ["the <|endoftext|>in her<|endoftext|> a", "<|endoftext|>", " the  there<s>x</s> <mask> <pad>",
              "inner 12345 <|im_end|><x><y> <z>", "", " ", "héllo wörld ½ 123", "<|endoftext|><|endoftext|>the"]
GPT2_ALPHABET = ["the", " ", "<|endoftext|>", "in", "er", "<s>", "</s>", "<mask>", "<x>", "<y>", "<|im_end|>", "1",
                 "23", "é", "\n", "<", "a"]

GPT2_CASES = {
    "no-config": (None, ["<|endoftext|>"]),
    "gpt2-prefix-space": ({"tokenizer_class": "GPT2Tokenizer", "add_prefix_space": True,
                           "eos_token": {"content": "<|im_end|>", "special": True, "__type": "AddedToken"}},
                          ["<|endoftext|>", "<|im_end|>"]),
    "gpt2-fast-added": ({"tokenizer_class": "GPT2TokenizerFast", "additional_special_tokens": ["<x>"],
                         "pad_token": "<y>",
                         "added_tokens_decoder": {"300": {"content": "<z>", "special": False, "lstrip": True,
                                                          "rstrip": False, "single_word": False,
                                                          "normalized": False}}},
                        ["<|endoftext|>"]),
    "gpt2-bos": ({"tokenizer_class": "GPT2Tokenizer", "add_bos_token": True, "add_eos_token": True},
                 ["<|endoftext|>"]),
    "gpt2-split-special": ({"tokenizer_class": "GPT2Tokenizer", "split_special_tokens": True}, ["<|endoftext|>"]),
    "qwen2": ({"tokenizer_class": "Qwen2Tokenizer",
               "added_tokens_decoder": {"263": {"content": "<|im_end|>", "special": True}}}, ["<|endoftext|>"]),
    "roberta": ({"tokenizer_class": "RobertaTokenizer"}, ["<s>", "</s>", "<unk>", "<pad>", "<mask>"]),
    "roberta-prefix": ({"tokenizer_class": "RobertaTokenizerFast", "add_prefix_space": True, "trim_offsets": False,
                        "pad_token": "<p>"},
                       ["<s>", "</s>", "<unk>", "<mask>"]),
}


def assert_like_transformers(tok, ref, texts) -> None:
    """Ids with and without special tokens, and decode both ways, equal transformers' (on the
    native and the Python path)."""
    for t in both_paths(tok):
        for text in texts:
            want = ref.encode(text, add_special_tokens=False)
            assert t.encode(text).ids == want, text
            assert t.encode(text, add_special_tokens=True).ids == ref.encode(text, add_special_tokens=True), text
            assert t.decode(want) == ref.decode(want), text  # (transformers keeps special tokens)
            assert t.decode(want, skip_special_tokens=True) == ref.decode(want, skip_special_tokens=True), text


@pytest.mark.parametrize("case", sorted(GPT2_CASES))
def test_gpt2_folder_as_transformers(case, tmp_path):
    transformers = pytest.importorskip("transformers")
    config, extra = GPT2_CASES[case]
    folder = write_gpt2_folder(tmp_path / case, config, extra)
    if config is None:
        ref = transformers.GPT2Tokenizer.from_pretrained(str(folder))
    else:
        ref = transformers.AutoTokenizer.from_pretrained(str(folder))
    tok = tokviz.load(folder)
    texts = GPT2_TEXTS + random_texts(random.Random(case), GPT2_ALPHABET, 150)
    assert_like_transformers(tok, ref, texts)


@pytest.mark.parametrize("config", [None, {"tokenizer_class": "RobertaTokenizer"}])
def test_gpt2_folder_default_specials_not_in_vocab(config, tmp_path):
    """A class's default special token the vocabulary lacks is appended after it, in the order of
    the class's special tokens, as transformers does."""
    transformers = pytest.importorskip("transformers")
    folder = write_gpt2_folder(tmp_path / "f", config, ["<s>"])
    ref = (transformers.GPT2Tokenizer if config is None else transformers.AutoTokenizer).from_pretrained(str(folder))
    tok = tokviz.load(folder)
    assert tok.vocab_size == len(ref)
    assert_like_transformers(tok, ref, GPT2_TEXTS + random_texts(random.Random(7), GPT2_ALPHABET, 100))


@pytest.mark.parametrize("config, words", [
    ({"tokenizer_class": "BartTokenizer"}, ["BartTokenizer", "not implemented"]),
    ({"tokenizer_class": "PreTrainedTokenizerFast"}, ["PreTrainedTokenizerFast"]),
    ({"tokenizer_class": "GPT2Tokenizer", "errors": "strict"}, ["errors", "strict"]),
    ({"tokenizer_class": "RobertaTokenizer", "add_bos_token": True}, ["add_bos_token"]),
    ({"tokenizer_class": "GPT2Tokenizer",
      "clean_up_tokenization_spaces_for_bpe_even_though_it_will_corrupt_output": True}, ["clean_up"]),
    # (str.isdigit is true for "¹", and int() does not read it: transformers fails with a ValueError)
    ({"tokenizer_class": "GPT2Tokenizer", "added_tokens_decoder": {"¹": {"content": "<z>"}}},
     ["added_tokens_decoder.¹", "token id"]),
])
def test_gpt2_folder_refuses(config, words, tmp_path):
    folder = write_gpt2_folder(tmp_path / "f", config, ["<|endoftext|>", "<s>", "</s>"])
    with pytest.raises(TokvizError) as err:
        tokviz.load(folder)
    for w in words:
        assert w in str(err.value)


# ---- 2. BERT vocab.txt + tokenizer_config.json ------------------------------------------------

BERT_TOKENS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "world", "##s", "é", "e", "##é", "cafe", "café",
               "Hello", "中", "x", "##x", ".", "[X]", "\u0301", "'", "s", "do", "not", "n", "##'", "##t", "!", "<u>"]
BERT_TEXTS = ["Hello worlds café CAFÉ 中x [X] hello.[MASK] [unk] ' s", "do not ' s . !", "[CLS]x[SEP]", "",
              "cafe\u0301 CAFE\u0301 Ｈｅｌｌｏ", "<u> [Y] [MASK][MASK]"]
BERT_ALPHABET = ["Hello", "hello", " ", "world", "s", "café", "CAFÉ", "中", "x", "[X]", ".", "[MASK]", "'", "do", "not",
                 "e\u0301", "\t", "!", "[Y]", "<u>", "n't", "é"]

BERT_CASES = {
    "no-config": None,
    "cased": {"do_lower_case": False},
    "lower-keep-accents": {"do_lower_case": True, "strip_accents": False},
    "cased-strip-accents": {"do_lower_case": False, "strip_accents": True},
    "no-chinese-split": {"tokenize_chinese_chars": False},
    "cleanup": {"tokenizer_class": "BertTokenizer", "clean_up_tokenization_spaces": True},
    "unk-x": {"unk_token": "x"},
    "split-special-new-mask": {"split_special_tokens": True, "mask_token": "[Y]"},
    "never-split-specials-only": {"never_split": ["[CLS]", "[SEP]"], "do_basic_tokenize": True},
    "added": {"tokenizer_class": "BertTokenizerFast", "additional_special_tokens": ["<u>"],
              "added_tokens_decoder": {"29": {"content": "[Y]", "special": False, "normalized": True}}},
}


def write_bert_folder(folder, config):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vocab.txt").write_text("\n".join(BERT_TOKENS) + "\n", encoding="utf-8")
    if config is not None:
        (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder


@pytest.mark.parametrize("case", sorted(BERT_CASES))
def test_bert_vocab_as_transformers(case, tmp_path):
    transformers = pytest.importorskip("transformers")
    folder = write_bert_folder(tmp_path / case, BERT_CASES[case])
    ref = transformers.BertTokenizer.from_pretrained(str(folder))
    tok = tokviz.load(folder / "vocab.txt")
    texts = BERT_TEXTS + random_texts(random.Random(case), BERT_ALPHABET, 150)
    assert_like_transformers(tok, ref, texts)


def test_bert_vocab_lines_as_transformers(tmp_path):
    """White space ending a line is not part of the token, a token listed twice keeps its last
    id, and a line of spaces is the empty token: as BertTokenizer.from_pretrained reads vocab.txt."""
    transformers = pytest.importorskip("transformers")
    folder = tmp_path / "b"
    folder.mkdir()
    lines = BERT_TOKENS[:8] + [" ", "x ", " y", "\tz", "hello\u00a0", "w\u3000", "", "s\r", "\x1cq\x1c", "##x"]
    (folder / "vocab.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    ref = transformers.BertTokenizer.from_pretrained(str(folder))
    tok = tokviz.load(folder / "vocab.txt")
    alphabet = ["hello", "world", "x", " y", "\tz", "w", "s", "q", "\x1cq\x1c", "\u00a0", " ", "##s"]
    for text in random_texts(random.Random(3), alphabet, 150):
        for specials in (False, True):
            assert tok.encode(text, add_special_tokens=specials).ids == ref.encode(text, add_special_tokens=specials)
    known = sorted(set(ref.get_vocab().values()))
    assert tok.decode(known) == ref.decode(known)
    assert [tok.decode([i]) for i in known] == [ref.decode([i]) for i in known]


@pytest.mark.parametrize("config, words", [
    ({"never_split": ["[X]", "Hello"]}, ["never_split"]),
    ({"do_basic_tokenize": False}, ["do_basic_tokenize"]),
    ({"tokenizer_class": "ElectraTokenizer"}, ["ElectraTokenizer"]),
    ({"add_eos_token": True}, ["add_eos_token"]),
])
def test_bert_vocab_refuses(config, words, tmp_path):
    folder = write_bert_folder(tmp_path / "b", config)
    with pytest.raises(TokvizError) as err:
        tokviz.load(folder / "vocab.txt")
    for w in words:
        assert w in str(err.value)


def test_bert_never_split_is_what_the_references_disagree_on(tmp_path):
    """Why never_split is refused: transformers' two BERT classes cut the same text differently."""
    transformers = pytest.importorskip("transformers")
    legacy = pytest.importorskip("transformers.models.bert.tokenization_bert_legacy")
    folder = write_bert_folder(tmp_path / "b", {"never_split": ["[X]", "Hello"]})
    text = "Hello [X] world"
    fast = transformers.BertTokenizer.from_pretrained(str(folder)).encode(text, add_special_tokens=False)
    slow = legacy.BertTokenizerLegacy.from_pretrained(str(folder)).encode(text, add_special_tokens=False)
    assert fast != slow


# ---- 3. .tiktoken files ----------------------------------------------------------------------

R50K_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""


def write_ranks(path, extra: list[bytes], empty_rank: int | None):
    lines = [f"{base64.b64encode(bytes([b])).decode()} {b}" for b in range(256)]
    rank = 256
    for token in extra:
        lines.append(f"{base64.b64encode(token).decode()} {rank}")
        rank += 1
    if empty_rank is not None:
        lines.append(f"= {empty_rank}")  # as openai-whisper's multilingual.tiktoken has it
    path.write_text("\n".join(lines) + "\n", encoding="ascii")


def test_tiktoken_empty_token_and_special_decode(tmp_path, monkeypatch):
    tiktoken = pytest.importorskip("tiktoken")
    from tiktoken.load import load_tiktoken_bpe

    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")  # (tiktoken caches a file's contents by its path)
    path = tmp_path / "r50k_base.tiktoken"  # named after an encoding: its pattern and <|endoftext|>
    extra = [b"th", b"the", b" the", b"in", b" in", b"er"]
    write_ranks(path, extra, empty_rank=256 + len(extra))
    ranks = load_tiktoken_bpe(str(path))
    assert ranks[b""] == 256 + len(extra)
    ref = tiktoken.Encoding("r50k-test", pat_str=R50K_PATTERN, mergeable_ranks=ranks,
                            special_tokens={"<|endoftext|>": 50256})
    tok = tokviz.load(path)
    assert tok.token_bytes(ranks[b""]) == b""
    rng = random.Random(3)
    texts = ["the in there", "<|endoftext|> the", ""] + random_texts(rng, ["the", " ", "in", "er", "é", "<|endoftext|>", "\n"], 100)
    for t in both_paths(tok):
        for text in texts:
            want = ref.encode_ordinary(text)
            assert t.encode(text).ids == want, text
            for ids in (want, want + [50256], [50256, ranks[b""]] + want, [ranks[b""]]):
                assert t.decode(ids) == ref.decode(ids), ids


def test_tiktoken_bad_base64_still_refused(tmp_path):
    path = tmp_path / "x.tiktoken"
    path.write_text("YQ== 0\n=YQ 1\n", encoding="ascii")
    with pytest.raises(TokvizError, match="line 2"):
        tokviz.load(path, pattern=r"\S+")


# ---- 4. decoders -----------------------------------------------------------------------------

DECODER_ALPHABET = ["▁", "a", "▁a", "b▁", "▁▁", " ", "x y", "▁ ", "_", "a_b", "<0x41>", "<0x8f>", "<0xE2>", "<0x82>",
                    "<0xAC>", "<0x8F>", "<0xe2>", "<0xac>", "<0x4>", "<0xZZ>", "<0x041>", "<0x+5>", "<0x-5>", "<0xé>"]


@pytest.mark.parametrize("scheme", ["always", "first", "never"])
@pytest.mark.parametrize("replacement", ["▁", "_"])
@pytest.mark.parametrize("split", [True, False])
def test_metaspace_decoder(scheme, replacement, split):
    ref = decoders.Metaspace(replacement=replacement, prepend_scheme=scheme, split=split)
    mine = dec.Metaspace(replacement, scheme)
    rng = random.Random(f"{scheme}{replacement}{split}")
    lists = [[], ["▁"], ["▁▁"], ["a"], ["b▁", "a"], [" ", "x y"], ["▁", "▁"]]
    lists += [[rng.choice(DECODER_ALPHABET) for _ in range(rng.randint(0, 6))] for _ in range(400)]
    for tokens in lists:
        assert mine.decode(tokens) == ref.decode(tokens), tokens


def test_byte_fallback_decoder():
    ref, mine = decoders.ByteFallback(), dec.ByteFallback()
    rng = random.Random(4)
    lists = [["<0x8f>"], ["<0xe2>", "<0x82>", "<0xac>"], ["<0x41>", "<0x8f>"], ["<0x+5>"], ["<0xE2>", "x", "<0x82>"]]
    lists += [[rng.choice(DECODER_ALPHABET) for _ in range(rng.randint(0, 7))] for _ in range(2000)]
    for tokens in lists:
        assert mine.decode(tokens) == ref.decode(tokens), tokens


# ---- helpers for tokenizer.json cases ----------------------------------------------------------

def compare_hf(ref, path, texts):
    tok = tokviz.load(path)
    for t in both_paths(tok):
        for text in texts:
            want = ref.encode(text, add_special_tokens=False)
            got = t.encode(text)
            assert (got.ids, got.offsets) == (want.ids, want.offsets), text
    return tok


# ---- 5. FixedLength pre-tokenizer --------------------------------------------------------------

@pytest.mark.parametrize("length", [1, 3, 5])
def test_fixed_length(length, tmp_path):
    vocab = {"<unk>": 0, **{c: i + 1 for i, c in enumerate("abcdeé ")}, "ab": 8, "abc": 9, "a b": 10, "😀": 11}
    ref = tk.Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    ref.pre_tokenizer = hf_pre.FixedLength(length=length)
    ref.normalizer = hf_norm.Replace("x", "")
    path = tmp_path / "t.json"
    ref.save(str(path))
    rng = random.Random(length)
    texts = ["", "abcabc", "a b😀xab", "x", "xxab"] + random_texts(rng, ["a", "b", "c", " ", "é", "😀", "x", "ab"], 200)
    tok = compare_hf(ref, path, texts)
    # written back by tokviz, HF reads the same pipeline
    out = tmp_path / "back.json"
    write_hf_json(tok, out)
    back = tk.Tokenizer.from_file(str(out))
    for text in texts:
        assert back.encode(text).ids == ref.encode(text).ids


def test_fixed_length_zero_refused(tmp_path):
    data = {"version": "1.0", "model": {"type": "WordLevel", "vocab": {"<unk>": 0}, "unk_token": "<unk>"},
            "pre_tokenizer": {"type": "FixedLength", "length": 0}}
    path = tmp_path / "t.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(TokvizError, match="length 0"):
        tokviz.load(path)


# ---- 6. Unigram: unknown runs, the literal unk piece, byte fallback -------------------------------

@pytest.mark.parametrize("byte_fallback", [False, True])
@pytest.mark.parametrize("unk_first", [True, False])
@pytest.mark.parametrize("unk_score", [0.0, -20.0])
def test_unigram_unknown_runs(byte_fallback, unk_first, unk_score, tmp_path):
    pieces = [("a", -1.0), ("b", -2.0), ("ab", -2.5), ("<", -3.0), ("u", -3.5), ("nk", -4.0), ("n", -4.5),
              ("k", -4.5), (">", -5.0), ("<u", -2.0), ("b", -0.5)]  # ("b" twice: HF matches its last id)
    pieces = [("<unk>", unk_score)] + pieces if unk_first else pieces + [("<unk>", unk_score)]
    if byte_fallback:
        pieces += [(f"<0x{b:02X}>", -10.0) for b in range(256)]
    unk_id = [p for p, _ in pieces].index("<unk>")
    ref = tk.Tokenizer(models.Unigram(pieces, unk_id, byte_fallback))
    path = tmp_path / "u.json"
    ref.save(str(path))
    rng = random.Random(f"{byte_fallback}{unk_first}{unk_score}")
    alphabet = ["a", "b", "c", "é", "<unk>", "<", "u", "n", "k", ">", "😀"]
    texts = ["<unk>", "<unk><unk>", "c<unk>", "é<unk>é", "a<unk>b", "cé😀"] + random_texts(rng, alphabet, 400, 8)
    compare_hf(ref, path, texts)


def test_unigram_unknown_score_counts_every_piece(tmp_path):
    """The unknown character's score is the lowest piece score minus 10, over all pieces (an empty
    one too): it decides here between 'a' + two unknowns and the piece 'acd'."""
    for extra in ([], [("", -50.0)]):
        ref = tk.Tokenizer(models.Unigram([("<unk>", 30.0), ("a", 30.0), ("acd", 30.0)] + extra, 0, False))
        path = tmp_path / "u.json"
        ref.save(str(path))
        compare_hf(ref, path, ["acd", "acda", "cd", "aacd"])


def test_unigram_without_unk_fails_like_hf(tmp_path):
    pieces = [("a", -1.0)] + [(f"<0x{b:02X}>", -10.0) for b in range(256)]
    ref = tk.Tokenizer(models.Unigram(pieces, None, True))
    path = tmp_path / "u.json"
    ref.save(str(path))
    with pytest.raises(Exception):
        ref.encode("ac")
    tok = tokviz.load(path).use_native(False)
    assert tok.encode("aa").ids == ref.encode("aa").ids
    with pytest.raises(TokvizError, match="no unknown token"):
        tok.encode("ac")


# ---- 7. Metaspace prepend_scheme "first" after a normalizer that removes the first characters ---

NORMALIZERS = {
    "strip-left": hf_norm.Strip(left=True, right=False),
    "replace-leading": hf_norm.Replace(Regex("^x+"), ""),
    "replace-all-x": hf_norm.Replace("x", ""),
    "strip-prepend": hf_norm.Sequence([hf_norm.Strip(), hf_norm.Prepend("x")]),
    "replace-first-a": hf_norm.Replace(Regex("^a"), "b"),
}
PRE_TOKENIZERS = {
    "metaspace": lambda: hf_pre.Metaspace(prepend_scheme="first"),
    "whitespace-then-metaspace": lambda: hf_pre.Sequence([hf_pre.WhitespaceSplit(), hf_pre.Metaspace(prepend_scheme="first")]),
    "split-then-metaspace": lambda: hf_pre.Sequence([hf_pre.Split(Regex("b"), "isolated"),
                                                     hf_pre.Metaspace(prepend_scheme="first")]),
    "metaspace-no-split": lambda: hf_pre.Metaspace(prepend_scheme="first", split=False),
}


@pytest.mark.parametrize("normalizer", sorted(NORMALIZERS))
@pytest.mark.parametrize("pre_tokenizer", sorted(PRE_TOKENIZERS))
def test_metaspace_first_after_normalizer(normalizer, pre_tokenizer, tmp_path):
    vocab = {"<unk>": 0, "▁": 1, "a": 2, "b": 3, "▁a": 4, "x": 5, " ": 6, "▁b": 7, "▁ab": 8, "ab": 9}
    ref = tk.Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    ref.normalizer = NORMALIZERS[normalizer]
    ref.pre_tokenizer = PRE_TOKENIZERS[pre_tokenizer]()
    ref.add_special_tokens(["<X>"])
    ref.add_tokens([AddedToken("<Y>", normalized=True)])
    path = tmp_path / "m.json"
    ref.save(str(path))
    rng = random.Random(normalizer + pre_tokenizer)
    texts = ["  ab", "ab", "xxab a", "x", "  ", "", " a b", "xa<X>xa", "<X>a", "ab<Y> a", "<Y>a", "<X> ab"]
    texts += random_texts(rng, ["a", "b", " ", "x", "<X>", "<Y>", "ab"], 150, 6)
    compare_hf(ref, path, texts)


# ---- 8. tokenizer.json keys tokviz does not implement are refused by name -------------------------

def hf_file(tmp_path, **parts):
    data = {"version": "1.0", "model": {"type": "WordLevel", "vocab": {"<unk>": 0, "a": 1}, "unk_token": "<unk>"}}
    data.update(parts)
    path = tmp_path / "t.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize("parts, words", [
    ({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"], "dropout": 0.5}},
     ["dropout 0.5"]),
    ({"model": {"type": "WordLevel", "vocab": {"a": 0}, "unk_token": "a", "case_sensitive": True}},
     ["'case_sensitive'"]),
    ({"pre_tokenizer": {"type": "Split", "pattern": {"String": " "}, "behavior": "Removed", "invert": False,
                        "max_splits": 2}}, ["'max_splits'", "Split"]),
    ({"normalizer": {"type": "Lowercase", "locale": "tr"}}, ["'locale'", "Lowercase"]),
    ({"decoder": {"type": "Fuse", "sep": " "}}, ["'sep'"]),
    ({"pre_tokenizer": {"type": "Whitespace"}, "strange": 1}, ["'strange'"]),
    ({"pre_tokenizer": {"type": "NewFancy"}}, ["NewFancy"]),
])
def test_hf_json_refuses_unknown(parts, words, tmp_path):
    with pytest.raises(TokvizError) as err:
        tokviz.load(hf_file(tmp_path, **parts))
    for w in words:
        assert w in str(err.value)


def test_hf_json_refuses_what_hf_refuses_too(tmp_path):
    """The Metaspace a file says both "no prefix space" and "always prepend": HF refuses it as well."""
    path = hf_file(tmp_path, pre_tokenizer={"type": "Metaspace", "replacement": "▁", "add_prefix_space": False,
                                            "prepend_scheme": "always"})
    with pytest.raises(Exception):
        tk.Tokenizer.from_file(str(path))
    with pytest.raises(TokvizError, match="add_prefix_space"):
        tokviz.load(path)


@pytest.mark.parametrize("dropout", [None, 0.0])
def test_bpe_without_dropout_effect_loads(dropout, tmp_path):
    vocab = {"a": 0, "b": 1, "ab": 2, "c": 3, "abc": 4}
    ref = tk.Tokenizer(models.BPE(vocab, [("a", "b"), ("ab", "c")], dropout=dropout))
    path = tmp_path / "b.json"
    ref.save(str(path))
    compare_hf(ref, path, ["abc", "ababc", "cab", "abcabc"])


@pytest.mark.parametrize("prefix, suffix", [("##", None), (None, "</w>"), ("##", "</w>")])
def test_bpe_prefix_and_suffix(prefix, suffix, tmp_path):
    from tokenizers import trainers

    kwargs = {k: v for k, v in (("continuing_subword_prefix", prefix), ("end_of_word_suffix", suffix)) if v}
    ref = tk.Tokenizer(models.BPE(unk_token="[UNK]", **kwargs))
    ref.pre_tokenizer = hf_pre.Whitespace()
    trainer = trainers.BpeTrainer(vocab_size=200, special_tokens=["[UNK]"], show_progress=False, **kwargs)
    rng = random.Random(5)
    words = ["lower", "newest", "widest", "low", "new", "wide", "é", "a.b", "tokenizer"]
    corpus = [" ".join(rng.choice(words) for _ in range(8)) for _ in range(300)]
    ref.train_from_iterator(corpus, trainer)
    path = tmp_path / "p.json"
    ref.save(str(path))
    texts = corpus[:50] + random_texts(rng, words + [" ", "z", "lo", "ne", "😀"], 150, 6)
    compare_hf(ref, path, texts)


@pytest.mark.parametrize("invert", [False, True])
@pytest.mark.parametrize("behavior", ["removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous"])
def test_split_invert(behavior, invert):
    from tokviz.core import pre_tokenizers as pre

    names = {"removed": "Removed", "isolated": "Isolated", "merged_with_previous": "MergedWithPrevious",
             "merged_with_next": "MergedWithNext", "contiguous": "Contiguous"}
    ref = hf_pre.Split(Regex("[ab]+| "), behavior, invert=invert)
    mine = pre.Split("[ab]+| ", names[behavior], invert)
    for text in random_texts(random.Random(behavior + str(invert)), ["a", "b", "c", " ", "é", "ab"], 300, 8):
        assert mine.pre_tokenize_str(text) == ref.pre_tokenize_str(text), text
