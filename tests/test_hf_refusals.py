"""tokenizer.json files HF tokenizers refuses are refused by tokviz, naming the field.

Explicit cases (wrong JSON types, repeated keys, numbers out of range, NaN, a malformed template),
then a seeded sample of one-field mutations of real files (tests/data/real) and of files HF
tokenizers writes for the components no real file holds: every field set to a value of another JSON
type, removed, repeated, or given an unknown neighbour. For each mutation, where HF tokenizers
refuses the file (or panics reading it) tokviz must refuse it too; where HF loads it but fails on a
text, tokviz must fail on it too; where both load, ids, offsets and decode must be equal. (Where HF
loads a file tokviz refuses, tokviz names what it does not implement: allowed.)
"""
from __future__ import annotations

import json
import lzma
import math
import random
from pathlib import Path

import pytest

tokenizers = pytest.importorskip("tokenizers")

import tokviz  # noqa: E402
from tokviz.errors import TokvizError  # noqa: E402

REAL = Path(__file__).parent / "data" / "real"
TEXTS = ["Hello world", "  hello\tWorld\n\nÉcole 日本語 123 4567 ", "<|endoftext|>x[CLS] [MASK]", "can't I'm", "🎉 ok", ""]


class Repeated:
    """A JSON object written with a key twice (`pairs` in order)."""

    def __init__(self, pairs):
        self.pairs = pairs


def dumps(value) -> str:
    """JSON text, writing NaN as the bare word and `Repeated` objects with their repeated key."""
    if isinstance(value, (dict, Repeated)):
        pairs = value.pairs if isinstance(value, Repeated) else value.items()
        return "{" + ",".join(json.dumps(k) + ":" + dumps(v) for k, v in pairs) + "}"
    if isinstance(value, list):
        return "[" + ",".join(map(dumps, value)) + "]"
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    return json.dumps(value, ensure_ascii=False)


def _real(name: str, keep: int = 2000) -> dict:
    """A real tokenizer.json cut down to its first `keep` ids (and the merges among them)."""
    data = json.loads(lzma.decompress((REAL / name / "tokenizer.json.xz").read_bytes()))
    model = data["model"]
    model["vocab"] = {t: i for t, i in model["vocab"].items() if i < keep}
    if "merges" in model:
        vocab = model["vocab"]
        model["merges"] = [m for m in model["merges"]
                           if all(p in vocab for p in (*m.split(" ", 1), m.replace(" ", "", 1)))]
    data["added_tokens"] = [t for t in data["added_tokens"] if t["id"] < keep] or data["added_tokens"][:2]
    return data


def _outcomes(text: str, path: Path):
    path.write_text(text, encoding="utf-8")
    hf = _hf_call(lambda: tokenizers.Tokenizer.from_str(text))
    if not isinstance(hf, BaseException):
        hf.no_padding()
        hf.no_truncation()
    try:
        mine = tokviz.load(path)
    except TokvizError as exc:
        mine = exc
    return hf, mine


def _assert_refused(text: str, path: Path, *words: str):
    hf, mine = _outcomes(text, path)
    assert isinstance(hf, BaseException), "HF tokenizers loads this file"
    assert isinstance(mine, TokvizError), f"tokviz loads a file HF refuses ({hf})"
    for word in (str(path), *words):
        assert word in str(mine), (word, str(mine))


@pytest.fixture(scope="module")
def bert():
    return _real("bert-minilm")


def _with(data, where, value):
    data = json.loads(json.dumps(data))
    target = data
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = value
    return data


