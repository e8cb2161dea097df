"""The native encoder gives the same ids and offsets as the Python pipeline (use_native(False)) on
every shared byte-level tokenizer, with and without added tokens, one text at a time or in batches."""
from __future__ import annotations

import functools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokviz
from tokviz.core.encoding import Encoding
from tokviz.defaults import default_tokenizer_path

from _shared import CORPUS_FILES, EDGE_CASES, TOKENIZERS, assigned_text, corpus_samples, examples, need

PATHS = {
    "qwen2.5-json": TOKENIZERS / "qwen2.5" / "tokenizer.json",
    "qwen2.5-vocab-merges": TOKENIZERS / "qwen2.5" / "vocab.json",
    "llama3-json": TOKENIZERS / "llama3" / "tokenizer.json",
    "cl100k-tiktoken": TOKENIZERS / "cl100k_base.tiktoken",
    "demo": None,  # the tokenizer tokviz ships (GPT-2 pattern)
    # cl100k's ranks cut by the other tiktoken patterns: the o200k and r50k scanners end to end
    "cl100k-ranks-o200k-pattern": TOKENIZERS / "cl100k_base.tiktoken",
    "cl100k-ranks-r50k-pattern": TOKENIZERS / "cl100k_base.tiktoken",
}
NAMES = list(PATHS)


@functools.lru_cache(maxsize=None)
def load(name: str):
    from tokviz.core import patterns

    path = PATHS[name] or default_tokenizer_path()
    if name.endswith("-pattern"):
        pattern = {"o200k": patterns.O200K_PATTERN, "r50k": patterns.R50K_PATTERN}[name.split("-")[2]]
        return tokviz.load(need(path), pattern=pattern)
    return tokviz.load(need(path))


def both(tok, text, **kwargs) -> tuple[Encoding, Encoding]:
    native = tok.use_native(True).encode(text, **kwargs)
    python = tok.use_native(False).encode(text, **kwargs)
    tok.use_native(True)
    return native, python


def assert_same(tok, text, **kwargs):
    native, python = both(tok, text, **kwargs)
    assert native.ids == python.ids, text
    assert native.offsets == python.offsets, text
    assert native == python  # bytes, pieces, special and partial flags too
    assert tok.encode_ids(text, **kwargs) == python.ids


@pytest.mark.shared
@pytest.mark.first_cases(2)
@pytest.mark.parametrize("name", NAMES)
def test_uses_native(name):
    tok = load(name)
    assert tok.native_encoder() is not None
    assert tok.describe()["encoder"] == "native"
    assert tok.use_native(False).describe()["encoder"] == "python"
    tok.use_native(True)


@pytest.mark.shared
@pytest.mark.parametrize("name", NAMES)
def test_edge_cases(name):
    tok = load(name)
    for text in EDGE_CASES:
        assert_same(tok, text)
        assert_same(tok, text, allow_special=True)
        assert_same(tok, text, add_special_tokens=True)


@pytest.mark.shared
@pytest.mark.first_cases(8)
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("corpus", CORPUS_FILES)
def test_corpus(name, corpus):
    tok = load(name)
    for text in corpus_samples(corpus, 6, 1000, 5000):
        assert_same(tok, text)


@pytest.mark.shared
@pytest.mark.parametrize("name", NAMES)
def test_added_tokens_between_segments(name):
    tok = load(name)
    specials = [t.content for t in tok.added.tokens][:4] or ["<|endoftext|>"]
    text = f"Hello {specials[0]} wörld{specials[-1]}  \n 123 中文" + "".join(specials) + " end"
    assert_same(tok, text, allow_special=True)
    assert_same(tok, text, allow_special=False)


@pytest.mark.shared
@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=examples(60), deadline=None)
@given(text=assigned_text(80))
def test_random_text(name, text):
    assert_same(load(name), text)


@pytest.mark.parametrize("name", ["qwen2.5-json", "cl100k-tiktoken"])
def test_not_nfc_text(name):
    """qwen2.5 normalizes to NFC: the segment is no longer the original text, offsets are mapped."""
    tok = load(name)
    assert_same(tok, "e\u0301 cafe\u0301 A\u030a\u0323 \u1100\u1161\u11a8 x" * 3)


@pytest.mark.shared
@pytest.mark.parametrize("name", NAMES)
def test_long_pieces(name):
    """Pieces longer than the short-merge limit take the heap path."""
    tok = load(name)
    for text in ["a" * 5000, "ab" * 700, "é" * 300, "中" * 400, " " * 3000 + "x", "\n" * 500, "🙂" * 200, "x" * 17, "q" * 16, "ab" * 9]:
        assert_same(tok, text)


@pytest.mark.shared
@pytest.mark.first_cases(6)
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("threads", [1, 2, 4])
def test_batch_equals_sequential(name, threads):
    tok = load(name)
    texts = EDGE_CASES + corpus_samples("multi", 8, 200, 3000) + corpus_samples("code", 8, 200, 3000)
    sequential = [tok.use_native(False).encode(t) for t in texts]
    tok.use_native(True)
    assert tok.encode_batch(texts, threads=threads) == sequential
    assert tok.encode_batch(texts, threads=threads, allow_special=True, add_special_tokens=True) == [
        tok.encode(t, allow_special=True, add_special_tokens=True) for t in texts
    ]
    assert tok.encode_ids_batch(texts, threads=threads) == [e.ids for e in sequential]


