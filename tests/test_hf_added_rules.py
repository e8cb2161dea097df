"""HF tokenizers' added-token rules, checked against HF tokenizers itself on random files.

Each case is a small tokenizer.json whose "added_tokens" list is drawn at random: contents that
overlap each other and the model's vocabulary, declared ids with gaps and collisions, every mix of
lstrip / rstrip / single_word / normalized / special, under several normalizers. Random texts built
from those contents, spaces and letters are encoded by both libraries: ids, offsets and decode
(with and without special tokens) must be equal. Files HF reads in a way no program can repeat
(two tokens matched by the same normalized string: HF picks one at random per process; a
normalized token that normalizes to nothing) must be refused by name.
"""
from __future__ import annotations

import json
import random

import pytest

tokenizers = pytest.importorskip("tokenizers")

import tokviz  # noqa: E402
from tokviz.errors import TokvizError  # noqa: E402

PIECES = ["<|a|>", "<|a", "a|>", "<|", "|>", "ab", "abc", "bc", " x", "x ", "X", "é", "<s>", "</s>", "_", "a_b", "AB",
          "e\u0301", "1", "a1", "\u3000", "\xa0x", "ß", "ǅ", "[MASK]", "[mask]", "  ", "x\u200d", "日本", "Ａ"]
ALPHABET = "abcxyzAXé_ \t\n<|>1\u3000\xa0ßǅ[]MASKmask\u0301\u200d日本Ａe"
NORMALIZERS = [
    None, {"type": "Lowercase"}, {"type": "NFKC"}, {"type": "NFD"},
    {"type": "Sequence", "normalizers": [{"type": "NFD"}, {"type": "StripAccents"}, {"type": "Lowercase"}]},
    {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True, "strip_accents": None, "lowercase": True},
    {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"},
    {"type": "Prepend", "prepend": "\u2581"},
    {"type": "Strip", "strip_left": True, "strip_right": True},
]
UNREPEATABLE = ("at random", "empty string after the normalizer")


def _added_token(content, token_id, **flags):
    token = {"id": token_id, "content": content, "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": False, "special": False}
    token.update(flags)
    return token


def _tokenizer_json(added, normalizer=None, pre_tokenizer=None, in_vocab=()):
    """A character-level BPE (every character of the alphabet a token, no merges) under `added`."""
    vocab = {c: i for i, c in enumerate(sorted(set(ALPHABET + "".join(PIECES))))}
    vocab["[UNK]"] = len(vocab)
    for token in in_vocab:
        vocab.setdefault(token, len(vocab))
    model = {"type": "BPE", "dropout": None, "unk_token": "[UNK]", "continuing_subword_prefix": None,
             "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
             "vocab": vocab, "merges": []}
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added, "normalizer": normalizer,
            "pre_tokenizer": pre_tokenizer, "post_processor": None, "decoder": None, "model": model}


def _random_case(rng: random.Random):
    in_vocab = [p for p in PIECES if rng.random() < 0.15]
    first_free = len(set(ALPHABET + "".join(PIECES))) + 1 + len(in_vocab)
    next_id = first_free + (rng.randint(1, 3) if rng.random() < 0.3 else 0)
    added = []
    for _ in range(rng.randint(1, 5)):
        roll = rng.random()
        if roll < 0.2 and added:
            token_id = rng.choice(added)["id"]  # an id declared twice
        elif roll < 0.35:
            token_id = rng.randint(0, first_free - 1)  # an id of the vocabulary
        else:
            token_id = next_id
            next_id += 1 + (rng.random() < 0.2)  # sometimes a gap
        added.append(_added_token(rng.choice(PIECES), token_id, single_word=rng.random() < 0.3,
                                  lstrip=rng.random() < 0.3, rstrip=rng.random() < 0.3,
                                  normalized=rng.random() < 0.4, special=rng.random() < 0.5))
    data = _tokenizer_json(added, rng.choice(NORMALIZERS),
                           rng.choice([None, {"type": "Whitespace"}, {"type": "WhitespaceSplit"}]), in_vocab)
    pool = [t["content"] for t in added] + list("ab x") + [" ", "  ", "\t", "A", "\n", "\u3000", "_", "1", "é", "e\u0301"]
    texts = ["".join(rng.choice(pool) for _ in range(rng.randint(0, 8))) for _ in range(8)]
    return data, texts