@pytest.mark.parametrize("where, value, words", [
    (("post_processor", "special_tokens", "[CLS]", "ids"), [1.5], ["special_tokens.[CLS].ids[0]"]),
    (("post_processor", "single", 0), {"SpecialToken": "[CLS]"}, ["single[0].SpecialToken"]),
    (("post_processor", "single", 1), {"Sequence": {"id": "C", "type_id": 0}}, ["single[1].Sequence.id"]),
    (("truncation", "max_length"), 10 ** 30, ["truncation.max_length", "out of range"]),
    (("padding", "strategy"), {"Fixed": 10 ** 30}, ["padding.strategy.Fixed", "out of range"]),
    (("padding", "pad_to_multiple_of"), -8, ["padding.pad_to_multiple_of", "out of range"]),
    (("padding", "pad_id"), 2 ** 32, ["padding.pad_id"]),
    (("decoder", "cleanup"), 1, ["decoder.cleanup", "expected bool"]),
    (("normalizer", "lowercase"), None, ["normalizer.lowercase", "null"]),
    (("model", "max_input_chars_per_word"), -1, ["model.max_input_chars_per_word"]),
    (("added_tokens", 0, "id"), -1, ["added_tokens[0].id"]),
    (("added_tokens", 0, "special"), "yes", ["added_tokens[0].special"]),
    (("added_tokens",), None, ["added_tokens"]),
    (("version",), "2.0", ["version"]),
])
def test_wrong_type_or_range_is_refused_as_hf(tmp_path, bert, where, value, words):
    _assert_refused(dumps(_with(bert, where, value)), tmp_path / "tokenizer.json", *words)


def test_byte_level_trim_offsets_must_be_a_boolean(tmp_path):
    data = _real("qwen2.5")
    for section in ("post_processor", "decoder"):
        _assert_refused(dumps(_with(data, (section, "trim_offsets"), 1)), tmp_path / "tokenizer.json",
                        f"{section}.trim_offsets")


def test_missing_added_token_field_is_refused(tmp_path, bert):
    data = json.loads(json.dumps(bert))
    del data["added_tokens"][0]["single_word"]
    _assert_refused(dumps(data), tmp_path / "tokenizer.json", "added_tokens[0]", "single_word")


def test_nan_is_refused(tmp_path, bert):
    _assert_refused(dumps(_with(bert, ("model", "max_input_chars_per_word"), float("nan"))),
                    tmp_path / "tokenizer.json", "NaN")


def test_repeated_key_in_a_plain_struct_is_refused(tmp_path, bert):
    """serde refuses a repeated field in added tokens, truncation, padding and a template."""
    for where in (("added_tokens", 0), ("padding",), ("truncation",), ("post_processor", "special_tokens", "[CLS]")):
        data = json.loads(json.dumps(bert))
        parent = data
        for key in where[:-1]:
            parent = parent[key]
        obj = parent[where[-1]]
        first_key = next(k for k in obj if k != "type")
        parent[where[-1]] = Repeated([(first_key, obj[first_key]), *obj.items()])
        _assert_refused(dumps(data), tmp_path / "tokenizer.json", "appears twice")


def test_repeated_key_in_a_component_keeps_the_last_value(tmp_path, bert):
    """In a tagged component (here the WordPiece decoder) serde keeps a repeated key's last value."""
    decoder = bert["decoder"]
    data = json.loads(json.dumps(bert))
    data["decoder"] = Repeated([("prefix", "@@"), *decoder.items()])
    hf, mine = _outcomes(dumps(data), tmp_path / "tokenizer.json")
    assert not isinstance(hf, Exception) and not isinstance(mine, Exception)
    ids = hf.encode("unaffable tokenizers", add_special_tokens=False).ids
    assert mine.encode("unaffable tokenizers").ids == ids
    assert mine.decode(ids) == hf.decode(ids)


# ---- one-field mutations of real files ---------------------------------------------------

VALUES = [1, 0, -1, True, False, "s", None, [], {}, 1.5, 10 ** 30, 2 ** 32, 2 ** 64, 1e30, float("nan")]


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        keys = list(value)
        for key in keys if len(keys) <= 20 else keys[:2] + keys[-1:]:
            yield from _paths(value[key], prefix + (key,))
    elif isinstance(value, list):
        for i in range(len(value)) if len(value) <= 6 else (0, 1, len(value) - 1):
            yield from _paths(value[i], prefix + (i,))


