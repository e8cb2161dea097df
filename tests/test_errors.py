"""Bad input gives a TokvizError that names the file and what is wrong — never a deep traceback."""
from __future__ import annotations

import json

import pytest

import tokviz
from tokviz import TokvizError
from tokviz.defaults import default_tokenizer_path

MINIMAL_BPE = {
    "model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]},
    "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": True},
    "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": True},
    "added_tokens": [],
}


def write(tmp_path, name, content):
    p = tmp_path / name
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return p


def assert_clear_error(path, *words):
    with pytest.raises(TokvizError) as info:
        tokviz.load(path)
    err = info.value
    assert err.path is not None and str(path) in str(err), f"error does not name the file: {err}"
    for w in words:
        assert w.lower() in str(err).lower(), f"{w!r} not in {err}"
    return err


def test_minimal_file_loads(tmp_path):
    tok = tokviz.load(write(tmp_path, "tokenizer.json", MINIMAL_BPE))
    assert tok.encode("ab").ids == [2]


@pytest.mark.parametrize(
    "name, content, words",
    [
        ("tokenizer.json", json.dumps(MINIMAL_BPE)[:40], ["malformed JSON"]),
        ("tokenizer.json", "", ["malformed JSON"]),
        ("tokenizer.json", b"\x89PNG\r\n\x1a\n\x00\x00binary", ["not UTF-8"]),
        ("tokenizer.json", [1, 2, 3], ["expected an object"]),
        ("tokenizer.json", {"version": "1.0"}, ["no 'model'"]),
        ("tokenizer.json", {**MINIMAL_BPE, "model": {**MINIMAL_BPE["model"], "merges": ["a c"]}}, ["merges[0]", "'ac'"]),
        ("tokenizer.json", {**MINIMAL_BPE, "model": {**MINIMAL_BPE["model"], "merges": ["a b c"]}}, ["merges[0]"]),
        ("tokenizer.json", {**MINIMAL_BPE, "model": {**MINIMAL_BPE["model"], "vocab": {"a": "zero"}}}, ["'a'"]),
        ("tokenizer.json", {**MINIMAL_BPE, "model": {**MINIMAL_BPE["model"], "vocab": {"a": -5}}}, ["-5"]),
        ("tokenizer.json", {**MINIMAL_BPE, "model": {**MINIMAL_BPE["model"], "vocab": [1]}}, ["model.vocab"]),
        ("tokenizer.json", {**MINIMAL_BPE, "model": {"type": "Mystery"}}, ["Mystery"]),
        ("tokenizer.json", {**MINIMAL_BPE, "normalizer": {"type": "Nope"}}, ["normalizer", "Nope"]),
        ("tokenizer.json", {**MINIMAL_BPE, "pre_tokenizer": {"type": "Split", "pattern": {"Regex": "(unclosed"}, "behavior": "Isolated", "invert": False}}, ["regex"]),
        ("tokenizer.json", {**MINIMAL_BPE, "pre_tokenizer": {"type": "Split", "pattern": {"Regex": "a"}, "behavior": "Sideways", "invert": False}}, ["Sideways"]),
        ("tokenizer.json", {**MINIMAL_BPE, "added_tokens": [{"id": "x", "content": "<s>"}]}, ["added_tokens[0].id"]),
        ("tokenizer.json", {**MINIMAL_BPE, "normalizer": {"type": "Precompiled", "precompiled_charsmap": "!!notbase64!!"}}, ["base64"]),
        ("cl100k_base.tiktoken", "IQ== 0\nnot-base64!! 1\n", ["line 2"]),
        ("cl100k_base.tiktoken", "IQ== 0\nIg==\n", ["line 2"]),
        ("cl100k_base.tiktoken", "IQ== 0\nIQ== 1\n", ["lack", "single bytes"]),
        ("cl100k_base.tiktoken", "", ["no ranks"]),
        ("mystery.tiktoken", "IQ== 0\n", ["pattern"]),
        ("vocab.txt", "hello\nworld\n", ["[UNK]"]),
        ("x.model", b"minbpe v1\n", ["truncated"]),
        ("y.model", b"minbpe v1\n\\w+\n3\n<s> 256\n", ["special tokens"]),
        ("z.model", b"minbpe v1\n\\w+\n0\n1 999\n", ["999"]),
        ("notes.bin", b"\x00\x01\x02 plain junk", ["unknown tokenizer format"]),
    ],
)
def test_bad_files(tmp_path, name, content, words):
    assert_clear_error(write(tmp_path, name, content), *words)


def test_missing_path(tmp_path):
    assert_clear_error(tmp_path / "nope.json", "no such file")


def test_empty_folder(tmp_path):
    assert_clear_error(tmp_path, "no tokenizer found")


def test_gpt2_layout_without_merges(tmp_path):
    write(tmp_path, "vocab.json", {"a": 0})
    with pytest.raises(TokvizError, match="merges.txt: not found") as info:
        tokviz.load(tmp_path / "vocab.json")
    assert str(tmp_path) in str(info.value)


def test_lone_surrogate_text():
    tok = tokviz.load(default_tokenizer_path())
    with pytest.raises(TokvizError, match="surrogate U\\+D800"):
        tok.encode("ok \ud800 bad")


def test_decode_unknown_id():
    tok = tokviz.load(default_tokenizer_path())
    with pytest.raises(TokvizError, match="not in the vocabulary"):
        tok.decode([1, 10**9])


def test_tiktoken_custom_pattern(tmp_path):
    import base64

    lines = [f"{base64.b64encode(bytes([b])).decode()} {b}\n" for b in range(256)] + ["YWI= 256\n"]
    path = write(tmp_path, "mine.tiktoken", "".join(lines))
    tok = tokviz.load(path, pattern=r"\S+|\s+")
    assert tok.encode("ab ab").ids == [256, 32, 256]
    assert tok.decode([256, 32, 256]) == "ab ab"
