"""encode_ids of text the C check rejects for its normal form (NFD text, a Kelvin sign): the text
is normalized whole, a line at a time, and encoded natively, unless an added token's string is in
it before or after normalizing.  Checked against HF tokenizers on the bundled Qwen2.5 file (an NFC
normalizer), and normalize_lines against unicodedata."""
from __future__ import annotations

import json
import lzma
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokviz
from tokviz.core.normalized import normalize_lines

from _shared import examples

from .real_files import REAL

pytest.importorskip("tokviz._native", reason="the C extension tokviz._native is not built")
tokenizers = pytest.importorskip("tokenizers")

FORMS = ("NFC", "NFD", "NFKC", "NFKD")
# combining marks of several classes, jamo, compatibility characters, composed letters, line feeds
ALPHABET = ("\u0300\u0301\u0308\u0323\u0327\u0345\u093c\u3099\U0001d165\u1100\u1161\u11a8\uac00"
            "\u00b2\u017f\u212a\u212b\ufb01\uff76\uff9e\u0958aeoKAsy \n\u00e9\u01d6\u4e2d")
SAMPLE = ("The Kelvin sign \u212a is K after NFC; so is \u212b (\u00c5).\n"
          "Caf\u00e9 cr\u00e8me br\u00fbl\u00e9e, na\u00efve \u00c5ngstr\u00f6m, \u1ea0\u0300 \u1e69\n"
          "\ud55c\uad6d\uc5b4 \u65e5\u672c\u8a9e \u0915\u093c \u0e01\u0e38\n" * 3)


@settings(max_examples=examples(400), deadline=None)
@given(text=st.text(alphabet=ALPHABET, max_size=40), form=st.sampled_from(FORMS))
def test_normalize_lines_is_unicodedata(text, form):
    assert normalize_lines(form, text) == unicodedata.normalize(form, text)


@pytest.fixture(scope="module")
def qwen_path(tmp_path_factory):
    """The bundled Qwen2.5 tokenizer.json, plus an added token "café" matched in normalized text
    (id past the vocabulary), so that normalizing can make an added token appear."""
    config = json.loads(lzma.decompress((REAL / "qwen2.5" / "tokenizer.json.xz").read_bytes()))
    next_id = max(t["id"] for t in config["added_tokens"]) + 1
    config["added_tokens"].append({"id": next_id, "content": "caf\u00e9", "single_word": False, "lstrip": False,
                                   "rstrip": False, "normalized": True, "special": False})
    path = tmp_path_factory.mktemp("qwen") / "tokenizer.json"
    path.write_text(json.dumps(config, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def pair(qwen_path):
    ref = tokenizers.Tokenizer.from_file(str(qwen_path))
    return tokviz.load(qwen_path), ref


def texts():
    nfd = unicodedata.normalize("NFD", SAMPLE)
    return [
        nfd,
        SAMPLE.replace("K", "\u212a"),
        nfd + "<|im_end|>" + nfd,                  # an added token in the raw text
        "x\n" + nfd + "<|im_start|>\u0301 tail",  # a mark right after an added token
        "caf\u00e9 " + SAMPLE,                      # the normalized added token, in NFC already
        "cafe\u0301 au lait\n" + SAMPLE,            # ... made by normalizing
        "\u212a\n\n\n\u0301\n",
        "a<|im_end|>\u0338 b",                    # normalizing would compose the added token's ">"
    ]


def test_encode_ids_matches_hf(pair):
    tok, ref = pair
    for text in texts():
        expected = ref.encode(text, add_special_tokens=False).ids
        assert tok.encode_ids(text) == expected, text
        assert tok.encode(text).ids == expected, text


@pytest.mark.parametrize("threads", [1, 2])
def test_encode_ids_batch_matches_hf(pair, threads):
    tok, ref = pair
    batch = texts() + ["plain text, NFC already", ""]
    expected = [ref.encode(t, add_special_tokens=False).ids for t in batch]
    assert tok.encode_ids_batch(batch, threads=threads) == expected


def test_rejected_text_without_added_tokens_is_one_normalized_segment(pair):
    tok, _ = pair
    native = tok.native_encoder()
    text = texts()[0]
    assert native.encoder.encode(text, 0, 0, 0, tok.added.match_strings(True)) is None  # the C check rejects it
    parts = tok._parts_for_ids(native, text, True)
    assert [(seg.text, added) for seg, added in parts] == [(unicodedata.normalize("NFC", text), None)]


@pytest.mark.parametrize("text", ["a<|im_end|>e\u0301", "cafe\u0301"])
def test_text_with_an_added_token_is_cut(pair, text):
    tok, _ = pair
    parts = tok._parts_for_ids(tok.native_encoder(), text, True)
    assert [added is not None for _, added in parts].count(True) == 1


@pytest.mark.parametrize("stops", [("<|im_end|>", "caf\u00e9"), ["<|im_end|>", "caf\u00e9"]])
def test_holds_none(pair, stops):
    encoder = pair[0].native_encoder().encoder
    for text in ["", "plain", "<|im_end", "|im_end|>", "cafe\u0301", "\u212a caf", "x\n" * 500]:
        assert encoder.holds_none(text, stops), text
    for text in ["<|im_end|>", "a<|im_end|>", "<|im_end|>b", "\u212a caf\u00e9", "x\n" * 500 + "caf\u00e9"]:
        assert not encoder.holds_none(text, stops), text
    assert encoder.holds_none("<|im_end|>", ())
