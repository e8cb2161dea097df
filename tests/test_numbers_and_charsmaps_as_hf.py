"""tokenizer.json values that used to escape as raw Python errors (OverflowError, TypeError):
huge integer literals, a precompiled_charsmap of the wrong type or shape, and decode given text.
Each file is given to HF tokenizers in the test: where it refuses (at load or when encoding),
tokviz refuses with a TokvizError naming the file and the field; where it loads, tokviz loads
and gives the same ids.  A small mutation sweep checks that nothing but a TokvizError leaves
`tokviz.load`."""
from __future__ import annotations

import base64
import copy
import json
import lzma
from pathlib import Path

import pytest

import tokviz
from tokviz.errors import TokvizError

tokenizers = pytest.importorskip("tokenizers")

REAL = Path(__file__).resolve().parent / "data" / "real"
TEXT = "Hello world! Ünïcödé 123 ｗide  spaces\tand\nnewlines 中文 ½ ﬁ"


@pytest.fixture(scope="module")
def unigram() -> dict:
    """A real Unigram tokenizer.json (Mongolian, HF tokenizers), its vocabulary cut to 1500 pieces."""
    data = json.loads(lzma.decompress((REAL / "mon-unigram.json.xz").read_bytes()))
    data["model"]["vocab"] = data["model"]["vocab"][:1500]
    data["added_tokens"] = [t for t in data["added_tokens"] if t["id"] < 1500]
    return data


@pytest.fixture(scope="module")
def charsmap() -> bytes:
    """The precompiled charsmap of a real sentencepiece model (nmt_nfkc)."""
    pb = pytest.importorskip("sentencepiece.sentencepiece_model_pb2")
    model = pb.ModelProto()
    model.ParseFromString(lzma.decompress((REAL / "sentencepiece-suite" / "botchan_en_unigram_1000.model.xz").read_bytes()))
    return model.normalizer_spec.precompiled_charsmap


def hf_result(text: str):
    """HF tokenizers' ids for TEXT, or the exception it raises loading the file or encoding."""
    try:
        hf = tokenizers.Tokenizer.from_str(text)
        hf.no_padding()
        hf.no_truncation()
        return hf.encode(TEXT, add_special_tokens=False).ids
    except BaseException as exc:  # (a Rust panic is a BaseException)
        return exc


def assert_as_hf(tmp_path: Path, text: str, *words: str) -> None:
    path = tmp_path / "tokenizer.json"
    path.write_text(text, encoding="utf-8")
    expected = hf_result(text)
    if isinstance(expected, BaseException):
        with pytest.raises(TokvizError) as info:
            tokviz.load(path).encode(TEXT)
        message = str(info.value)
        assert str(path) in message, message
        for word in words:
            assert word in message, message
    else:
        assert tokviz.load(path).encode(TEXT).ids == expected


def with_literal(data: dict, place: tuple, literal: str) -> str:
    """`data` as JSON with the value at `place` written as the raw number `literal`."""
    data = copy.deepcopy(data)
    parent = data
    for key in place[:-1]:
        parent = parent[key]
    parent[place[-1]] = "@@literal@@"
    return json.dumps(data).replace('"@@literal@@"', literal)


HUGE = "9" * 400
AT_FLOAT_MAX = "17976931348623157" + "0" * 292  # f64::MAX's digits: serde_json's parse overflows on it


@pytest.mark.parametrize("literal, refused", [
    (HUGE, True), ("-" + HUGE, True), (AT_FLOAT_MAX, True), ("1" + "0" * 308, False), ("9" * 308, False),
    (str(2**64), False), (str(2**64 - 1), False), (str(-(2**63) - 1), False), ("-0", False), ("1" + "0" * 25, False),
], ids=lambda v: v if isinstance(v, bool) or len(v) < 24 else f"{v[:6]}..({len(v)} chars)")
def test_integer_scores(tmp_path, unigram, literal, refused):
    text = with_literal(unigram, ("model", "vocab", 7, 1), literal)
    assert isinstance(hf_result(text), BaseException) == refused
    assert_as_hf(tmp_path, text, "model.vocab[7][1]", "out of range")


@pytest.mark.parametrize("place, literal, field", [
    (("model", "unk_id"), HUGE, "model.unk_id"),
    (("model", "unk_id"), str(2**64), "model.unk_id"),
    (("model", "unk_id"), "-0", "model.unk_id"),
    (("added_tokens", 0, "id"), HUGE, "added_tokens[0]"),
    (("added_tokens", 0, "id"), "-0", "added_tokens[0]"),
])
def test_integer_ids_beyond_64_bits_or_negative_zero(tmp_path, unigram, place, literal, field):
    text = with_literal(unigram, place, literal)
    assert isinstance(hf_result(text), BaseException)
    assert_as_hf(tmp_path, text, field)


