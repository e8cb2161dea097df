"""Ids as numpy arrays: `encode_ids_batch(..., as_array=True)` and `tokviz encode FILE --out ids.npy`.

The oracle for the arrays is the list form of the same call (itself checked against the reference
libraries elsewhere), and for cl100k and Qwen2.5 also tiktoken / HF tokenizers run here.  Every
native kind (byte-level BPE, sentencepiece, BERT, HF WordPiece and Unigram) writes its arrays
without a list.  The
oracle for an ids file is `Tokenizer.encode_file` (which may cut the text at safe points).
"""
from __future__ import annotations

import lzma
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

import tokviz
from tokviz import native
from tokviz.cli import main

REAL = Path(__file__).parent / "data" / "real"
TEXTS = (REAL / "texts.txt").read_text(encoding="utf-8").splitlines()


def _unxz(src: Path, dest: Path) -> Path:
    dest.write_bytes(lzma.decompress(src.read_bytes()))
    return dest


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    """name -> path of the real tokenizer files, decompressed."""
    root = tmp_path_factory.mktemp("real")
    paths = {}
    for name in ("qwen2.5", "bert-minilm"):
        folder = root / name
        folder.mkdir()
        _unxz(REAL / name / "tokenizer.json.xz", folder / "tokenizer.json")
        shutil.copy(REAL / name / "tokenizer_config.json", folder)
        paths[name] = folder
    paths["cl100k"] = _unxz(REAL / "cl100k_base.tiktoken.xz", root / "cl100k_base.tiktoken")
    suite = REAL / "sentencepiece-suite"
    paths["sp-bpe"] = _unxz(suite / "botchan_en_bpe_1000.model.xz", root / "botchan_en_bpe_1000.model")
    paths["sp-unigram"] = _unxz(suite / "kyoto_ja_unigram_8000.model.xz", root / "kyoto_ja_unigram_8000.model")
    paths["tortoise"] = REAL / "tortoise-tokenizer.json"
    paths["hf-unigram"] = _unxz(REAL / "mon-unigram.json.xz", root / "mon-unigram.json")
    paths["hf-wordpiece"] = _unxz(REAL / "nepali-wordpiece.json.xz", root / "nepali-wordpiece.json")
    return paths


_loaded: dict = {}


def load(real, name):
    if name not in _loaded:
        _loaded[name] = tokviz.load(real[name])
    return _loaded[name]


KINDS = ["qwen2.5", "cl100k", "bert-minilm", "sp-bpe", "sp-unigram", "hf-unigram", "hf-wordpiece", "tortoise"]


def texts_for(tok) -> list[str]:
    """The shared sample lines, empty texts, a non-NFC text, and texts holding special tokens."""
    specials = [t.content for t in tok.added.tokens if t.special][:2] or ["<s>"]
    return TEXTS + ["", "e\u0301t\u00e9", "", f"{specials[0]} hello {specials[-1]}", specials[0],
                    f"a{specials[-1]}b{specials[0]}", ""]


def per_text(ids, offsets) -> list[list[int]]:
    return [ids[offsets[i] : offsets[i + 1]].tolist() for i in range(len(offsets) - 1)]


def test_encoders_under_test_are_the_intended_ones(real):
    """Each kind goes through the path it stands for (else the parity below tests less)."""
    if not native.available:
        pytest.skip(native.reason)
    for name in ("qwen2.5", "cl100k", "sp-bpe", "sp-unigram", "bert-minilm", "hf-unigram", "hf-wordpiece"):
        assert hasattr(load(real, name).native_encoder(), "encode_many_flat"), name
    assert type(load(real, "bert-minilm").native_encoder()).__name__ == "NativeBert"
    assert load(real, "hf-unigram").native_encoder().describe().startswith("native Unigram model")
    assert load(real, "hf-wordpiece").native_encoder().describe().startswith("native WordPiece model")
    assert load(real, "tortoise").native_encoder() is None  # the pure Python path


