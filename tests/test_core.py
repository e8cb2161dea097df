"""Core behaviour that the parity tests do not pin down: offsets, partial tokens, the demo tokenizer."""
from __future__ import annotations

import pytest

import tokviz
from tokviz.core.encoding import display_string
from tokviz.core.normalized import NormalizedString
from tokviz.core.normalizers import BertNormalizer, Lowercase, UnicodeForm
from tokviz.defaults import default_tokenizer_path, sample_text


@pytest.fixture(scope="module")
def demo():
    return tokviz.load(default_tokenizer_path())


def test_demo_round_trips_sample(demo):
    text = sample_text()
    enc = demo.encode(text)
    assert demo.decode(enc.ids) == text
    assert b"".join(enc.token_bytes) == text.encode("utf-8")
    assert 1.2 < len(text) / len(enc) < 6


def test_partial_tokens_point_at_their_character(demo):
    text = "a海b"
    enc = demo.encode(text)
    inside = [i for i, (s, e) in enumerate(enc.offsets) if (s, e) == (1, 2)]
    assert inside, enc.offsets
    assert all(enc.partial[i] for i in inside) or len(inside) == 1
    assert b"".join(enc.token_bytes[i] for i in inside) == "海".encode("utf-8")
    for i in inside:
        if enc.partial[i]:
            assert "⟨" in enc.tokens[i]


def test_special_tokens_in_text_are_text_by_default_for_minbpe(demo):
    text = "x<|endoftext|>y"
    assert 766 not in demo.encode(text).ids  # minbpe's encode_ordinary: specials are text
    enc = demo.encode(text, allow_special=True)
    i = enc.ids.index(demo.token_to_id("<|endoftext|>"))
    assert enc.special[i] and enc.offsets[i] == (1, 14)


def test_normalized_offsets_map_back():
    ns = NormalizedString("ÉCOLE ﬁn")
    out = UnicodeForm("NFKD").normalize(Lowercase().normalize(ns))
    assert out.text == "e\u0301cole fin"
    assert out.original_span(0, 2) == (0, 1)  # e + combining accent come from É
    assert out.original_span(7, 9) == (6, 7)  # f, i come from the ligature ﬁ


def test_bert_normalizer_pads_chinese_and_keeps_spans():
    out = BertNormalizer().normalize(NormalizedString("A海B"))
    assert out.text == "a 海 b"
    assert [out.original_span(i, i + 1) for i in range(len(out.text))] == [(0, 1), (1, 2), (1, 2), (1, 2), (2, 3)]


def test_display_string_shows_stray_bytes_as_chips():
    assert display_string(" 海".encode()[:3]) == " ⟨e6⟩⟨b5⟩"
    assert display_string("海".encode()) == "海"


def test_encode_batch_matches_encode(demo):
    texts = [sample_text()[i : i + 50] for i in range(0, 400, 50)]
    assert [e.ids for e in demo.encode_batch(texts, threads=2)] == [demo.encode(t).ids for t in texts]


def test_dropped_tokenizers_are_freed_without_the_cyclic_collector(tmp_path):
    """The GUI freezes long-lived objects (gc.freeze) to keep collections off the UI thread, so a
    tokenizer it drops must be freed by reference counting alone: no reference cycles."""
    import gc
    import weakref

    from _shared import TOKENIZERS

    paths = [default_tokenizer_path()] + [
        p for p in (TOKENIZERS / "qwen2.5", TOKENIZERS / "cl100k_base.tiktoken", TOKENIZERS / "bert-minilm",
                    TOKENIZERS / "sentencepiece" / "unigram_8k.model", TOKENIZERS / "sentencepiece" / "bpe_8k.model")
        if p.exists()
    ]
    for path in paths:
        tok = tokviz.load(path)
        tok.encode("héllo 海 world " + "a" * 80)
        tok.use_native(False).encode("héllo 海 world " + "a" * 80)
        tok.describe()
        refs = [weakref.ref(tok), weakref.ref(tok.model)]
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            del tok
            assert all(r() is None for r in refs), f"{path}: a reference cycle keeps the tokenizer alive"
        finally:
            if was_enabled:
                gc.enable()


def test_stored_second_starters_match_unicodedata():
    """The stored set of starters that compose with the character before them is what this
    Python's unicodedata gives (a version without a stored set computes it)."""
    import unicodedata

    from tokviz.core import normalized

    stored = normalized._KNOWN_SECOND_STARTERS.get(unicodedata.unidata_version)
    if stored is None:
        pytest.skip(f"no stored set for Unicode {unicodedata.unidata_version}")
    assert frozenset(stored) == normalized._compute_second_starters()
