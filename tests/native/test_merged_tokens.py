"""The token a merge makes, read from the merge list or, where every merge of rank r makes token
r + c, computed (_native.c merged_token): both give HF tokenizers' ids."""
from __future__ import annotations

import json

import pytest

import tokviz
from tokviz.core.bytelevel import bytes_to_unicode

from .test_char_atoms import byte_level_json

tokenizers = pytest.importorskip("tokenizers")

MERGES = [(b"a", b"b"), (b"c", b"d"), (b"ab", b"cd"), (b"e", b"f"), (b"ef", b"ab"), (b"g", b"h"), (b"gh", b"efab"),
          (b"x", b"y"), (b"xy", b"z")]
TEXTS = ["abcd", "efab", "ghefab", "xyz", "abcd efab ghefab xyz", "cdab ab cd ef gh xyzxyz", "ghefabcd"]


def swap_ids(path, first: bytes, second: bytes):
    """Give the tokens `first` and `second` each other's id in the tokenizer.json at path."""
    data = json.loads(path.read_text(encoding="utf-8"))
    vocab = data["model"]["vocab"]
    a, b = bytes_to_unicode(first), bytes_to_unicode(second)
    vocab[a], vocab[b] = vocab[b], vocab[a]
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def check(path):
    hf = tokenizers.Tokenizer.from_file(str(path))
    tok = tokviz.load(path)
    assert tok.native_encoder() is not None
    for text in TEXTS:
        want = hf.encode(text, add_special_tokens=False).ids
        assert tok.encode_ids(text) == want, text
        assert tok.encode(text).ids == want, text
    return hf


def test_merges_making_tokens_in_rank_order(tmp_path):
    # each merge's token comes next in the vocabulary: token = rank + 256 throughout
    hf = check(byte_level_json(tmp_path / "t.json", MERGES))
    assert hf.token_to_id("xyz") == 256 + len(MERGES) - 1


@pytest.mark.parametrize("first, second", [(b"abcd", b"xyz"), (b"ab", b"cd"), (b"efab", b"ghefab")])
def test_merges_making_tokens_out_of_rank_order(tmp_path, first, second):
    # two tokens swapped: every other merge still makes rank + 256, these two do not
    check(swap_ids(byte_level_json(tmp_path / "t.json", MERGES), first, second))
