"""Pieces of 15 to 70 and of 122 to 134 bytes, on both sides of the merging's three ways (a rescan
of up to 16 symbols, a rescan four ranks at a time up to 128, a heap beyond: _native.c
merge_ranked, merge_wide, merge_long), give the reference library's ids: runs of one character
(table borders, rules, indentation), made-up words, mixed punctuation, and runs of characters other
than ASCII that merge from whole characters.  cl100k's ranks against tiktoken, Qwen2.5's
tokenizer.json against HF."""
from __future__ import annotations

import random

import pytest

import tokviz

from .real_files import cl100k_reference, unpacked

LENGTHS = [*range(15, 71), *range(122, 135)]


def wide_pieces(seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for n in LENGTHS:
        out += ["-" * n, "=" * (n - 2) + "\n\n", "+" + "-" * (n // 3) + "+" + "-" * (n - n // 3 - 3) + "+\n",
                " " * n + "x", "*" * n, "%" * (n - 1) + "\n"]
        out.append(" " + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n - 1)))
        out.append(" " + "".join(rng.choice("-=+*#.,;:!?()[]{}<>/") for _ in range(n - 1)))
        out.append("".join(rng.choice("éèüöäßçñ") for _ in range(n // 2)))
        out.append("".join(rng.choice("中文字测试的是") for _ in range(n // 3)))
    return out


def test_tiktoken(tmp_path):
    path, _, ref = cl100k_reference(tmp_path)
    tok = tokviz.load(path)
    for text in wide_pieces(3):
        want = ref.encode_ordinary(text)
        assert tok.encode_ids(text) == want, text
        assert tok.encode_ids(text) == want, text  # from the cache
    joined = "\n".join(wide_pieces(4))
    assert tok.encode_ids(joined) == ref.encode_ordinary(joined)


@pytest.mark.slow
def test_tokenizer_json(tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    path = unpacked("qwen2.5/tokenizer.json.xz", tmp_path)
    hf = tokenizers.Tokenizer.from_file(str(path))
    tok = tokviz.load(path)
    for text in wide_pieces(5):
        want = hf.encode(text, add_special_tokens=False).ids
        assert tok.encode_ids(text) == want, text
    joined = "\n".join(wide_pieces(6))
    assert tok.encode_ids(joined) == hf.encode(joined, add_special_tokens=False).ids


def test_a_piece_as_long_as_the_grown_scratch_space(tmp_path):
    """A piece of 65..85 bytes grows the per-call scratch space to about 1.5 times its length; a
    later piece of the text as long as that space (up to 128 bytes: merge_wide, which reads and
    writes ranks up to the next multiple of four) must stay inside it.  Found on a 1 GB corpus as
    heap corruption (`realloc(): invalid next size`); the sanitizer run of .ci/run reports any
    write past the space.  Qwen2.5 against HF tokenizers."""
    tokenizers = pytest.importorskip("tokenizers")
    path = unpacked("qwen2.5/tokenizer.json.xz", tmp_path)
    hf = tokenizers.Tokenizer.from_file(str(path))
    tok = tokviz.load(path)
    rng = random.Random(7)
    for first in range(65, 86):
        grown = first + first // 2
        for n in range(grown - 6, min(grown + 6, 128) + 1):
            # made-up words: a piece the tokenizer's cache already holds would not be merged again
            text = "".join(rng.choice("abcdefghij") for _ in range(first)) + " " + \
                "".join(rng.choice("klmnopqrst") for _ in range(n - 1))
            want = hf.encode(text, add_special_tokens=False).ids
            assert tok.encode(text).ids == want, (first, n)  # (the call with offsets)
            assert tok.encode_ids(text) == want, (first, n)