@pytest.mark.parametrize("make", [
    pytest.param(lambda blob: base64.b64encode(blob).decode(), id="base64"),
    pytest.param(lambda blob: base64.b64encode(blob).decode().rstrip("="), id="unpadded"),
    pytest.param(lambda blob: base64.b64encode(blob).decode() + "=", id="extra-padding"),
    pytest.param(lambda blob: base64.b64encode(blob).decode()[:-3] + "B==", id="unused-bits-set"),
    pytest.param(lambda blob: base64.b64encode(blob).decode().replace("+", "-"), id="url-alphabet"),
    pytest.param(lambda blob: " " + base64.b64encode(blob).decode(), id="leading-space"),
    pytest.param(lambda blob: [str(b) for b in blob[:64]], id="list-of-strings"),
    pytest.param(lambda blob: list(blob), id="list-of-ints"),
    pytest.param(lambda blob: "", id="empty"),
    pytest.param(lambda blob: None, id="null"),
    pytest.param(lambda blob: base64.b64encode(blob[:3]).decode(), id="shorter-than-header"),
    pytest.param(lambda blob: base64.b64encode(blob[:1000]).decode(), id="truncated"),
    pytest.param(lambda blob: base64.b64encode(b"\0\0\0\0abc").decode(), id="empty-trie"),
    pytest.param(lambda blob: base64.b64encode(b"\x04\0\0\0abcd").decode(), id="tiny-trie"),
])
def test_precompiled_charsmap(tmp_path, unigram, charsmap, make):
    data = copy.deepcopy(unigram)
    data["normalizer"] = {"type": "Sequence", "normalizers": [
        {"type": "Precompiled", "precompiled_charsmap": make(charsmap)}]}
    assert_as_hf(tmp_path, json.dumps(data), "normalizer.normalizers[0]", "precompiled_charsmap")


def test_decode_takes_integer_ids(unigram, tmp_path):
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(unigram), encoding="utf-8")
    tok = tokviz.load(path)
    hf = tokenizers.Tokenizer.from_file(str(path))
    for bad, words in ((["hello"], ["integer token ids", "str", "position 0"]),
                       ([5, 1.5], ["integer token ids", "float", "position 1"]),
                       ("hello", ["a sequence of integer token ids", "str"]),
                       (None, ["a sequence of integer token ids"])):
        with pytest.raises(TypeError):
            hf.decode(bad)
        with pytest.raises(TypeError) as info:
            tok.decode(bad)
        for word in words:
            assert word in str(info.value)
    np = pytest.importorskip("numpy")
    ids = [5, 17, 200]
    assert tok.decode(np.array(ids)) == tok.decode(tuple(ids)) == tok.decode(iter(ids)) == hf.decode(ids)


# ---- a mutation sweep: every failure of load is a TokvizError -------------------------------------

_VALUES = [None, -1, 1.5, "x", "", [], {}, ["a"], [1], True, 2**31, "@@" + HUGE, "@@-0", "@@1e400", "@@NaN",
           "@@" + str(2**64)]


def _places(value, where=(), depth=0):
    yield where
    if depth > 5:
        return
    if isinstance(value, dict):
        keys = list(value)
        for key in keys if len(keys) <= 12 else keys[:2] + keys[-1:]:
            yield from _places(value[key], where + (key,), depth + 1)
    elif isinstance(value, list):
        for i in range(len(value)) if len(value) <= 4 else (0, 1, len(value) - 1):
            yield from _places(value[i], where + (i,), depth + 1)


def _mutated(data, place, value) -> str:
    data = copy.deepcopy(data)
    parent = data
    for key in place[:-1]:
        parent = parent[key]
    parent[place[-1]] = value
    text = json.dumps(data, ensure_ascii=False)
    for literal in (v for v in _VALUES if isinstance(v, str) and v.startswith("@@")):
        text = text.replace(json.dumps(literal), literal[2:])
    return text


@pytest.mark.first_cases(1)
@pytest.mark.parametrize("seed", ["tortoise-tokenizer.json", "unigram"])
def test_mutations_fail_only_with_tokviz_errors(tmp_path, unigram, seed):
    if seed == "unigram":
        data = copy.deepcopy(unigram)
        data["model"]["vocab"] = data["model"]["vocab"][:300]
    else:
        data = json.loads((REAL / seed).read_text(encoding="utf-8"))
    path = tmp_path / "tokenizer.json"
    escaped, loaded, refused = [], 0, 0
    for place in (p for p in _places(data) if p):
        for value in _VALUES:
            path.write_text(_mutated(data, place, value), encoding="utf-8")
            try:
                tok = tokviz.load(path)
                loaded += 1
            except TokvizError as exc:
                assert str(path) in str(exc)
                refused += 1
                continue
            except Exception as exc:  # noqa: BLE001 (what this test looks for)
                escaped.append((place, value if not isinstance(value, str) else value[:20], repr(exc)[:200]))
                continue
            try:
                tok.encode(TEXT)
            except TokvizError:
                pass  # (e.g. a Unigram model left without an unknown token, as HF tokenizers fails too)
            except Exception as exc:  # noqa: BLE001
                escaped.append((place, value if not isinstance(value, str) else value[:20], "encode: " + repr(exc)[:200]))
    assert not escaped, escaped[:5]
    assert loaded and refused  # (the sweep reached both outcomes)
