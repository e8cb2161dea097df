"""Normalisation and round trip (tokviz.analysis.roundtrip, `tokviz roundtrip`) on real tokenizers.

The oracles are the reference libraries: HF tokenizers' normalizer and decode, sentencepiece's
normalize and decode, tiktoken's decode.  Two properties hold for any text and are checked against
them: putting each decode difference's decoded string in place of its span of the text gives the
reference decode, and putting each normalizer change's normalized string in place gives the
reference normalized text."""
from __future__ import annotations

import csv
import io
import json
import lzma
import unicodedata
from pathlib import Path

import pytest

import tokviz
from _shared import CORPUS, need
from tokviz.analysis.roundtrip import DECODE_KINDS, NORMALIZER_KINDS, positions, round_trip
from tokviz.cli import main

REAL = Path(__file__).parent / "data" / "real"


def _unpacked(tmp_path_factory, rel: str) -> Path:
    src = REAL / rel
    dest = tmp_path_factory.mktemp("rt") / Path(rel).name.removesuffix(".xz")
    dest.write_bytes(lzma.decompress(src.read_bytes()))
    return dest


@pytest.fixture(scope="module")
def bert_path(tmp_path_factory) -> Path:
    return _unpacked(tmp_path_factory, "bert-minilm/tokenizer.json.xz")


@pytest.fixture(scope="module")
def qwen_path(tmp_path_factory) -> Path:
    return _unpacked(tmp_path_factory, "qwen2.5/tokenizer.json.xz")


@pytest.fixture(scope="module")
def qwen(qwen_path):
    """Qwen2.5 loaded once for the module's round trips (they only encode and decode with it)."""
    return tokviz.load(qwen_path)


@pytest.fixture(scope="module")
def botchan_path(tmp_path_factory) -> Path:
    return _unpacked(tmp_path_factory, "sentencepiece-suite/botchan_en_unigram_1000.model.xz")


@pytest.fixture(scope="module")
def mistral_path(tmp_path_factory) -> Path:
    return _unpacked(tmp_path_factory, "mistral-v1.model.xz")


def _apply(text: str, diffs, field: str) -> str:
    out, at = [], 0
    for d in sorted(diffs, key=lambda d: (d.start, d.end)):
        assert d.start >= at, "differences overlap"
        out.append(text[at:d.start])
        out.append(getattr(d, field))
        at = d.end
    out.append(text[at:])
    return "".join(out)


def _hf(path: Path):
    tokenizers = pytest.importorskip("tokenizers")
    ref = tokenizers.Tokenizer.from_file(str(path))
    ref.no_truncation()
    ref.no_padding()
    return ref


def _hf_round(path: Path, text: str) -> tuple[str, str]:
    ref = _hf(path)
    ids = ref.encode(text, add_special_tokens=False).ids
    return ref.decode(ids), ref.normalizer.normalize_str(text) if ref.normalizer else text


def _check_against(tok, text: str, decoded: str, normalized: str | None = None, marker: str | None = None):
    report = round_trip(tok, text)
    assert report.decoded == decoded
    assert tok.decode(tok.encode(text).ids) == decoded
    assert _apply(text, report.decode_differences, "decoded") == decoded
    for d in report.decode_differences:
        assert text[d.start:d.end] == d.original
        assert d.kind in DECODE_KINDS
    if normalized is not None:
        if marker:
            normalized = normalized.replace(marker, " ")
        assert _apply(text, report.normalizer_changes, "normalized") == normalized
        for d in report.normalizer_changes:
            assert d.kind in NORMALIZER_KINDS and d.original != d.normalized
    return report


# ---- BERT-MiniLM: lowercase, accents, control characters, WordPiece's spacing -------------------------
def test_bert_cafe(bert_path):
    tok = tokviz.load(bert_path)
    decoded, normalized = _hf_round(bert_path, "Café")
    assert decoded == "cafe"  # (what the reference gives: lower-cased, accent stripped)
    report = _check_against(tok, "Café", decoded, normalized)
    assert [(d.original, d.decoded, d.kind, d.detail) for d in report.decode_differences] == [
        ("C", "c", "normalizer", "case"), ("é", "e", "normalizer", "accents")]
    assert [(d.start, d.end, d.kind) for d in report.normalizer_changes] == [(0, 1, "case"), (3, 4, "accents")]


