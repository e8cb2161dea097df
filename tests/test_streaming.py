"""encode_file: the same ids as encoding the whole text, in bounded pieces, with progress and cancel."""
from __future__ import annotations

import threading
from array import array
from pathlib import Path

import pytest

import tokviz
from tokviz import TokvizError, defaults
from tokviz.core.streaming import Cancelled, encode_file, safe_cuts, stream_plan

from _shared import CORPUS, CORPUS_FILES, TOKENIZERS, need, reference

SHARED_TOKENIZERS = [
    "cl100k_base.tiktoken",
    "qwen2.5/tokenizer.json",
    "qwen2.5",  # vocab.json + merges.txt
    "llama3/tokenizer.json",
    "bert-minilm/tokenizer.json",
    "bert-minilm/vocab.txt",
    "sentencepiece/unigram_8k.model",
    "sentencepiece/bpe_8k.model",
]
PREFIX_BYTES = 240_000

_loaded: dict[str, tokviz.Tokenizer] = {}


def _tok(rel: str) -> tokviz.Tokenizer:
    if rel not in _loaded:
        _loaded[rel] = reference(need(TOKENIZERS / rel))  # (loaded once per session)
    return _loaded[rel]


@pytest.fixture(scope="module")
def demo():
    path = defaults.default_tokenizer_path()
    if not path.exists():
        pytest.skip(f"the shipped demo tokenizer is missing: {path}")
    return tokviz.load(path)


def _corpus_prefix(tmp_path_factory, name: str) -> Path:
    out = tmp_path_factory.getbasetemp() / f"prefix-{name}.txt"
    if not out.exists():
        data = need(CORPUS / f"{name}.txt").read_bytes()[:PREFIX_BYTES]
        out.write_bytes(data[: len(data.decode("utf-8", "ignore").encode("utf-8"))])
    return out


@pytest.mark.shared
@pytest.mark.first_cases(8)
@pytest.mark.parametrize("corpus", CORPUS_FILES)
@pytest.mark.parametrize("rel", SHARED_TOKENIZERS)
def test_same_ids_as_whole_text_on_corpus(tmp_path_factory, rel, corpus):
    tok = _tok(rel)
    path = _corpus_prefix(tmp_path_factory, corpus)
    assert stream_plan(tok) is None, "every shared tokenizer can be cut"
    text = path.read_text(encoding="utf-8")
    pieces = []
    ids = encode_file(tok, path, chunk_bytes=16 * 1024, piece_chars=3000, on_chunk=pieces.append)
    assert isinstance(ids, array) and ids.typecode == "I"
    assert len(pieces) > 40  # it really was cut, many times
    assert list(ids) == tok.encode(text).ids
    # the chunks tile the text, and their encodings' offsets are relative to them
    assert pieces[0].char_start == 0 and pieces[0].byte_start == 0
    for a, b in zip(pieces, pieces[1:]):
        assert b.char_start == a.char_start + len(a.encoding.text)
        assert b.byte_start == a.byte_start + len(a.encoding.text.encode("utf-8"))
    assert "".join(p.encoding.text for p in pieces) == text


def test_demo_tokenizer_whole_sample_and_small_chunks(demo, tmp_path):
    text = defaults.sample_text() * 3
    path = tmp_path / "s.txt"
    path.write_text(text, encoding="utf-8", newline="")
    for chunk in (7, 64, 1000):  # reads smaller than a character or a word
        assert list(encode_file(demo, path, chunk_bytes=chunk, piece_chars=50)) == demo.encode(text).ids


