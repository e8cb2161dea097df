"""RWKV "world" vocabularies (rwkv_vocab_v20230424.txt) against the rwkv package's TRIE_TOKENIZER:
ids, decode (also of byte tokens that form no UTF-8), offsets, and files read without evaluating
anything."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

import tokviz
from tokviz.errors import TokvizError
from _shared import CORPUS, CORPUS_FILES, EDGE_CASES, corpus_samples

REAL = Path(__file__).parent / "data" / "real"


@pytest.fixture(scope="module")
def world():
    rwkv_tokenizer = pytest.importorskip("rwkv.rwkv_tokenizer")
    path = Path(rwkv_tokenizer.__file__).with_name("rwkv_vocab_v20230424.txt")
    if not path.exists():
        pytest.skip(f"{path} is not in this rwkv package")
    return tokviz.load(path), rwkv_tokenizer.TRIE_TOKENIZER(str(path))


def _random_texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    pools = ["abcdefghijklmnopqrstuvwxyz ABCXYZ", "0123456789", " \t\n\r\u00a0\u3000\u2028   ", "!\"#$%&'()*+,-./:;<=>?@[]^_{|}~",
             "àéîõüçñßœŁ\u0301\u0308", "的一是不了人我在有他这中大来上国", "あいうえおアイウエオ가나다라", "абвгдеёжзΑΒΓαβγ",
             "ابتثجحअआइกขค", "😀👍🏽👨‍👩‍👧❤️🇯🇵🏳️‍🌈\u200d\ufe0f", "ﬁⅫ㎏ＡＢ𝔘𝔫𓀀\U0010fffd\x00\x7f"]
    return ["".join("".join(rng.choice(pool) for _ in range(rng.randint(1, 10)))
                    for pool in (rng.choice(pools) for _ in range(rng.randint(1, 40)))) for _ in range(count)]


def _texts() -> list[str]:
    shipped = (REAL / "texts.txt").read_text(encoding="utf-8")
    texts = [shipped, *shipped.splitlines(keepends=True), *EDGE_CASES, *_random_texts(200, 5)]
    if CORPUS.exists():
        for name in CORPUS_FILES:
            texts += corpus_samples(name, 10, seed=36)
    return texts


@pytest.mark.slow
def test_ids_and_decode_equal_trie_tokenizer(world):
    tok, ref = world
    texts = _texts()
    for text in texts:
        ids = ref.encode(text)
        enc = tok.encode(text)
        assert enc.ids == ids, text
        assert tok.decode(ids) == ref.decode(ids) == text
        # each token covers the characters its bytes come from
        assert b"".join(enc.token_bytes) == text.encode("utf-8")
        for (start, end), data in zip(enc.offsets, enc.token_bytes):
            assert data in text[start:end].encode("utf-8"), (text, start, end, data)
    assert [e.ids for e in tok.encode_batch(texts[:50], threads=2)] == [ref.encode(t) for t in texts[:50]]


def test_decode_of_bytes_that_form_no_utf8(world):
    tok, ref = world
    rng = random.Random(2)
    ids = sorted(ref.idx2token)
    byte_ids = [i for i in ids if len(ref.idx2token[i]) == 1 and ref.idx2token[i][0] >= 0x80]
    assert len(byte_ids) == 128
    for _ in range(300):
        seq = [rng.choice(byte_ids) if rng.random() < 0.4 else rng.choice(ids) for _ in range(rng.randint(1, 8))]
        assert tok.decode(seq) == ref.decode(seq), seq
    assert tok.decode([byte_ids[0x64]]) == ref.decode([byte_ids[0x64]]) == "\ufffd"


def test_every_token_alone(world):
    """Each token's own text (when it is UTF-8) encodes as TRIE_TOKENIZER encodes it, and each
    token's bytes are the file's."""
    tok, ref = world
    for i, data in ref.idx2token.items():
        assert tok.token_bytes(i) == data
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        assert tok.encode_ids(text) == ref.encode(text), text


def _vocab(tmp_path: Path, lines: list[str], name: str = "rwkv_vocab_test.txt") -> Path:
    path = tmp_path / name
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


BYTES = [f"{b + 1} {bytes([b])!r} 1" if b >= 0x80 else f"{b + 1} {chr(b)!r} 1" for b in range(256)]


def test_a_small_vocabulary_in_the_real_layout(tmp_path):
    rwkv_tokenizer = pytest.importorskip("rwkv.rwkv_tokenizer")
    lines = BYTES + ["257 'ab' 2", "258 'abc' 3", '259 "it\'s" 4', "260 b'\\xe4\\xb8' 2", "261 '中文' 6",
                     "262 '\\n\\n' 2"]
    path = _vocab(tmp_path, lines)
    tok, ref = tokviz.load(path), rwkv_tokenizer.TRIE_TOKENIZER(str(path))
    assert tok.source.format == "rwkv-vocab" and tok.vocab_size == 262
    for text in ["abcab it's 中文中\n\n\n", "abd", "中", "\x00\xff", *EDGE_CASES]:
        assert tok.encode(text).ids == ref.encode(text), text
        assert tok.decode(ref.encode(text)) == ref.decode(ref.encode(text))
    enc = tok.encode("x中")  # b'\xe4\xb8' then b'\xad': both tokens belong to the one character
    assert enc.ids == [121, 260, 0xAD + 1] and enc.offsets == [(0, 1), (1, 2), (1, 2)]


@pytest.mark.parametrize("literal", [
    "__import__('os').system('touch PWNED')",
    "open('PWNED', 'w').write('x')",
    "'a' + 'b'",
    "f'{1}'",
    "('a')[0]",
    "123",
    "['a']",
    "b'\\xff' if True else 0",
])
def test_literals_are_never_evaluated(tmp_path, monkeypatch, literal):
    monkeypatch.chdir(tmp_path)
    path = _vocab(tmp_path, [*BYTES, f"257 {literal} 2"])
    with pytest.raises(TokvizError) as err:
        tokviz.load(path)
    assert "line 257" in err.value.reason
    assert not (tmp_path / "PWNED").exists()


@pytest.mark.parametrize("line, words", [
    ("257 'ab' 3", ["line 257", "2 bytes", "says 3"]),
    ("256 'ab' 2", ["line 257", "id 256", "twice"]),
    ("257 'a' 1", ["line 257", "listed twice"]),
    ("257 '\\ud800' 3", ["line 257", "surrogate"]),
    ("257 ab 2", ["line 257", "expected 'id literal length'"]),
    ("2000000000 'ab' 2", ["token id 2000000000 is out of range"]),
    ("99999999999 'ab' 2", ["line 257", "out of range"]),
])
def test_bad_lines_refused_by_name(tmp_path, line, words):
    path = _vocab(tmp_path, [*BYTES, line])
    with pytest.raises(TokvizError) as err:
        tokviz.load(path)
    for word in words:
        assert word in err.value.reason


def test_bytes_without_a_token_are_named_when_encoding(tmp_path):
    path = _vocab(tmp_path, [line for line in BYTES if not line.startswith("99 ")])  # no token for "b"
    tok = tokviz.load(path)
    assert tok.encode("aa").ids == [98, 98]
    with pytest.raises(TokvizError, match="no token matches the bytes at byte 1"):
        tok.encode("abc")
