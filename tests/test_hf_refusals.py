"""tokenizer.json files HF tokenizers refuses are refused by tokviz, naming the field.

Explicit cases (wrong JSON types, repeated keys, numbers out of range, NaN, a malformed template),
then a seeded sample of one-field mutations of real files (tests/data/real): every field set to a
value of another JSON type, removed, repeated, or given an unknown neighbour. For each mutation,
where HF tokenizers refuses the file tokviz must refuse it too; where both load, ids, offsets and
decode must be equal. (Where HF loads a file tokviz refuses, tokviz names what it does not
implement: allowed.)
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
    try:
        hf = tokenizers.Tokenizer.from_str(text)
        hf.no_padding()
        hf.no_truncation()
    except Exception as exc:
        hf = exc
    try:
        mine = tokviz.load(path)
    except TokvizError as exc:
        mine = exc
    return hf, mine


def _assert_refused(text: str, path: Path, *words: str):
    hf, mine = _outcomes(text, path)
    assert isinstance(hf, Exception), "HF tokenizers loads this file"
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

VALUES = [1, 0, -1, True, False, "s", None, [], {}, 1.5, 10 ** 30, 2 ** 32, float("nan")]


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


def _disagreement(text: str, path: Path):
    hf, mine = _outcomes(text, path)
    if isinstance(hf, Exception):
        return None if isinstance(mine, TokvizError) else f"HF refuses ({hf}), tokviz loads"
    if isinstance(mine, TokvizError):
        return None  # (tokviz names what it does not implement)
    for t in TEXTS:
        for special in (False, True):
            try:
                want = hf.encode(t, add_special_tokens=special)
            except BaseException as exc:  # a panic in HF tokenizers: tokviz should have refused the file
                if type(exc).__name__ != "PanicException" and not isinstance(exc, Exception):
                    raise
                return f"HF fails on encode ({exc}), tokviz loads"
            got = mine.encode(t, add_special_tokens=special)
            if got.ids != want.ids or got.offsets != [tuple(o) for o in want.offsets]:
                return f"ids differ on {t!r}: HF {want.ids[:10]}, tokviz {got.ids[:10]}"
        if mine.decode(got.ids) != hf.decode(want.ids):
            return f"decode differs on {t!r}"
    return None


@pytest.mark.parametrize("name, count", [("bert-minilm", 300), ("qwen2.5", 150)])
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