@pytest.mark.parametrize("name", KINDS)
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("add_special_tokens", [False, True])
def test_arrays_equal_lists(real, name, threads, add_special_tokens):
    tok = load(real, name)
    texts = texts_for(tok)
    lists = tok.encode_ids_batch(texts, threads=threads, add_special_tokens=add_special_tokens)
    ids, offsets = tok.encode_ids_batch(texts, threads=threads, add_special_tokens=add_special_tokens, as_array=True)
    assert ids.dtype == np.uint32 and offsets.dtype == np.int64
    assert ids.ndim == 1 and offsets.shape == (len(texts) + 1,) and offsets[0] == 0 and offsets[-1] == len(ids)
    assert per_text(ids, offsets) == lists


@pytest.mark.parametrize("name", ["qwen2.5", "cl100k"])
@pytest.mark.parametrize("allow_special", [True, False])
def test_special_tokens_in_text(real, name, allow_special):
    tok = load(real, name)
    texts = texts_for(tok)
    lists = tok.encode_ids_batch(texts, threads=2, allow_special=allow_special)
    ids, offsets = tok.encode_ids_batch(texts, threads=2, allow_special=allow_special, as_array=True)
    assert per_text(ids, offsets) == lists
    special_ids = {t.id for t in tok.added.tokens if t.special}
    assert bool(special_ids & set(ids.tolist())) == allow_special


@pytest.mark.parametrize("name", KINDS)
def test_empty_inputs(real, name):
    tok = load(real, name)
    ids, offsets = tok.encode_ids_batch([], as_array=True)
    assert ids.dtype == np.uint32 and len(ids) == 0 and offsets.tolist() == [0]
    ids, offsets = tok.encode_ids_batch(["", "", ""], threads=2, as_array=True)
    assert len(ids) == 0 and offsets.tolist() == [0, 0, 0, 0]


@pytest.mark.parametrize("name", ["qwen2.5", "cl100k", "sp-bpe", "sp-unigram"])
def test_random_texts(real, name):
    """Texts drawn from a mix of scripts, combining marks, controls and special tokens (fixed seed)."""
    import random

    tok = load(real, name)
    rng = random.Random(39)
    specials = [t.content for t in tok.added.tokens if t.special][:3]
    alphabet = list("ab Z9 \n\t\x00.,'") + ["\u0301", "\u00e9", "\u4e2d", "\u6587", "\u0416", "\U0001F600",
                                               "\u3000", "\ufeff", "\u200d"] + specials
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 60))) for _ in range(300)]
    ids, offsets = tok.encode_ids_batch(texts, threads=2, as_array=True)
    assert per_text(ids, offsets) == tok.encode_ids_batch(texts, threads=2)


def test_cl100k_against_tiktoken(real):
    tiktoken = pytest.importorskip("tiktoken")
    from tiktoken.load import load_tiktoken_bpe

    from tokviz.core.patterns import CL100K_PATTERN

    ref = tiktoken.Encoding("cl100k-test", pat_str=CL100K_PATTERN, mergeable_ranks=load_tiktoken_bpe(str(real["cl100k"])),
                            special_tokens={})
    texts = TEXTS * 3 + [""]
    ids, offsets = load(real, "cl100k").encode_ids_batch(texts, threads=2, as_array=True)
    assert per_text(ids, offsets) == ref.encode_ordinary_batch(texts, num_threads=2)


def test_qwen_against_hf_tokenizers(real):
    tokenizers = pytest.importorskip("tokenizers")
    ref = tokenizers.Tokenizer.from_file(str(real["qwen2.5"] / "tokenizer.json"))
    tok = load(real, "qwen2.5")
    texts = texts_for(tok)
    ids, offsets = tok.encode_ids_batch(texts, threads=2, as_array=True)
    assert per_text(ids, offsets) == [e.ids for e in ref.encode_batch(texts, add_special_tokens=False)]


def test_lone_surrogate(real):
    """tiktoken's tokenizers encode a lone surrogate repaired (as the list form); others refuse it."""
    texts = ["ok \ud800 x", "fine"]
    cl100k = load(real, "cl100k")
    ids, offsets = cl100k.encode_ids_batch(texts, as_array=True)
    assert per_text(ids, offsets) == cl100k.encode_ids_batch(texts)
    with pytest.raises(tokviz.TokvizError, match="surrogate"):
        load(real, "qwen2.5").encode_ids_batch(texts, as_array=True)


