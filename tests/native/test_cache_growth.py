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
