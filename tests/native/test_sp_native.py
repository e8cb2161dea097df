"""The native sentencepiece encoder (tokviz._spnative) gives the ids of the sentencepiece library and
the ids and offsets of tokviz's Python reference path (use_native(False)): the shared Unigram and BPE
.model files on every corpus, edge cases and random text; variants of them with the settings the
shared files lack; hostile inputs (lone surrogates, a damaged charsmap, absurd constructor
arguments) give exceptions, never a crash; what the C encoder does not take stays on Python."""
from __future__ import annotations

import functools
import random
import subprocess
import sys
from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokviz
from tokviz.core.charsmap import CharsMap
from tokviz.core.sentencepiece import NORMAL, UNUSED, PrefixMatcher, SentencePieceNormalizer
from tokviz.errors import TokvizError
from tokviz.formats.sentencepiece import build_tokenizer, parse_model_proto

from _shared import CORPUS_FILES, EDGE_CASES, TOKENIZERS, assigned_text, corpus_samples, examples, need

_spnative = pytest.importorskip("tokviz._spnative", reason="the C extension tokviz._spnative is not built")

MODELS = ("unigram_8k", "bpe_8k")
SP_DIR = TOKENIZERS / "sentencepiece"

EXTRA_CASES = [
    "<reserved_0> and <reserved_1><reserved_0>x<reserved_1>",
    "  <reserved_0>   spaced  <reserved_1>  ",
    "<reserved_",
    "emoji 🦩🪿🫎 and rare CJK 𠀋𪚥龘 and ꙮ",
    "Ⅻ ㈱ ㍻ ﬃ ﹏ ＿ ｶﾞ",
    "e\u0301\u0301\u0301 a\u030a",
    "\u2581 typed \u2581\u2581 markers \u2581",
    " \u3000 \u00a0 ",
    "-" * 5000,
    "\x00",
    "\t\n\r\x0b\x0c",
]


def _path(name: str):
    return need(SP_DIR / f"{name}.model")


@functools.lru_cache(maxsize=None)
def _tok(name: str):
    tok = tokviz.load(_path(name))
    assert tok.native_encoder() is not None, f"{name}: no native encoder"
    return tok


@functools.lru_cache(maxsize=None)
def _python_tok(name: str):
    return tokviz.load(_path(name)).use_native(False)


@functools.lru_cache(maxsize=None)
def _processor(name: str):
    spm = pytest.importorskip("sentencepiece")
    return spm.SentencePieceProcessor(model_file=str(_path(name)))


def _same_as_python(tok, py_tok, text: str) -> None:
    got = tok.encode(text)
    want = py_tok.encode(text)
    assert got.ids == want.ids, text[:200]
    assert got.offsets == want.offsets, text[:200]
    assert got == want
    assert tok.encode_ids(text) == want.ids


# ---- the shared .model files -----------------------------------------------------------------
@pytest.mark.shared
@pytest.mark.parametrize("name", MODELS)
def test_describe(name):
    tok = _tok(name)
    kind = "unigram" if name.startswith("unigram") else "bpe"
    assert tok.describe()["encoder"] == "native"
    assert tok.describe()["encoder_detail"] == f"native sentencepiece ({kind})"
    assert _python_tok(name).describe()["encoder"] == "python"


@pytest.mark.shared
@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("corpus", CORPUS_FILES)
def test_corpus_matches_library_and_python(name, corpus):
    tok, py_tok, sp = _tok(name), _python_tok(name), _processor(name)
    for text in corpus_samples(corpus, 12):
        assert tok.encode(text).ids == sp.encode(text)
        _same_as_python(tok, py_tok, text)


@pytest.mark.shared
@pytest.mark.parametrize("name", MODELS)
def test_edge_cases(name):
    tok, py_tok, sp = _tok(name), _python_tok(name), _processor(name)
    for text in EDGE_CASES + EXTRA_CASES:
        assert tok.encode(text).ids == sp.encode(text), text[:80]
        _same_as_python(tok, py_tok, text)