def test_bert_spacing_controls_and_unknown(bert_path):
    tok = tokviz.load(bert_path)
    text = "Hello,world!\tfoo\x00bar  (x)  done\n\nÉté 変 ok"
    decoded, normalized = _hf_round(bert_path, text)
    report = _check_against(tok, text, decoded, normalized)
    ref = _hf(bert_path)
    enc = ref.encode(text, add_special_tokens=False)
    unk = ref.token_to_id("[UNK]")
    unk_spans = [o for i, o in zip(enc.ids, enc.offsets) if i == unk]
    assert unk_spans, "the reference has an unknown token here"
    kinds = {d.kind for d in report.decode_differences}
    assert {"normalizer", "collapsed spaces", "added spaces", "unknown token"} <= kinds
    for a, b in unk_spans:  # every unknown token's text is in a difference of that kind
        assert any(d.kind == "unknown token" and d.start <= a and b <= d.end for d in report.decode_differences)
    nul = text.index("\x00")
    assert any(d.start <= nul < d.end and d.kind == "removed" for d in report.normalizer_changes)
    comma = text.index(",")  # 'Hello,world' comes back as 'hello, world'
    assert any(d.start == d.end == comma + 1 and d.decoded == " " and d.kind == "added spaces"
               for d in report.decode_differences)


@pytest.mark.shared
def test_bert_corpus_slice(bert_path):
    text = need(CORPUS / "multi.txt").read_text(encoding="utf-8")[:60_000]
    decoded, normalized = _hf_round(bert_path, text)
    report = _check_against(tokviz.load(bert_path), text, decoded, normalized)
    assert report.decode_differences and report.normalizer_changes


# ---- Qwen2.5: NFC --------------------------------------------------------------------------------------
def test_qwen_nfc(qwen, qwen_path):
    tok = qwen
    text = "cafe\u0301 and cafe\u0301s, Ａ ok"
    decoded, normalized = _hf_round(qwen_path, text)
    assert decoded == unicodedata.normalize("NFC", text)
    report = _check_against(tok, text, decoded, normalized)
    assert [(d.start, d.end, d.decoded, d.kind, d.detail) for d in report.decode_differences] == [
        (3, 5, "é", "normalizer", "unicode form"), (13, 15, "é", "normalizer", "unicode form")]
    assert [d.kind for d in report.normalizer_changes] == ["unicode form", "unicode form"]


def test_qwen_special_token_is_dropped(qwen, qwen_path):
    tok = qwen
    text = "a<|endoftext|>b"
    decoded, _ = _hf_round(qwen_path, text)
    report = _check_against(tok, text, decoded)
    assert [(d.original, d.decoded, d.kind) for d in report.decode_differences] == [
        ("<|endoftext|>", "", "special token")]


# ---- sentencepiece: whitespace, NFKC, unknown ----------------------------------------------------------
def test_sentencepiece_whitespace_runs(botchan_path):
    spm = pytest.importorskip("sentencepiece")
    ref = spm.SentencePieceProcessor(model_file=str(botchan_path))
    tok = tokviz.load(botchan_path)
    text = "  Hello   world  foo\t\tbar\n\nbaz ｆｕｌｌ ﬁne 変 end  "
    decoded = ref.decode(ref.encode(text))
    report = _check_against(tok, text, decoded, ref.normalize(text), marker="▁")
    kinds = {d.kind for d in report.decode_differences}
    assert "unknown token" in kinds and "normalizer" in kinds
    ws = [d for d in report.normalizer_changes if d.kind == "whitespace"]
    assert any(d.original == "   " or d.original == "  " for d in ws)  # runs collapse to one space
    assert any(d.original == "ｆｕｌｌ" and d.normalized == "full" and d.kind == "unicode form"
               for d in report.normalizer_changes)
    un = text.index("変")
    assert any(d.start <= un < d.end and d.kind == "unknown token" and "⁇" in d.decoded
               for d in report.decode_differences)


def test_sentencepiece_suite_text(botchan_path):
    spm = pytest.importorskip("sentencepiece")
    ref = spm.SentencePieceProcessor(model_file=str(botchan_path))
    text = lzma.decompress((REAL / "sentencepiece-suite" / "botchan.txt.xz").read_bytes()).decode("utf-8")[:40_000]
    _check_against(tokviz.load(botchan_path), text, ref.decode(ref.encode(text)), ref.normalize(text), marker="▁")


