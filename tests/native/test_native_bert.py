"""BERT's normalizer, pre-tokenizer and WordPiece in C (tokviz/native/bert.py, src/bert_pre.c,
models.c BertEncoder): the same ids and offsets as the reference pipeline (the Python classes,
forced with use_native(False)), the same ids as HF tokenizers, on corpus text, edge cases and random
text, with one thread or two."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tokviz
from tokviz.core.normalized import NormalizedString
from tokviz.core.normalizers import BertNormalizer
from tokviz.errors import TokvizError
from tokviz.native.bert import NativeBert

from _shared import CORPUS_FILES, EDGE_CASES, TOKENIZERS, assigned_text, corpus_samples, examples, need

FILES = ["bert-minilm/tokenizer.json", "bert-minilm/vocab.txt"]
JSON = "bert-minilm/tokenizer.json"

# What BERT's rules treat specially: combining marks (cluster spans, canonical reordering across
# clusters with the Tibetan vowel signs), capital sigma (final sigma by context, case-ignorable
# and cased neighbours), CJK (padded), controls and format characters (dropped), white space of
# all kinds, punctuation of all kinds, accents precomposed and not, Hangul syllables and jamo,
# characters whose lowercase is longer (U+0130).
TRICKY = (
    "aeEzZ09 ΣσςΑαΩ'.\u00ad\u0345\u02b0"
    "\u0300\u0301\u0308\u0323\u0327\u0342\u0313\u05b0\u093c\u20d0\u0f71\u0f72\u0f73\u0f74\u0f75\u0f80\u0f81\u3099"
    "中文字豈\uf900\u3400\U00020000\U0002f800"
    "\x00\x07\x0b\x0c\x1c\x7f\x85\u200b\u200d\ufeff\ufffd\U000e0001"
    " \t\n\r\u3000\u2028\u2029\u00a0\u1680\u202f"
    ".,;!?\"()[]{}-_@#$%^&*+=<>/\\|~`\u2019\u201c\u3001\u3002\u00bf\u055d\u00a7\u2e3a\uff01"
    "éèêëçñÅÖüßæøİıǅǈﬁＡ１ё\u0439Ё\u1f00\u1f70\u1fb6\u0386\u0388"
    "가각한\u1100\u1161\u11a8\u1160\u3131"
    "\U0001f600\U0001f44d\U0001f3fd\u00b2\u0663"
)
tricky_text = st.text(alphabet=st.one_of(st.sampled_from(TRICKY), st.characters(exclude_categories=("Cs",))), max_size=60)


def _load(path, use_native=True):
    tok = tokviz.load(path)
    return tok if use_native else tok.use_native(False)


@pytest.fixture(scope="module", params=FILES)
def pair(request):
    path = need(TOKENIZERS / request.param)
    fast, ref = _load(path), _load(path, False)
    assert isinstance(fast.native_encoder(), NativeBert)
    return fast, ref


_cache = {}


def _loaded(name=JSON):
    """(native, reference) tokenizers, loaded once per test session (hypothesis calls often)."""
    if name not in _cache:
        path = need(TOKENIZERS / name)
        _cache[name] = (_load(path), _load(path, False))
    return _cache[name]


def _hf():
    tokenizers = pytest.importorskip("tokenizers")
    if "hf" not in _cache:
        hf = tokenizers.Tokenizer.from_file(str(need(TOKENIZERS / JSON)))
        hf.no_truncation()
        hf.no_padding()
        _cache["hf"] = hf
    return _cache["hf"]


def _same(fast, ref, text, **kw):
    a, b = fast.encode(text, **kw), ref.encode(text, **kw)
    assert a.ids == b.ids, text[:80]
    assert a.offsets == b.offsets, text[:80]


def test_describes_itself():
    fast, _ = _loaded()
    assert fast.describe()["encoder_detail"] == "native BERT normalizer, pre-tokenizer and WordPiece model"


@pytest.mark.shared
def test_corpus_and_edge_cases(pair):
    fast, ref = pair
    texts = list(EDGE_CASES) + [t for name in CORPUS_FILES for t in corpus_samples(name, 4)]
    texts += ["Ωμέγα ΣΊΣΥΦΟΣ σίσυφος", "e\u0301te\u0301 cafe\u0301", "İstanbul ǅ ﬁne ＡＢＣ", "a\x00b\ufffdc\u200bd\x07e"]
    for text in texts:
        _same(fast, ref, text)
        _same(fast, ref, text, add_special_tokens=True)
        assert fast.encode_ids(text) == ref.encode(text).ids
    for threads in (1, 2):
        got = fast.encode_batch(texts, threads=threads)
        assert [(e.ids, e.offsets) for e in got] == [(e.ids, e.offsets) for e in map(ref.encode, texts)]
        assert fast.encode_ids_batch(texts, threads=threads) == [ref.encode(t).ids for t in texts]


def test_special_tokens_in_text_are_cut_first(pair):
    fast, ref = pair
    for text in ("[CLS] hello [SEP] world [MASK]", "x[SEP]y", "[UNK][UNK]", "ΟΔΟΣ[SEP]Σ e\u0301[MASK]\u0301"):
        _same(fast, ref, text)
        _same(fast, ref, text, allow_special=False)
        batch = fast.encode_batch([text, text + " ok"], threads=2)
        assert [e.offsets for e in batch] == [ref.encode(text).offsets, ref.encode(text + " ok").offsets]


@pytest.mark.parametrize(
    "text",
    [
        "ΟΔΟΣ ΟΔΟΣ. Σ ΑΣ' ΑΣ\u0301Β ΑΣ\u00adΒ Σ\u0345 'Σ ΣΣ Α\u0301Σ \u0345Σ ΑΣ1 ΑΣ\x00",  # final sigma in context
        "a\u0f74\u0f73 b",  # NFD reorders across clusters: the reference spans the whole text
        "\u0301\u0301a e\u0301\u0323 \u0323\u0301 x\u200b\u0301 中\u0301 가\u11a8\u11a8",  # clusters
        "e\u0301te\u0301",  # already NFD: the reference keeps each character's own span
        "İ İ\u0301 ß ǅ \u1e9e",  # lowercase longer than the character
        "\ufffd\x00\x7f \u200b\u200b word\u2028word\x85\x0b\x0c end",  # dropped and spaces
        "豈 \uf900\u0301 \U0002f800x 㐀",  # CJK compatibility ideographs decompose after padding
    ],
)
def test_context_rules(text):
    fast, ref = _loaded()
    _same(fast, ref, text)
    _same(fast, ref, text + text)


def test_reference_when_the_c_code_hands_back(monkeypatch):
    """A text the C encoder returns None for (a rule it does not reproduce, a text too long)
    is encoded by the reference classes, its words still by the C model."""
    path = need(TOKENIZERS / JSON)
    fast, ref = _load(path), _load(path, False)
    native = fast.native_encoder()
    real = native.c

    class HandsBack:
        """The C encoder, except that texts with a '~' come back as None."""

        def encode(self, text, base=0, offsets=2):
            return None if "~" in text else real.encode(text, base, offsets)

        def encode_many(self, texts, threads=1, offsets=2):
            got = real.encode_many(texts, threads, offsets)
            return [None if "~" in t else r for t, r in zip(texts, got)]

    monkeypatch.setattr(native, "c", HandsBack())
    monkeypatch.setattr(native.encoder, "c", native.c)
    texts = ["plain text", "with ~ tilde, é\u0301", "[CLS] x~y [SEP] z", "ΟΔΟΣ~"]
    for text in texts:
        _same(fast, ref, text)
        assert fast.encode_ids(text) == ref.encode(text).ids
    got = fast.encode_batch(texts, threads=2)
    assert [(e.ids, e.offsets) for e in got] == [(e.ids, e.offsets) for e in map(ref.encode, texts)]
    assert fast.encode_ids_batch(texts, threads=2) == [ref.encode(t).ids for t in texts]


@settings(max_examples=examples(300), deadline=None)
@given(st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=80))
def test_random_text(text):
    fast, ref = _loaded()
    _same(fast, ref, text)


@settings(max_examples=examples(600), deadline=None)
@given(tricky_text)
def test_random_tricky_text(text):
    fast, ref = _loaded()
    _same(fast, ref, text)


OPTIONS = [
    dict(),
    dict(strip_accents=False),
    dict(strip_accents=True, lowercase=False),
    dict(lowercase=False),
    dict(clean_text=False),
    dict(handle_chinese_chars=False),
    dict(clean_text=False, handle_chinese_chars=False, lowercase=False, strip_accents=False),
]


@pytest.fixture(scope="module", params=range(len(OPTIONS)), ids=[str(o) for o in OPTIONS])
def option_pair(request):
    """(native, reference) tokenizers whose BertNormalizer has other options than bert-minilm's."""
    path = need(TOKENIZERS / JSON)
    pair = []
    for use_native in (True, False):
        tok = _load(path, use_native)
        tok.normalizer = BertNormalizer(**OPTIONS[request.param])
        pair.append(tok)
    assert isinstance(pair[0].native_encoder(), NativeBert)
    return tuple(pair)


