"""tokviz.train.bpe_core: the C core (tokviz._bpetrain) against the pure-Python reference.

The reference tests run everywhere; the C ones skip when the module is not built, the corpus ones
when ../shared is absent.
"""
from __future__ import annotations

import array
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokviz.train import bpe_core
from tokviz.train.bpe_core import Cancelled
from tokviz.train.bpe_core import Merge, count_corpus, count_pieces, learn_merges, learn_merges_reference

from _shared import CORPUS, EDGE_CASES, assigned_text, corpus_samples, examples, need

native = pytest.mark.skipif(not bpe_core.native_available(), reason=bpe_core.native_reason or "C core not built")
BYTES = [bytes([b]) for b in range(256)]


def both(*args, **kw):
    """learn_merges in C and in Python, checked equal."""
    c = learn_merges(*args, use_native=True, **kw)
    py = learn_merges(*args, use_native=False, **kw)
    assert c == py
    return c


# ---- the reference alone -------------------------------------------------------------------------


def test_reference_small_example():
    pieces, counts = count_pieces(["low lower lowest"], "gpt2", use_native=False)
    assert pieces == [b"low", b" lower", b" lowest"] and counts == [1, 1, 1]
    merges = learn_merges_reference(pieces, counts, 256, 3)
    assert merges == [Merge(108, 111, 256, 3), Merge(256, 119, 257, 3), Merge(32, 257, 258, 2)]


def test_reference_tie_goes_to_first_seen_pair():
    # b+c and a+b both occur twice; a+b is seen first
    assert learn_merges_reference([[0, 1, 2], [1, 2, 0, 1]], [1, 1], 3, 1) == [Merge(0, 1, 3, 2)]


def test_reference_chinese_tie_break():
    pieces, counts = count_pieces(["潮潮潮潮潮潮长长长长长长"], "gpt2", use_native=False)
    merges = learn_merges_reference(pieces, counts, 256, 20, symbol_bytes=BYTES, progress_spelled=True)
    made = _spellings(merges)
    assert made.index("潮潮".encode()) < made.index("长长".encode())


def _spellings(merges) -> list[bytes]:
    spell = list(BYTES)
    out = []
    for m in merges:
        if m.merged == len(spell):
            spell.append(spell[m.left] + spell[m.right])
        out.append(spell[m.left] + spell[m.right])
    return out


def test_reference_min_frequency_and_max_length():
    words = [b"aaaa", b"abab", b"abc"]
    counts = [3, 2, 1]
    merges = learn_merges_reference(words, counts, 256, 50, min_frequency=3)
    assert merges and all(m.count >= 3 for m in merges)
    merges = learn_merges_reference(words, counts, 256, 50, max_token_length=2, symbol_bytes=BYTES)
    assert merges and all(len(s) <= 2 for s in _spellings(merges))


def test_reference_wordpiece_score():
    # a+b: 2 / (2 * 2) = 0.5; c+d: 1 / (1 * 1) = 1: c+d first although a+b is more frequent
    merges = learn_merges_reference([[0, 1], [0, 1], [2, 3]], [1, 1, 1], 4, 2, mode="wordpiece")
    assert [(m.left, m.right) for m in merges] == [(2, 3), (0, 1)]


def test_reference_rejects_bad_input():
    with pytest.raises(ValueError):
        learn_merges_reference([[0, 5]], [1], 3, 1)
    with pytest.raises(ValueError):
        learn_merges_reference([[0, 1]], [-1], 3, 1)
    with pytest.raises(ValueError):
        learn_merges_reference([[0, 1]], [1, 2], 3, 1)
    assert learn_merges_reference([], [], 0, 10) == []
    assert learn_merges_reference([b"a"], [5], 256, 10) == []


def test_reference_cancel_and_progress():
    calls = []
    words, counts = [b"abcdefgh" * 3, b"hgfedcba"], [4, 3]
    learn_merges_reference(words, counts, 256, 8, progress=lambda *a: calls.append(a), progress_every=3)
    assert [c[1] for c in calls] == [3, 6, 8]
    with pytest.raises(Cancelled):
        learn_merges_reference(words, counts, 256, 8, cancel=lambda: True, progress_every=1)


def test_reference_counting_split_digits():
    pieces, counts = count_pieces(["abc 2024 x1y"], "gpt2", split_digits=True, use_native=False)
    assert pieces == [b"abc", b" ", b"2", b"0", b"4", b" x", b"1", b"y"]
    assert counts == [1, 1, 2, 1, 1, 1, 1, 1]


