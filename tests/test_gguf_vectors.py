"""llama.cpp's own tokenizer test vectors: the vocabulary-only GGUF files llama.cpp ships under
models/ (ggml-vocab-*.gguf) with their inputs (.gguf.inp, texts separated by
"__ggml_vocab_test__" lines) and the ids llama.cpp gives them (.gguf.out, one line per text;
tokenize without special tokens added or parsed, as its test-tokenizer-0 does).

A compact selection ships in tests/data/real/llama-cpp-vocab (from llama-cpp-python 0.3.36's
sdist, MIT); the rest is tested from an unpacked or packed sdist named by the LLAMA_CPP_SDIST
environment variable (`pip download --no-deps --no-binary llama-cpp-python
llama-cpp-python==0.3.36`), and skipped without it.  Each file is also compared with
llama-cpp-python itself on mixed texts, ids and decode.
"""
from __future__ import annotations

import os
import tarfile
from pathlib import Path

import pytest

import tokviz

import gguf_files

BUNDLED = Path(__file__).parent / "data" / "real" / "llama-cpp-vocab"
SEPARATOR = "\n__ggml_vocab_test__\n"


def _sdist_root() -> Path | None:
    """llama.cpp's folder inside the sdist LLAMA_CPP_SDIST names (a folder, or a .tar.gz whose
    vocabularies and llama-vocab.cpp are unpacked once into a temporary folder)."""
    where = os.environ.get("LLAMA_CPP_SDIST")
    if not where:
        return None
    where = Path(where)
    if where.is_file():
        import tempfile

        target = Path(tempfile.gettempdir()) / f"tokviz-llama-sdist-{where.stat().st_size}"
        if not target.exists():
            with tarfile.open(where) as tar:
                members = [m for m in tar.getmembers() if "/vendor/llama.cpp/models/ggml-vocab-" in m.name
                           or m.name.endswith("/vendor/llama.cpp/src/llama-vocab.cpp")]
                tar.extractall(target, members=members, filter="data")
        where = target
    found = sorted(where.glob("**/vendor/llama.cpp"))
    return found[0] if found else None


def _sdist_models() -> Path | None:
    root = _sdist_root()
    return root / "models" if root is not None else None


def _sdist_source(name: str) -> str | None:
    """The text of a file of llama.cpp's sources in the sdist (None without one)."""
    root = _sdist_root()
    path = root / name if root is not None else None
    return path.read_text(encoding="utf-8") if path is not None and path.is_file() else None


def _bundled_names() -> list[str]:
    return sorted(p.name[len("ggml-vocab-"):-len(".gguf.xz")] for p in BUNDLED.glob("ggml-vocab-*.gguf.xz"))


# every vocabulary llama-cpp-python 0.3.36 ships with test vectors
SDIST_NAMES = ["bert-bge", "command-r", "deepseek-coder", "deepseek-llm", "falcon", "gemma-4", "gpt-2", "llama-bpe",
               "llama-spm", "mpt", "phi-3", "qwen2", "qwen35", "refact", "starcoder"]


def _vectors(inp: Path, out: Path) -> list[tuple[str, list[int]]]:
    texts = inp.read_text(encoding="utf-8").split(SEPARATOR)
    ids = out.read_text(encoding="utf-8").split("\n")
    assert len(ids) >= len(texts)
    return [(t, [int(x) for x in line.split()]) for t, line in zip(texts, ids)]


def _check(path: Path, inp: Path, out: Path) -> int:
    tok = tokviz.load(path)
    vectors = _vectors(inp, out)
    for text, expected in vectors:
        assert tok.encode(text, add_special_tokens=False).ids == expected, (path.name, text[:60])
    return len(vectors)


def test_bundled_selection_is_there():
    assert set(_bundled_names()) >= {"bert-bge", "phi-3", "mpt", "deepseek-coder"}
    for name in _bundled_names():
        for suffix in ("inp", "out"):
            assert (BUNDLED / f"ggml-vocab-{name}.gguf.{suffix}").is_file()


@pytest.mark.parametrize("name", _bundled_names())
def test_bundled_vectors(tmp_path, name):
    path = gguf_files.unpack_xz(BUNDLED / f"ggml-vocab-{name}.gguf.xz", tmp_path)
    assert _check(path, BUNDLED / f"ggml-vocab-{name}.gguf.inp", BUNDLED / f"ggml-vocab-{name}.gguf.out") > 40


@pytest.mark.parametrize("name", SDIST_NAMES)
def test_sdist_vectors(name):
    models = _sdist_models()
    if models is None:
        pytest.skip("LLAMA_CPP_SDIST does not name llama-cpp-python's sdist (the vocabularies not bundled)")
    path = models / f"ggml-vocab-{name}.gguf"
    assert _check(path, Path(f"{path}.inp"), Path(f"{path}.out")) > 40


@pytest.mark.parametrize("name", _bundled_names())
def test_bundled_vocabularies_as_llama_cpp_on_mixed_texts(tmp_path, name):
    """ids (special tokens parsed or not, BOS/EOS added or not) and decode (special tokens kept
    or removed) of each bundled vocabulary, against llama-cpp-python."""
    llama_cpp = pytest.importorskip("llama_cpp", reason="llama-cpp-python (the oracle) is not installed")
    path = gguf_files.unpack_xz(BUNDLED / f"ggml-vocab-{name}.gguf.xz", tmp_path)
    tok = tokviz.load(path)
    llm = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False, embedding=name.startswith("bert"))
    for text in gguf_files.mixed_texts(150, seed=7) + ["[CLS] a [SEP] <s> b </s> <unk>", " lead  ", ""]:
        for special in (False, True):
            expected = llm.tokenize(text.encode("utf-8"), add_bos=special, special=special)
            assert tok.encode(text, allow_special=special, add_special_tokens=special).ids == expected, (text, special)
            for skip in (True, False):
                want = gguf_files.llama_detokenize(llm, expected, remove_special=skip, unparse_special=not skip)
                assert tok.decode(expected, skip_special_tokens=skip) == want.decode("utf-8", errors="replace"), text