def _mutations(data):
    """(description, JSON text) for every one-field change of `data`."""
    for where in _paths(data):
        if not where:
            continue
        parent = data
        for key in where[:-1]:
            parent = parent[key]
        old = parent[where[-1]]
        for value in VALUES:
            if type(value) is type(old) and value == old:
                continue
            if value == "s" and where[-1] in ("continuing_subword_prefix", "end_of_word_suffix"):
                continue  # (HF tokenizers 0.23.3 aborts the process on a BPE file with these)
            yield f"{where} = {value!r}", lambda v=value, w=where: dumps(_with(data, w, v))
        if isinstance(parent, dict):
            yield f"{where} removed", lambda w=where: dumps(_without(data, w))
            yield f"{where} repeated", lambda w=where: dumps(_repeated(data, w))
        if isinstance(old, dict):
            yield f"{where} + unknown key", lambda w=where: dumps(_with(data, w + ("zz_unknown",), 1))


def _without(data, where):
    data = json.loads(json.dumps(data))
    parent = data
    for key in where[:-1]:
        parent = parent[key]
    del parent[where[-1]]
    return data


def _repeated(data, where):
    """`where`'s key written twice: first with a value of another type, then the real one."""
    data = json.loads(json.dumps(data))
    parent = data
    for key in where[:-1]:
        parent = parent[key]
    other = "x" if isinstance(parent[where[-1]], int) and not isinstance(parent[where[-1]], bool) else {"n": 7}
    pairs = Repeated([(where[-1], other), *parent.items()])
    if len(where) == 1:
        return pairs
    grand = data
    for key in where[:-2]:
        grand = grand[key]
    grand[where[-2]] = pairs
    return data


def _hf_call(call):
    """`call()`'s result, or the exception HF tokenizers raised (a Rust panic included)."""
    try:
        return call()
    except BaseException as exc:
        if type(exc).__name__ != "PanicException" and not isinstance(exc, Exception):
            raise
        return exc


def _disagreement(text: str, path: Path):
    hf, mine = _outcomes(text, path)
    if isinstance(hf, BaseException):
        return None if isinstance(mine, TokvizError) else f"HF refuses ({hf}), tokviz loads"
    if isinstance(mine, TokvizError):
        return None  # (tokviz names what it does not implement)
    for t in TEXTS:
        for special in (False, True):
            want = _hf_call(lambda: hf.encode(t, add_special_tokens=special))
            got = _hf_call(lambda: mine.encode(t, add_special_tokens=special))
            if isinstance(want, BaseException) or isinstance(got, BaseException):
                if isinstance(want, BaseException) and isinstance(got, TokvizError):
                    return None  # (both fail on this text, tokviz by name)
                return f"encode of {t!r}: HF {want!r:.120}, tokviz {got!r:.120}"
            if got.ids != want.ids or got.offsets != [tuple(o) for o in want.offsets]:
                return f"ids differ on {t!r}: HF {want.ids[:10]}, tokviz {got.ids[:10]}"
        if not want.ids:
            continue  # (HF tokenizers 0.23.3 panics decoding no ids through a Strip decoder with stop > 0)
        decoded = _hf_call(lambda: hf.decode(want.ids))
        if isinstance(decoded, BaseException):
            return f"HF fails on decode ({decoded}), tokviz loads"
        if mine.decode(got.ids) != decoded:
            return f"decode differs on {t!r}"
    return None


@pytest.mark.parametrize("name, count", [("bert-minilm", 300), pytest.param("qwen2.5", 150, marks=pytest.mark.slow)])
def test_one_field_mutations_agree_with_hf(tmp_path, name, count):
    """A seeded sample of the mutations (all of them were compared when this was written)."""
    mutations = list(_mutations(_real(name)))
    sample = random.Random(36).sample(mutations, min(count, len(mutations)))
    failures = []
    for what, make in sample:
        problem = _disagreement(make(), tmp_path / "tokenizer.json")
        if problem:
            failures.append((what, problem))
    assert not failures, failures[:5]


