"""Whatever it is given, the extension raises Python exceptions and never crashes the interpreter."""
from __future__ import annotations

import random
import subprocess
import sys
from array import array

import pytest

import tokviz
from tokviz.defaults import default_tokenizer_path
from tokviz.errors import TokvizError, check_text

from _shared import examples

_native = pytest.importorskip("tokviz._native", reason="the C extension tokviz._native is not built")


@pytest.fixture(scope="module")
def tok():
    return tokviz.load(default_tokenizer_path())


def _first_surrogate(text: str) -> int:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start
    return -1


def test_surrogate_at_finds_what_utf8_encoding_stops_at():
    """The C scan check_text uses gives the position Python's UTF-8 encoder stops at, for strings of
    every width (1, 2 and 4 bytes a character) and surrogates before, inside and after 16-character
    blocks."""
    rng = random.Random(5)
    alphabets = ["abc \u00e9", "abc\u4e2d\u6587\u20ac", "ab\U0001f600\u4e2d\U0010ffff", "\ud7ff\ue000\uf8ff", "\U0001f600x"]
    for _ in range(3000):
        chars = rng.choice(alphabets)
        text = "".join(rng.choice(chars) for _ in range(rng.randint(0, 70)))
        if rng.random() < 0.7:
            at = rng.randint(0, len(text))
            text = text[:at] + chr(rng.choice([0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xD83D])) + text[at:]
        assert _native.surrogate_at(text) == _first_surrogate(text), ascii(text)
    with pytest.raises(TypeError):
        _native.surrogate_at(b"bytes")
    with pytest.raises(TokvizError, match="U\\+DC00 at character 17"):
        check_text("中" * 17 + "\udc00")


def test_lone_surrogates_are_refused_with_their_place(tok):
    """The C encoder meets a lone surrogate as it reads the text (also in a piece it has cached);
    the error says where it is."""
    for text, at in [("a\ud800b", 1), ("\udfff", 0), ("x" * 100 + "\ud83d", 100), ("中文 abc\udc00中文", 6)]:
        tok.encode_ids(text.replace(text[at], ""))  # its other pieces cached
        with pytest.raises(TokvizError, match=f"surrogate U\\+{ord(text[at]):04X} at character {at};"):
            tok.encode(text)
        with pytest.raises(TokvizError, match=f"surrogate U\\+{ord(text[at]):04X} at character {at};"):
            tok.encode_ids(text)
        with pytest.raises(TokvizError, match="surrogate"):
            tok.encode_batch(["ok", text], threads=2)


def test_native_encoder_checks_its_input(tok):
    enc = tok.native_encoder().encoder
    with pytest.raises(ValueError, match="surrogate"):
        enc.encode("a\ud800")
    with pytest.raises(ValueError, match="surrogate"):
        enc.encode_many(["fine", "bad\udc00"], 2)
    with pytest.raises(TypeError):
        enc.encode(b"bytes")
    with pytest.raises(TypeError):
        enc.encode(None)
    with pytest.raises(TypeError):
        enc.encode_many(["a", 3], 2)
    with pytest.raises(TypeError):
        enc.encode_many(5)
    with pytest.raises(ValueError):
        enc.encode("a", 0, 7)
    assert enc.encode_many([], 4) == []
    assert enc.encode_many(["a", "b"], 0, 0) == enc.encode_many(["a", "b"], 10_000, 0)
    assert enc.encode("", 0, 1) == ([], [])


def test_constructor_validates(tok):
    good = tok.native_encoder().encoder
    with pytest.raises(RuntimeError):
        _native.Encoder.__new__(_native.Encoder).encode("x")
    with pytest.raises(RuntimeError):
        good.__init__([b"x"] * 300, None, 0)
    with pytest.raises(ValueError, match="256"):
        _native.Encoder([bytes([i]) for i in range(10)], None, 0)
    with pytest.raises(ValueError, match="byte 0x"):
        _native.Encoder([bytes([i]) for i in range(255)] + [b"ab"], None, 0)
    with pytest.raises(ValueError, match="two ids"):
        _native.Encoder([bytes([i]) for i in range(256)] + [b"a"], None, 0)
    with pytest.raises(TypeError):
        _native.Encoder([bytes([i]) for i in range(255)] + ["str"], None, 0)
    with pytest.raises(ValueError, match="pattern"):
        _native.Encoder([bytes([i]) for i in range(256)], None, 42)
    tokens = [bytes([i]) for i in range(256)] + [b"ab"]
    with pytest.raises(ValueError, match="merges"):
        _native.Encoder(tokens, array("i", [97, 98, 0, 9999]), 0)
    with pytest.raises(ValueError, match="merges"):
        _native.Encoder(tokens, array("i", [97, 98, 0]), 0)
    with pytest.raises(TypeError):
        _native.Encoder(tokens, array("d", [1.0] * 4), 0)
    ok = _native.Encoder(tokens, array("i", [97, 98, 0, 256]), 0)
    assert ok.encode("xabx", 0, 0) == [120, 256, 120]