@pytest.mark.shared
@pytest.mark.parametrize("name", MODELS)
def test_long_text_rebases_scores(name):
    """A text long enough for Unigram path scores to pass -100000 (sentencepiece re-bases them)."""
    tok, py_tok, sp = _tok(name), _python_tok(name), _processor(name)
    text = need(SP_DIR.parents[1] / "corpus" / "en.txt").read_text(encoding="utf-8")[:120_000]
    ids = tok.encode(text).ids
    assert ids == sp.encode(text)
    _same_as_python(tok, py_tok, text)


@pytest.mark.shared
@pytest.mark.parametrize("name", MODELS)
def test_allow_special_stays_exact(name):
    """With special tokens allowed an added token could match: the raw-text encoder is not used,
    and the result is still the reference's (sentencepiece never matches them in text)."""
    tok, py_tok = _tok(name), _python_tok(name)
    text = "<s> hello </s> world"
    assert tok.encode(text, allow_special=True) == py_tok.encode(text, allow_special=True)
    assert tok.encode_batch([text, text], allow_special=True)[0].ids == py_tok.encode(text).ids
    assert tok.encode_ids_batch([text, "x"], allow_special=True)[0] == py_tok.encode(text).ids


@pytest.mark.shared
@pytest.mark.parametrize("name", MODELS)
def test_byte_fallback(name):
    tok, py_tok = _tok(name), _python_tok(name)
    for text in ("🦩", "a🦩b", "𪚥𠀋", "ꙮꙮ ꙮ", "\U0010fffd"):
        enc = tok.encode(text)
        assert enc.ids == _processor(name).encode(text)
        assert any(enc.partial), text
        _same_as_python(tok, py_tok, text)
    enc = tok.encode("x🦩")
    # the four byte pieces of the emoji all point at it
    assert [o for o, p in zip(enc.offsets, enc.pieces) if p.startswith("<0x")] == [(1, 2)] * 4


@pytest.mark.shared
@pytest.mark.parametrize("name", MODELS)
def test_user_defined_symbols_whole(name):
    tok = _tok(name)
    enc = tok.encode("a<reserved_0>b")
    rid = tok.token_to_id("<reserved_0>")
    assert rid in enc.ids
    assert enc.offsets[enc.ids.index(rid)] == (1, 13)


@pytest.mark.shared
@pytest.mark.parametrize("name", MODELS)
@settings(max_examples=examples(150), deadline=None)
@given(text=assigned_text(60))
def test_random_text(name, text):
    _same_as_python(_tok(name), _python_tok(name), text)


@pytest.mark.shared
@pytest.mark.parametrize("name", MODELS)
@settings(max_examples=examples(80), deadline=None)
@given(parts=st.lists(st.sampled_from(["<reserved_0>", "<reserved_1>", " ", "  ", "\u2581", "a", "é", "e\u0301",
                                       "ﬁ", "１", "中", "🦩", "\t", "\n", "The", "ing"]), max_size=20))
def test_random_pieces(name, parts):
    text = "".join(parts)
    _same_as_python(_tok(name), _python_tok(name), text)
    assert _tok(name).encode(text).ids == _processor(name).encode(text)


@pytest.mark.shared
@pytest.mark.parametrize("name", MODELS)
def test_batch_threads(name):
    tok, py_tok = _tok(name), _python_tok(name)
    texts = [t for c in CORPUS_FILES for t in corpus_samples(c, 8, seed=3)] + EDGE_CASES
    one = tok.encode_batch(texts, threads=1)
    two = tok.encode_batch(texts, threads=2)
    assert one == two
    assert [e.ids for e in one] == [e.ids for e in py_tok.encode_batch(texts, threads=1)]
    assert [e.offsets for e in one] == [e.offsets for e in py_tok.encode_batch(texts, threads=1)]
    assert tok.encode_ids_batch(texts, threads=2) == [e.ids for e in one]