def test_mistral_keeps_whitespace(mistral_path):
    spm = pytest.importorskip("sentencepiece")
    ref = spm.SentencePieceProcessor(model_file=str(mistral_path))
    text = "  two  spaces\t\ttabs\n\nlines "
    decoded = ref.decode(ref.encode(text))
    report = _check_against(tokviz.load(mistral_path), text, decoded, ref.normalize(text), marker="▁")
    assert report.round_trips == (decoded == text)
    # the dummy prefix: a space the normalizer puts in front
    first = report.normalizer_changes[0]
    assert (first.start, first.end, first.normalized, first.kind) == (0, 0, " ", "space added")


# ---- byte-level: everything comes back -----------------------------------------------------------------
def _cl100k_reference(path: Path, monkeypatch):
    tiktoken = pytest.importorskip("tiktoken")
    from tiktoken.load import load_tiktoken_bpe
    from tiktoken_ext import openai_public

    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", lambda *a, **k: load_tiktoken_bpe(str(path)))
    return tiktoken.Encoding(**openai_public.cl100k_base())


def test_cl100k_round_trips(tmp_path, monkeypatch):
    path = tmp_path / "cl100k_base.tiktoken"
    path.write_bytes(lzma.decompress((REAL / "cl100k_base.tiktoken.xz").read_bytes()))
    ref = _cl100k_reference(path, monkeypatch)
    text = (REAL / "texts.txt").read_text(encoding="utf-8") + "e\u0301 \x00 \t\t  ﬁ 変 😀👍🏽 <|endoftext|>"
    if (CORPUS / "multi.txt").exists():
        text += (CORPUS / "multi.txt").read_text(encoding="utf-8")[:200_000]
    assert ref.decode(ref.encode_ordinary(text)) == text
    report = _check_against(tokviz.load(path), text, text, text)
    assert report.decode_differences == [] and report.normalizer_changes == [] and report.round_trips


# ---- big texts -----------------------------------------------------------------------------------------
@pytest.mark.slow
def test_qwen_big_text_with_changes(qwen, qwen_path):
    """A long text with NFC changes far apart: the chunked alignment finds each of them."""
    corpus = need(CORPUS / "multi.txt").read_text(encoding="utf-8")[:300_000]
    parts = [corpus[i:i + 5000] for i in range(0, len(corpus), 5000)]
    text = " Cafe\u0301 ".join(parts)  # a decomposed é every 5,000 characters
    decoded, normalized = _hf_round(qwen_path, text)
    report = _check_against(qwen, text, decoded, normalized)
    assert [(d.original, d.decoded) for d in report.decode_differences] == [("e\u0301", "é")] * (len(parts) - 1)
    assert all(d.kind == "normalizer" and d.detail == "unicode form" for d in report.decode_differences)
    assert positions(report.decode_differences, len(text), 10).sum() == len(report.decode_differences)


def test_cancel(bert_path):
    from tokviz.errors import Cancelled

    with pytest.raises(Cancelled):
        round_trip(tokviz.load(bert_path), "Hello World " * 2000, cancel=lambda: True)


# ---- CLI -----------------------------------------------------------------------------------------------
def test_cli_human_and_json(bert_path, tmp_path, capsys):
    f = tmp_path / "t.txt"
    f.write_text("Café  au lait, HELLO", encoding="utf-8")
    assert main(["roundtrip", "-t", str(bert_path), str(f), "--show", "2"]) == 0
    out = capsys.readouterr().out
    assert "decode differences" in out and "normalizer (case)" in out and "more (--show N)" in out
    assert main(["roundtrip", "-t", str(bert_path), str(f), "--json", "--show", "1"]) == 0
    data = json.loads(capsys.readouterr().out)
    decoded, _ = _hf_round(bert_path, f.read_text(encoding="utf-8"))
    assert data["round_trips"] is False and data["decoded_length"] == len(decoded)
    assert len(data["decode_differences"]) == 1 and data["totals"]["decode"] > 1
    assert data["decode_differences"][0]["original"] == "C"
    assert main(["roundtrip", "-t", str(bert_path), str(f), "--table", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["stage"] for r in rows].count("decode") == data["totals"]["decode"]
    assert [r["stage"] for r in rows].count("normalizer") == data["totals"]["normalizer"]
    assert rows[0]["original"] == "C" and rows[0]["decoded"] == "c"


def test_cli_missing_file(bert_path, capsys):
    assert main(["roundtrip", "-t", str(bert_path), "/nonexistent/x.txt"]) == 2
    assert "/nonexistent/x.txt" in capsys.readouterr().err
