"""The checked native batch path: the C threads take a text as it is when it passes the Unicode
normal form's quick check and holds no added token's string; the others are prepared in Python.

Whatever path a text takes, encode_batch / encode give the ids and offsets of the pure-Python
pipeline (and HF tokenizers' ids; its offsets too where the text needs no normalizing: HF maps
the offsets of normalized characters its own way)."""
from __future__ import annotations

import random

import functools
import gc
import sys
import unicodedata
from array import array
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tokviz
from tokviz import native as native_glue
from tokviz.core.normalizers import UnicodeForm
from tokviz.errors import TokvizError

from _shared import CORPUS_FILES, EDGE_CASES, TOKENIZERS, corpus_samples, examples, need, sweep

_native = pytest.importorskip("tokviz._native", reason="the C extension tokviz._native is not built")
QWEN = TOKENIZERS / "qwen2.5" / "tokenizer.json"
LLAMA3 = TOKENIZERS / "llama3" / "tokenizer.json"
FORMS = ("NFC", "NFD", "NFKC", "NFKD")  # the order of the C `form` ids
SAME_UNICODE = _native.NORM_UNICODE_VERSION == unicodedata.unidata_version


@functools.lru_cache(maxsize=None)
def load(path: Path, form: str | None = None):
    """A fresh tokenizer (its normalizer replaced by `form` when given)."""
    tok = tokviz.load(need(path))
    if form is not None:
        tok.normalizer = UnicodeForm(form)
    return tok


@functools.lru_cache(maxsize=None)
def hf(path: Path):
    tokenizers = pytest.importorskip("tokenizers")
    ref = tokenizers.Tokenizer.from_file(str(need(path)))
    ref.no_padding()
    ref.no_truncation()
    return ref


def python_encodings(tok, texts):
    tok.use_native(False)
    try:
        return [tok.encode(t) for t in texts]
    finally:
        tok.use_native(True)


def assert_batches_agree(tok, texts, hf_path: Path | None = None):
    """encode_batch on 1 and 2 threads, encode_ids_batch and encode equal the Python pipeline."""
    expected = python_encodings(tok, texts)
    for threads in (1, 2):
        got = tok.encode_batch(texts, threads=threads)
        for text, g, e in zip(texts, got, expected):
            assert g.ids == e.ids, text
            assert g.offsets == e.offsets, text
            assert g == e, text
        assert tok.encode_ids_batch(texts, threads=threads) == [e.ids for e in expected]
    for text, e in zip(texts, expected):
        single = tok.encode(text)
        assert single.ids == e.ids and single.offsets == e.offsets, text
        assert tok.encode_ids(text) == e.ids, text
    if hf_path is not None:
        ref = hf(hf_path)
        for text, e in zip(texts, expected):
            r = ref.encode(text, add_special_tokens=False)
            assert e.ids == r.ids, text
            if unicodedata.is_normalized("NFC", text):
                assert e.offsets == [tuple(o) for o in r.offsets], text


# ---- the generated table ---------------------------------------------------------------------

def _composition_seconds() -> set[int]:
    """Characters that compose with a preceding one, found by composing every canonical pair."""
    seconds = {cp for cp in range(0x1161, 0x1176)} | {cp for cp in range(0x11A8, 0x11C3)}
    for cp in range(0x110000):
        nfd = unicodedata.normalize("NFD", chr(cp))
        if len(nfd) < 2 or unicodedata.normalize("NFC", chr(cp)) != chr(cp):
            continue
        first = unicodedata.normalize("NFC", nfd[:-1])  # the composite is (composed prefix, last)
        if len(first) == 1:
            seconds.add(ord(nfd[-1]))
    return seconds


@pytest.mark.skipif(not SAME_UNICODE, reason="the C tables are from another Unicode version (not used)")
def test_norm_table_agrees_with_unicodedata_for_every_code_point():
    table = array("H")
    table.frombytes(_native.norm_table())
    assert len(table) == 0x110000
    seconds = _composition_seconds()
    assert {0x0301, 0x0308, 0x3099, 0x1161, 0x11A8} <= seconds
    wrong = []
    for cp in range(0x110000):
        c = chr(cp)
        value = table[cp]
        if value & 0xFF != unicodedata.combining(c):
            wrong.append((hex(cp), "ccc"))
        for bit, form in enumerate(FORMS):
            yes = unicodedata.normalize(form, c) == c and not (form in ("NFC", "NFKC") and cp in seconds)
            if bool(value >> (8 + bit) & 1) != yes:
                wrong.append((hex(cp), form))
    assert not wrong[:20]


