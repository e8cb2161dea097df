"""minbpe `.model` files: tokviz encodes them as minbpe's RegexTokenizer does.

minbpe is not a package to depend on, so the oracle is its algorithm written out plainly here: split
with the regex, then in each chunk repeatedly merge the pair with the lowest merge index.
"""
from __future__ import annotations

import regex
from hypothesis import given, settings

import tokviz
from _shared import EDGE_CASES, assigned_text
from tokviz.defaults import default_tokenizer_path, resource_path, sample_text
from tokviz.formats.minbpe import write_minbpe
from tokviz.train.bpe import train_bytelevel_bpe


def read_merges(path):
    lines = path.read_text(encoding="utf-8").split("\n")
    n_special = int(lines[2])
    pattern = lines[1]
    merges = {}
    for line in lines[3 + n_special :]:
        if line.strip():
            a, b = map(int, line.split())
            merges[(a, b)] = 256 + len(merges)
    return pattern, merges


def minbpe_encode(text, pattern, merges):
    out = []
    for chunk in regex.findall(pattern, text):
        ids = list(chunk.encode("utf-8"))
        while len(ids) >= 2:
            pairs = set(zip(ids, ids[1:]))
            pair = min(pairs, key=lambda p: merges.get(p, float("inf")))
            if pair not in merges:
                break
            new, i, merged = merges[pair], 0, []
            while i < len(ids):
                if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
                    merged.append(new)
                    i += 2
                else:
                    merged.append(ids[i])
                    i += 1
            ids = merged
        out.extend(ids)
    return out


DEMO = default_tokenizer_path()
TOK = tokviz.load(DEMO)
PATTERN, MERGES = read_merges(DEMO)


def test_demo_matches_minbpe_algorithm():
    for text in EDGE_CASES + [sample_text(), resource_path("training.txt").read_text(encoding="utf-8")]:
        ids = TOK.encode(text).ids
        assert ids == minbpe_encode(text, PATTERN, MERGES)
        assert TOK.decode(ids) == text


@settings(max_examples=200, deadline=None)
@given(text=assigned_text(80))
def test_random_text_matches_minbpe_algorithm(text):
    assert TOK.encode(text).ids == minbpe_encode(text, PATTERN, MERGES)


def test_written_model_round_trips(tmp_path):
    result = train_bytelevel_bpe([sample_text()], 300, special_tokens=["<|x|>"])
    path = tmp_path / "mini.model"
    write_minbpe(path, result.pattern, result.merges, result.special_tokens)
    tok = tokviz.load(path)
    pattern, merges = read_merges(path)
    assert tok.vocab_size == 256 + len(result.merges) + 1
    assert tok.encode(sample_text()).ids == minbpe_encode(sample_text(), pattern, merges)
    assert tok.encode("a<|x|>b", allow_special=True).ids[1] == result.special_tokens["<|x|>"]
