"""minbpe `.model` files: tokviz encodes them as minbpe's RegexTokenizer does.

minbpe is not a package to depend on, so the oracle is its algorithm written out plainly here: split
with the regex, then in each chunk repeatedly merge the pair with the lowest merge index.
"""
from __future__ import annotations

import regex
from hypothesis import given, settings

import tokviz
from _shared import EDGE_CASES, assigned_text, examples
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


def minbpe_train(text, pattern, n_merges):
    """minbpe's training loop: before each merge, count the adjacent pairs of every chunk in text
    order (a dict remembers the order pairs were first met) and merge the first of the most
    frequent; merge k makes id 256 + k.  `pattern` None: the text is one chunk (BasicTokenizer)."""
    chunks = [list(c.encode("utf-8")) for c in (regex.findall(pattern, text) if pattern else [text])]
    merges = []
    for k in range(n_merges):
        counts = {}
        for ids in chunks:
            for pair in zip(ids, ids[1:]):
                counts[pair] = counts.get(pair, 0) + 1
        if not counts:
            break
        pair = max(counts, key=counts.get)
        merges.append(pair)
        for c, ids in enumerate(chunks):
            merged, i = [], 0
            while i < len(ids):
                if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
                    merged.append(256 + k)
                    i += 2
                else:
                    merged.append(ids[i])
                    i += 1
            chunks[c] = merged
    return merges


DEMO = default_tokenizer_path()
TOK = tokviz.load(DEMO)
PATTERN, MERGES = read_merges(DEMO)


def test_demo_matches_minbpe_algorithm():
    for text in EDGE_CASES + [sample_text(), resource_path("training.txt").read_text(encoding="utf-8")]:
        ids = TOK.encode(text).ids
        assert ids == minbpe_encode(text, PATTERN, MERGES)
        assert TOK.decode(ids) == text


@settings(max_examples=examples(200), deadline=None)
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


# ---- the cases of minbpe's own test suite (tests/test_tokenizer.py), with the algorithm above
# ---- (and tiktoken, for the GPT-4 pattern) as the oracle

MINBPE_STRINGS = ["", "?", "hello world!!!? (안녕하세요!) lol123 😉", sample_text()]


def _trained(tmp_path, text: str, merges: int, specials=()):
    from tokviz.core.patterns import CL100K_PATTERN

    result = train_bytelevel_bpe([text], 256 + merges + len(specials), pattern=CL100K_PATTERN,
                                 special_tokens=list(specials), min_frequency=1)
    path = tmp_path / "trained.model"
    write_minbpe(path, result.pattern, result.merges, result.special_tokens)
    return tokviz.load(path), path


def test_wikipedia_example(tmp_path):
    """Three merges of "aaabdaaabac": aa, then aa+a (of the pairs met twice, the first in the text),
    then that + b; they cut it as X d X a c."""
    tok, path = _trained(tmp_path, "aaabdaaabac", 3)
    pattern, merges = read_merges(path)
    assert list(merges) == minbpe_train("aaabdaaabac", pattern, 3) == [(97, 97), (256, 97), (257, 98)]
    assert tok.encode("aaabdaaabac").ids == minbpe_encode("aaabdaaabac", pattern, merges) == [258, 100, 258, 97, 99]
    assert tok.decode(tok.encode("aaabdaaabac").ids) == "aaabdaaabac"


def test_encode_decode_identity(tmp_path):
    text = resource_path("training.txt").read_text(encoding="utf-8")
    tok, path = _trained(tmp_path, text, 64)
    pattern, merges = read_merges(path)
    assert list(merges) == minbpe_train(text, pattern, 64)  # minbpe's merges, ties included
    for text in MINBPE_STRINGS:
        assert tok.encode(text).ids == minbpe_encode(text, pattern, merges)
        assert tok.decode(tok.encode(text).ids) == text


def test_save_load_with_special_tokens(tmp_path):
    specials = ["<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|endofprompt|>"]
    text = ("<|endoftext|>Hello world this is one document\n<|endoftext|>And another one\n"
            "<|endoftext|><|fim_prefix|>And this one has<|fim_suffix|> tokens.<|fim_middle|> FIM\n"
            "<|endoftext|>Last document!!! 👋<|endofprompt|>")
    tok, path = _trained(tmp_path, resource_path("training.txt").read_text(encoding="utf-8"), 64, specials)
    ids = tok.encode(text, allow_special=True).ids
    assert tok.decode(ids) == text
    again = tokviz.load(path)
    assert again.encode(text, allow_special=True).ids == ids
    assert [i for i in ids if again.is_special(i)] == [again.token_to_id(s) for s in
                                                        ("<|endoftext|>", "<|endoftext|>", "<|endoftext|>",
                                                         "<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>",
                                                         "<|endoftext|>", "<|endofprompt|>")]


def test_digits_int_cannot_read_are_refused_by_line(tmp_path):
    import pytest

    from tokviz.errors import TokvizError

    _, path = _trained(tmp_path, resource_path("training.txt").read_text(encoding="utf-8"), 4, ["<|endoftext|>"])
    lines = path.read_text(encoding="utf-8").split("\n")
    for where, line in ((3, "<|endoftext|> ¹"), (4, "¹ 32")):  # (str.isdigit is true for "¹"; int() fails)
        bad = tmp_path / f"bad{where}.model"
        bad.write_text("\n".join(lines[:where] + [line] + lines[where + 1:]), encoding="utf-8")
        with pytest.raises(TokvizError, match=f"line {where + 1}: expected"):
            tokviz.load(bad)
