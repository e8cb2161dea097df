"""The cases of tiktoken's own test suite (tests/test_encoding.py), re-expressed for tokviz with
tiktoken itself as the oracle: each input is encoded by both and the ids, the decode and the
round trip compared.  Files: cl100k_base and Whisper's GPT-2 ranks (gpt2 / r50k_base) shipped
under tests/data/real.

tiktoken's allowed/disallowed special-token sets become tokviz's `allow_special` (all or none).
Text with surrogates is repaired as tiktoken repairs it (a pair joined, a lone one U+FFFD), the
offsets given in the caller's string.
"""
from __future__ import annotations

import lzma
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

import tokviz
from _shared import assigned_text, examples

tiktoken = pytest.importorskip("tiktoken")
from tiktoken.load import load_tiktoken_bpe  # noqa: E402
from tiktoken_ext import openai_public  # noqa: E402

REAL = Path(__file__).parent / "data" / "real"
FILES = {"cl100k_base": "cl100k_base.tiktoken.xz", "gpt2": "whisper-gpt2.tiktoken.xz"}


@pytest.fixture(scope="module")
def pairs(tmp_path_factory):
    """name -> (tokviz tokenizer, tiktoken Encoding) for each shipped file, the Encoding built as
    tiktoken defines the encoding (its ranks read from the local file, not downloaded)."""
    root = tmp_path_factory.mktemp("tiktoken-suite")
    out = {}
    for name, packed in FILES.items():
        path = root / f"{name}.tiktoken"
        path.write_bytes(lzma.decompress((REAL / packed).read_bytes()))
        ranks = load_tiktoken_bpe(str(path))
        if name == "gpt2":
            spec = {"name": name, "pat_str": openai_public.r50k_pat_str, "mergeable_ranks": ranks,
                    "special_tokens": {"<|endoftext|>": 50256}}
        else:
            original = openai_public.load_tiktoken_bpe
            openai_public.load_tiktoken_bpe = lambda *a, **k: ranks
            try:
                spec = openai_public.cl100k_base()
            finally:
                openai_public.load_tiktoken_bpe = original
        out[name] = (tokviz.load(path), tiktoken.Encoding(**spec))
    return out


def _same(tok, enc, text: str) -> None:
    ids = tok.encode(text).ids
    assert ids == enc.encode_ordinary(text), text[:60]
    assert tok.decode(ids) == enc.decode(ids) == text, text[:60]


@pytest.mark.parametrize("name", FILES)
def test_simple(pairs, name):
    tok, enc = pairs[name]
    _same(tok, enc, "hello world")
    with_special = tok.encode("hello <|endoftext|>", allow_special=True).ids
    assert with_special == enc.encode("hello <|endoftext|>", allowed_special="all")
    assert tok.decode(with_special) == enc.decode(with_special)


def test_simple_repeated(pairs):
    tok, enc = pairs["gpt2"]
    for n in range(1, 18):
        _same(tok, enc, "0" * n)


def test_large_repeated(pairs):
    tok, enc = pairs["cl100k_base"]
    text = "x" * 1_000_000
    assert tok.encode(text).ids == enc.encode_ordinary(text)


@pytest.mark.parametrize("text", ["rer", "'rer", "today\n ", "today\n \n", "today\n  \n", " \x850", "hello world"])
def test_simple_regex(pairs, text):
    _same(*pairs["cl100k_base"], text)


def test_encode_empty(pairs):
    tok, _ = pairs["gpt2"]
    assert tok.encode("").ids == []