def test_generator_writes_the_committed_header(tmp_path):
    """The committed header is what gen_nfc_tables.py makes from this Python's unicodedata (on a
    Python of another Unicode version the build makes its own: test_unidata_tables.py)."""
    if f'TV_NORM_UNICODE_VERSION "{unicodedata.unidata_version}"' not in (
            Path(native_glue.__file__).parent / "src" / "unidata" / "nfc_tables.h").read_text():
        pytest.skip("the committed header is for another Unicode version")
    sys.path.insert(0, str(Path(native_glue.__file__).parent))
    try:
        import gen_nfc_tables
    finally:
        sys.path.pop(0)
    header = Path(native_glue.__file__).parent / "src" / "unidata" / "nfc_tables.h"
    assert header.read_text() == gen_nfc_tables.render()


@pytest.mark.parametrize("prepared", [False, True])
def test_quick_check_examples(prepared):
    qc = functools.partial(_check, prepared=prepared)
    nfc, nfd, nfkc, nfkd = range(4)
    assert qc(nfc, "plain ASCII, é, 中文, 한국어")
    assert not qc(nfc, "e\u0301")  # a Maybe character
    assert not qc(nfc, "\u212b")  # a singleton (Angstrom sign)
    assert not qc(nfc, "\u1100\u1161")  # conjoining jamo that compose
    assert qc(nfc, "x\u05b0\u05b4") and not qc(nfc, "x\u05b4\u05b0")  # combining classes in order
    assert not qc(nfd, "é") and qc(nfd, "e\u0301")
    assert qc(nfc, "\ufb01") and not qc(nfkc, "\ufb01") and not qc(nfkd, "\uff21")
    assert qc(-1, "e\u0301\u212b")  # no form: only the stops count
    stops = ["<|im_end|>", "<tool_call>", "ä!"]
    assert not qc(nfc, "a <|im_end|> b", stops) and qc(nfc, "a <|im_end| b", stops)
    assert not qc(nfc, "xä!", stops) and qc(nfc, "xä", stops)
    assert qc(nfc, "", stops) and qc(nfc, "<", stops)
    with pytest.raises(ValueError):
        qc(7, "x")
    with pytest.raises(TypeError):
        qc(0, "x", [b"bytes"])


def _check(form, text, stops=None, prepared=False):
    """quick_check, with the table of characters that pass alone (as the encoder's kept checks
    have) or without."""
    return _native.quick_check(form, text, stops, prepared)


@pytest.mark.parametrize("stops", [["<|im_end|>"], ["<a>", "[b]", "{c}", "(d)"], ["<a>", "[b]", "{c}", "(d)", "!e!"],
                                   ["<|x|>", "ä!", "<"], ["ä!"]])
@pytest.mark.parametrize("others", ["", "é", "中文", "😀"])
def test_quick_check_stops_only(stops, others):
    """ASCII text, and text of 1- or 2-byte characters with no normal form to check, is searched for
    the stops' first characters 16 bytes at a time (up to 4 of them, else one by one): a stop
    anywhere, across those blocks and at the end, is found."""
    rng = random.Random(len(stops))
    for _ in range(400):
        text = "".join(rng.choice("ab <[{(!|>x" + others) for _ in range(rng.randint(0, 70)))
        if rng.random() < 0.5:
            at = rng.randint(0, len(text))
            text = text[:at] + rng.choice(stops) + text[at:]
        for prepared in (False, True):
            assert _check(-1, text, stops, prepared) == (not any(s in text for s in stops)), (text, stops)


