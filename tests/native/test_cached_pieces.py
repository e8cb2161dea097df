"""ASCII text encoded again from the piece cache (the encoder's loop over cached pieces of up to 16
bytes, _native.c ascii_cached_pieces) gives the reference library's ids: pieces of every length
from 1 to 24 bytes, of one token and of many, that cross the 4096-byte windows of the start bits and
end near the text's end, first encoded when new and then from the cache.

Real vocabularies from tests/data/real: cl100k's ranks (against tiktoken, two patterns) and
Qwen2.5's tokenizer.json (against HF tokenizers)."""
from __future__ import annotations

import random

import pytest

import tokviz
from tokviz.core import patterns

from .real_files import cl100k_reference, unpacked

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def piece(rng: random.Random, size: int) -> str:
    """A piece-like run of `size` characters: a word (common or made up, so one token or many), a
    number, punctuation or white space, often after a space."""
    kind = rng.random()
    if kind < 0.55:
        made_up = rng.random() < 0.5
        body = "".join(rng.choice(LETTERS if made_up else "etaoinshrdlu") for _ in range(size))
        if rng.random() < 0.3:
            body = body.capitalize()
        return (" " + body[1:]) if size > 1 and rng.random() < 0.7 else body
    if kind < 0.7:
        return " " + "".join(rng.choice("0123456789") for _ in range(size - 1)) if size > 1 else "7"
    if kind < 0.85:
        return "".join(rng.choice("=-+*#.,;:!?()[]{}<>/") for _ in range(size))
    return rng.choice([" ", "\n", "\t", "  \n"]) * max(1, size // 2)


def texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    pool = [piece(rng, rng.randint(1, 24)) for _ in range(400)]  # repeated, so most come from the cache
    out = []
    for _ in range(count):
        size = rng.choice([15, 16, 17, 40, 4090, 4100, 8200, 12000])
        parts: list[str] = []
        while sum(map(len, parts)) < size:
            parts.append(rng.choice(pool) if rng.random() < 0.8 else piece(rng, rng.randint(1, 24)))
        out.append("".join(parts)[: size + rng.randint(0, 20)])
    return out


@pytest.mark.parametrize("pattern", ["cl100k_base", "o200k_base"])
def test_tiktoken(tmp_path, pattern):
    path, _, ref = cl100k_reference(tmp_path, pattern)
    tok = tokviz.load(path, pattern=patterns.TIKTOKEN_PATTERNS[pattern])
    assert tok.native_encoder() is not None
    for text in texts(60, seed=len(pattern)):
        want = ref.encode_ordinary(text)
        assert tok.encode_ids(text) == want, text  # new pieces, and pieces cached by earlier texts
        assert tok.encode_ids(text) == want, text  # all from the cache


@pytest.mark.slow
def test_tokenizer_json(tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    path = unpacked("qwen2.5/tokenizer.json.xz", tmp_path)
    hf = tokenizers.Tokenizer.from_file(str(path))
    tok = tokviz.load(path)
    for text in texts(60, seed=11):
        want = hf.encode(text, add_special_tokens=False).ids
        assert tok.encode_ids(text) == want, text
        assert tok.encode_ids(text) == want, text