@pytest.mark.shared
def test_bpe_word_cache_across_calls_threads_and_overflow():
    """The BPE word cache is kept between calls, shared by a call's threads, and one of a pool per
    concurrent call: hits give what merging gives, also once a cache is full (more words than it
    holds) and after clear_cache."""
    import threading

    tok, py_tok = _tok("bpe_8k"), _python_tok("bpe_8k")
    rng = random.Random(11)
    letters = "abcdefghijklmnopqrstuvwxyzéüßабвгд中文字"
    # 200,000 distinct words: more than one cache holds (2**17), so it fills up mid-call
    words = sorted({"".join(rng.choices(letters, k=rng.randint(3, 9))) for _ in range(230_000)})[:200_000]
    texts = [" ".join(words[i : i + 500]) for i in range(0, len(words), 500)]
    sample = rng.sample(range(len(texts)), 12)
    want = {k: py_tok.encode(texts[k]) for k in sample}

    tok.clear_cache()
    assert tok.native_cache_info() == {"caches": 0, "bytes": 0, "entries": 0}
    # cold shared cache, growing at each call it fills (to 2**17 words), then warm (a full one is
    # emptied when taken)
    for threads in (2, 1, 2, 1, 2):
        got = tok.encode_batch(texts, threads=threads)
        for k in sample:
            assert got[k].ids == want[k].ids and got[k].offsets == want[k].offsets
    one = tok.native_cache_info()  # (the calls one after the other: one cache, with most words in it)
    assert one["caches"] == 1 and one["bytes"] > 20 * 2**20 and 2**16 < one["entries"] <= 2**17

    results, errors = {}, []

    def encode_alone(k):  # concurrent calls: each takes its own cache of the pool
        try:
            results[k] = [tok.encode(texts[j]) for j in sample]
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    runners = [threading.Thread(target=encode_alone, args=(k,)) for k in range(4)]
    for r in runners:
        r.start()
    for r in runners:
        r.join()
    assert not errors
    for encodings in results.values():
        assert [e.ids for e in encodings] == [want[k].ids for k in sample]
    several = tok.native_cache_info()
    # (the other caches of the pool start small: each grows with its own calls)
    assert 1 <= several["caches"] <= 8 and one["bytes"] <= several["bytes"] <= several["caches"] * one["bytes"]
    tok.clear_cache()
    assert tok.native_cache_info() == {"caches": 0, "bytes": 0, "entries": 0}
    assert tok.encode(texts[sample[0]]).ids == want[sample[0]].ids


@pytest.mark.shared
@pytest.mark.parametrize("name", MODELS)
def test_lone_surrogates(name):
    tok = _tok(name)
    bad = "abc \ud800 def"
    with pytest.raises(TokvizError, match="surrogate"):
        tok.encode(bad)
    with pytest.raises(TokvizError, match="surrogate"):
        tok.encode_ids(bad)
    with pytest.raises(TokvizError, match="surrogate"):
        tok.encode_batch(["fine", bad], threads=2)
    with pytest.raises(TokvizError, match="surrogate"):
        tok.encode_ids_batch(["fine", "x" * 5000, bad], threads=2)
    with pytest.raises(ValueError):
        tok.native_encoder().encoder.encode(bad)


@pytest.mark.shared
@pytest.mark.parametrize("name", MODELS)
def test_random_bytes_never_crash(name):
    tok, py_tok = _tok(name), _python_tok(name)
    rng = random.Random(7)
    for _ in range(200):
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
        latin = data.decode("latin-1")
        _same_as_python(tok, py_tok, latin)
        escaped = data.decode("utf-8", "surrogateescape")
        try:
            escaped.encode("utf-8")
        except UnicodeEncodeError:
            with pytest.raises(TokvizError):
                tok.encode(escaped)
        else:
            _same_as_python(tok, py_tok, escaped)


