"""TokenArray (an Encoding in numpy arrays) and the cut of a document into layout blocks."""
from __future__ import annotations

import numpy as np
import pytest

import tokviz
from tokviz import defaults
from tokviz.core.encoding import Encoding
from tokviz.core.streaming import encode_file
from tokviz.core.token_array import (
    TokenArray,
    TokenArrayBuilder,
    encode_to_array,
    layout_blocks,
    newline_positions,
    offsets_arrays,
)


@pytest.fixture(scope="module")
def demo():
    return tokviz.load(defaults.default_tokenizer_path())


def _as_array(tok, enc: Encoding) -> TokenArray:
    starts, ends = offsets_arrays(enc)
    return TokenArray(enc.text, enc.ids, starts, ends, enc.special, tok)


def test_token_array_reads_like_the_encoding(demo):
    text = "Hello world, 中文 and émigrés.\n\tnext line 123"
    enc = demo.encode(text)
    arr = _as_array(demo, enc)
    assert len(arr) == len(enc)
    assert list(arr.ids) == enc.ids
    assert list(arr.offsets) == [tuple(o) for o in enc.offsets]
    assert list(arr.token_bytes) == enc.token_bytes
    assert list(arr.pieces) == enc.pieces
    assert list(arr.special) == enc.special
    assert list(arr.partial) == enc.partial
    assert arr.tokens == enc.tokens
    assert arr == enc
    for char in range(len(text)):
        assert arr.token_at(char) == enc.token_at(char)
    assert arr.offsets[-1] == tuple(enc.offsets[-1]) and arr.token_bytes[1:3] == enc.token_bytes[1:3]
    with pytest.raises(IndexError):
        arr.pieces[len(arr)]


def test_special_tokens_keep_their_flag(demo):
    special = next((t for t in demo.added.tokens if t.special), None)
    if special is None:
        pytest.skip("the demo tokenizer has no special token")
    text = f"before {special.content} after"
    enc = demo.encode(text, allow_special=True)
    assert any(enc.special)
    arr = _as_array(demo, enc)
    assert list(arr.special) == enc.special and list(arr.partial) == enc.partial


def test_builder_joins_the_pieces_of_a_streamed_file(demo, tmp_path):
    text = ("A first line of words.\n中文的一行。\n" * 400) + "last words"
    path = tmp_path / "t.txt"
    path.write_text(text, encoding="utf-8")
    builder = TokenArrayBuilder(demo)
    encode_file(demo, path, on_chunk=lambda c: builder.add(c.encoding, c.char_start), keep_ids=False,
                piece_chars=512)
    arr = builder.build()
    whole = demo.encode(text)
    assert arr.text == text
    assert list(arr.ids) == whole.ids
    assert list(arr.offsets) == [tuple(o) for o in whole.offsets]
    assert arr.starts.dtype == np.int32 and arr.nbytes() == 13 * len(arr)


def test_builder_refuses_a_gap(demo):
    builder = TokenArrayBuilder(demo)
    builder.add(demo.encode("abc"), 0)
    with pytest.raises(ValueError, match="expected 3"):
        builder.add(demo.encode("def"), 4)


def test_newline_positions_across_slices():
    text = "a\nbb\n\nccc\n" * 50 + "中\n"
    expected = [i for i, c in enumerate(text) if c == "\n"]
    assert newline_positions(text, chunk_chars=7).tolist() == expected
    assert newline_positions("no newline").tolist() == []


def _blocks_of(starts, ends, text, max_tokens=512):
    return layout_blocks(text, np.array(starts, np.int64), np.array(ends, np.int64), max_tokens)


def test_blocks_start_at_line_starts():
    # tokens: "ab" "\n" "cd" "\n\n" "ef"
    text = "ab\ncd\n\nef"
    blocks = _blocks_of([0, 2, 3, 5, 7], [2, 3, 5, 7, 9], text)
    assert blocks.first.tolist() == [0, 2, 4, 5]
    assert blocks.chars.tolist() == [0, 3, 7, 9]
    assert blocks.lines.tolist() == [1, 2, 0]
    assert [blocks.of_token(i) for i in range(5)] == [0, 0, 1, 1, 2]


def test_a_newline_inside_a_token_is_not_a_block_start():
    # tokens: "a" "\n b" "c": "c" starts after ' b', and the token covering the newline began before it
    text = "a\n bc"
    blocks = _blocks_of([0, 1, 4], [1, 4, 5], text)
    assert blocks.first.tolist() == [0, 3]