@pytest.mark.first_cases(2)
@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=tricky_text)
def test_normalizer_options(option_pair, text):
    fast, ref = option_pair
    _same(fast, ref, text)
    got = fast.native_encoder().c.normalize(text)
    expected = ref.normalizer.normalize(NormalizedString(text))
    assert got == (expected.text, *expected.spans())


@pytest.mark.shared
def test_threads_agree():
    fast, ref = _loaded()
    texts = [t for name in CORPUS_FILES for t in corpus_samples(name, 6, seed=1)] + list(EDGE_CASES) + [TRICKY] * 3
    one = fast.encode_batch(texts, threads=1)
    two = fast.encode_batch(texts, threads=2)
    assert [(e.ids, e.offsets) for e in one] == [(e.ids, e.offsets) for e in two]
    assert [(e.ids, e.offsets) for e in one] == [(e.ids, e.offsets) for e in map(ref.encode, texts)]
    c = fast.native_encoder().c
    assert c.encode_many(texts, 2) == c.encode_many(texts, 1) == [c.encode(t) for t in texts]


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(tricky_text, min_size=2, max_size=12))
def test_random_batches_on_two_threads(texts):
    fast, ref = _loaded()
    got = fast.encode_batch(texts, threads=2)
    assert [(e.ids, e.offsets) for e in got] == [(e.ids, e.offsets) for e in map(ref.encode, texts)]