_MARKS = "\u0300\u0301\u0308\u0323\u0327\u0338\u0345\u05b4\u0653\u093c\u094d\u0e38\u3099\u309a\U0001d165"
_JAMO = "\u1100\u1112\u1161\u1175\u11a8\u11c2\uac00\uac01\ud7a3"
_COMPAT = "\u00a0\u00b2\u00bd\u017f\u01c4\u2126\u212a\u212b\u2460\u3000\ufb01\uff21\uff76\uff9e\u1e9b\u0958\u2adc"
_BASES = "aeiouAEIOUnNcCsSyz éÅǖỹ\u0915\u3046\u304b\u304c中\n"
_SPECIALS = ["<|im_end|>", "<|endoftext|>", "<tool_call>", "</tool_call>", "<|im", "<"]


def _mixed_text(max_size: int):
    """Text full of combining marks, jamo, compatibility characters, composed and decomposed
    forms and (pieces of) special-token strings."""
    piece = st.one_of(
        st.text(alphabet=_MARKS + _JAMO + _COMPAT + _BASES, min_size=1, max_size=8),
        st.sampled_from(_SPECIALS),
        st.text(alphabet=_BASES, min_size=1, max_size=8).map(lambda s: unicodedata.normalize("NFD", s)),
    )
    return st.lists(piece, max_size=max_size).map("".join)


@settings(max_examples=examples(300), deadline=None)
@given(text=_mixed_text(12), form=st.sampled_from(range(4)))
def test_quick_check_yes_means_normalized(text, form):
    if not SAME_UNICODE:
        return
    stops = ["<|im_end|>", "中"]
    verdict = _check(form, text)
    assert _check(form, text, None, True) == verdict  # the table of characters that pass alone agrees
    assert _check(form, text, stops, True) == _check(form, text, stops)
    if verdict:
        assert unicodedata.is_normalized(FORMS[form], text)
    if FORMS[form] in ("NFD", "NFKD") and unicodedata.is_normalized(FORMS[form], text):
        if all(unicodedata.combining(c) == 0 for c in text):  # (no Maybe characters in these forms)
            assert verdict


# ---- the batch path on real tokenizers -------------------------------------------------------

def test_qwen_takes_the_checked_path():
    tok = load(QWEN)
    native = tok.native_encoder()
    assert tok._checked_form(native, True) == (0 if SAME_UNICODE else None)


@pytest.mark.shared
@pytest.mark.first_cases(1)
@pytest.mark.parametrize("corpus", CORPUS_FILES)
def test_corpus_samples(corpus):
    texts = corpus_samples(corpus, 25, max_len=4000)
    texts += [t[:700] + "<|im_end|>" + t[700:] for t in texts[:3]]  # rejected: a special token
    texts += [unicodedata.normalize("NFD", t) for t in texts[3:6]]  # rejected: not NFC
    assert_batches_agree(load(QWEN), texts, QWEN)


def test_edge_cases():
    assert_batches_agree(load(QWEN), [t for t in EDGE_CASES], QWEN)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(_mixed_text(30), min_size=2, max_size=6))
def test_random_mixed_text(texts):
    assert_batches_agree(load(QWEN), texts, QWEN)


@pytest.mark.first_cases(1)
@pytest.mark.parametrize("form", sweep(FORMS, list(FORMS)[:2]))
@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(_mixed_text(30), min_size=2, max_size=5))
def test_every_normal_form(form, texts):
    """qwen2.5's model behind an NFD, NFKC... normalizer: each form's table and its fallback."""
    assert_batches_agree(load(QWEN, form), texts + EDGE_CASES[4:7])


@pytest.mark.shared
def test_no_normalizer_but_added_tokens():
    """llama3: no normalizer, special tokens matched in text: the C threads look for the stops only."""
    tok = load(LLAMA3)
    assert tok._checked_form(tok.native_encoder(), True) == -1
    texts = corpus_samples("multi", 6) + ["a<|begin_of_text|>b", "e\u0301 <|eot_id|>", "plain"]
    assert_batches_agree(tok, texts, LLAMA3)


def test_lone_surrogates_raise():
    tok = load(QWEN)
    for bad in ["a\ud800b", "e\u0301\udfff", "<|im_end|>\ud83d", "\u212b x \udc00 <|endoftext|>"]:
        for threads in (1, 2):
            with pytest.raises(TokvizError, match="surrogate"):
                tok.encode_batch(["fine", bad, "e\u0301"], threads=threads)
            with pytest.raises(TokvizError, match="surrogate"):
                tok.encode_ids_batch([bad, "fine"], threads=threads)
        with pytest.raises(TokvizError, match="surrogate"):
            tok.encode(bad)
    assert not _native.quick_check(0, "\ud800\u0301") and _native.quick_check(0, "\ud800")