@pytest.mark.shared
def test_empty_and_huge():
    tok = _tok("unigram_8k")
    assert tok.encode("").ids == []
    assert tok.encode("   ").ids == []
    assert tok.encode_batch(["", " ", "a"], threads=2)[2].ids == tok.encode("a").ids
    big = "word " * 400_000  # 2 MB
    assert tok.native_encoder().encoder.encode(big, 0, 0) == _processor("unigram_8k").encode(big)


@pytest.mark.shared
def test_normalize_matches_python():
    tok = _tok("unigram_8k")
    native = tok.native_encoder().encoder
    norm = tok.text_normalizer
    for text in EDGE_CASES + EXTRA_CASES + corpus_samples("multi", 5):
        assert native.normalize(text) == norm.normalize_spans(text)


# ---- variants of the shared models with other settings ----------------------------------------
@functools.lru_cache(maxsize=None)
def _proto(name: str) -> dict:
    return parse_model_proto(_path(name).read_bytes())


def _variant(name: str, *, trainer=None, normalizer=None, unused_ids=(), byte_fallback=None):
    """A Tokenizer like the shared model with some settings changed (built as a .model would be)."""
    proto = dict(_proto(name))
    proto["trainer_spec"] = {**proto["trainer_spec"], **(trainer or {})}
    proto["normalizer_spec"] = {**proto["normalizer_spec"], **(normalizer or {})}
    types = bytearray(proto["types"])
    for i in unused_ids:
        assert types[i] == NORMAL
        types[i] = UNUSED
    proto["types"] = types
    proto["scores"] = array("f", proto["scores"])
    proto["pieces"] = list(proto["pieces"])
    if byte_fallback is False:
        keep = [i for i, t in enumerate(types) if t != 6]
        proto["pieces"] = [proto["pieces"][i] for i in keep]
        proto["scores"] = array("f", [proto["scores"][i] for i in keep])
        proto["types"] = bytearray(types[i] for i in keep)
        proto["vocab"] = None
        proto["trainer_spec"]["byte_fallback"] = False
    return build_tokenizer(proto, f"{name}-variant.model")


def _frequent_piece_ids(name: str, count: int) -> list[int]:
    """Ids of multi-character pieces the en corpus uses often (to mark them unused)."""
    tok = _python_tok(name)
    seen: dict[int, int] = {}
    for text in corpus_samples("en", 4, seed=9):
        for i in tok.encode(text).ids:
            piece = tok.id_to_token(i)
            if len(piece) > 2 and not piece.startswith("<"):
                seen[i] = seen.get(i, 0) + 1
    return [i for i, _ in sorted(seen.items(), key=lambda kv: -kv[1])[:count]]


VARIANTS = {
    "suffix": dict(trainer={"treat_whitespace_as_suffix": True}),
    "no-charsmap": dict(normalizer={"precompiled_charsmap": b""}),
    "keep-spaces": dict(normalizer={"remove_extra_whitespaces": False}),
    "no-escape": dict(normalizer={"escape_whitespaces": False}),
    "no-dummy-prefix": dict(normalizer={"add_dummy_prefix": False}),
    "keep-spaces-suffix": dict(normalizer={"remove_extra_whitespaces": False}, trainer={"treat_whitespace_as_suffix": True}),
    "no-byte-fallback": dict(byte_fallback=False),
    "unused": "unused",
}


@functools.lru_cache(maxsize=None)
def _variant_pair(name: str, variant: str):
    spec = VARIANTS[variant]
    if spec == "unused":
        spec = dict(unused_ids=_frequent_piece_ids(name, 40))
    tok = _variant(name, **spec)
    py_tok = _variant(name, **spec).use_native(False)
    return tok, py_tok


