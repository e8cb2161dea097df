"""A piece cache that fills up grows and keeps what it holds (piece_cache.h, cache_grow_if_full):
the entries move into the bigger tables instead of being thrown away, and the ids read back from
them are the ids the pieces were encoded to."""
from __future__ import annotations

import random

import pytest

import tokviz

from .real_files import unpacked


def _texts(seed: int, n_texts: int = 40) -> list[str]:
    """8 KB texts of distinct made-up words: each call adds hundreds of new pieces to the cache."""
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyzáéíóúäöüñç"
    words = list({"".join(rng.choices(letters, k=rng.randint(4, 10))) for _ in range(n_texts * 1200)})
    rng.shuffle(words)
    texts, current = [], []
    for w in words:
        current.append(w)
        if sum(map(len, current)) + len(current) > 8000:
            texts.append(" ".join(current))
            current = []
            if len(texts) == n_texts:
                break
    return texts


@pytest.mark.parametrize("name", ["cl100k_base.tiktoken.xz", "mistral-v1.model.xz"])
def test_a_growing_cache_keeps_its_entries(name, tmp_path):
    tok = tokviz.load(unpacked(name, tmp_path))
    if tok.native_encoder() is None:
        pytest.skip("the C extension is not built")
    texts = _texts(7)
    first, growths = [], 0
    for text in texts:
        before = tok.native_cache_info()
        first.append(tok.encode_ids(text))
        after = tok.native_cache_info()
        if before["bytes"] and after["bytes"] > before["bytes"]:
            growths += 1
            # the grown cache still holds what it held (and the call's new pieces)
            assert after["entries"] >= before["entries"], (before, after)
    if growths == 0:
        pytest.skip(f"{name}: its cache never grew on these texts")
    # read back from the moved entries: the same ids
    assert [tok.encode_ids(t) for t in texts] == first
    fresh = tokviz.load(unpacked(name, tmp_path))
    assert [fresh.encode_ids(t) for t in texts] == first


@pytest.mark.first_cases(1)
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("name", [pytest.param("cl100k_base.tiktoken.xz", marks=pytest.mark.slow), "mistral-v1.model.xz"])
def test_one_big_call_learns_as_it_goes(name, threads, tmp_path):
    """A batch on a fresh encoder is given a cache sized for its text when it takes one (about an entry
    per 64 characters), and one that has the cache to itself grows it whenever it fills: every new
    word stays cached.  (A call used to keep the cache at its first size, 2,048 entries, throughout:
    emptied each time it filled, or, shared by threads, full and learning nothing more.)"""
    tok = tokviz.load(unpacked(name, tmp_path))
    if tok.native_encoder() is None:
        pytest.skip("the C extension is not built")
    texts = _texts(11)
    words = sum(len(t.split()) for t in texts)  # all different; each a piece of its own
    ids = tok.encode_ids_batch(texts, threads=threads)
    entries = tok.native_cache_info()["entries"]
    if threads == 1:
        assert entries >= words - len(texts), entries  # (a text's first word has no space before it)
    else:
        assert entries >= sum(map(len, texts)) // 64, entries
    assert ids == [tokviz.load(unpacked(name, tmp_path)).encode_ids(t) for t in texts]