# ---- HF tokenizers ------------------------------------------------------------------------------

@pytest.mark.shared
def test_hf_corpus_and_edge_cases():
    hf = _hf()
    fast, _ = _loaded()
    texts = [t for name in CORPUS_FILES for t in corpus_samples(name, 8, seed=2)]
    for enc, ref in zip(fast.encode_batch(texts, threads=2), hf.encode_batch(texts, add_special_tokens=False)):
        assert enc.ids == ref.ids
        assert enc.offsets == ref.offsets
    for text in EDGE_CASES:
        assert fast.encode(text).ids == hf.encode(text, add_special_tokens=False).ids, text


# Where the reference itself departs from HF tokenizers, by design of tokviz/core: it lowercases
# with str.lower, whose capital sigma becomes final sigma by context (HF lowercases character by
# character); and it takes its character classes from this Python's Unicode version (HF's tables
# are older: assigned_text() keeps to the characters both know).  Offsets differ inside clusters
# of combining marks (the reference spans the whole cluster).
def _hf_comparable(text):
    return text.replace("\u03a3", "\u03c3")


@settings(max_examples=examples(300), deadline=None)
@given(assigned_text(80))
def test_hf_random_text(text):
    text = _hf_comparable(text)
    fast, _ = _loaded()
    assert fast.encode(text).ids == _hf().encode(text, add_special_tokens=False).ids


@settings(max_examples=examples(300), deadline=None)
@given(st.text(alphabet=st.sampled_from(TRICKY), max_size=60))
def test_hf_random_tricky_text(text):
    text = _hf_comparable(text)
    fast, _ = _loaded()
    assert fast.encode(text).ids == _hf().encode(text, add_special_tokens=False).ids


# ---- whatever the input, an answer or an exception ------------------------------------------------

def test_words_beyond_max_input_chars_are_unknown():
    fast, ref = _loaded()
    unk = fast.model.vocab["[UNK]"]
    limit = fast.model.max_input_chars_per_word
    for n in (limit - 1, limit, limit + 1, 5000):
        for word in ("ab" * n)[:n], "中" * n, "e\u0301" * n:
            text = f"x {word} y"
            _same(fast, ref, text)
    assert fast.encode("a" * (limit + 1)).ids == [unk]
    assert fast.encode("a" * (limit + 1)).offsets == [(0, limit + 1)]
    big = "ab" * 300_000  # one word of 600k characters: [UNK]
    assert fast.encode(big).ids == [unk]
    assert fast.encode_batch([big, big + " c"], threads=2)[1].offsets == [(0, len(big)), (len(big) + 1, len(big) + 2)]


