"""Merging from whole characters ("atoms", tokviz/native/src/char_atoms.h) gives the reference
library's ids.

Small vocabularies built here break each of the three conditions an atom needs, and the piece cut
between characters no token holds side by side; HF tokenizers is the reference.  Real vocabularies
(tests/data/real) are then checked on seeded random text made of their own characters next to the
bytes their fragment tokens hold.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import tokviz
from tokviz.core.bytelevel import BYTE_TO_CHAR, bytes_to_unicode

from .real_files import cl100k_reference, unpacked

tokenizers = pytest.importorskip("tokenizers")

ZHONG, WEN = "中".encode(), "文".encode()  # e4 b8 ad, e6 96 87


def byte_level_json(path: Path, merges: list[tuple[bytes, bytes]]) -> Path:
    """A byte-level BPE tokenizer.json: the 256 bytes, then each merge's token, in merge order."""
    vocab = {c: i for i, c in enumerate(BYTE_TO_CHAR)}
    for left, right in merges:
        vocab.setdefault(bytes_to_unicode(left + right), len(vocab))
    path.write_text(json.dumps({
        "version": "1.0",
        "added_tokens": [],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": True},
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab,
                  "merges": [[bytes_to_unicode(a), bytes_to_unicode(b)] for a, b in merges]},
    }), encoding="utf-8")
    return path


def chars_merges(*chars: bytes) -> list[tuple[bytes, bytes]]:
    """Merges making each 3-byte character from its bytes: first two, then the third."""
    out = []
    for c in chars:
        out += [(c[:1], c[1:2]), (c[:2], c[2:])]
    return out


def check(path: Path, texts: list[str], atoms: int):
    """tokviz's ids equal HF's on every text, through the native encoder with `atoms` atoms."""
    hf = tokenizers.Tokenizer.from_file(str(path))
    tok = tokviz.load(path)
    native = tok.native_encoder()
    assert native is not None
    assert native.encoder.atom_count == atoms
    for text in texts:
        want = hf.encode(text, add_special_tokens=False).ids
        assert tok.encode_ids(text) == want, text
        assert tok.encode(text).ids == want, text


def test_a_merge_of_the_character_ranked_before_its_own_is_no_atom(tmp_path):
    # "a"+"中" ranks before the merge that makes "中", and "b"+"a" between: from the bytes, "b a"
    # merges first and "a中" never forms; from a whole "中" it would.
    merges = [(ZHONG[:1], ZHONG[1:2]), (b"a", ZHONG), (b"b", b"a"), (ZHONG[:2], ZHONG[2:]), *chars_merges(WEN)]
    check(byte_level_json(tmp_path / "t.json", merges), ["ba中", "a中", "ba中文", "文ba中", "bba中中"], atoms=1)


def test_a_token_holding_the_first_byte_after_others_is_checked_where_it_occurs(tmp_path):
    # "x" + e4 is a token: after an "x", "中" is not formed whole; elsewhere it is.
    merges = [(b"x", ZHONG[:1]), *chars_merges(ZHONG, WEN), (ZHONG[1:2], ZHONG[2:])]
    check(byte_level_json(tmp_path / "t.json", merges), ["x中", "y中", "中x", "x中文", "文x中", "xx中中"], atoms=2)


def test_a_token_holding_the_last_bytes_before_others_is_checked_where_it_occurs(tmp_path):
    # ad + "x" and 96 87 + "y" are tokens: before them, "中" and "文" are not formed whole ("文"
    # is made from e6 and 96 87, and 96 87 + "y" ranks between).
    merges = [(ZHONG[2:], b"x"), (WEN[1:2], WEN[2:]), (WEN[1:], b"y"), (WEN[:1], WEN[1:]), *chars_merges(ZHONG)]
    texts = ["中x", "中y", "x中", "文y", "文x", "中文y", "文中x", "中xy文"]
    check(byte_level_json(tmp_path / "t.json", merges), texts, atoms=2)


def test_characters_a_token_holds_side_by_side_merge_together(tmp_path):
    merges = [*chars_merges(ZHONG, WEN), (ZHONG, WEN), (WEN, ZHONG)]
    texts = ["中文", "文中", "中中文文", "中文中文中", "文文中中", "中", "中a文"]
    check(byte_level_json(tmp_path / "t.json", merges), texts, atoms=2)


# -- real vocabularies ---------------------------------------------------------------------------


def _fragment_texts(tokens: list[bytes], count: int, seed: int) -> list[str]:
    """Random texts of the vocabulary's whole characters of 2-3 bytes, mixed with the text its
    fragment tokens (a character's first or last bytes joined to other bytes) hold around them."""
    chars, around = set(), set()
    for t in tokens:
        text = t.decode("utf-8", errors="ignore")
        chars.update(c for c in text if 0x80 <= ord(c) < 0x10000)
        if text and text.encode() != t:  # a fragment: its whole characters are what sits next to one
            around.update(text)
    chars, around = sorted(chars), sorted(around | set(" ,.x1\n"))
    rng = random.Random(seed)
    return ["".join(rng.choice(chars) if rng.random() < 0.7 else rng.choice(around) for _ in range(rng.randint(1, 30)))
            for _ in range(count)]


def test_cl100k_against_tiktoken(tmp_path):
    path, ranks, ref = cl100k_reference(tmp_path)
    tok = tokviz.load(path)
    assert tok.native_encoder().encoder.atom_count > 1000
    for text in _fragment_texts(list(ranks), 4000, seed=1):
        assert tok.encode_ids(text) == ref.encode_ordinary(text), text


@pytest.mark.parametrize("name", ["qwen2.5", pytest.param("deepseek-v4", marks=pytest.mark.slow)])
def test_tokenizer_json_against_hf(tmp_path, name):
    path = unpacked(f"{name}/tokenizer.json.xz", tmp_path)
    hf = tokenizers.Tokenizer.from_file(str(path))
    tok = tokviz.load(path)
    assert tok.native_encoder().encoder.atom_count > 1000
    from tokviz.core.bytelevel import CHAR_TO_BYTE

    tokens = [bytes(CHAR_TO_BYTE[c] for c in t) for t in hf.get_vocab() if all(c in CHAR_TO_BYTE for c in t)]
    for text in _fragment_texts(tokens, 3000, seed=2):
        want = hf.encode(text, add_special_tokens=False)
        got = tok.encode(text)
        assert got.ids == want.ids, text
        assert [tuple(o) for o in got.offsets] == [tuple(o) for o in want.offsets], text