# ---- the other components: Unigram, WordLevel, Metaspace, Precompiled, decoders ... -------

def _real_file(name: str, keep: int = 1000) -> dict:
    """A real tokenizer.json (a folder, or a file with or without .xz) cut down to `keep` tokens."""
    path = REAL / name
    if path.is_dir():
        path = path / "tokenizer.json.xz"
    raw = path.read_bytes()
    data = json.loads(lzma.decompress(raw) if path.suffix == ".xz" else raw)
    model = data["model"]
    if isinstance(model["vocab"], list):  # Unigram: [piece, score] pairs, ids by position
        model["vocab"] = model["vocab"][:keep]
    else:
        vocab = model["vocab"] = {t: i for t, i in model["vocab"].items() if i < keep}
        parts = [m.split(" ", 1) if isinstance(m, str) else m for m in model.get("merges", [])]
        model["merges"] = [m for m, p in zip(model.get("merges", []), parts)
                           if all(x in vocab for x in p) and "".join(p) in vocab]
    data["added_tokens"] = [t for t in data["added_tokens"] if t["id"] < keep] or data["added_tokens"][:2]
    return data


def _built(name: str) -> dict:
    """tokenizer.json files written by HF tokenizers for the components no real file here holds."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    if name == "wordlevel":
        vocab = {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "hello": 3, "world": 4, "ok": 5, "1": 6, "2": 7, ",": 8, "'": 9}
        t = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
        t.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase(),
                                             normalizers.Strip(left=True, right=False), normalizers.Prepend("_")])
        t.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.CharDelimiterSplit(" "), pre_tokenizers.Punctuation("isolated"),
            pre_tokenizers.Digits(individual_digits=True), pre_tokenizers.UnicodeScripts(),
            pre_tokenizers.WhitespaceSplit()])
        t.post_processor = processors.BertProcessing(("[SEP]", 2), ("[CLS]", 1))
        t.decoder = decoders.CTC(pad_token="[UNK]", word_delimiter_token="|", cleanup=True)
        t.add_special_tokens(["[CLS]", "[SEP]"])
    elif name == "bpe-suffix":
        vocab = {"<unk>": 0, "<s>": 1, "</s>": 2, "h": 3, "e": 4, "l": 5, "o": 6, "w": 7, "r": 8, "d": 9,
                 "o</w>": 10, "d</w>": 11, "he": 12, "ll": 13, "llo</w>": 14}
        t = Tokenizer(models.BPE(vocab, [("h", "e"), ("l", "l"), ("ll", "o</w>")], unk_token="<unk>",
                                 end_of_word_suffix="</w>"))
        t.normalizer = normalizers.Sequence([normalizers.NFD(), normalizers.StripAccents(), normalizers.NFKD(),
                                             normalizers.NFC()])
        t.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Whitespace(), pre_tokenizers.Digits()])
        t.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 1), trim_offsets=True,
                                                        add_prefix_space=False)
        t.decoder = decoders.Sequence([decoders.BPEDecoder(suffix="</w>"), decoders.Strip(content=" ", left=0, right=1)])
        t.add_special_tokens(["<s>", "</s>"])
    elif name == "unigram-precompiled":
        model_pb2 = pytest.importorskip("sentencepiece.sentencepiece_model_pb2")
        proto = model_pb2.ModelProto()
        proto.ParseFromString(lzma.decompress((REAL / "seqio-sentencepiece.model.xz").read_bytes()))
        pieces = [("<unk>", 0.0), ("▁", -1.0), ("▁hello", -2.0), ("▁world", -2.5), ("h", -3.0), ("e", -3.0),
                  ("l", -3.0), ("o", -3.0), ("<0x41>", -5.0)]
        t = Tokenizer(models.Unigram(pieces, unk_id=0, byte_fallback=False))
        t.normalizer = normalizers.Sequence([normalizers.Replace(" ", "▁"), normalizers.Prepend("▁"),
                                             normalizers.Precompiled(proto.normalizer_spec.precompiled_charsmap)])
        t.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first", split=False)
        t.post_processor = processors.Sequence([processors.TemplateProcessing(single="$A", special_tokens=[])])
        t.decoder = decoders.Sequence([decoders.Metaspace(replacement="▁", prepend_scheme="first"),
                                       decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse()])
    elif name == "roberta-padding":
        t = Tokenizer(models.BPE({"a": 0, "b": 1, "Ġ": 2, "ab": 3, "<s>": 4, "</s>": 5}, [("a", "b")]))
        t.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True, use_regex=True)
        t.post_processor = processors.RobertaProcessing(("</s>", 5), ("<s>", 4))
        t.decoder = decoders.ByteLevel()
        t.enable_padding(pad_id=0, pad_token="a", pad_to_multiple_of=8, direction="left")
        t.enable_truncation(max_length=16, stride=2, strategy="only_first", direction="left")
    return json.loads(t.to_str())


# Mutations where HF tokenizers and tokviz differ in encoding, not in reading the file (see the
# xfail test below); left out of the sampled comparison.
KNOWN_DIFFERENCES = {("mon-unigram.json.xz", "('model', 'unk_id') = None"),
                     ("mon-unigram.json.xz", "('model', 'unk_id') removed")}


@pytest.mark.first_cases(1)
@pytest.mark.parametrize("name, count", [
    ("afaanoromo-unigram.json.xz", 100), ("mon-unigram.json.xz", 120), ("nepali-sentencepiece.json.xz", 120),
    ("nepali-wordpiece.json.xz", 100), ("anthropic-claude.json.xz", 80), ("tortoise-tokenizer.json", 150),
    ("deepseek-v4", 80), ("built:wordlevel", 300), ("built:bpe-suffix", 300),
    ("built:unigram-precompiled", 150), ("built:roberta-padding", 250),
])
def test_one_field_mutations_of_other_components_agree_with_hf(tmp_path, name, count):
    """As above, for Unigram, WordLevel, Metaspace, Replace, Strip, Precompiled, the pre-tokenizers,
    Bert/Roberta post-processors and the decoders (every mutation was compared when this was written)."""
    data = _built(name.split(":")[1]) if name.startswith("built:") else _real_file(name)
    mutations = [m for m in _mutations(data) if (name, m[0]) not in KNOWN_DIFFERENCES]
    sample = random.Random(36).sample(mutations, min(count, len(mutations)))
    failures = []
    for what, make in sample:
        problem = _disagreement(make(), tmp_path / "tokenizer.json")
        if problem:
            failures.append((what, problem))
    assert not failures, failures[:5]


def test_unigram_without_unk_id_fails_where_hf_fails(tmp_path):
    """HF fails as soon as an unknown character's node is the best to its end, even off the best path."""
    data = _real_file("mon-unigram.json.xz")
    data["model"]["unk_id"] = None
    assert _disagreement(dumps(data), tmp_path / "tokenizer.json") is None


