"""Long ASCII runs inside text with other characters are encoded as ASCII text is (scan_bits.h's
open-ended windows): the ids equal the reference library's, and the ids and offsets the Python
pipeline's, wherever the run ends and whatever character follows it.

Real vocabularies from tests/data/real: cl100k's ranks cut by each tiktoken pattern (against
tiktoken) and Qwen2.5's tokenizer.json (against HF tokenizers)."""
from __future__ import annotations

import random

import pytest

import tokviz
from tokviz.core import patterns

from .real_files import cl100k_reference, unpacked

WORDS = ["the", "The", "cat's", "don't", "I'll", "we've", "HTTPServer", "camelCase", "x", "1234567", "42", "3.14",
         "  ", "   ", "\t", "\n", "\n\n", " \n", "\r\n", "'s", "'LL", "'re", "...", "!!", "--", "/", "//", "(", ")",
         "{", ",", ";", '"', "'", "_", "+"]
# What may follow or precede a run: letters, marks, white space, punctuation, digits and emoji
# outside ASCII (each changes the piece at the run's edge differently).
OTHERS = list("é中文ß\u00a0\u3000\u2028，。“”’٣Ω😀\u0301ñ—…")


def texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        parts = []
        for _ in range(rng.randint(1, 6)):
            size = rng.choice([5, 63, 64, 65, 100, 300, 5000])  # around the run length that is taken
            run = []
            while sum(map(len, run)) < size:
                word = rng.choice(WORDS)
                run.append(word if rng.random() < 0.5 else " " + word)
            parts.append("".join(run))
            parts.append("".join(rng.choice(OTHERS) for _ in range(rng.randint(0, 3))))
        text = "".join(parts)
        out.append(rng.choice(OTHERS) + text if rng.random() < 0.5 else text)
    return out


def same_as_python(tok, text: str):
    native = tok.encode(text)
    python = tok.use_native(False).encode(text)
    tok.use_native(True)
    assert native.ids == python.ids, text
    assert native.offsets == python.offsets, text


@pytest.mark.parametrize("pattern", ["cl100k_base", pytest.param("o200k_base", marks=pytest.mark.slow),
                                     pytest.param("r50k_base", marks=pytest.mark.slow)])
def test_tiktoken_patterns(tmp_path, pattern):
    path, _, ref = cl100k_reference(tmp_path, pattern)
    tok = tokviz.load(path, pattern=patterns.TIKTOKEN_PATTERNS[pattern])
    assert tok.native_encoder() is not None
    for i, text in enumerate(texts(120, seed=len(pattern))):
        assert tok.encode_ids(text) == ref.encode_ordinary(text), text
        if i % 4 == 0:
            same_as_python(tok, text)


@pytest.mark.slow
def test_tokenizer_json(tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    path = unpacked("qwen2.5/tokenizer.json.xz", tmp_path)
    hf = tokenizers.Tokenizer.from_file(str(path))
    tok = tokviz.load(path)
    for i, text in enumerate(texts(120, seed=7)):
        want = hf.encode(text, add_special_tokens=False)
        got = tok.encode(text)
        assert got.ids == want.ids, text
        assert [tuple(o) for o in got.offsets] == [tuple(o) for o in want.offsets], text
        if i % 4 == 0:
            same_as_python(tok, text)
