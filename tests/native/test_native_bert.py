"""BERT's normalizer and pre-tokenizer on the fast path (tokviz/native/bert.py): the same ids and
offsets as the reference pipeline, on corpus text, edge cases and random text."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokviz
from tokviz.native.bert import NativeBert

from _shared import CORPUS_FILES, EDGE_CASES, TOKENIZERS, corpus_samples, need

FILES = ["bert-minilm/tokenizer.json", "bert-minilm/vocab.txt"]


@pytest.fixture(scope="module", params=FILES)
def pair(request):
    path = need(TOKENIZERS / request.param)
    fast, ref = tokviz.load(path), tokviz.load(path).use_native(False)
    assert isinstance(fast.native_encoder(), NativeBert)
    return fast, ref


def _same(fast, ref, text, **kw):
    a, b = fast.encode(text, **kw), ref.encode(text, **kw)
    assert a.ids == b.ids, text[:80]
    assert a.offsets == b.offsets, text[:80]


def test_corpus_and_edge_cases(pair):
    fast, ref = pair
    texts = list(EDGE_CASES) + [t for name in CORPUS_FILES for t in corpus_samples(name, 4)]
    texts += ["Ωμέγα ΣΊΣΥΦΟΣ σίσυφος", "e\u0301te\u0301 cafe\u0301", "İstanbul ǅ ﬁne ＡＢＣ", "a\x00b\ufffdc\u200bd\x07e"]
    for text in texts:
        _same(fast, ref, text)
        _same(fast, ref, text, add_special_tokens=True)
    ids = fast.encode_batch(texts, threads=2)
    assert [e.ids for e in ids] == [ref.encode(t).ids for t in texts]


def test_special_tokens_in_text_are_cut_first(pair):
    fast, ref = pair
    for text in ("[CLS] hello [SEP] world [MASK]", "x[SEP]y", "[UNK][UNK]"):
        _same(fast, ref, text)
        _same(fast, ref, text, allow_special=False)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80))
def test_random_text(text):
    path = need(TOKENIZERS / "bert-minilm" / "tokenizer.json")
    fast, ref = _loaded(path)
    _same(fast, ref, text)


_cache = {}


def _loaded(path):
    if path not in _cache:
        _cache[path] = (tokviz.load(path), tokviz.load(path).use_native(False))
    return _cache[path]
