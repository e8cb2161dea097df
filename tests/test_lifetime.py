"""A dropped tokenizer is freed at once, without the cycle collector: the GUI freezes long-lived
objects out of the collector's way (core/gcpause.py), and a frozen reference cycle is never freed."""
from __future__ import annotations

import gc
import weakref

import pytest

import tokviz
from tokviz.defaults import default_tokenizer_path

from _shared import TOKENIZERS, need

PATHS = {
    "demo": default_tokenizer_path(),
    "qwen2.5": TOKENIZERS / "qwen2.5" / "tokenizer.json",
    "cl100k": TOKENIZERS / "cl100k_base.tiktoken",
    "bert": TOKENIZERS / "bert-minilm" / "tokenizer.json",
    "bert-vocab": TOKENIZERS / "bert-minilm" / "vocab.txt",
    "sp-unigram": TOKENIZERS / "sentencepiece" / "unigram_8k.model",
    "sp-bpe": TOKENIZERS / "sentencepiece" / "bpe_8k.model",
}


@pytest.mark.first_cases(2)
@pytest.mark.parametrize("name", list(PATHS))
def test_a_used_tokenizer_is_freed_without_the_collector(name):
    tok = tokviz.load(need(PATHS[name]))
    texts = ["Hello wörld, 中文 text\n\tand  spaces", "x" * 5000]
    tok.encode(texts[0])
    tok.encode_batch(texts, threads=2)
    tok.decode(tok.encode(texts[0]).ids)
    refs = [weakref.ref(tok)] + ([weakref.ref(tok.native_encoder())] if tok.native_encoder() is not None else [])
    gc.collect()
    gc.disable()
    try:
        del tok
        assert all(ref() is None for ref in refs), f"{name}: the tokenizer or its native encoder outlived it"
        assert gc.collect() == 0, f"{name}: dropping the tokenizer left cyclic garbage"
    finally:
        gc.enable()