def test_tokenizer_method_delegates(demo, tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("hello world, hello file\n", encoding="utf-8")
    assert list(demo.encode_file(path)) == demo.encode("hello world, hello file\n").ids


def test_progress_is_monotonic_and_ends_at_total(demo, tmp_path):
    text = ("Größe und Straße, 中文 字符 🙂 words " * 2000) + "end"
    path = tmp_path / "p.txt"
    path.write_text(text, encoding="utf-8")
    total = path.stat().st_size
    seen = []
    encode_file(demo, path, chunk_bytes=4096, piece_chars=1000, progress=lambda d, t: seen.append((d, t)))
    assert len(seen) > 10
    assert all(t == total for _, t in seen)
    done = [d for d, _ in seen]
    assert done == sorted(done) and done[-1] == total and done[0] > 0


def test_cancel_with_event_or_callable(demo, tmp_path):
    path = tmp_path / "c.txt"
    path.write_text("some words here " * 20000, encoding="utf-8")
    event = threading.Event()
    calls = []

    def progress(done, total):
        calls.append(done)
        if len(calls) == 3:
            event.set()

    with pytest.raises(Cancelled) as info:
        encode_file(demo, path, chunk_bytes=8192, piece_chars=500, progress=progress, cancel=event)
    exc = info.value
    assert len(calls) == 3 and exc.bytes_done == calls[-1] < exc.total_bytes == path.stat().st_size
    # the partial ids are exactly those of the bytes done
    done_text = path.read_bytes()[: exc.bytes_done].decode("utf-8")
    assert list(exc.ids) == demo.encode(done_text).ids

    with pytest.raises(Cancelled):
        encode_file(demo, path, cancel=lambda: True)


def test_not_utf8_names_file_and_offset(demo, tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes(b"plain ascii words " * 1000 + "caf\u00e9".encode("latin-1") + b" more")
    with pytest.raises(TokvizError) as info:
        encode_file(demo, path, chunk_bytes=1000)
    msg = str(info.value)
    assert str(path) in msg and "offset 18003" in msg and "0xe9" in msg


def test_unreadable_and_missing_files(demo, tmp_path):
    with pytest.raises(TokvizError, match="missing.txt"):
        encode_file(demo, tmp_path / "missing.txt")
    with pytest.raises(TokvizError, match="is a folder"):
        encode_file(demo, tmp_path)  # a folder


def test_empty_file(demo, tmp_path):
    path = tmp_path / "empty.txt"
    path.write_bytes(b"")
    seen = []
    assert list(encode_file(demo, path, progress=lambda d, t: seen.append((d, t)))) == []
    assert seen == [(0, 0)]


def test_bom_is_skipped_like_the_gui_reader(demo, tmp_path):
    path = tmp_path / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbfhello there")
    assert list(encode_file(demo, path)) == demo.encode("hello there").ids


def test_crlf_single_long_line_is_cut_and_bounded(demo, tmp_path):
    """CRLF line ends, and one long line without any newline: cuts fall between words, so the
    text held at once stays near chunk_bytes."""
    crlf = tmp_path / "crlf.txt"
    crlf.write_bytes(b"first line of text\r\nsecond line here\r\n\r\n" * 3000)
    text = crlf.read_bytes().decode("utf-8")
    assert list(encode_file(demo, crlf, chunk_bytes=2048, piece_chars=300)) == demo.encode(text).ids

    line = tmp_path / "line.txt"
    line.write_text("a very long line of words without newlines " * 5000, encoding="utf-8")
    text = line.read_text(encoding="utf-8")
    pieces = []
    ids = encode_file(demo, line, chunk_bytes=4096, piece_chars=4096, on_chunk=pieces.append, keep_ids=True)
    assert list(ids) == demo.encode(text).ids
    assert max(len(p.encoding.text) for p in pieces) < 2 * 4096


def test_text_without_any_cut_is_refused_beyond_the_limit(demo, tmp_path):
    path = tmp_path / "blob.txt"
    path.write_text("x" * 50_000, encoding="utf-8")
    with pytest.raises(TokvizError, match="no place to cut"):
        encode_file(demo, path, chunk_bytes=4096, max_chunk_bytes=16_384)
    # under the limit the whole run is simply encoded as one piece
    assert list(encode_file(demo, path, chunk_bytes=4096)) == demo.encode("x" * 50_000).ids


def test_on_chunk_without_keeping_ids(demo, tmp_path):
    path = tmp_path / "k.txt"
    path.write_text("count these tokens please " * 3000, encoding="utf-8")
    counted = []
    assert encode_file(demo, path, on_chunk=lambda c: counted.append(len(c.encoding)), keep_ids=False,
                       chunk_bytes=4096, piece_chars=1000) is None
    assert sum(counted) == len(demo.encode(path.read_text(encoding="utf-8")).ids)


def test_safe_cuts_respect_added_tokens():
    from tokviz.core import AddedToken, Tokenizer

    tok = tokviz.load(need(TOKENIZERS / "bert-minilm" / "tokenizer.json"))
    text = "alpha beta gamma delta"
    assert list(safe_cuts(tok, text, 1)) == [5, 10, 16]
    spaced = Tokenizer(tok.model, normalizer=tok.normalizer, pre_tokenizer=tok.pre_tokenizer,
                       added_tokens=[AddedToken("beta gamma", 99999, special=True)])
    assert list(safe_cuts(spaced, text, 1)) == [5, 16]
    lstrip = Tokenizer(tok.model, normalizer=tok.normalizer, pre_tokenizer=tok.pre_tokenizer,
                       added_tokens=[AddedToken("gamma", 99999, special=True, lstrip=True)])
    assert list(safe_cuts(lstrip, text, 1)) == [5, 16]
    # a token matched after normalization (lower-casing here) is found in any case
    normalized = Tokenizer(tok.model, normalizer=tok.normalizer, pre_tokenizer=tok.pre_tokenizer,
                           added_tokens=[AddedToken("beta gamma", 99999, special=False, normalized=True)])
    assert list(safe_cuts(normalized, "alpha Beta GAMMA delta", 1)) == [5, 16]


def test_uncuttable_pipeline_is_read_whole_up_to_the_limit(demo, tmp_path):
    from tokviz.core import Tokenizer
    from tokviz.core.normalizers import Replace

    odd = Tokenizer(demo.model, normalizer=Replace("a b", "ab"), pre_tokenizer=demo.pre_tokenizer)
    assert "Replace" in stream_plan(odd)
    path = tmp_path / "w.txt"
    path.write_text("a b " * 5000, encoding="utf-8")
    pieces = []
    ids = encode_file(odd, path, chunk_bytes=1024, on_chunk=pieces.append)
    assert len(pieces) == 1 and list(ids) == odd.encode("a b " * 5000).ids
    with pytest.raises(TokvizError, match="cannot be cut safely"):  # bounded: beyond the limit, refused
        encode_file(odd, path, max_chunk_bytes=10_000)


@pytest.mark.shared
@pytest.mark.parametrize("rel", ["cl100k_base.tiktoken", "bert-minilm/tokenizer.json", "sentencepiece/bpe_8k.model"])
def test_same_ids_on_the_python_reference_path(tmp_path, rel):
    """The cut rule is about the pipeline, not the encoder: check it on the pure-Python path too
    (smaller prefixes: that path runs at well under 1 MB/s)."""
    tok = tokviz.load(need(TOKENIZERS / rel))
    if not hasattr(tok, "use_native"):
        pytest.skip("this tokviz has only the Python encoder (covered by the tests above)")
    tok.use_native(False)
    for name in ("en", "multi"):
        data = need(CORPUS / f"{name}.txt").read_bytes()[:60_000]
        path = tmp_path / f"{name}.txt"
        path.write_bytes(data[: len(data.decode("utf-8", "ignore").encode("utf-8"))])
        text = path.read_text(encoding="utf-8")
        assert list(encode_file(tok, path, chunk_bytes=4096, piece_chars=1500)) == tok.encode(text).ids


@pytest.mark.shared
@pytest.mark.parametrize("rel", SHARED_TOKENIZERS)
def test_text_without_spaces_is_cut_after_newlines(tmp_path, rel):
    """Chinese text with every space taken out: only the newline cut applies (not for every pipeline)."""
    tok = _tok(rel)
    data = need(CORPUS / "zh.txt").read_bytes()[:120_000]
    text = data.decode("utf-8", "ignore").replace(" ", "").replace("\u3000", "")
    path = tmp_path / "zh-nospace.txt"
    path.write_text(text, encoding="utf-8", newline="")
    pieces = []
    ids = encode_file(tok, path, chunk_bytes=8192, piece_chars=2000, on_chunk=pieces.append,
                      max_chunk_bytes=64 * 1024)
    assert list(ids) == tok.encode(text).ids
    assert len(pieces) > 20


@pytest.mark.shared
def test_sentencepiece_keeps_newline_cuts_only_when_newlines_become_spaces():
    from tokviz.core.streaming import newline_cuts_ok

    sp = tokviz.load(need(TOKENIZERS / "sentencepiece" / "unigram_8k.model"))
    assert sp.text_normalizer.normalize_spans("a\nb")[0] == "▁a▁b" and newline_cuts_ok(sp)


def test_a_nul_byte_deep_in_the_file_marks_it_binary(demo, tmp_path):
    """The first kilobytes look like text, a NUL comes later: refused with its offset and the
    file, whichever read it falls in; allow_nul=True encodes it like any other character."""
    text = "plain words on a line\n" * 2000  # 44,000 bytes
    path = tmp_path / "half-binary.txt"
    path.write_bytes(text.encode() + b"header\x00\x01\x02 more" + text.encode())
    for chunk_bytes in (4096, 1 << 20):
        with pytest.raises(TokvizError, match=r"binary file.*NUL byte at offset 44006") as err:
            encode_file(demo, path, chunk_bytes=chunk_bytes)
        assert err.value.path == str(path)
    whole = path.read_bytes().decode("utf-8")
    assert list(encode_file(demo, path, chunk_bytes=4096, allow_nul=True)) == demo.encode(whole).ids