def test_surrogates(pairs):
    """A surrogate pair encodes as the character it stands for, a lone surrogate as U+FFFD, as in
    tiktoken; the offsets point into the text as given (the pair is two characters of it)."""
    tok, enc = pairs["cl100k_base"]
    _same(tok, enc, "👍")
    texts = ["\ud83d\udc4d", "\ud83d", "a\ud83d\udc4db", "\udc4d\ud83d", "x \ud83d\ud83d\udc4d y\udfff",
             "\ud83d\udc4d" * 50 + " hello"]
    for text in texts:
        want = enc.encode_ordinary(text)
        assert want == enc.encode(text)
        for native in (True, False):
            tok.use_native(native)
            encoding = tok.encode(text)
            assert encoding.ids == want, (text, native)
            assert tok.encode_ids(text) == want
            assert encoding.text == text
            assert encoding.offsets[0][0] == 0 and encoding.offsets[-1][1] == len(text)
        tok.use_native(True)
    assert tok.encode("a\ud83d\udc4db").offsets[-1] == (3, 4)  # "b": after the two halves of the pair
    assert tok.decode(enc.encode_ordinary("\ud83d\udc4d")) == enc.decode(enc.encode_ordinary("\ud83d\udc4d")) == "👍"
    assert [e.ids for e in tok.encode_batch(texts)] == enc.encode_ordinary_batch(texts)
    assert tok.encode_ids_batch(texts) == enc.encode_ordinary_batch(texts)
    assert tok.encode("<|endoftext|>\ud83d", allow_special=True).ids == enc.encode("<|endoftext|>\ud83d",
                                                                                   allowed_special="all")


def test_surrogate_repair_is_tiktokens(pairs):
    """tokviz's repair gives the text tiktoken's UTF-16 round trip gives, on random mixes."""
    import random

    from tokviz.core.surrogates import repair_surrogates

    tok, enc = pairs["gpt2"]
    rnd = random.Random(36)
    alphabet = ["\ud83d", "\udc4d", "\udbff", "\udc00", "\ud800", "a", " ", "中", "\n", "👍"]
    for _ in range(500):
        text = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(1, 10)))
        assert repair_surrogates(text)[0] == text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        assert tok.encode(text).ids == enc.encode_ordinary(text), ascii(text)


@pytest.mark.parametrize("name", FILES)
def test_catastrophically_repetitive(pairs, name):
    tok, enc = pairs[name]
    for c in ["^", "0", "a", "'s", " ", "\n"]:
        text = c * 10_000
        _same(tok, enc, text)
        _same(tok, enc, " " + text)
        _same(tok, enc, " " + text + "\n")


@pytest.mark.parametrize("name", FILES)
def test_basic_roundtrip(pairs, name):
    for text in ["hello", "hello ", "hello  ", " hello", " hello ", " hello  ", "hello world", "请考试我的软件！12345"]:
        _same(*pairs[name], text)


@pytest.mark.parametrize("name", FILES)
def test_random_roundtrip(pairs, name):
    tok, enc = pairs[name]

    @settings(max_examples=examples(200), deadline=None, suppress_health_check=list(HealthCheck))
    @given(assigned_text(200))
    def check(text):
        _same(tok, enc, text)

    check()


@pytest.mark.parametrize("name", FILES)
def test_single_token_bytes(pairs, name):
    """Every token's bytes are tiktoken's, and encoding them alone gives the token back."""
    tok, enc = pairs[name]
    for token in range(enc.n_vocab):
        try:
            data = enc.decode_single_token_bytes(token)
        except KeyError:
            continue
        assert tok.token_bytes(token) == data, token
        if token < 2000 or token % 97 == 0:
            text = data.decode("utf-8", "replace")
            if text.encode("utf-8") == data and not tok.is_special(token):
                assert tok.encode(text).ids == enc.encode_ordinary(text), token


def test_special_tokens(pairs):
    tok, enc = pairs["cl100k_base"]
    text = "<|endoftext|> hello <|fim_prefix|> there <|fim_middle|>"
    specials = {enc.encode_single_token(s) for s in ("<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>")}
    plain = tok.encode(text).ids  # (encode_ordinary: the strings are text)
    assert plain == enc.encode(text, disallowed_special=()) and not specials & set(plain)
    allowed = tok.encode(text, allow_special=True).ids
    assert allowed == enc.encode(text, allowed_special="all") and specials <= set(allowed)
    assert tok.decode(allowed) == enc.decode(allowed) == text


@pytest.mark.parametrize("name", FILES)
def test_batch_encode(pairs, name):
    tok, enc = pairs[name]
    texts = ["hello world", "goodbye world", "", "请考试我的软件！12345"]
    assert [e.ids for e in tok.encode_batch(texts)] == enc.encode_ordinary_batch(texts)
    assert [e.ids for e in tok.encode_batch(texts[:1])] == [enc.encode_ordinary(texts[0])]
