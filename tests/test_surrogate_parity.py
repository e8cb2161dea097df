"""Text holding surrogate code points, per format: tokviz does what the format's reference does.

tiktoken repairs such text (tests/test_tiktoken_suite.py compares the ids); HF tokenizers,
sentencepiece and minbpe refuse it (a TypeError, a RuntimeError, a UnicodeEncodeError), and so does
tokviz, with a TokvizError that names the character and where it is.
"""
from __future__ import annotations

import lzma
from pathlib import Path

import pytest

import tokviz
from tokviz.defaults import default_tokenizer_path

REAL = Path(__file__).parent / "data" / "real"
TEXTS = ["\ud83d\udc4d", "ok \ud83d", "\udc4d after"]


def _refused_by_tokviz(tok, text: str) -> None:
    for native in (True, False):
        tok.use_native(native)
        with pytest.raises(tokviz.TokvizError, match=r"surrogate U\+D[89A-F][0-9A-F]{2} at character \d+"):
            tok.encode(text)
        with pytest.raises(tokviz.TokvizError, match="surrogate"):
            tok.encode_ids(text)
        with pytest.raises(tokviz.TokvizError, match="surrogate"):
            tok.encode_batch(["fine", text])


def test_hf_tokenizer_json_refuses_as_tokenizers_does(tmp_path):
    tk = pytest.importorskip("tokenizers")
    path = tmp_path / "tokenizer.json"
    path.write_bytes(lzma.decompress((REAL / "mon-unigram.json.xz").read_bytes()))
    hf = tk.Tokenizer.from_file(str(path))
    tok = tokviz.load(path)
    for text in TEXTS:
        with pytest.raises((TypeError, UnicodeEncodeError)):
            hf.encode(text)
        _refused_by_tokviz(tok, text)


def test_sentencepiece_refuses_as_sentencepiece_does(tmp_path):
    spm = pytest.importorskip("sentencepiece")
    path = tmp_path / "seqio.model"
    path.write_bytes(lzma.decompress((REAL / "seqio-sentencepiece.model.xz").read_bytes()))
    sp = spm.SentencePieceProcessor(model_file=str(path))
    tok = tokviz.load(path)
    for text in TEXTS:
        with pytest.raises((RuntimeError, TypeError, UnicodeEncodeError)):
            sp.encode(text)
        _refused_by_tokviz(tok, text)


def test_minbpe_refuses_as_minbpe_does():
    tok = tokviz.load(default_tokenizer_path())
    for text in TEXTS:
        with pytest.raises(UnicodeEncodeError):
            text.encode("utf-8")  # what minbpe's encode does first
        _refused_by_tokviz(tok, text)