def test_encoder_check_arguments():
    enc = load(QWEN).native_encoder().encoder
    stops = ["<|im_end|>"]
    assert enc.encode("x<|im_end|>", 0, 2, 0, stops) is None
    assert enc.encode("e\u0301", 0, 2, 0) is None
    ids, _ = enc.encode("é", 0, 2, 0, stops)
    assert ids == enc.encode("é", 0, 0)
    got = enc.encode_many(["ok", "e\u0301", "<|im_end|>", ""], 2, 0, 0, stops)
    assert got[1] is None and got[2] is None and got[0] == enc.encode("ok", 0, 0) and got[3] == []
    for offsets in (0, 1, 2):  # rejected texts among untracked results
        got = enc.encode_many(["e\u0301", "ok", "<|im_end|>"] * 20, 2, offsets, 0, stops, untracked=True)
        assert got[0] is None and got[2] is None and got[1] == enc.encode("ok", 0, offsets)
        assert not gc.is_tracked(got[1] if offsets == 0 else got[1][0])
    native = load(QWEN).native_encoder()
    got = native.encode_many_checked(["hello world", "e\u0301"], 2, 0, stops)
    assert got == [enc.encode("hello world", 0, 1), None]
    with pytest.raises(ValueError):
        enc.encode_many(["x"], 1, 0, 9)
    with pytest.raises(TypeError):
        enc.encode_many(["x"], 1, 0, 0, 5)
    with pytest.raises(TypeError):
        enc.encode("x", 0, 0, 0, [None])
    with pytest.raises(ValueError, match="surrogate"):
        enc.encode_many(["\ud800"], 2, 0, 0, stops)


# ---- the piece cache the threads of a batch share ----------------------------------------------

@pytest.mark.slow
def test_shared_cache_fills_up_and_stays_exact():
    """More distinct pieces than a cache holds (2**17): a cache shared by threads stops taking
    entries when full, one used by a single thread is emptied and refilled; ids never change."""
    import random

    tok = load(QWEN)
    enc = tok.native_encoder().encoder
    rng = random.Random(7)
    letters = "abcdefghijklmnopqrstuvwxyzäöüßéèàçñ"
    words = ["".join(rng.choice(letters) for _ in range(rng.randint(4, 12))) for _ in range(180_000)]
    texts = [" ".join(words[i : i + 400]) for i in range(0, len(words), 400)]
    results = {}
    for threads in (1, 2, 3):
        enc.clear_cache()
        results[threads] = enc.encode_many(texts, threads, 0)
        for k in range(4):  # it grows at each of the first calls (to 2**17), then is full at the start
            results[threads, k] = enc.encode_many(texts, threads, 0)
    assert all(r == results[1] for r in results.values())
    info = tok.native_cache_info()  # the calls came one after the other: one cache, full
    assert info["caches"] == 1 and info["entries"] > 2**16 and info["bytes"] > 10 * 2**20
    enc.clear_cache()
    assert tok.native_cache_info() == {"caches": 0, "bytes": 0, "entries": 0}
    sample = texts[::60]
    assert [e.ids for e in python_encodings(tok, sample)] == results[1][::60]


@pytest.mark.shared
def test_concurrent_batches_from_python_threads():
    """Several Python threads encoding at once: each call takes its own cache."""
    from concurrent.futures import ThreadPoolExecutor

    tok = load(QWEN)
    texts = corpus_samples("multi", 40, max_len=3000) + corpus_samples("zh", 40, max_len=3000)
    expected = [e.ids for e in tok.encode_batch(texts, threads=1)]
    with ThreadPoolExecutor(4) as pool:
        runs = list(pool.map(lambda k: [e.ids for e in tok.encode_batch(texts[k:] + texts[:k], threads=2)], range(8)))
    for k, ids in enumerate(runs):
        assert ids == expected[k:] + expected[:k]