def test_odd_and_large_texts(tok):
    rng = random.Random(5)
    odd = [
        "\x00" * 1000,
        "".join(chr(rng.choice([rng.randrange(0xD800), rng.randrange(0xE000, 0x110000)])) for _ in range(20_000)),
        "\U0010ffff" * 500,
        "'" * 1000 + "s" * 10,
        " \n" * 20_000,
        "a" * 300_000,
        "1" * 100_000,
    ]
    for text in odd:
        native = tok.encode(text)
        assert native.ids == tok.use_native(False).encode(text).ids
        tok.use_native(True)
        assert len(native.offsets) == len(native.ids)


def test_threads_do_not_interfere(tok):
    """Many Python threads calling the GIL-free encoder at once (they share its bounded caches)."""
    from concurrent.futures import ThreadPoolExecutor

    texts = [f"text {i} " + "word " * (i % 50) + "中文" * (i % 7) for i in range(400)]
    expected = [tok.encode(t).ids for t in texts]
    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(tok.encode_ids, texts)) == expected


def test_pure_python_switch():
    code = (
        "import tokviz, tokviz.native as n; from tokviz.defaults import default_tokenizer_path as p;"
        "t = tokviz.load(p()); print(n.available, t.describe()['encoder'], t.native_encoder())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env={**__import__("os").environ, "TOKVIZ_PURE_PYTHON": "1"},
        capture_output=True, text=True, check=True,
    ).stdout.split()
    assert out == ["False", "python", "None"]


def test_sentencepiece_reader_decodes_pieces_like_python():
    """The C reader's own UTF-8 decoder accepts exactly what Python's strict decoder accepts."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    def record(raw: bytes) -> bytes:
        return bytes([0x0A, len(raw) + 2, 0x0A, len(raw)]) + raw

    @settings(max_examples=examples(3000), deadline=None)
    @given(raw=st.one_of(st.binary(min_size=1, max_size=40),
                         st.text(min_size=1, max_size=20).map(lambda t: t.encode("utf-8", "surrogatepass"))))
    def check(raw):
        if len(raw) > 120:
            return
        pieces = _native.sp_pieces(record(raw), 0)[0]
        try:
            expected = [raw.decode("utf-8")]
        except UnicodeDecodeError:
            expected = []
        assert pieces == expected

    check()


def test_sentencepiece_reader_survives_any_bytes():
    """sp_pieces reads what it can and stops at anything unusual; it never reads past the data."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    record = b"\x0a\x0c\x0a\x03abc\x15\x00\x00\x80\x3f\x18\x01"  # piece 'abc', score 1.0, NORMAL
    pieces, scores, types, vocab, end = _native.sp_pieces(record * 3, 0)
    assert pieces == ["abc"] * 3 and list(array("f", scores)) == [1.0] * 3 and types == b"\x01" * 3
    assert vocab == {"abc": 0} and end == len(record) * 3
    bad_utf8 = b"\x0a\x05\x0a\x03\xff\xfe\xfd"
    assert _native.sp_pieces(record + bad_utf8, 0)[4] == len(record)  # stops before it
    for pos in (-1, len(record) + 1):
        with pytest.raises(ValueError):
            _native.sp_pieces(record, pos)

    @settings(max_examples=examples(2000), deadline=None)
    @given(data=st.binary(max_size=300), pos=st.integers(0, 300))
    def fuzz(data, pos):
        if pos > len(data):
            return
        pieces, scores, types, vocab, end = _native.sp_pieces(data, pos)
        assert pos <= end <= len(data) and len(pieces) * 4 == len(scores) and len(pieces) == len(types)

    fuzz()
    for _ in range(200):  # real records with random damage
        data = bytearray(record * 5)
        for _ in range(3):
            data[random.randrange(len(data))] = random.randrange(256)
        _native.sp_pieces(bytes(data), 0)


def test_merge_lines_ok_agrees_with_the_python_checks():
    """The C pre-check of "a b" merge lines accepts exactly the lists first_bad_merge_line's
    Python checks accept."""
    from tokviz.formats import _util

    rng = random.Random(11)
    vocab = {t: i for i, t in enumerate(["a", "b", "ab", "abc", "a\nb", "ä", "äb", " ", "x y", "\n"])}
    parts = ["a", "b", "c", "ab", "ä", "", " ", "\n", "x"]
    for _ in range(4000):
        lines = [rng.choice(parts) + rng.choice([" ", "", "  "]) + rng.choice(parts) for _ in range(rng.randint(0, 4))]
        fast = _native.merge_lines_ok(vocab, lines)
        saved, _util._merge_lines_ok = _util._merge_lines_ok, None
        try:
            slow = _util.first_bad_merge_line(vocab, lines) is None
        finally:
            _util._merge_lines_ok = saved
        assert fast == slow, lines
