"""tokviz gives the same ids and decodes as the reference libraries on the real shared tokenizers."""
from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from _shared import CORPUS_FILES, EDGE_CASES, TOKENIZERS, assigned_text, corpus_samples, examples, need, reference, sweep


def _hf(path):
    tokenizers = pytest.importorskip("tokenizers")
    ref = tokenizers.Tokenizer.from_file(str(need(path)))
    ref.no_padding()
    ref.no_truncation()
    return ref


class HFOracle:
    def __init__(self, path):
        self.ref = _hf(path)

    def encode(self, text):
        return self.ref.encode(text, add_special_tokens=False).ids

    def encode_special(self, text):
        return self.ref.encode(text, add_special_tokens=True).ids

    def decode(self, ids):
        return self.ref.decode(ids)


class TransformersOracle:
    """transformers' tokenizer for a folder holding only the given files (the folder format's
    reference: its decode keeps special tokens)."""

    def __init__(self, *paths):
        transformers = pytest.importorskip("transformers")
        folder = Path(tempfile.mkdtemp(prefix="tokviz-oracle-"))
        atexit.register(shutil.rmtree, folder, True)
        for path in paths:
            shutil.copyfile(need(path), folder / path.name)
        self.ref = transformers.AutoTokenizer.from_pretrained(str(folder))

    def encode(self, text):
        return self.ref(text, add_special_tokens=False)["input_ids"]

    def encode_special(self, text):
        return self.ref(text, add_special_tokens=True)["input_ids"]

    def decode(self, ids):
        return self.ref.decode(ids)


class TiktokenOracle:
    def __init__(self, path):
        tiktoken = pytest.importorskip("tiktoken")
        from tiktoken.load import load_tiktoken_bpe

        from tokviz.core.patterns import TIKTOKEN_PATTERNS, TIKTOKEN_SPECIALS

        name = path.stem
        self.ref = tiktoken.Encoding(
            name=name,
            pat_str=TIKTOKEN_PATTERNS[name],
            mergeable_ranks=load_tiktoken_bpe(str(need(path))),
            special_tokens=TIKTOKEN_SPECIALS[name],
        )

    def encode(self, text):
        return self.ref.encode_ordinary(text)

    encode_special = None

    def decode(self, ids):
        return self.ref.decode(ids)


# (test id, what tokviz loads, oracle)
CASES = {
    "qwen2.5-json": (TOKENIZERS / "qwen2.5" / "tokenizer.json", lambda: HFOracle(TOKENIZERS / "qwen2.5" / "tokenizer.json")),
    "qwen2.5-vocab-merges": (TOKENIZERS / "qwen2.5" / "vocab.json", lambda: TransformersOracle(
        *(TOKENIZERS / "qwen2.5" / name for name in ("vocab.json", "merges.txt", "tokenizer_config.json")))),
    "llama3-json": (TOKENIZERS / "llama3" / "tokenizer.json", lambda: HFOracle(TOKENIZERS / "llama3" / "tokenizer.json")),
    "bert-json": (TOKENIZERS / "bert-minilm" / "tokenizer.json", lambda: HFOracle(TOKENIZERS / "bert-minilm" / "tokenizer.json")),
    "bert-vocab-txt": (TOKENIZERS / "bert-minilm" / "vocab.txt", lambda: TransformersOracle(
        *(TOKENIZERS / "bert-minilm" / name for name in ("vocab.txt", "tokenizer_config.json")))),
    "cl100k-tiktoken": (TOKENIZERS / "cl100k_base.tiktoken", lambda: TiktokenOracle(TOKENIZERS / "cl100k_base.tiktoken")),
}

_loaded: dict = {}


def pair(case):
    if case not in _loaded:
        path, oracle = CASES[case]
        _loaded[case] = (reference(need(path)), oracle())  # (tokviz's side loaded once per session)
    return _loaded[case]


def check(tok, ref, text):
    got = tok.encode(text).ids
    want = ref.encode(text)
    assert got == want, f"ids differ for {text[:80]!r}"
    assert tok.decode(got) == ref.decode(want), f"decode differs for {text[:80]!r}"


@pytest.mark.shared
@pytest.mark.first_cases(2)
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("corpus", sweep(CORPUS_FILES, ["en"]))
def test_corpus_samples(case, corpus):
    tok, ref = pair(case)
    for text in corpus_samples(corpus, 12):
        check(tok, ref, text)


@pytest.mark.shared
@pytest.mark.parametrize("case", CASES)
def test_edge_cases(case):
    tok, ref = pair(case)
    for text in EDGE_CASES:
        check(tok, ref, text)


@pytest.mark.shared
@pytest.mark.parametrize("case", [c for c in CASES if c.endswith("json")])
def test_post_processor_matches(case):
    tok, ref = pair(case)
    for text in ["Hello there", "", "中文 text"] + corpus_samples("en", 2):
        assert tok.encode(text, add_special_tokens=True).ids == ref.encode_special(text)


@pytest.mark.shared
@pytest.mark.first_cases(2)
@pytest.mark.parametrize("case", CASES)
@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=assigned_text(60))
def test_random_text(case, text):
    tok, ref = pair(case)
    check(tok, ref, text)


@pytest.mark.shared
@pytest.mark.parametrize("case", CASES)
def test_offsets_cover_text(case):
    """Offsets are inside the text, never go backwards, and partial tokens point at a character."""
    tok, _ = pair(case)
    text = EDGE_CASES[12] + " " + EDGE_CASES[4]
    enc = tok.encode(text)
    last = 0
    for (a, b), partial in zip(enc.offsets, enc.partial):
        assert 0 <= a <= b <= len(text)
        assert a >= last or partial or a == last
        if partial:
            assert b - a >= 1
        last = a
    assert len(enc.ids) == len(enc.offsets) == len(enc.token_bytes) == len(enc.pieces)