def test_lazy_encoding_behaves_like_an_encoding():
    tok = load("cl100k-tiktoken")
    enc = tok.encode("héllo 海洋 world")
    ref = tok.use_native(False).encode("héllo 海洋 world")
    tok.use_native(True)
    assert enc == ref and ref == enc and not (enc != ref)
    assert enc.tokens == ref.tokens
    assert enc.as_records() == ref.as_records()
    assert enc.token_at(7) == ref.token_at(7)
    assert len(enc) == len(ref)
    assert "LazyEncoding" in repr(enc)


@pytest.mark.shared
def test_regex_fallback_for_unknown_pattern():
    """A Split pattern the native scanners do not know is cut by `regex` in Python, then merged natively."""
    from tokviz.core import pre_tokenizers as pre
    from tokviz.core.tokenizer import Tokenizer

    base = load("cl100k-tiktoken")
    custom = pre.Sequence([pre.Split(r"\p{L}+|\p{N}|[^\p{L}\p{N}]+", "Isolated"), pre.ByteLevel(use_regex=False)])
    tok = Tokenizer(base.model, pre_tokenizer=custom, decoder=base.decoder)
    native = tok.native_encoder()
    assert native is not None and native.python_split and "fallback" in native.describe()
    for text in EDGE_CASES + corpus_samples("en", 3):
        assert_same(tok, text)
    assert tok.encode_batch(EDGE_CASES, threads=2) == [tok.use_native(False).encode(t) for t in EDGE_CASES]
    tok.use_native(True)


@st.composite
def _texts(draw):
    return draw(st.lists(assigned_text(40), max_size=6))


@settings(max_examples=examples(30), deadline=None)
@given(texts=_texts())
def test_random_batches(texts):
    tok = load("qwen2.5-json")
    expected = [tok.use_native(False).encode(t) for t in texts]
    tok.use_native(True)
    assert tok.encode_batch(texts, threads=3) == expected


def test_lazy_encoding_copies_and_pickles():
    import copy
    import pickle

    tok = load("demo")
    enc = tok.encode("copy me, 中文")
    ref = tok.use_native(False).encode("copy me, 中文")
    tok.use_native(True)
    data = pickle.dumps(enc)
    assert len(data) < 2000  # not the tokenizer's tables
    for other in (copy.copy(enc), copy.deepcopy(enc), pickle.loads(data)):
        assert type(other) is Encoding
        assert other == ref and other.offsets == ref.offsets and other.partial == ref.partial


def test_short_calls_take_one_cache_entry_per_new_piece():
    """Calls one after the other that each add one piece use the room the cache reserved for the
    previous ones: 1,000 of them take about 1,000 entries (a block of 64 reserved per call would take
    64,000), and encoding them again adds nothing."""
    import itertools

    tok = load("demo")
    enc = tok.native_encoder().encoder
    words = [" " + "".join(w) for w in itertools.islice(itertools.product("qxzjkv", repeat=6), 1000)]
    enc.clear_cache()
    first = [tok.encode_ids(w) for w in words]
    entries = tok.native_cache_info()["entries"]
    assert 1000 <= entries < 2 * 1000  # (a block's room for long id lists can run out first)
    assert [tok.encode_ids(w) for w in words] == first
    assert tok.native_cache_info()["entries"] == entries
    python = tokviz.load(default_tokenizer_path()).use_native(False)
    assert [python.encode(w).ids for w in words[::97]] == first[::97]
    enc.clear_cache()


def test_cache_starts_small_and_grows_with_use():
    """A cache used on short texts stays small (a tokenizer open in the app costs its piece cache's
    largest size only once it encodes big texts); calls that fill it make it grow, and once
    cleared it starts small again."""
    tok = load("demo")
    enc = tok.native_encoder().encoder
    enc.clear_cache()
    ids = tok.encode_ids("A short text, typed in the app.")
    small = tok.native_cache_info()
    assert small["caches"] == 1 and small["bytes"] < 2**20
    words = " ".join(f"w{k:x}q" for k in range(40_000))
    sizes = []
    for _ in range(4):
        tok.encode_ids(words)
        sizes.append(tok.native_cache_info()["bytes"])
    assert sizes == sorted(sizes) and sizes[-1] > 10 * small["bytes"]
    enc.clear_cache()
    assert tok.encode_ids("A short text, typed in the app.") == ids
    assert tok.native_cache_info() == small


def test_cache_holds_long_pieces_of_many_tokens():
    """Pieces of many tokens (as Chinese text makes: ~20 bytes, ~10 tokens each) fill the arenas of
    keys and id lists, not only the slots: 90,000 of them in one call all stay cached, the cache
    growing to its largest size within the call (arenas sized for 6 ids a piece emptied the cache on
    the way), and the ids are the Python pipeline's."""
    import random

    tok = load("demo")
    enc = tok.native_encoder().encoder
    rng = random.Random(3)
    words = sorted({" " + "".join(rng.choices("qxzjkvwy", k=20)) for _ in range(90_000)})
    text = "".join(words)
    enc.clear_cache()
    ids = tok.encode_ids(text)
    assert len(ids) > 8 * len(words)
    first = tok.native_cache_info()  # the call grew the cache as it filled, to its largest size
    assert first["entries"] >= len(words)
    for _ in range(2):
        assert tok.encode_ids(text) == ids
        assert tok.native_cache_info() == first  # nothing more to learn: it neither grows nor is emptied
    assert tok.encode_ids(text) == ids
    python = tokviz.load(default_tokenizer_path()).use_native(False)
    assert python.encode(text[:30_000]).ids == tok.encode_ids(text[:30_000])
    enc.clear_cache()