def _compare(data, texts, path):
    """Differences between HF tokenizers and tokviz on `texts` ([] when equal or both refuse)."""
    text = json.dumps(data)
    path.write_text(text, encoding="utf-8")
    try:
        mine = tokviz.load(path)
    except TokvizError as exc:
        if any(reason in str(exc) for reason in UNREPEATABLE):
            return []
        mine_error = str(exc)
    else:
        mine_error = None
    try:
        hf = tokenizers.Tokenizer.from_str(text)
    except Exception as exc:
        return [] if mine_error else [("HF refuses, tokviz loads", str(exc))]
    if mine_error:
        return [("HF loads, tokviz refuses", mine_error)]
    out = []
    for t in texts:
        try:
            want = hf.encode(t, add_special_tokens=False)
        except BaseException as exc:  # (HF panics on some overlapping lstrip/rstrip matches: nothing to compare)
            if not isinstance(exc, Exception) and type(exc).__name__ != "PanicException":
                raise
            continue
        got = mine.encode(t)
        if (got.ids, [tuple(o) for o in got.offsets]) != (want.ids, [tuple(o) for o in want.offsets]):
            out.append(("encode", t, want.ids, want.offsets, got.ids, got.offsets))
            continue
        for skip in (True, False):
            if hf.decode(want.ids, skip_special_tokens=skip) != mine.decode(got.ids, skip_special_tokens=skip):
                out.append(("decode", skip, t, want.ids))
    return out


@pytest.mark.parametrize("block", range(6))
def test_random_added_tokens_match_hf(tmp_path, block):
    """300 random files, 8 texts each (seeded); locally checked on 3000 files and 30000 texts."""
    failures = []
    for seed in range(block * 50, block * 50 + 50):
        data, texts = _random_case(random.Random(seed))
        diffs = _compare(data, texts, tmp_path / "tokenizer.json")
        if diffs:
            failures.append((seed, data["added_tokens"], data["normalizer"], diffs[:2]))
    assert not failures, failures[:3]


def test_content_in_vocabulary_takes_the_vocabulary_id(tmp_path):
    data = _tokenizer_json([_added_token("ab", 500, special=True)], in_vocab=["ab"])
    vocab_id = data["model"]["vocab"]["ab"]
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert tokenizers.Tokenizer.from_file(str(path)).encode("xab", add_special_tokens=False).ids[-1] == vocab_id
    assert tokviz.load(path).encode("xab").ids[-1] == vocab_id


def test_gap_and_collision_in_declared_ids_are_renumbered_as_hf(tmp_path):
    added = [_added_token("<a>", 900), _added_token("<b>", 900), _added_token("<c>", 905, special=True)]
    data = _tokenizer_json(added)
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    hf = tokenizers.Tokenizer.from_file(str(path))
    size = len(data["model"]["vocab"])
    assert hf.encode("<a><b><c>", add_special_tokens=False).ids == [size, size + 1, size + 2]
    assert tokviz.load(path).encode("<a><b><c>").ids == [size, size + 1, size + 2]


def test_overlapping_lstrip_rstrip_tokens(tmp_path):
    added = [_added_token("<|a|>", 100, lstrip=True, rstrip=True, special=True), _added_token(" <|a", 101, special=True),
             _added_token("|> ", 102, rstrip=True)]
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(_tokenizer_json(added)), encoding="utf-8")
    hf = tokenizers.Tokenizer.from_file(str(path))
    mine = tokviz.load(path)
    for text in ["x <|a|> y", "x  <|a|>  y", "<|a|>|>  <|a", " <|a|> "]:
        want = hf.encode(text, add_special_tokens=False)
        got = mine.encode(text)
        assert (got.ids, got.offsets) == (want.ids, [tuple(o) for o in want.offsets]), text


def test_same_normalized_string_is_refused(tmp_path):
    """"AB" and "ab" are both matched as "ab" after lower-casing: HF's choice changes between runs."""
    added = [_added_token("AB", 100, normalized=True), _added_token("ab", 101, normalized=True)]
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(_tokenizer_json(added, {"type": "Lowercase"})), encoding="utf-8")
    with pytest.raises(TokvizError, match=r"added_tokens.*'ab'.*at random"):
        tokviz.load(path)