def _component(data: dict, where: tuple, value):
    """`data` with the field at `where` set to `value` (a missing value of `_DELETE` removes it)."""
    data = json.loads(json.dumps(data))
    parent = data
    for key in where[:-1]:
        parent = parent[key]
    if value is _DELETE:
        del parent[where[-1]]
    else:
        parent[where[-1]] = value
    return data


_DELETE = object()


@pytest.mark.parametrize("source, where, value, words", [
    ("afaanoromo-unigram.json.xz", ("model", "vocab", 3, 1), True, ["vocab[3]"]),
    ("afaanoromo-unigram.json.xz", ("model", "byte_fallback"), None, ["model.byte_fallback", "null"]),
    ("afaanoromo-unigram.json.xz", ("model", "unk_id"), -1, ["model.unk_id", "out of range"]),
    ("mon-unigram.json.xz", ("normalizer", "normalizers", 0, "content"), _DELETE, ["normalizers[0]", "content"]),
    ("mon-unigram.json.xz", ("pre_tokenizer", "replacement"), "__", ["pre_tokenizer.replacement", "one character"]),
    ("mon-unigram.json.xz", ("pre_tokenizer", "prepend_scheme"), None, ["pre_tokenizer.prepend_scheme", "null"]),
    ("mon-unigram.json.xz", ("decoder", "decoders"), 1, ["decoder.decoders", "expected list"]),
    ("mon-unigram.json.xz", ("decoder", "decoders", 3, "start"), -1, ["decoders[3].start", "out of range"]),
    ("mon-unigram.json.xz", ("decoder", "decoders", 3, "content"), "  ", ["decoders[3].content"]),
    ("nepali-sentencepiece.json.xz", ("pre_tokenizer", "add_prefix_space"), False,
     ["pre_tokenizer.add_prefix_space", "prepend_scheme"]),
    ("nepali-sentencepiece.json.xz", ("decoder", "replacement"), _DELETE, ["decoder", "replacement"]),
    ("built:wordlevel", ("model", "unk_token"), _DELETE, ["model", "unk_token"]),
    ("built:wordlevel", ("normalizer", "normalizers", 2, "strip_left"), None, ["strip_left"]),
    ("built:wordlevel", ("pre_tokenizer", "pretokenizers", 0, "delimiter"), "ab", ["delimiter", "one character"]),
    ("built:wordlevel", ("pre_tokenizer", "pretokenizers", 1, "behavior"), None, ["pretokenizers[1].behavior"]),
    ("built:wordlevel", ("pre_tokenizer", "pretokenizers", 2, "individual_digits"), _DELETE, ["individual_digits"]),
    ("built:wordlevel", ("decoder", "cleanup"), _DELETE, ["decoder", "cleanup"]),
    ("built:wordlevel", ("decoder", "pad_token"), None, ["decoder.pad_token"]),
    ("built:bpe-suffix", ("decoder", "decoders", 0, "suffix"), None, ["decoders[0].suffix"]),
    ("built:unigram-precompiled", ("normalizer", "normalizers", 2, "precompiled_charsmap"), [],
     ["precompiled_charsmap", "expected str"]),
])
def test_other_components_refused_as_hf(tmp_path, source, where, value, words):
    data = _built(source.split(":")[1]) if source.startswith("built:") else _real_file(source)
    _assert_refused(dumps(_component(data, where, value)), tmp_path / "tokenizer.json", *words)


