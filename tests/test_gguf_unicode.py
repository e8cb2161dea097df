"""GGUF tokenizers class characters with llama.cpp's own Unicode tables (core/llama/unicode_data.py),
not the `regex` module's newer Unicode nor HF's: every code point the tables list (and those HF's
classes differ on, and every 997th other) after a letter, a digit, a space, doubled and alone,
through each family of pre-tokenizer (hand-written splitters on the native and Python paths,
std::regex lists, digit groups) and the SPM/WPM/UGM models, against llama-cpp-python."""
from __future__ import annotations

from pathlib import Path

import pytest

import tokviz
from tokviz.core.llama import unicode_data
from tokviz.core.reference_unicode import ONIG

gguf = pytest.importorskip("gguf")
llama_cpp = pytest.importorskip("llama_cpp", reason="llama-cpp-python (the oracle) is not installed")
import gguf_files  # noqa: E402  (tests/ is on the path; it imports gguf)

REAL = Path(__file__).parent / "data" / "real"
VOCAB = REAL / "llama-cpp-vocab"
# pre-tokenizer names, one per kind of splitting: GPT-2, Llama 3, Qwen2 and Qwen3.5's hand-written
# splitters, std::regex lists with \p{..} classes, digit groups, Han runs, whitespace-free lists
BYTE_LEVEL_PRES = ["gpt-2", "llama-bpe", "qwen35", "deepseek-coder", "deepseek-v3", "gpt-4o", "command-r", "afmoe"]


def _spans(table: str):
    for item in table.split():
        first, _, last = item.partition(":")[0].partition("-")
        yield from range(int(first, 16), int(last or first, 16) + 1)


CODE_POINTS = sorted(set(_spans(unicode_data.DIFFERENT)) | set(_spans(ONIG))
                     | {cp for cp in range(0x80, 0x110000, 997) if not 0xD800 <= cp < 0xE000})


def _texts(chunk: int = 64) -> list[str]:
    """Each code point in its contexts, `chunk` code points a text, and a few alone."""
    texts = []
    for i in range(0, len(CODE_POINTS), chunk):
        texts.append("".join(f"a{c}b 7{c}8 {c}{c}\n{c}" for c in map(chr, CODE_POINTS[i:i + chunk])))
    texts += [chr(cp) for cp in CODE_POINTS[::211]]
    return texts


TEXTS = _texts()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("gguf-unicode")
    made: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in made:
            kind, _, pre = name.partition(":")
            out = root / f"{name.replace(':', '-')}.gguf"
            if kind == "real":
                made[name] = gguf_files.unpack_xz(VOCAB / f"ggml-vocab-{pre}.gguf.xz", root)
            elif kind == "pre":
                kv = gguf_files.tokenizer_kv(get("real:mpt"))
                kv["tokenizer.ggml.pre"] = pre
                made[name] = gguf_files.write_gguf(out, "llama", kv)
            elif kind == "qwen":
                made[name] = gguf_files.write_bpe_gguf(REAL / "qwen2.5", out, "qwen2", arch="qwen2")
            elif kind == "spm":
                made[name] = gguf_files.write_spm_gguf(REAL / "mistral-v1.model.xz", out, name="mistral-v1")
            elif kind == "wpm":
                made[name] = gguf_files.write_wpm_gguf(REAL / "bert-minilm", out)
            else:
                made[name] = gguf_files.write_t5_gguf(REAL / "sentencepiece-suite" / "botchan_en_unigram_1000.model.xz",
                                                      out)
        return made[name]

    return get


def _agree(path: Path, embedding: bool = False) -> int:
    tok = tokviz.load(path)
    llm = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False, embedding=embedding)
    for text in TEXTS:
        expected = llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)
        got = tok.encode(text, allow_special=False).ids
        if got != expected:
            first = next((i for i, (a, b) in enumerate(zip(got, expected)) if a != b), min(len(got), len(expected)))
            raise AssertionError(f"{path.name}: {text[:60]!r}...: ids differ from llama.cpp's at {first}: "
                                 f"{got[first:first + 6]} != {expected[first:first + 6]}")
    return len(TEXTS)


@pytest.mark.first_cases(1)
@pytest.mark.parametrize("pre", [p if p in ("gpt-2", "qwen35") else pytest.param(p, marks=pytest.mark.slow)
                                 for p in BYTE_LEVEL_PRES])  # (two by default, every one with -m slow)
def test_byte_level_pre_tokenizers_class_as_llama_cpp(files, pre):
    assert _agree(files(f"pre:{pre}")) == len(TEXTS)


@pytest.mark.slow
def test_native_path_sends_what_it_classes_otherwise_to_python(files):
    """The Qwen2 pre-tokenizer on a Qwen2 vocabulary runs on the native scanner where it is
    built; texts holding what llama.cpp classes otherwise than it are encoded as llama.cpp does."""
    path = files("qwen:qwen2")
    assert _agree(path) == len(TEXTS)
    tok = tokviz.load(path)
    llm = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    texts = ["x\U000105c0y \U00013726\u05f3 ok", "plain text, no listed characters \u201cquoted\u201d", "\ua7cb" * 3]
    expected = [llm.tokenize(t.encode("utf-8"), add_bos=False, special=False) for t in texts]
    assert [tok.encode(t).ids for t in texts] == expected
    assert [e.ids for e in tok.encode_batch(texts)] == expected
    assert [tok.encode_ids(t) for t in texts] == expected
    assert tok.encode_ids_batch(texts) == expected


@pytest.mark.first_cases(1)
@pytest.mark.parametrize("name", ["real:deepseek-coder", "real:mpt", "real:phi-3", "real:bert-bge", "spm:mistral",
                                  "wpm:bert", "t5:en"])
def test_llama_cpp_vocab_files_class_as_llama_cpp(files, name):
    embedding = name in ("real:bert-bge", "wpm:bert", "t5:en")
    assert _agree(files(name), embedding=embedding) == len(TEXTS)