def test_native_flat_call_refuses_bad_input(real):
    """The C call itself: a non-str item, a lone surrogate and absurd thread counts fail cleanly."""
    if not native.available:
        pytest.skip(native.reason)
    encoder = load(real, "cl100k").native_encoder().encoder
    with pytest.raises(TypeError):
        encoder.encode_many(["a", 3], 2, flat=True)
    with pytest.raises(ValueError):
        encoder.encode_many(["a", "b\udc80"], 2, flat=True)
    for threads in (-5, 0, 10_000):
        ids, offsets, rejected = encoder.encode_many(["hello world"] * 3, threads, flat=True)
        assert np.frombuffer(offsets, np.int64).tolist() == [0, 2, 4, 6] and rejected == []
        assert np.frombuffer(ids, np.uint32).tolist() == [15339, 1917] * 3
    sp = load(real, "sp-bpe").native_encoder().encoder
    with pytest.raises(TypeError):
        sp.encode_many([b"bytes"], 1, 0, flat=True)
    bert = load(real, "bert-minilm").native_encoder().c
    with pytest.raises(TypeError):
        bert.encode_many(["a", None], 2, flat=True)
    with pytest.raises(ValueError):
        bert.encode_many(["a", "b\udc80"], 2, flat=True)
    model = load(real, "hf-wordpiece").native_encoder().model
    with pytest.raises(TypeError):
        model.encode_words(["a", 3], 2, flat=True)
    for threads in (-5, 0, 10_000):
        ids, offsets, skipped = bert.encode_many(["hello world"] * 3, threads, flat=True)
        assert np.frombuffer(offsets, np.int64).tolist() == [0, 2, 4, 6] and skipped == []
        ids, counts, _ = model.encode_words(["hello", "world"] * 3, threads, flat=True)
        assert len(np.frombuffer(ids, np.int32)) == np.frombuffer(counts, np.int32).sum() > 0


# ---- tokviz encode FILE --out ------------------------------------------------------------------

@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """A text of ~300 KB (larger than encode_file's pieces) mixing the sample lines."""
    lines = [TEXTS[(i * 7) % len(TEXTS)] + f" {i}" for i in range(6000)]
    path = tmp_path_factory.mktemp("corpus") / "corpus.txt"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.first_cases(1)
@pytest.mark.parametrize("name", ["qwen2.5", "cl100k", "sp-unigram", "tortoise"])
def test_encode_out_npy(real, corpus, tmp_path, capsys, name):
    out = tmp_path / "ids.npy"
    code, stdout, err = run(capsys, "encode", "-t", real[name], corpus, "--out", out)
    assert code == 0, err
    got = np.load(out)
    expected = list(load(real, name).encode_file(corpus))
    assert got.dtype == np.uint32 and got.tolist() == expected
    assert f"{len(expected):,} ids" in stdout and str(out) in stdout
    assert os.listdir(tmp_path) == ["ids.npy"]  # no temporary file left


def test_encode_out_raw_bin(real, corpus, tmp_path, capsys):
    out = tmp_path / "ids.bin"
    code, _, err = run(capsys, "encode", "-t", real["cl100k"], corpus, "--out", out, "--json")
    assert code == 0, err
    expected = list(load(real, "cl100k").encode_file(corpus))
    assert out.stat().st_size == 4 * len(expected)
    assert np.fromfile(out, dtype="<u4").tolist() == expected


def test_encode_out_with_special_tokens(real, corpus, tmp_path, capsys):
    out = tmp_path / "ids.npy"
    code, _, err = run(capsys, "encode", "-t", real["bert-minilm"], corpus, "--out", out, "--add-special-tokens")
    assert code == 0, err
    tok = load(real, "bert-minilm")
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    assert np.load(out).tolist() == [cls] + list(tok.encode_file(corpus)) + [sep]


def test_encode_out_refuses_existing_file(real, corpus, tmp_path, capsys):
    out = tmp_path / "ids.npy"
    out.write_bytes(b"keep me")
    code, stdout, err = run(capsys, "encode", "-t", real["cl100k"], corpus, "--out", out)
    assert code == 2 and stdout == ""
    assert err.count("\n") == 1 and str(out) in err and "--force" in err
    assert out.read_bytes() == b"keep me"
    code, _, err = run(capsys, "encode", "-t", real["cl100k"], corpus, "--out", out, "--force")
    assert code == 0, err
    assert np.load(out).tolist() == list(load(real, "cl100k").encode_file(corpus))
    assert sorted(os.listdir(tmp_path)) == ["ids.npy"]