def test_repeated_key_in_bert_processing_is_refused(tmp_path):
    """serde refuses a repeated field in a Bert post-processor, as in every post-processor."""
    data = _built("wordlevel")
    post = data["post_processor"]
    data["post_processor"] = Repeated([("sep", ["[CLS]", 1]), *post.items()])
    _assert_refused(dumps(data), tmp_path / "tokenizer.json", "post_processor", "appears twice")


def test_bpe_unk_token_outside_the_vocabulary_is_refused(tmp_path):
    """HF tokenizers loads it but fails on any text with a character outside the vocabulary."""
    data = _component(_real_file("tortoise-tokenizer.json"), ("model", "unk_token"), "<nope>")
    hf, mine = _outcomes(dumps(data), tmp_path / "tokenizer.json")
    with pytest.raises(Exception, match="<nope>"):
        hf.encode("Hello ☃", add_special_tokens=False)
    assert isinstance(mine, TokvizError) and "unk_token" in str(mine) and str(tmp_path) in str(mine)


def test_roberta_processing_without_trim_offsets_is_refused_by_name(tmp_path):
    """HF tokenizers reads a RobertaProcessing that lacks trim_offsets as a BertProcessing."""
    data = _component(_built("bpe-suffix"), ("post_processor", "trim_offsets"), _DELETE)
    hf, mine = _outcomes(dumps(data), tmp_path / "tokenizer.json")
    assert type(hf.post_processor).__name__ == "BertProcessing"
    assert isinstance(mine, TokvizError) and "post_processor.trim_offsets" in str(mine)
