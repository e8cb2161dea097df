"""GGUF's qwen35 pre-tokenizer cut by the native qwen35 scanner: the vocabulary llama.cpp ships
for it (ggml-vocab-qwen35.gguf, in llama-cpp-python 0.3.36's sdist, named by LLAMA_CPP_SDIST as
for tests/test_gguf_vectors.py) gives llama.cpp's ids and the Python path's ids and offsets."""
from __future__ import annotations

import random

import pytest

import tokviz

import gguf_files
from test_gguf_vectors import _sdist_models, _vectors

_native = pytest.importorskip("tokviz._native", reason="the C extension tokviz._native is not built")

# Marks after letters, digits, punctuation, spaces and CR/LF (the words take them, other runs do not).
MARKS = "\u0301\u0308\u0327\u064b\u093c\u0903\u0e31\u20dd\u302a"
PARTS = ["a", "Z", "é", "ß", "中", "ひ", "ก", "अ", "1", "٣", " ", "  ", "\n", "\r\n", "\t", "!", "...", "'s", "'LL",
         "/", "😀", "\u200d", *MARKS]


def _qwen35_path():
    models = _sdist_models()
    if models is None:
        pytest.skip("LLAMA_CPP_SDIST does not name llama-cpp-python's sdist (ggml-vocab-qwen35.gguf)")
    return models / "ggml-vocab-qwen35.gguf"


def _beside(path, suffix):
    return path.with_name(f"{path.name}.{suffix}")


def test_qwen35_gguf_is_cut_natively_as_llama_cpp_cuts_it():
    llama_cpp = pytest.importorskip("llama_cpp", reason="llama-cpp-python (the oracle) is not installed")
    path = _qwen35_path()
    tok = tokviz.load(path)
    python = tokviz.load(path).use_native(False)
    assert tok.native_encoder().describe() == "native (qwen35 scanner)"
    llm = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    rng = random.Random(35)
    texts = gguf_files.mixed_texts(300, seed=35)
    texts += ["".join(rng.choice(PARTS) for _ in range(rng.randint(1, 40))) for _ in range(400)]
    texts += [text for text, _ in _vectors(_beside(path, "inp"), _beside(path, "out"))]
    texts += ["e\u0301" * 500, "\u0301" * 300 + "x", "!\u0301?" * 100, "hello world " * 800 + "\u0308"]
    for text in texts:
        expected = python.encode(text, add_special_tokens=False)
        got = tok.encode(text, add_special_tokens=False)
        assert got.ids == expected.ids == llm.tokenize(text.encode("utf-8"), add_bos=False, special=False), text
        assert [tuple(o) for o in got.offsets] == [tuple(o) for o in expected.offsets], text