@pytest.mark.parametrize("case", ["missing folder", "missing input", "not utf-8", "folder as output"])
def test_encode_out_bad_paths(real, tmp_path, capsys, case):
    text = tmp_path / "text.txt"
    text.write_text("hello world", encoding="utf-8")
    out = tmp_path / "ids.npy"
    if case == "missing folder":
        out = tmp_path / "no such folder" / "ids.npy"
        named = out
    elif case == "missing input":
        text = tmp_path / "absent.txt"
        named = text
    elif case == "not utf-8":
        text.write_bytes("caf\xe9 ".encode("latin-1") * 1000)
        named = text
    else:
        out = tmp_path / "a folder"
        out.mkdir()
        named = out
    code, stdout, err = run(capsys, "encode", "-t", real["cl100k"], text, "--out", out)
    assert code == 2 and stdout == ""
    assert err.startswith("tokviz: error: ") and err.count("\n") == 1 and str(named) in err
    assert "Traceback" not in err
    assert not (tmp_path / "ids.npy").exists()
    assert not [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]


def test_encode_out_needs_a_file(real, tmp_path, capsys):
    code, _, err = run(capsys, "encode", "-t", real["cl100k"], "-", "--out", tmp_path / "ids.npy")
    assert code == 2 and "--out needs a text FILE" in err


def test_encode_out_progress_line(real, corpus, tmp_path, capsys, monkeypatch):
    import tokviz.cli

    monkeypatch.setattr(tokviz.cli, "PROGRESS_FROM_BYTES", 0)
    code, _, err = run(capsys, "encode", "-t", real["cl100k"], corpus, "--out", tmp_path / "ids.npy")
    assert code == 0
    assert f"encoding {corpus}" in err and "100.0%" in err


@pytest.mark.first_cases(1)
@pytest.mark.parametrize("threads", ["1", "3"])
def test_encode_out_on_threads_writes_the_same_ids(real, tmp_path, capsys, threads):
    """A file of several read chunks (encode_file reads 1 MB at a time), each chunk's pieces encoded
    together on the threads: the ids of the whole file, in order."""
    lines = [TEXTS[(i * 5) % len(TEXTS)] + f" {i}" for i in range(40_000)]
    big = tmp_path / "big.txt"
    big.write_text("\n".join(lines), encoding="utf-8")
    assert big.stat().st_size > 2 << 20
    out = tmp_path / "ids.npy"
    code, _, err = run(capsys, "encode", "-t", real["qwen2.5"], big, "--out", out, "--threads", threads)
    assert code == 0, err
    assert np.load(out).tolist() == load(real, "qwen2.5").encode_ids(big.read_text(encoding="utf-8"))


@pytest.mark.parametrize("value", ["0", "-2", "two"])
def test_encode_out_refuses_a_thread_count_below_one(real, corpus, tmp_path, capsys, value):
    with pytest.raises(SystemExit) as exit_:
        main(["encode", "-t", str(real["cl100k"]), str(corpus), "--out", str(tmp_path / "ids.npy"), "--threads", value])
    assert exit_.value.code == 2
    assert "threads must be a whole number of at least 1" in capsys.readouterr().err
    assert not (tmp_path / "ids.npy").exists()


def test_encode_file_hands_a_batch_its_pieces_in_order(real, corpus):
    """encode_many gets all the pieces of a read chunk at once; on_chunk then sees the same pieces,
    at the same offsets, as with one encode call per piece."""
    tok = load(real, "cl100k")
    batches, one_by_one, batched = [], [], []

    def encode_many(pieces):
        batches.append(len(pieces))
        return [tok.encode(p) for p in pieces]

    tok.encode_file(corpus, keep_ids=False, on_chunk=lambda c: one_by_one.append((c.char_start, c.byte_start, c.encoding.ids)))
    tok.encode_file(corpus, keep_ids=False, encode_many=encode_many,
                    on_chunk=lambda c: batched.append((c.char_start, c.byte_start, c.encoding.ids)))
    assert batched == one_by_one and len(one_by_one) > 1
    assert sum(batches) == len(one_by_one) and max(batches) > 1