def test_cut_text_keeps_pieces():
    text = ("The quick brown fox jumps over the lazy dog.\n\n    Indented  line\n" * 500) + "end"
    chunks = list(bpe_core.cut_text(text, 1000))
    assert "".join(chunks) == text and len(chunks) > 10
    whole = count_pieces([text], "gpt2", use_native=False)
    assert count_pieces(chunks, "gpt2", use_native=False) == whole
    for name in ("cl100k", "o200k", "llama3"):
        assert count_pieces(chunks, name, use_native=False) == count_pieces([text], name, use_native=False)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.one_of(assigned_text(30), st.sampled_from(EDGE_CASES)), max_size=12), st.integers(4, 40))
def test_cut_text_never_changes_pieces(parts, size):
    text = "".join(parts)
    chunks = list(bpe_core.cut_text(text, size))
    assert "".join(chunks) == text
    for name in ("gpt2", "cl100k", "o200k", "llama3", "qwen2"):
        assert count_pieces(chunks, name, use_native=False) == count_pieces([text], name, use_native=False)


# ---- C core == reference ---------------------------------------------------------------------------


@st.composite
def corpora(draw):
    n_symbols = draw(st.integers(1, 7))
    words = draw(st.lists(st.lists(st.integers(0, n_symbols - 1), max_size=14), max_size=25))
    counts = draw(st.lists(st.integers(0, 6), min_size=len(words), max_size=len(words)))
    kw = {
        "mode": draw(st.sampled_from(["count", "wordpiece"])),
        "min_frequency": draw(st.integers(0, 4)),
        "max_token_length": draw(st.one_of(st.none(), st.integers(1, 6))),
    }
    if draw(st.booleans()):
        spelling = st.lists(st.sampled_from(b"abc"), min_size=1, max_size=2)
        kw["symbol_bytes"] = [bytes(draw(spelling)) for _ in range(n_symbols)]
    if draw(st.booleans()):
        kw["lengths"] = draw(st.lists(st.integers(0, 3), min_size=n_symbols, max_size=n_symbols))
    return words, counts, n_symbols, draw(st.integers(0, 40)), kw


@native
@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpora())
def test_native_equals_reference_random(case):
    words, counts, n_symbols, max_new, kw = case
    both(words, counts, n_symbols, max_new, **kw)


@native
@pytest.mark.parametrize("mode", ["count", "wordpiece"])
def test_native_equals_reference_many_ties(mode):
    rng = random.Random(7)
    for _ in range(30):
        words = [bytes(rng.choice(b"ab") for _ in range(rng.randint(1, 9))) for _ in range(40)]
        counts = [rng.choice([1, 2]) for _ in words]
        both(words, counts, 256, 60, mode=mode, symbol_bytes=BYTES)


@native
def test_native_equals_reference_on_text():
    texts = EDGE_CASES + (corpus_samples("en", 20) if (CORPUS / "en.txt").exists() else [])
    pieces, counts = count_pieces(texts, "gpt2")
    assert (pieces, counts) == count_pieces(texts, "gpt2", use_native=False)
    both(pieces, counts, 256, 400, symbol_bytes=BYTES)
    both(pieces, counts, 256, 200, mode="wordpiece", min_frequency=2)


@native
def test_native_chinese_tie_break():
    for line in ["潮潮潮潮潮潮长长长长长长", "潮潮潮潮潮潮 长长长长长长\n"]:
        pieces, counts = count_pieces([line], "gpt2")
        merges = both(pieces, counts, 256, 20, symbol_bytes=BYTES)
        made = _spellings(merges)
        assert made.index("潮潮".encode()) < made.index("长长".encode())


@native
def test_native_word_forms_and_errors():
    expected = learn_merges([[0, 1, 2, 0, 1]], [3], 3, 5, use_native=False)
    for word in ([0, 1, 2, 0, 1], (0, 1, 2, 0, 1), array.array("i", [0, 1, 2, 0, 1]), bytes([0, 1, 2, 0, 1])):
        assert learn_merges([word], [3], 3, 5, use_native=True) == expected
    with pytest.raises(ValueError):
        learn_merges([[0, 9]], [1], 3, 1, use_native=True)
    with pytest.raises(ValueError):
        learn_merges([[-1]], [1], 3, 1, use_native=True)
    with pytest.raises(ValueError):
        learn_merges([[0, 1]], [-4], 3, 1, use_native=True)
    with pytest.raises(ValueError):
        learn_merges([[0, 1]], [1, 1], 3, 1, use_native=True)
    with pytest.raises(ValueError):
        learn_merges([[0, 1]], [1], 3, 1, lengths=[1], use_native=True)
    with pytest.raises(ValueError):
        learn_merges([[0, 1]], [1], 2, 1, symbol_bytes=[b"a", b""], use_native=True)
    with pytest.raises(TypeError):
        learn_merges([object()], [1], 3, 1, use_native=True)
    assert learn_merges([], [], 0, 100, use_native=True) == []
    assert learn_merges([b"x"], [1], 256, 100, use_native=True) == []
    assert learn_merges([b"xy"], [1], 256, 0, use_native=True) == []