@pytest.mark.shared
@pytest.mark.first_cases(4)
@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("name", MODELS)
def test_variants_native_and_equal(name, variant):
    tok, py_tok = _variant_pair(name, variant)
    assert tok.native_encoder() is not None
    if variant == "unused" and name.startswith("bpe"):
        assert not tok.model.by_word  # the whole-text merge with resegmentation
    texts = EDGE_CASES + EXTRA_CASES + [t for c in CORPUS_FILES for t in corpus_samples(c, 3, seed=5)]
    for text in texts:
        _same_as_python(tok, py_tok, text)
    assert [e.ids for e in tok.encode_batch(texts, threads=2)] == [py_tok.encode(t).ids for t in texts]


@pytest.mark.shared
@pytest.mark.parametrize("variant", ["suffix", "keep-spaces", "no-escape", "unused", "no-byte-fallback"])
@pytest.mark.parametrize("name", MODELS)
@settings(max_examples=examples(40), deadline=None)
@given(text=st.text(alphabet=st.sampled_from(list("ab é\u2581 \t\nﬁ１中🦩<>_reservd01ing")), max_size=40))
def test_variants_random(name, variant, text):
    tok, py_tok = _variant_pair(name, variant)
    _same_as_python(tok, py_tok, text)


@pytest.mark.shared
def test_unused_pieces_library_parity(tmp_path):
    """The unused-piece variant as a real .model file, against the sentencepiece library."""
    spm = pytest.importorskip("sentencepiece")
    pb = pytest.importorskip("sentencepiece.sentencepiece_model_pb2", reason="needs protobuf")

    data = _path("bpe_8k").read_bytes()
    proto = pb.ModelProto()
    proto.ParseFromString(data)
    for i in _frequent_piece_ids("bpe_8k", 40):
        proto.pieces[i].type = pb.ModelProto.SentencePiece.UNUSED
    path = tmp_path / "unused.model"
    path.write_bytes(proto.SerializeToString())
    tok = tokviz.load(path)
    assert tok.native_encoder() is not None
    sp = spm.SentencePieceProcessor(model_file=str(path))
    for text in corpus_samples("en", 6, seed=11) + EDGE_CASES:
        assert tok.encode(text).ids == sp.encode(text)


# ---- what stays on the Python path -------------------------------------------------------------
@pytest.mark.shared
def test_falls_back_for_unsupported():
    from tokviz.native.sentencepiece import sentencepiece_encoder_for

    class OwnNormalizer(SentencePieceNormalizer):
        pass

    tok = _variant("unigram_8k")
    norm = tok.text_normalizer
    tok.text_normalizer = OwnNormalizer(norm.charsmap, user_defined=norm.user_defined)
    assert sentencepiece_encoder_for(tok) is None
    assert tok.describe()["encoder"] == "python"

    inexact = _variant("unigram_8k")  # a score no .model can hold: C keeps scores in single precision
    inexact.model._lattice_scores = list(inexact.model._lattice_scores)
    inexact.model._lattice_scores[inexact.model._match["\u2581the"]] = 0.1
    assert sentencepiece_encoder_for(inexact) is None

    nan = _variant("bpe_8k")
    nan.model.scores = list(nan.model.scores)
    nan.model.scores[500] = float("nan")
    assert sentencepiece_encoder_for(nan) is None


@pytest.mark.shared
def test_invalid_charsmap_string_falls_back():
    """A replacement that is not valid UTF-8: Python decodes it with U+FFFD, C refuses the map."""
    blob = bytearray(_proto("unigram_8k")["normalizer_spec"]["precompiled_charsmap"])
    trie_size = int.from_bytes(blob[:4], "little")
    first = 4 + trie_size
    blob[first] = 0xFF  # the first replacement string now starts with a stray byte
    tok = _variant("unigram_8k", normalizer={"precompiled_charsmap": bytes(blob)})
    assert tok.describe()["encoder"] == "python"
    assert tok.encode("ﬁ ok").ids  # the Python path still encodes