def test_unknown_characters_and_empty_texts():
    fast, ref = _loaded()
    for text in ["", " ", "\x00", "\u200b\ufeff", " \t\n ", "\U000e0001", "\U0001f600", "\U0010ffff x", "\u0301"]:
        _same(fast, ref, text)
    c = fast.native_encoder().c
    assert c.encode("") == ([], b"")
    assert c.encode("", 0, 0) == []
    assert c.encode_many([], 2) == []
    assert c.encode_many(["", "a"], 2, 0)[0] == []


def test_lone_surrogates():
    fast, _ = _loaded()
    for text in ["a\ud800b", "\udfff", "x" * 100 + "\ud83d", "中\udc00"]:
        with pytest.raises(TokvizError, match="surrogate"):
            fast.encode(text)
        with pytest.raises(TokvizError, match="surrogate"):
            fast.encode_ids(text)
        with pytest.raises(TokvizError, match="surrogate"):
            fast.encode_batch(["ok", text], threads=2)
        with pytest.raises(TokvizError, match="surrogate"):
            fast.encode_ids_batch(["ok", text], threads=2)
    c = fast.native_encoder().c
    with pytest.raises(ValueError, match="surrogate"):
        c.encode("a\ud800")
    with pytest.raises(ValueError, match="surrogate"):
        c.encode_many(["fine"] * 50 + ["bad\udc00"] + ["fine"] * 50, 2)


def test_c_encoder_checks_its_arguments():
    from tokviz import _native

    fast, _ = _loaded()
    c = fast.native_encoder().c
    with pytest.raises(TypeError):
        c.encode(b"bytes")
    with pytest.raises(TypeError):
        c.encode_many(["a", 3], 2)
    with pytest.raises(TypeError):
        c.encode_many(5)
    with pytest.raises(ValueError):
        c.encode("a", 0, 1)
    with pytest.raises(ValueError):
        c.encode("a", -1)
    assert c.encode_many(["a b", "c"], 0) == c.encode_many(["a b", "c"], 10_000)
    assert c.encode("ab cd", 10)[1] == _shifted(c.encode("ab cd")[1], 10)
    with pytest.raises(TypeError):
        _native.BertEncoder(object(), True, True, True, True)
    with pytest.raises(RuntimeError):
        _native.BertEncoder.__new__(_native.BertEncoder).encode("x")
    with pytest.raises(RuntimeError):
        _native.BertEncoder(_native.WordPieceModel.__new__(_native.WordPieceModel), True, True, True, True)


def _shifted(packed: bytes, by: int) -> bytes:
    from array import array

    return array("i", [v + by for v in memoryview(packed).cast("i")]).tobytes()


def test_model_reinitialized_under_the_encoder():
    """The Bloom filters follow the model when its __init__ runs again."""
    from tokviz import _native

    model = _native.WordPieceModel({"a": 0, "[UNK]": 1}, {}, 1, 100, 5)
    enc = _native.BertEncoder(model, True, True, True, True)
    assert enc.encode("a b", 0, 0) == [0, 1]
    model.__init__({"b": 7, "[UNK]": 1}, {"b": 8}, 1, 100, 5)
    assert enc.encode("a bb", 0, 0) == [1, 7, 8]


def test_tables_of_another_unicode_version_are_not_used(monkeypatch):
    """A Python whose unicodedata differs from the one the C tables came from keeps the Python
    normalizer and pre-tokenizer (with the C WordPiece model): same ids, no silent difference."""
    import tokviz.native as native_module
    from tokviz.native.bert import NativeBert

    path = TOKENIZERS / "bert-minilm" / "tokenizer.json"
    if not path.exists():
        pytest.skip("shared tokenizer not found")
    monkeypatch.setattr(native_module._native, "BERT_UNICODE_VERSION", "0.0.0")
    tok = tokviz.load(path)
    encoder = tok.native_encoder()
    assert encoder is not None and not isinstance(encoder, NativeBert)
    reference = tokviz.load(path).use_native(False)
    text = "Héllo, WORLD! 中文 naïve ΟΔΟΣ"
    assert tok.encode(text).ids == reference.encode(text).ids