@native
def test_native_progress_and_cancel():
    words, counts = [b"abcdefghij" * 3, b"jihgfedcba"], [4, 3]
    calls = []
    learn_merges(words, counts, 256, 10, progress=lambda *a: calls.append(a), progress_every=4, use_native=True)
    assert [c[1] for c in calls] == [4, 8, 10]
    assert all(0 <= c[0] <= 1 for c in calls) and calls[-1][0] == 1.0
    assert isinstance(calls[0][2], tuple) and isinstance(calls[0][3], int)
    spelled = []
    learn_merges(words, counts, 256, 3, symbol_bytes=BYTES, progress=lambda *a: spelled.append(a[2]),
                 progress_every=1, progress_spelled=True, use_native=True)
    assert all(isinstance(p[0], bytes) for p in spelled)
    asked = []

    def cancel():
        asked.append(1)
        return len(asked) >= 2

    with pytest.raises(Cancelled):
        learn_merges(words, counts, 256, 10, cancel=cancel, progress_every=1, use_native=True)
    assert len(asked) == 2

    def boom(*a):
        raise KeyError("from progress")

    with pytest.raises(KeyError):
        learn_merges(words, counts, 256, 10, progress=boom, use_native=True)


@native
def test_native_min_frequency_and_max_token_length():
    texts = EDGE_CASES * 3
    pieces, counts = count_pieces(texts, "gpt2")
    merges = both(pieces, counts, 256, 1000, min_frequency=4, symbol_bytes=BYTES)
    assert merges and min(m.count for m in merges) >= 4
    merges = both(pieces, counts, 256, 1000, max_token_length=3, symbol_bytes=BYTES)
    assert merges and max(len(s) for s in _spellings(merges)) <= 3


@native
def test_native_counting_threads_are_deterministic():
    texts = EDGE_CASES + (corpus_samples("multi", 40) if (CORPUS / "multi.txt").exists() else []) + EDGE_CASES
    expected = count_pieces(texts, "gpt2", use_native=False)
    for threads in (1, 2, 3, 8):
        assert count_pieces(texts, "gpt2", threads=threads) == expected
    for name in ("cl100k", "o200k", "llama3", "qwen2", r"\w+|\W"):
        assert count_pieces(texts, name, threads=3) == count_pieces(texts, name, use_native=False)
    assert count_pieces(texts, "gpt2", split_digits=True, threads=2) == count_pieces(
        texts, "gpt2", split_digits=True, use_native=False)
    assert count_pieces(texts, None, threads=2) == count_pieces(texts, None, use_native=False)


def test_split_lines_counts_each_line_apart():
    text = "a\n\n    b\r\nc\u2028d\n"
    lines = ["a\n", "\n", "    b\r\n", "c\u2028d\n"]
    expected = count_pieces(lines, "gpt2", use_native=False)
    assert count_pieces([text], "gpt2", split_lines=True, use_native=False) == expected
    assert count_pieces([text], "gpt2", use_native=False) != expected  # "\n   " + " b" without
    if bpe_core.native_available():
        assert count_pieces([text], "gpt2", split_lines=True) == expected
        texts = EDGE_CASES * 2
        for pattern in ("gpt2", "o200k", r"\w+|\W", None):
            assert count_pieces(texts, pattern, split_lines=True, split_digits=True, threads=2) == count_pieces(
                texts, pattern, split_lines=True, split_digits=True, use_native=False)


@native
def test_native_counting_rejects_lone_surrogates():
    with pytest.raises(ValueError):
        count_pieces(["ok \ud800 no"], "gpt2")
    assert count_pieces([], "gpt2") == ([], [])
    assert count_pieces([""], "gpt2") == ([], [])


def test_corpus_file_equals_text(tmp_path: Path):
    text = "".join(EDGE_CASES) * 50
    path = tmp_path / "corpus.txt"
    path.write_text(text, encoding="utf-8")
    fractions = []
    from_file = count_corpus([path], "gpt2", chunk_chars=1000, progress=fractions.append)
    assert from_file == count_pieces([text], "gpt2")
    assert fractions[-1] == 1.0 and fractions == sorted(fractions)
    assert count_corpus([str(path)], "gpt2") == from_file  # a str naming a file is a file
    with pytest.raises(Cancelled):
        count_corpus([path], "gpt2", chunk_chars=1000, cancel=lambda: True)


@pytest.mark.shared
@native
def test_native_on_corpus_prefix():
    text = need(CORPUS / "en.txt").read_text(encoding="utf-8")[:300_000]
    pieces, counts = count_pieces([text], "gpt2")
    assert (pieces, counts) == count_pieces([text], "gpt2", use_native=False)
    both(pieces, counts, 256, 1500, min_frequency=2, symbol_bytes=BYTES)