@pytest.mark.shared
def test_pure_python_env():
    code = ("import tokviz; t = tokviz.load(%r); print(t.describe()['encoder'])" % str(_path("unigram_8k")))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**__import__("os").environ, "TOKVIZ_PURE_PYTHON": "1"}, check=True)
    assert out.stdout.strip() == "python"


# ---- hostile constructor input ----------------------------------------------------------------
def _kwargs(**over):
    proto = _proto("unigram_8k")
    tok = _tok("unigram_8k")
    model = tok.model
    base = dict(
        kind=_spnative.UNIGRAM, match=model._match, scores=list(model._lattice_scores), unk_id=model.unk_id,
        unk_score=model.unk_score, byte_ids=[model.table.byte_ids[b] for b in range(256)],
        normalizer_symbols=["<reserved_0>"], model_symbols=[], charsmap=proto["normalizer_spec"]["precompiled_charsmap"],
        add_dummy_prefix=True, remove_extra_whitespaces=True, escape_whitespaces=True,
        treat_whitespace_as_suffix=False, reserved={}, unused=[], by_word=False,
    )
    base.update(over)
    return base


@pytest.mark.parametrize("over", [
    dict(kind=7),
    dict(scores=[]),
    dict(scores=["x"]),
    dict(unk_id=-1),
    dict(unk_id=10**6),
    dict(byte_ids=[0] * 10),
    dict(byte_ids=[10**7] * 256),
    dict(match={"a": 10**7}),
    dict(match={"a": -3}),
    dict(match={1: 2}),
    dict(match=["a"]),
    dict(unused=[10**9]),
    dict(normalizer_symbols=[1]),
    dict(reserved={"x": 10**8}),
    dict(charsmap=b"\x01"),
    dict(charsmap=b"\xff\xff\xff\x7f" + b"\0" * 8),
    dict(charsmap=b"\x06\x00\x00\x00" + b"\0" * 8),
])
@pytest.mark.shared
def test_constructor_rejects(over):
    with pytest.raises((ValueError, TypeError, OverflowError)):
        _spnative.SentencePieceEncoder(**_kwargs(**over))


@pytest.mark.shared
def test_damaged_charsmap_never_crashes():
    """Bytes of the real charsmap's trie changed at random: the encoder refuses the map or
    normalizes exactly as the Python reference reads the same damaged map."""
    blob = bytes(_proto("unigram_8k")["normalizer_spec"]["precompiled_charsmap"])
    trie_size = int.from_bytes(blob[:4], "little")
    rng = random.Random(1)
    texts = EDGE_CASES + EXTRA_CASES + corpus_samples("multi", 2)
    for round_ in range(25):
        damaged = bytearray(blob)
        for _ in range(rng.choice([1, 10, 1000])):
            damaged[4 + rng.randrange(trie_size)] = rng.randrange(256)
        if round_ % 5 == 0:  # cut short: the declared trie size no longer fits
            damaged = damaged[: rng.randrange(4, len(damaged))]
        try:
            enc = _spnative.SentencePieceEncoder(**_kwargs(charsmap=bytes(damaged)))
        except ValueError:
            continue
        try:
            cmap = CharsMap(bytes(damaged))
        except TokvizError:
            continue
        norm = SentencePieceNormalizer(cmap, user_defined=PrefixMatcher(["<reserved_0>"]))
        for text in texts:
            assert enc.normalize(text) == norm.normalize_spans(text)
            enc.encode(text, 0, 2)


@pytest.mark.shared
def test_absurd_encode_arguments():
    enc = _tok("bpe_8k").native_encoder().encoder
    with pytest.raises(TypeError):
        enc.encode(b"bytes")
    with pytest.raises(ValueError):
        enc.encode("x", -1)
    with pytest.raises(ValueError):
        enc.encode("x", 2**40)
    with pytest.raises(TypeError):
        enc.encode_many(["a", 3])
    assert enc.encode_many([], 4) == []
    assert enc.encode_many(["a"] * 3, 10**6, 0) == [enc.encode("a", 0, 0)] * 3
