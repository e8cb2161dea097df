"""Fuzzing the native encoders against the Python reference (issue 10).

Every native encoder (byte-level BPE, sentencepiece Unigram and BPE, WordPiece) gets arbitrary
Unicode text, text built from the characters that matter to tokenizers (spaces of every kind,
combining marks, CJK, emoji, digits, punctuation, control characters, lone surrogates) and
arbitrary bytes decoded leniently; the native result must equal the pure-Python one (ids and
offsets), or both must refuse the text with the same TokvizError.  Never a crash.

The campaign is bounded: TOKVIZ_FUZZ_EXAMPLES examples per encoder and strategy (default 150;
.ci/run uses 600, `.ci/fuzz` runs a longer campaign).  An input that ever failed is added below
with @example so it stays a regression test.
"""
from __future__ import annotations

import functools
import os

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import tokviz
from tokviz.defaults import default_tokenizer_path
from tokviz.errors import TokvizError

from _shared import SHARED_TOKENIZER_FILES, sweep

pytest.importorskip("tokviz._native", reason="the C extension tokviz._native is not built")

EXAMPLES = int(os.environ.get("TOKVIZ_FUZZ_EXAMPLES", "150"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=False,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

ENCODERS = {"demo": default_tokenizer_path(), **SHARED_TOKENIZER_FILES}
# by default the demo and a byte-level BPE encoder; every encoder with -m slow (CI)
SWEEP = sweep(list(ENCODERS), ["demo", "qwen2.5"])

INTERESTING = (
    " \t\n\r\u00a0\u2003\u3000\u200b\ufeff"  # spaces of every kind
    "\u0301\u0308\u0327\u064b\u093c\u0e31"  # combining marks
    "aAzZéÉßİıΣσςﬁ"  # case-sensitive letters
    "中文字漢한국어ひらカナ"  # CJK
    "😀👍🏽🇯🇵‍\u20e3"  # emoji and joiners
    "0123456789٣۴१"  # digits
    ".,;:!?'\"-—…()[]{}<>/\\|@#$%^&*_+=~`"  # punctuation
    "\x00\x01\x07\x1b\x7f\x85"  # control characters
)
interesting_text = st.text(alphabet=st.sampled_from(INTERESTING), max_size=80)
any_text = st.text(max_size=60)
byte_text = st.binary(max_size=80).map(lambda b: b.decode("utf-8", "replace"))
with_surrogates = st.builds(lambda a, s, b: a + s + b, st.text(max_size=10),
                            st.sampled_from(["\ud800", "\udfff", "\ud83d"]), st.text(max_size=10))


@functools.lru_cache(maxsize=None)
def _loaded(name):
    """The encoder `name` loaded twice: native, and on the Python reference path (once per module:
    the three campaigns below only encode with them)."""
    native = tokviz.load(ENCODERS[name])
    python = tokviz.load(ENCODERS[name])
    python.use_native(False)
    return native, python


def _pair(name):
    path = ENCODERS[name]
    if not path.exists():
        pytest.skip(f"shared tokenizer not found: {path}")
    native, python = _loaded(name)
    if native.native_encoder() is None:
        pytest.skip(f"{name}: no native encoder ({native.describe()['encoder_detail']})")
    return native, python


def _same(native, python, text: str) -> None:
    try:
        expected = python.encode(text)
    except TokvizError as exc:
        with pytest.raises(TokvizError) as info:
            native.encode(text)
        assert type(info.value) is type(exc)
        return
    got = native.encode(text)
    assert got.ids == expected.ids, text
    assert [tuple(o) for o in got.offsets] == [tuple(o) for o in expected.offsets], text
    assert native.encode_ids(text) == expected.ids
    batch = native.encode_batch([text, text + " x"], threads=2)
    assert batch[0].ids == expected.ids


@pytest.mark.parametrize("name", SWEEP)
def test_interesting_characters(name):
    native, python = _pair(name)

    @FUZZ
    @given(interesting_text)
    @example("\u0301" * 40)  # marks with nothing to combine with
    @example("ΣΣ σς ΣΑΣ")  # final sigma
    @example("\x00\n\x00")
    def check(text):
        _same(native, python, text)

    check()


@pytest.mark.parametrize("name", SWEEP)
def test_arbitrary_unicode_and_bytes(name):
    native, python = _pair(name)

    @FUZZ
    @given(st.one_of(any_text, byte_text))
    def check(text):
        _same(native, python, text)

    check()


@pytest.mark.parametrize("name", SWEEP)
def test_lone_surrogates_are_refused_or_repaired(name):
    """Refused, naming the surrogate; a tiktoken file's tokenizer encodes the text repaired as
    tiktoken repairs it instead."""
    from tokviz.core.surrogates import repair_surrogates

    native, _ = _pair(name)

    @FUZZ
    @given(with_surrogates)
    def check(text):
        native.encode_ids("".join(c for c in text if not 0xD800 <= ord(c) < 0xE000))  # its pieces cached
        if native.repairs_surrogates:
            want = native.encode_ids(repair_surrogates(text)[0])
            assert native.encode(text).ids == want
            assert native.encode_ids(text) == want
            assert native.encode_batch(["fine", text], threads=2)[1].ids == want
            return
        with pytest.raises(TokvizError, match="surrogate"):
            native.encode(text)
        with pytest.raises(TokvizError, match="surrogate"):
            native.encode_ids(text)
        with pytest.raises(TokvizError, match="surrogate"):
            native.encode_batch(["fine", text], threads=2)

    check()
