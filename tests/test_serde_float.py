"""Unigram scores are read as HF tokenizers reads them, so ties fall the same way."""
from __future__ import annotations

import json
import random

import pytest

tokenizers = pytest.importorskip("tokenizers")

import tokviz
from tokviz.formats.serde_float import serde_f64


def _unigram_json(pieces: list[tuple[str, str]]) -> str:
    """A tokenizer.json whose Unigram scores are the given literals, written verbatim."""
    vocab = ",".join(f"[{json.dumps(p)}, {score}]" for p, score in pieces)
    return (
        '{"version": "1.0", "truncation": null, "padding": null, "added_tokens": [],'
        ' "normalizer": null, "pre_tokenizer": null, "post_processor": null, "decoder": null,'
        f' "model": {{"type": "Unigram", "unk_id": 0, "vocab": [{vocab}], "byte_fallback": false}}}}'
    )


def _held_by_hf(literals: list[str]) -> list[float]:
    """The floats HF holds for the literals (its writer prints each f64 exactly round-trippable)."""
    pieces = [("<unk>", "0.0")] + [(f"t{i}", lit) for i, lit in enumerate(literals)]
    hf = tokenizers.Tokenizer.from_str(_unigram_json(pieces))
    return [score for _, score in json.loads(hf.to_str())["model"]["vocab"][1:]]


def _literals(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        kind = rng.random()
        if kind < 0.5:
            x = -rng.uniform(0, 25)
        elif kind < 0.8:
            x = -rng.random() * 10.0 ** rng.randint(-40, 40)
        else:
            x = rng.uniform(-1e-6, 1e-6)
        out.append(repr(x))
    out += [
        "-12.345678901234567890123",  # more digits than a u64 holds, after the point
        "123456789012345678901234.5",  # ... before the point
        "18446744073709551615.7",
        "1.8446744073709551617e3",
        "-0.0",
        "1e-400",
        "0.000000000000000000000000000000000001234567890123456789",
        "-2.5E+2",
        "7",
    ]
    return out


def test_literals_parse_to_the_floats_hf_holds():
    literals = _literals(5000, seed=7)
    held = _held_by_hf(literals)
    mismatches = [(lit, serde_f64(lit), h) for lit, h in zip(literals, held) if serde_f64(lit) != h]
    assert mismatches == []
    # The emulation matters: correctly rounded parsing disagrees with HF on many of them.
    assert sum(float(lit) != h for lit, h in zip(literals, held)) > len(literals) // 20


def _tie_triples(count: int) -> list[tuple[str, str, str]]:
    """Score literals (a, b, ab) where HF's floats tie a+b with ab but correctly rounded ones do not."""
    rng = random.Random(3)
    found = []
    while len(found) < count:
        a, b = repr(-rng.uniform(1, 15)), repr(-rng.uniform(1, 15))
        ab = repr(serde_f64(a) + serde_f64(b))
        if serde_f64(ab) == serde_f64(a) + serde_f64(b) and float(ab) != float(a) + float(b):
            found.append((a, b, ab))
    return found


def test_unigram_ties_fall_as_in_hf(tmp_path):
    triples = _tie_triples(40)
    pieces = [("<unk>", "0.0")]
    texts = []
    for i, (a, b, ab) in enumerate(triples):
        left, right = chr(0x4E00 + 2 * i), chr(0x4E01 + 2 * i)
        pieces += [(left, a), (right, b), (left + right, ab)]
        texts.append(left + right)
    path = tmp_path / "tokenizer.json"
    path.write_text(_unigram_json(pieces), encoding="utf-8")
    hf = tokenizers.Tokenizer.from_file(str(path))
    tok = tokviz.load(path)
    for sample in texts + ["".join(texts)]:
        assert tok.encode(sample).ids == hf.encode(sample, add_special_tokens=False).ids, sample
