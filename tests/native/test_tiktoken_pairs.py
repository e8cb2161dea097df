"""A .tiktoken file's pair table holds only the pairs merging can make (_native.c canonical_pairs),
and gives tiktoken's ids: on small files built here (a token no merge makes, and a token ranked
before one of its parts, for which the table of every pair is built instead) and on the real files
of tests/data/real, whole corpora included where ../shared has them."""
from __future__ import annotations

import base64
import random

import pytest

import tokviz
from tokviz.core import patterns

from .real_files import cl100k_reference, unpacked

tiktoken = pytest.importorskip("tiktoken")


def tiktoken_file(path, extra: list[bytes]):
    """A .tiktoken file: the 256 bytes ranked 0 .. 255, then `extra` in order."""
    tokens = [bytes([b]) for b in range(256)] + extra
    path.write_text("".join(f"{base64.b64encode(t).decode()} {r}\n" for r, t in enumerate(tokens)))
    return path, {t: r for r, t in enumerate(tokens)}


def reference(ranks):
    return tiktoken.Encoding("ref", pat_str=patterns.TIKTOKEN_PATTERNS["cl100k_base"], mergeable_ranks=ranks,
                             special_tokens={})


def check(path, ranks, texts, pairs):
    tok = tokviz.load(path)
    native = tok.native_encoder()
    assert native is not None
    ref = reference(ranks)
    for text in texts:
        assert tok.encode_ids(text) == ref.encode_ordinary(text), text
    assert native.encoder.pair_count == pairs


def test_only_the_pair_each_token_merges_from(tmp_path):
    # "abc" can be written "ab"+"c" and "a"+"bc", but its bytes merge "ab" (ranked first), then "c"
    path, ranks = tiktoken_file(tmp_path / "cl100k_base.tiktoken", [b"ab", b"bc", b"abc", b"cd", b"abcd"])
    texts = ["abc", "abcd", "bcd", "abcabc", "xabcdx", "bc ab cd", "dabc"]
    check(path, ranks, texts, pairs=5)


def test_a_token_no_merge_makes(tmp_path):
    # no token holds two of x, y, z: "xyz" is found whole, never merged into
    path, ranks = tiktoken_file(tmp_path / "cl100k_base.tiktoken", [b"ab", b"xyz", b"abx"])
    check(path, ranks, ["xyz", "xyzw", "abxyz", "xyzab", "abx"], pairs=2)


def test_a_token_ranked_before_its_part_takes_every_pair(tmp_path):
    # "abc" ranks before "ab": from the bytes, "ab" merges, then "ab"+"c" at abc's rank; a table of
    # the pairs found in rank order would have none for "abc"
    path, ranks = tiktoken_file(tmp_path / "cl100k_base.tiktoken", [b"abc", b"ab", b"cd"])
    check(path, ranks, ["abc", "abcd", "abcab", "cdabc", "ababc"], pairs=3)


@pytest.mark.parametrize("name", ["cl100k_base.tiktoken.xz", "whisper-gpt2.tiktoken.xz"])
def test_real_files_on_random_words(tmp_path, name):
    path = unpacked(name, tmp_path)
    pattern = "cl100k_base" if name.startswith("cl100k") else "gpt2"
    from tiktoken.load import load_tiktoken_bpe

    ranks = load_tiktoken_bpe(str(path))
    ref = tiktoken.Encoding("ref", pat_str=patterns.TIKTOKEN_PATTERNS[pattern], mergeable_ranks=ranks, special_tokens={})
    tok = tokviz.load(path, pattern=patterns.TIKTOKEN_PATTERNS[pattern])
    rng = random.Random(11)
    letters = "abcdefghijklmnopqrstuvwxyz  -=*_.éü中文"
    for _ in range(300):
        text = "".join(rng.choice(letters) for _ in range(rng.randint(1, 200)))
        assert tok.encode_ids(text) == ref.encode_ordinary(text), text
    assert tok.native_encoder().encoder.pair_count < len(ranks)
