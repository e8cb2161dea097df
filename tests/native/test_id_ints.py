"""The int objects of ids are one table per C module, shared by all its encoders (id_ints.h)."""
from __future__ import annotations

import gc

import pytest

import tokviz
from tokviz.defaults import default_tokenizer_path

from .real_files import unpacked

TEXT = "The shared table of ids: unseen words, 中文的句子, and émigrés' naïve café."


def _load(name: str, tmp_path):
    tok = tokviz.load(unpacked(name, tmp_path))
    if tok.native_encoder() is None:
        pytest.skip("the C extension is not built")
    return tok


def test_two_encoders_list_the_same_int_objects(tmp_path):
    """Two encoders of one vocabulary list each id above the interpreter's small ints as the very
    same object: the ints are held once, not once per encoder."""
    first = _load("qwen2.5/tokenizer.json.xz", tmp_path)
    second = _load("qwen2.5/tokenizer.json.xz", tmp_path)
    assert first.native_encoder() is not second.native_encoder()
    a, b = first.encode_ids(TEXT), second.encode_ids(TEXT)
    assert a == b
    big = [k for k, i in enumerate(a) if i > 256]
    assert big and all(a[k] is b[k] for k in big)


def test_the_table_grows_and_goes_with_its_last_encoder(tmp_path):
    """A smaller vocabulary's encoder (WordPiece), then a bigger one (byte-level BPE) in the same
    module: the table grows under the first without changing its ids; freed with the last encoder,
    it is built again for the next."""
    bert = _load("bert-minilm/tokenizer.json.xz", tmp_path)
    before = bert.encode_ids(TEXT)
    qwen = _load("qwen2.5/tokenizer.json.xz", tmp_path)
    qwen_ids = qwen.encode_ids(TEXT)
    assert bert.encode_ids(TEXT) == before
    # an id of BERT's output is the same object in Qwen's output of the Qwen token of that id
    later = bert.encode_ids(TEXT)
    round_trips = [(k, qwen.encode_ids(qwen.decode([i]))) for k, i in enumerate(later) if i > 256]
    pairs = [(later[k], ids[0]) for k, ids in round_trips if ids == [later[k]]]
    assert pairs and all(x is y for x, y in pairs)
    del bert, qwen
    gc.collect()
    again = _load("qwen2.5/tokenizer.json.xz", tmp_path)
    assert again.encode_ids(TEXT) == qwen_ids


def test_sentencepiece_encoders_share_their_module_table():
    """The .model encoder (_spnative) keeps a table of its own module: two loads of the shipped
    tokenizer list the same objects."""
    path = default_tokenizer_path()
    first, second = tokviz.load(path), tokviz.load(path)
    if first.native_encoder() is None:
        pytest.skip("the C extension is not built")
    a, b = first.encode_ids(TEXT), second.encode_ids(TEXT)
    assert a == b
    big = [k for k, i in enumerate(a) if i > 256]
    assert big and all(a[k] is b[k] for k in big)
