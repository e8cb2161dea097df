"""What a load builds in C: the byte-level Encoder's tables (native._tables) and a .tiktoken file's
ranks (native.tiktoken_table) are the same as their Python definitions, on real tokenizers and on
the irregular inputs each must decline; a loaded tokenizer has its encoder already, and changing a
pipeline stage afterwards drops it."""
from __future__ import annotations

import lzma
from pathlib import Path

import pytest

import tokviz
from tokviz import native
from tokviz.core.models import BPE
from tokviz.core.normalizers import Lowercase
from tokviz.formats import tiktoken_file

from _shared import SHARED_TOKENIZER_FILES

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


def _real(name: str, tmp_path: Path) -> Path:
    src = REAL / name
    if src.suffix == ".xz":
        out = tmp_path / src.parent.name / src.stem if "/" in name else tmp_path / src.stem
        out.parent.mkdir(exist_ok=True)
        out.write_bytes(lzma.decompress(src.read_bytes()))
        return out
    return src


def _byte_level_files(tmp_path):
    files = [_real("cl100k_base.tiktoken.xz", tmp_path), _real("whisper-multilingual.tiktoken.xz", tmp_path),
             _real("qwen2.5/tokenizer.json.xz", tmp_path), _real("deepseek-v4/tokenizer.json.xz", tmp_path)]
    files += [p for k, p in SHARED_TOKENIZER_FILES.items() if k in ("qwen2.5", "llama3", "cl100k") and p.exists()]
    return files


def _pairs(tables):
    """{(left, right): (rank, merged)} as the Encoder keeps them (a later merge of a pair wins)."""
    if tables is None or tables[1] is None:
        return None
    quads = tables[1]
    return {(quads[k], quads[k + 1]): (quads[k + 2], quads[k + 3]) for k in range(0, len(quads), 4)}


@pytest.mark.slow
def test_c_tables_equal_the_python_definition_on_real_tokenizers(tmp_path):
    for path in _byte_level_files(tmp_path):
        name = "whisper-multilingual" if "multilingual" in path.name else None
        pattern = tiktoken_file.TIKTOKEN_PATTERNS["gpt2"] if name else None
        tok = tokviz.load(path, pattern=pattern)
        c, py = native._tables(tok.model), native._tables_python(tok.model)
        assert (c is None) == (py is None), path
        assert c[0] == py[0], path
        assert _pairs(c) == _pairs(py), path


def _model(vocab, lines=None):
    return BPE(vocab, None, merge_lines=lines) if lines is not None else BPE(vocab, None)


BYTES = {chr(c): c for c in range(ord("!"), ord("~") + 1)}  # printable ASCII stands for itself


@pytest.mark.parametrize("vocab, lines, why", [
    ({**BYTES, "ab": 1000, "x": 1000}, ["a b"], "two tokens share an id"),
    ({**BYTES}, ["a b"], "a merge makes a string outside the vocabulary"),
    ({**BYTES, "ab": 200, "a b": 201}, ["a b", "Ġ x", "é b"], None),  # a raw space or é: never formed
    ({**BYTES, "ab": 200, "abc": 300}, ["a b", "ab c", "a b"], None),  # a merge listed twice
    ({**BYTES, "": 150, "ab": 200}, ["a b"], None),  # the empty token has no bytes
])
def test_c_tables_decline_and_skip_as_python_does(vocab, lines, why):
    model = _model(vocab, lines)
    c, py = native._tables(model), native._tables_python(model)
    if why:
        assert c is None and py is None, why
    else:
        assert c[0] == py[0] and _pairs(c) == _pairs(py)


def test_c_tables_of_merge_pairs_and_of_tiktoken_style_models():
    vocab = {**BYTES, "ab": 200, "abc": 201}
    pairs = BPE(vocab, [("a", "b"), ("ab", "c")])
    assert native._tables(pairs)[0] == native._tables_python(pairs)[0]
    assert _pairs(native._tables(pairs)) == _pairs(native._tables_python(pairs)) == {
        (ord("a"), ord("b")): (0, 200), (200, ord("c")): (1, 201)}
    ranked = _model(vocab)
    assert native._tables(ranked) == native._tables_python(ranked)
    assert native._tables(ranked)[1] is None


def test_tiktoken_table_reads_real_files_as_the_python_reader(tmp_path):
    for name in ("cl100k_base.tiktoken.xz", "whisper-gpt2.tiktoken.xz", "whisper-multilingual.tiktoken.xz"):
        path = _real(name, tmp_path)
        data = path.read_bytes()
        table = native.tiktoken_table(data)
        assert table is not None, name
        ranks, vocab = table
        assert ranks == tiktoken_file._read_ranks(path, data), name
        assert vocab == dict(zip(tiktoken_file.many_bytes_to_unicode(ranks), ranks.values())), name
    assert b"" in native.tiktoken_table(_real("whisper-multilingual.tiktoken.xz", tmp_path).read_bytes())[0]


@pytest.mark.parametrize("data", [
    b"", b"QQ== 1\n\nQg== 2\n", b"QQ==  1\n", b"QQ== 1 2\n", b"QQ== -1\n", b"QQ== 1x\n", b"QQ=\n",
    b"QQ= 1\n", b"Q=Q= 1\n", b"QQ== 1\nQQ== 2\n", b"Q!== 1\n", b"QQ==\t1\n", b"QQ== 99999999999\n",
])
def test_tiktoken_table_leaves_irregular_files_to_the_python_reader(data):
    assert native.tiktoken_table(data) is None


def test_tiktoken_table_line_ends_and_padding():
    ranks, vocab = native.tiktoken_table(b"QQ== 0\r\nQkM= 1\nQkNE 2")
    assert ranks == {b"A": 0, b"BC": 1, b"BCD": 2} and vocab == {"A": 0, "BC": 1, "BCD": 2}
    assert native.tiktoken_table(b"IA== 0\n")[1] == {"Ġ": 0}  # a space, in the byte-level alphabet


def test_load_builds_the_encoder_and_a_new_stage_drops_it(tmp_path):
    path = _real("qwen2.5/tokenizer.json.xz", tmp_path)
    tok = tokviz.load(path)
    built = tok._native
    assert built, "tokviz.load builds the native encoder"
    text = "Hello World"
    before = tok.encode_ids(text)
    tok.normalizer = Lowercase()
    assert tok._native is None
    after = tok.encode_ids(text)
    assert after == tok.use_native(False).encode_ids(text) == tokviz.load(path).use_native(False).encode_ids(text.lower())
    assert after != before