def test_uncovered_text_trails_the_block_before():
    # WordPiece-like: the newline and spaces are not covered by any token
    text = "ab \n  cd"
    blocks = _blocks_of([0, 6], [2, 8], text)
    # "cd" does not start right after the newline: one block
    assert blocks.first.tolist() == [0, 2]
    text = "ab \ncd"
    blocks = _blocks_of([0, 4], [2, 6], text)
    assert blocks.first.tolist() == [0, 1, 2] and blocks.chars.tolist() == [0, 4, 6]


def test_long_runs_without_newlines_are_cut():
    n = 1300
    text = "x" * n
    blocks = _blocks_of(list(range(n)), list(range(1, n + 1)), text, max_tokens=512)
    assert blocks.first.tolist() == [0, 512, 1024, n]
    assert blocks.chars.tolist() == [0, 512, 1024, n]


def test_partial_tokens_sharing_a_character_stay_in_order():
    # byte-level: three tokens for one character, then a newline and a word
    text = "中\nab"
    blocks = _blocks_of([0, 0, 0, 1, 2], [1, 1, 1, 2, 4], text)
    assert blocks.first.tolist() == [0, 4, 5]


def test_empty_document():
    blocks = _blocks_of([], [], "")
    assert len(blocks) == 1 and blocks.first.tolist() == [0, 0]


def test_join_text_equals_str_join():
    from tokviz.core.token_array import join_text

    pieces = ["plain ascii", "", "é latin-1", "中文 two bytes", "😀 four bytes", "\ud800 lone", "end"]
    for k in range(len(pieces) + 1):
        assert join_text(pieces[:k]) == "".join(pieces[:k])
        assert join_text(pieces[k:]) == "".join(pieces[k:])
    with pytest.raises(TypeError):
        join_text(["a", b"b"])


def _same_as_encode(arr: TokenArray, enc: Encoding) -> None:
    assert isinstance(arr, TokenArray) and arr.text == enc.text
    assert list(arr.ids) == list(enc.ids)
    starts, ends = offsets_arrays(enc)
    assert list(arr.offsets) == list(zip(starts.tolist(), ends.tolist()))
    assert list(arr.special) == list(enc.special)


@pytest.fixture(scope="module")
def long_text() -> str:
    """~90k characters of the shipped texts, with a special-token string inside."""
    seed = defaults.resource_path("training.txt").read_text(encoding="utf-8") + "\n" + defaults.sample_text()
    text = (seed + "\n") * (90_000 // len(seed) + 1)
    return text[:45_000] + " <|endoftext|> " + text[45_000:90_000]


@pytest.fixture(scope="module")
def char_bpe(tmp_path_factory):
    """A character-level BPE with an end-of-word symbol: encoded by the Python reference."""
    from tokviz.train import TrainOptions, train

    tok = train("bpe", [defaults.resource_path("training.txt")], TrainOptions(vocab_size=600))
    assert tok.describe()["encoder"] == "python"
    return tok


@pytest.mark.parametrize("which", ["demo", "char_bpe"])
def test_encode_to_array_in_pieces_equals_encode(request, which, long_text):
    tok = request.getfixturevalue(which)
    from tokviz.core.streaming import safe_cuts, stream_plan

    assert stream_plan(tok) is None and len(list(safe_cuts(tok, long_text, 4096))) > 10  # (it is really cut)
    _same_as_encode(encode_to_array(tok, long_text, piece_chars=4096), tok.encode(long_text))


def test_encode_to_array_keeps_the_special_token_options(demo, long_text):
    assert demo.added.tokens  # (the demo tokenizer has <|endoftext|>)
    for allow in (None, True, False):
        arr = encode_to_array(demo, long_text, allow_special=allow, piece_chars=4096)
        enc = demo.encode(long_text, allow_special=allow)
        _same_as_encode(arr, enc)
    assert any(encode_to_array(demo, long_text, allow_special=True, piece_chars=4096).special)


def test_encode_to_array_adds_the_post_processor_tokens():
    from _shared import TOKENIZERS, need

    tok = tokviz.load(need(TOKENIZERS / "bert-minilm" / "tokenizer.json"))
    text = ("A sentence for BERT, with punctuation and numbers 1234. " * 2000).strip()
    arr = encode_to_array(tok, text, add_special_tokens=True, piece_chars=4096)
    enc = tok.encode(text, add_special_tokens=True)
    _same_as_encode(arr, enc)
    assert arr.special[0] and arr.special[len(arr) - 1] and arr.offsets[len(arr) - 1] == (len(text), len(text))


def test_encode_to_array_short_text_is_whole(demo):
    text = "short text <|endoftext|> here"
    _same_as_encode(encode_to_array(demo, text), demo.encode(text))
