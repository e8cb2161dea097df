"""Tokenizers read from GGUF files give llama.cpp's ids and decode (llama-cpp-python is the oracle):
vocabulary-only files written as llama.cpp's converter writes them (tests/gguf_files.py) from the
bundled Qwen2.5 (byte-level BPE, under each pre-tokenizer name tokviz implements) and Mistral 7B
(sentencepiece BPE) files; what tokviz does not implement is refused by name; the chat template
inside; and Ollama's store in the Library."""
from __future__ import annotations

import json
import os
import random
import shutil
from pathlib import Path

import pytest

import tokviz
from tokviz.errors import TokvizError
from tokviz.formats.discover import OLLAMA, discover
from tokviz.formats.gguf import PRES

from _shared import EDGE_CASES, TOKENIZERS, corpus_samples, need

gguf = pytest.importorskip("gguf")
import gguf_files  # noqa: E402  (tests/ is on the path; it imports gguf)

REAL = Path(__file__).parent / "data" / "real"
TEXTS = (REAL / "texts.txt").read_text(encoding="utf-8").splitlines()
SPECIAL_TEXTS = ["<|im_start|>user\nhi<|im_end|>\n", "a</s>b", " </s> <|endoftext|>x", "<s>hello</s> [INST] x [/INST]",
                 "<unk> and <|fim_prefix|>def f():<|fim_suffix|>", "<<|im_end|>>", "<|im_end", "x<|endoftext|><|endoftext|>"]


def _texts() -> list[str]:
    rng = random.Random(3)
    joined = "\n".join(TEXTS)
    chunks = [joined[a:a + rng.randint(5, 400)] for a in (rng.randrange(len(joined)) for _ in range(60))]
    return [t for t in TEXTS if t] + list(EDGE_CASES) + chunks + [joined] + SPECIAL_TEXTS


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """name -> a written GGUF file (made on first use)."""
    root = tmp_path_factory.mktemp("gguf")
    made: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in made:
            kind, _, pre = name.partition(":")
            out = root / f"{name.replace(':', '-')}.gguf"
            if kind in ("qwen", "deepseek"):
                source, arch = (REAL / "qwen2.5", "qwen2") if kind == "qwen" else (REAL / "deepseek-v4", "llama")
                made[name] = gguf_files.write_bpe_gguf(source, out, pre or None, arch=arch,
                                                       kv={"tokenizer.ggml.pre": None} if pre == "none" else None)
            elif kind == "bert":
                made[name] = gguf_files.write_wpm_gguf(REAL / "bert-minilm", out)
            elif kind == "t5":
                suite = REAL / "sentencepiece-suite"
                model = suite / ("kyoto_ja_unigram_8000.model.xz" if pre == "ja" else "botchan_en_unigram_1000.model.xz")
                made[name] = gguf_files.write_t5_gguf(model, out)
            else:
                made[name] = gguf_files.write_spm_gguf(REAL / "mistral-v1.model.xz", out, name="mistral-v1")
        return made[name]

    return get


def _oracle():
    """llama-cpp-python; CI installs it (.ci/run), so there its absence fails instead of skipping."""
    if os.environ.get("CI") == "true":
        import llama_cpp

        return llama_cpp
    return pytest.importorskip("llama_cpp", reason="llama-cpp-python (the oracle) is not installed")


@pytest.fixture(scope="module")
def llama(written):
    llama_cpp = _oracle()
    cache = {}

    def get(name: str):
        if name not in cache:
            cache[name] = llama_cpp.Llama(model_path=str(written(name)), vocab_only=True, verbose=False,
                                          embedding=name == "bert" or name.startswith("t5"))
        return cache[name]

    return get


def _agree(tok, llm, texts, special: bool, add_special: bool = False):
    for text in texts:
        expected = llm.tokenize(text.encode("utf-8"), add_bos=add_special, special=special)
        got = tok.encode(text, allow_special=special, add_special_tokens=add_special).ids
        assert got == expected, (text[:80], special, add_special)


PRE_NAMES = ["qwen2", "llama-bpe", "smaug-bpe", "gpt-2", "starcoder", "smollm", "falcon", "stablelm2", "none",
             "gpt-4o", "tekken", "deepseek-llm", "deepseek-coder", "deepseek:deepseek-v3", "deepseek:joyai-llm"]


@pytest.mark.first_cases(1)
@pytest.mark.parametrize("pre", PRE_NAMES)
def test_byte_level_bpe_ids_as_llama_cpp(written, llama, pre):
    name = pre if ":" in pre else f"qwen:{pre}"
    pre = pre.partition(":")[2] or pre
    tok, llm = tokviz.load(written(name)), llama(name)
    assert tok.source.format == "gguf" and tok.source.extra["gguf_pre"] == ("default" if pre == "none" else pre)
    texts = _texts()
    _agree(tok, llm, texts, special=False)
    _agree(tok, llm, texts, special=True)
    _agree(tok, llm, texts[:40] + SPECIAL_TEXTS, special=True, add_special=True)


def test_sentencepiece_bpe_ids_as_llama_cpp(written, llama):
    tok, llm = tokviz.load(written("mistral")), llama("mistral")
    assert tok.source.extra["gguf_model"] == "llama"
    texts = _texts()
    _agree(tok, llm, texts, special=False)
    _agree(tok, llm, texts, special=True)
    _agree(tok, llm, texts[:40] + SPECIAL_TEXTS, special=True, add_special=True)
    assert tok.model.id_to_token(tok.encode_ids("Hello world")[0]) == "\u2581Hello"  # (the space prefix)


def test_wordpiece_ids_as_llama_cpp(written, llama):
    """all-MiniLM's BERT vocabulary (lowercase, accents stripped as llama.cpp strips them: the first
    code point of each character's decomposition)."""
    tok, llm = tokviz.load(written("bert")), llama("bert")
    assert tok.source.extra["gguf_model"] == "bert" and tok.source.extra["strip_accents"]
    texts = _texts() + ["\u00c9l\u00e9phant \u01d6 \ud55c\uad6d\uc5b4 \u0130stanbul \u03a3\u0391\u03a3", "a [SEP] b [MASK]"]
    _agree(tok, llm, texts, special=False)
    _agree(tok, llm, texts, special=True)
    _agree(tok, llm, texts[:40] + SPECIAL_TEXTS, special=True, add_special=True)


@pytest.mark.parametrize("name", ["t5:en", "t5:ja"])
def test_unigram_ids_as_llama_cpp(written, llama, name):
    """sentencepiece's own Unigram test models (English, Japanese) as T5 files: llama.cpp's own
    normalization (charsmap, whitespace) and best path."""
    tok, llm = tokviz.load(written(name)), llama(name)
    assert tok.source.extra["gguf_model"] == "t5"
    texts = _texts() + ["  two  spaces ", "\uff21\uff22\uff23\u2460 \u3000x", "\u5409\u7530\u3055\u3093\u306f\u6771\u4eac"]
    _agree(tok, llm, texts, special=False)
    _agree(tok, llm, texts, special=True)
    _agree(tok, llm, texts[:40] + SPECIAL_TEXTS, special=True, add_special=True)


@pytest.mark.first_cases(1)
@pytest.mark.parametrize("name", ["qwen:qwen2", "qwen:llama-bpe", "qwen:smaug-bpe", "qwen:gpt-4o", "mistral", "bert",
                                  "t5:en"])
def test_decode_as_llama_cpp(written, llama, name):
    tok, llm = tokviz.load(written(name)), llama(name)
    for text in _texts()[:80] + ["It 's a ' quote ' I 've n't he 'll 'd 'm 're ?", " lead", "\u00e9\u4e2d\U0001f600"]:
        for special in (False, True):
            ids = llm.tokenize(text.encode("utf-8"), add_bos=True, special=special)
            for skip in (True, False):
                expected = gguf_files.llama_detokenize(llm, ids, remove_special=skip, unparse_special=not skip)
                assert tok.decode(ids, skip_special_tokens=skip) == expected.decode("utf-8", errors="replace"), \
                    (text[:60], special, skip)


@pytest.mark.shared
@pytest.mark.slow
@pytest.mark.parametrize("pre", ["llama-bpe", "smaug-bpe"])
def test_llama3_vocabulary_with_and_without_ignore_merges(tmp_path, pre):
    """Llama 3's vocabulary holds words its merges never make (" Việt"): llama-bpe takes them whole,
    smaug-bpe merges them; the shared corpora's samples too."""
    llama_cpp = _oracle()
    path = gguf_files.write_bpe_gguf(need(TOKENIZERS / "llama3"), tmp_path / f"{pre}.gguf", pre)
    tok, llm = tokviz.load(path), llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    texts = [" Vi\u1ec7t Nam", "Hello Vi\u1ec7t"] + [t for c in ("en", "zh", "code", "multi") for t in corpus_samples(c, 8)]
    _agree(tok, llm, texts, special=False)
    whole = tok.encode_ids(" Vi\u1ec7t")
    assert (len(whole) == 1) == (pre == "llama-bpe")


def test_compare_shows_where_llama_cpp_differs_from_the_original(written, tmp_path):
    """llama.cpp does not apply Qwen2.5's NFC normalizer: decomposed text cuts differently, and the
    Compare view's analysis marks where."""
    import lzma

    from tokviz.analysis.compare import compare_text

    (tmp_path / "tokenizer.json").write_bytes(lzma.decompress((REAL / "qwen2.5" / "tokenizer.json.xz").read_bytes()))
    original, from_gguf = tokviz.load(tmp_path), tokviz.load(written("qwen:qwen2"))
    plain, decomposed = "caf\u00e9 cr\u00e8me", "cafe\u0301 cre\u0300me"
    assert from_gguf.encode_ids(plain) == original.encode_ids(plain)
    assert from_gguf.encode_ids(decomposed) != original.encode_ids(decomposed)
    comparison = compare_text({"tokenizer.json": original, "GGUF": from_gguf}, decomposed)
    assert len(comparison.differing_positions()) > 0


MPT_VOCAB = REAL / "llama-cpp-vocab" / "ggml-vocab-mpt.gguf.xz"
# the names whose pieces are not byte-encoded: a vocabulary written with '▁' and <0xXX> tokens
UTF8_NAMES = {name for name, pre in PRES.items() if not pre.byte_encode}


@pytest.fixture(scope="module")
def base_kv(tmp_path_factory):
    """name -> the key/values of a base vocabulary to write each pre-tokenizer name with."""
    cache = {}

    def get(kind: str) -> dict:
        if kind not in cache:
            if kind == "byte-level":  # (llama.cpp's own MPT vocabulary, GPT-NeoX's byte-level BPE)
                cache[kind] = gguf_files.tokenizer_kv(gguf_files.unpack_xz(MPT_VOCAB, tmp_path_factory.mktemp("mpt")))
            else:
                cache[kind] = gguf_files.utf8_bpe_kv(REAL / "mistral-v1.model.xz", model="gpt2")
        return dict(cache[kind])

    return get


@pytest.mark.first_cases(10)
@pytest.mark.parametrize("pre", sorted(PRES))
def test_every_pre_name_as_llama_cpp(tmp_path, base_kv, pre):
    """Every tokenizer.ggml.pre name llama.cpp knows, on mixed texts (ids with and without special
    tokens) and decode.  Where llama.cpp aborts the process (a piece of whitespace holding a space
    under the whitespace pre-tokenizer), tokviz refuses the text."""
    llama_cpp = _oracle()
    kv = base_kv("utf-8" if pre in UTF8_NAMES else "byte-level")
    kv["tokenizer.ggml.pre"] = pre
    path = gguf_files.write_gguf(tmp_path / f"{pre}.gguf", "llama", kv)
    tok, llm = tokviz.load(path), llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    assert tok.source.extra["gguf_pre"] == pre
    compared = 0
    for text in gguf_files.mixed_texts(60, seed=11) + SPECIAL_TEXTS:
        for special in (False, True):
            try:
                got = tok.encode(text, allow_special=special, add_special_tokens=special).ids
            except TokvizError as exc:
                assert pre == "whitespace" and "llama.cpp aborts" in exc.reason, (text, exc.reason)
                continue
            expected = llm.tokenize(text.encode("utf-8"), add_bos=special, special=special)
            assert got == expected, (text[:80], special)
            for skip in (True, False):
                want = gguf_files.llama_detokenize(llm, expected, remove_special=skip, unparse_special=not skip)
                assert tok.decode(expected, skip_special_tokens=skip) == want.decode("utf-8", errors="replace")
            compared += 1
    assert compared > 30


def test_pre_names_are_llama_cpps():
    """The names in PRES are exactly those llama-vocab.cpp accepts (read from the sdist that
    LLAMA_CPP_SDIST names, as tests/test_gguf_vectors.py finds it)."""
    import re

    from test_gguf_vectors import _sdist_source

    source = _sdist_source("src/llama-vocab.cpp")
    if source is None:
        pytest.skip("LLAMA_CPP_SDIST does not name llama-cpp-python's sdist")
    start = source.index("if (tokenizer_pre.empty())")
    chain = source[start:source.index("unknown pre-tokenizer type", start)]
    assert set(re.findall(r'tokenizer_pre == "([^"]+)"', chain)) == set(PRES)


def test_chat_template_inside(written):
    tok = tokviz.load(written("qwen:qwen2"))
    template = tok.chat_templates.pick()
    assert template.origin == str(written("qwen:qwen2")) and "<|im_start|>" in template.source
    from tokviz.core import chat

    text = chat.render(template, chat.Conversation([{"role": "user", "content": "hi"}]), add_generation_prompt=True,
                       variables=tok.chat_templates.variables)
    assert text.endswith("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n")


@pytest.mark.slow
def test_overlapping_special_tokens_cut_as_llama_cpp(tmp_path, llama):
    """Two special tokens whose strings overlap in the text: llama.cpp cuts the longer one first
    wherever it is ("§" + "q§§"), where HF's leftmost-longest scan would take "§q" + "§§"."""
    llama_cpp = _oracle()
    data = gguf_files.bpe_kv(REAL / "qwen2.5", "qwen2")
    tokens = list(data["tokenizer.ggml.tokens"])
    box_start, box_end = tokens.index("<|box_start|>"), tokens.index("<|box_end|>")
    assert "\u00a7q" not in tokens and "q\u00a7\u00a7" not in tokens
    tokens[box_start], tokens[box_end] = "\u00a7q", "q\u00a7\u00a7"
    data["tokenizer.ggml.tokens"] = tokens
    path = gguf_files.write_gguf(tmp_path / "overlap.gguf", "qwen2", data)
    tok, llm = tokviz.load(path), llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    texts = ["\u00a7q\u00a7\u00a7", "\u00a7q \u00a7\u00a7 q\u00a7\u00a7 \u00a7q\u00a7\u00a7\u00a7q", "z\u00a7q\u00a7\u00a7q\u00a7\u00a7"]
    _agree(tok, llm, texts, special=True)
    assert tok.encode_ids("\u00a7q\u00a7\u00a7")[-1] == box_end


# ---- refused by name ----------------------------------------------------------------------------

_WRITTEN: dict = {}  # (kv) -> the bytes _with writes for it (the tests below ask for the same files)


def _with(tmp_path, name: str, **kv) -> Path:
    key = tuple(sorted(kv.items()))
    if key not in _WRITTEN:
        data = gguf_files.bpe_kv(REAL / "qwen2.5", "qwen2")
        data.update(kv)
        for k in [k for k, v in data.items() if v is None]:
            del data[k]
        _WRITTEN[key] = gguf_files.write_gguf(tmp_path / name, "qwen2", data).read_bytes()
    path = tmp_path / name
    path.write_bytes(_WRITTEN[key])
    return path


@pytest.mark.parametrize("kv, message", [
    ({"tokenizer.ggml.pre": "no-such-pre"}, r"tokenizer.ggml.pre 'no-such-pre': llama.cpp refuses this file"),
    ({"tokenizer.ggml.model": "no-such-model"}, r"tokenizer.ggml.model 'no-such-model': llama.cpp refuses this file"),
    ({"tokenizer.ggml.model": "none"}, r"tokenizer.ggml.model 'none': this GGUF file has no vocabulary"),
    ({"tokenizer.ggml.merges": None}, r"tokenizer.ggml.merges: missing"),
    ({"tokenizer.ggml.model": None}, r"holds no tokenizer"),
])
def test_refused_by_name(tmp_path, kv, message):
    path = _with(tmp_path, "x.gguf", **kv)
    with pytest.raises(TokvizError, match=message) as info:
        tokviz.load(path)
    assert info.value.path == str(path)


@pytest.mark.parametrize("kv", [{"tokenizer.ggml.pre": "no-such-pre"}, {"tokenizer.ggml.model": "no-such-model"},
                                {"tokenizer.ggml.merges": None}])
def test_what_llama_cpp_refuses(tmp_path, kv):
    llama_cpp = _oracle()
    path = _with(tmp_path, "x.gguf", **kv)
    with pytest.raises(ValueError):
        llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    with pytest.raises(TokvizError):
        tokviz.load(path)


def test_a_repeated_token_is_refused(tmp_path):
    data = gguf_files.bpe_kv(REAL / "qwen2.5", "qwen2")
    tokens = list(data["tokenizer.ggml.tokens"])
    tokens[5] = tokens[4]
    data["tokenizer.ggml.tokens"] = tokens
    with pytest.raises(TokvizError, match=r"is there twice \(ids 4 and 5\)"):
        tokviz.load(gguf_files.write_gguf(tmp_path / "dup.gguf", "qwen2", data))


@pytest.mark.parametrize("cut", [3, 10, 30, 200, 5000])
def test_damaged_files(tmp_path, written, cut):
    data = written("qwen:qwen2").read_bytes()
    bad = tmp_path / "cut.gguf"
    bad.write_bytes(data[:cut])
    with pytest.raises(TokvizError) as info:
        tokviz.load(bad)
    assert info.value.path == str(bad)
    wrong = tmp_path / "v9.gguf"
    wrong.write_bytes(data[:4] + (9).to_bytes(4, "little") + data[8:200])
    with pytest.raises(TokvizError, match="GGUF version 9 is not supported"):
        tokviz.load(wrong)


def test_mangled_files_give_clear_errors(tmp_path):
    """Random bytes changed in (and cut off) a small GGUF file: it loads, or a TokvizError names it."""
    data = gguf_files.bpe_kv(REAL / "qwen2.5", "qwen2")
    for key in ("tokenizer.ggml.tokens", "tokenizer.ggml.token_type"):
        data[key] = data[key][:300]
    data["tokenizer.ggml.merges"] = data["tokenizer.ggml.merges"][:1500]
    good = gguf_files.write_gguf(tmp_path / "small.gguf", "qwen2", data).read_bytes()
    rng = random.Random(7)
    target = tmp_path / "mangled.gguf"
    for _ in range(150):
        b = bytearray(good)
        for _ in range(rng.randint(1, 6)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        target.write_bytes(bytes(b[:rng.randrange(len(b))] if rng.random() < 0.3 else b))
        try:
            tok = tokviz.load(target)
            tok.decode(tok.encode_ids("hello <|im_end|> 中文"))
        except TokvizError as exc:
            assert exc.path == str(target)


@pytest.mark.slow
def test_mangled_charsmaps_give_clear_errors(tmp_path):
    """A T5 file's precompiled charsmap with bytes changed or cut: it loads and encodes, or a
    TokvizError says what is wrong."""
    data = gguf_files.t5_kv(REAL / "sentencepiece-suite" / "botchan_en_unigram_1000.model.xz")
    blob = bytes(data["tokenizer.ggml.precompiled_charsmap"])
    rng = random.Random(2)
    for k in range(60):
        b = bytearray(blob)
        for _ in range(rng.randint(1, 20)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        path = gguf_files.write_gguf(tmp_path / f"m{k}.gguf", "t5",
                                     {**data, "tokenizer.ggml.precompiled_charsmap": bytes(b[:rng.randrange(1, len(b))]
                                                                                           if rng.random() < 0.2 else b)})
        try:
            tokviz.load(path).encode_ids("Hello \uff21\uff22\uff23 world \u2460 caf\u00e9")
        except TokvizError:
            pass


# ---- Ollama's store -----------------------------------------------------------------------------

def _ollama_store(root: Path, blob_source: Path, names) -> Path:
    import hashlib

    data = blob_source.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    (root / "blobs").mkdir(parents=True)
    (root / "blobs" / f"sha256-{digest}").write_bytes(data)
    for host, namespace, model, tag in names:
        manifest = root / "manifests" / host / namespace / model / tag
        manifest.parent.mkdir(parents=True, exist_ok=True)
        manifest.write_text(json.dumps({"schemaVersion": 2, "layers": [
            {"mediaType": "application/vnd.ollama.image.template", "digest": "sha256:" + "0" * 64, "size": 1},
            {"mediaType": "application/vnd.ollama.image.model", "digest": f"sha256:{digest}", "size": len(data)}]}))
    return root


def test_ollama_store_in_the_library(tmp_path, written):
    store = _ollama_store(tmp_path / "models", written("qwen:qwen2"), [
        ("registry.ollama.ai", "library", "qwen2.5", "0.5b"), ("registry.ollama.ai", "someone", "tiny", "latest"),
        ("hf.co", "Qwen", "Qwen2.5-GGUF", "Q4_K_M")])
    manifest_dir = store / "manifests" / "registry.ollama.ai" / "library" / "broken"
    manifest_dir.mkdir(parents=True)
    (manifest_dir / "latest").write_text("{not json")
    found = [f for f in discover(env={"OLLAMA_MODELS": str(store)}, shipped=False, hf_cache=False,
                                 tiktoken_cache=False, packages=False) if f.origin == OLLAMA]
    assert [f.name for f in found] == ["hf.co/Qwen/Qwen2.5-GGUF:Q4_K_M", "qwen2.5:0.5b", "someone/tiny:latest"]
    tok = found[1].load()
    assert tok.source.format == "gguf" and tok.encode_ids("Hello, world") == tokviz.load(written("qwen:qwen2")).encode_ids("Hello, world")


def test_gguf_files_in_a_folder(tmp_path, written):
    folder = tmp_path / "models"
    folder.mkdir()
    shutil.copy(written("mistral"), folder / "mistral-7b.Q4_K_M.gguf")
    found = discover([folder], shipped=False, hf_cache=False, tiktoken_cache=False, packages=False, ollama=False)
    assert [(f.name, f.format) for f in found] == [("mistral-7b.Q4_K_M", "gguf")]
    assert tokviz.load(folder).source.extra["gguf_model"] == "llama"


# ---- the other tokenizer models -------------------------------------------------------------------

def _agree_with_decode(tok, llm, texts, *, refused_ok: bool = False) -> int:
    """ids (special tokens parsed and added, or neither) and decode (special tokens removed or
    written) as llama.cpp gives them; the number of texts compared."""
    compared = 0
    for text in texts:
        for special in (False, True):
            expected = llm.tokenize(text.encode("utf-8"), add_bos=special, special=special)
            assert tok.encode(text, allow_special=special, add_special_tokens=special).ids == expected, (text, special)
            for skip in (True, False):
                want = gguf_files.llama_detokenize(llm, expected, remove_special=skip, unparse_special=not skip)
                assert tok.decode(expected, skip_special_tokens=skip) == want.decode("utf-8", errors="replace"), text
            compared += 1
    return compared


def test_bert_without_normalizer_keys_lowercases_as_llama_cpp(tmp_path):
    """Older BERT conversions carry no tokenizer.ggml.normalizer.* keys: llama.cpp then lowercases
    and strips accents ("Hello" is 'hello', not [UNK])."""
    llama_cpp = _oracle()
    kv = gguf_files.wpm_kv(REAL / "bert-minilm")
    for key in ("tokenizer.ggml.normalizer.lowercase", "tokenizer.ggml.normalizer.strip_accents"):
        kv.pop(key, None)
    path = gguf_files.write_gguf(tmp_path / "bert-old.gguf", "bert", kv)
    tok = tokviz.load(path)
    llm = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False, embedding=True)
    assert tok.source.extra["lowercase"] and tok.source.extra["strip_accents"]
    assert tok.encode_ids("Hello") == llm.tokenize(b"Hello", add_bos=False, special=False) != [100]
    _agree_with_decode(tok, llm, gguf_files.mixed_texts(80, seed=3) + ["\u00c9l\u00e9phant CAF\u00c9 \u0130stanbul"])


@pytest.mark.parametrize("lowercase, strip", [(False, None), (True, False), (False, True)])
def test_bert_normalizer_keys_as_llama_cpp(tmp_path, lowercase, strip):
    llama_cpp = _oracle()
    kv = gguf_files.wpm_kv(REAL / "bert-minilm")
    kv["tokenizer.ggml.normalizer.lowercase"] = lowercase
    kv["tokenizer.ggml.normalizer.strip_accents"] = strip
    path = gguf_files.write_gguf(tmp_path / "bert.gguf", "bert", kv)
    tok = tokviz.load(path)
    llm = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False, embedding=True)
    _agree_with_decode(tok, llm, gguf_files.mixed_texts(60, seed=4) + ["\u00c9l\u00e9phant CAF\u00c9"])


def test_gemma4_model_as_llama_cpp(tmp_path):
    """tokenizer.ggml.model "gemma4": BPE over UTF-8 with spaces as '▁', newline runs apart, and a
    BOS always added (llama.cpp's Gemma 4 workaround)."""
    llama_cpp = _oracle()
    kv = gguf_files.utf8_bpe_kv(REAL / "mistral-v1.model.xz", model="gemma4")
    kv["tokenizer.ggml.add_bos_token"] = False
    path = gguf_files.write_gguf(tmp_path / "gemma4.gguf", "gemma3", kv)
    tok = tokviz.load(path)
    llm = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    assert tok.source.extra["gguf_pre"] == "gemma4" and tok.source.extra["add_bos"]
    assert _agree_with_decode(tok, llm, gguf_files.mixed_texts(100, seed=5) + ["\n\n\nx\n", "a\n\nb"]) > 100


@pytest.mark.parametrize("pre, lowercase", [("whitespace", None), ("default", None), ("default", False),
                                            ("gemma4", True)])
def test_whitespace_model_as_llama_cpp(tmp_path, base_kv, pre, lowercase):
    """tokenizer.ggml.model "whitespace": whitespace dropped, the rest lowercased (unless the
    pre-tokenizer name or the file says not), then the pre-tokenizer name's BPE."""
    llama_cpp = _oracle()
    kv = base_kv("utf-8" if pre in UTF8_NAMES else "byte-level")
    kv.update({"tokenizer.ggml.model": "whitespace", "tokenizer.ggml.pre": pre,
               "tokenizer.ggml.normalizer.lowercase": lowercase})
    path = gguf_files.write_gguf(tmp_path / "ws.gguf", "llama", kv)
    tok = tokviz.load(path)
    llm = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    assert _agree_with_decode(tok, llm, gguf_files.mixed_texts(80, seed=6) + ["Hello World \u0130STANBUL"]) > 80


def test_rwkv_world_as_llama_cpp(tmp_path):
    """RWKV's world vocabulary (65,529 byte tokens, from the rwkv package) as llama.cpp's converter
    writes it: greedy longest byte match, escapes undone, no BOS added."""
    llama_cpp = _oracle()
    rwkv = pytest.importorskip("rwkv", reason="the rwkv package (which ships the world vocabulary) is not installed")
    vocab = Path(rwkv.__file__).parent / "rwkv_vocab_v20230424.txt"
    path = gguf_files.write_gguf(tmp_path / "rwkv.gguf", "rwkv6", gguf_files.rwkv_kv(vocab))
    tok = tokviz.load(path)
    llm = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    assert tok.source.extra["gguf_model"] == "rwkv"
    assert _agree_with_decode(tok, llm, gguf_files.mixed_texts(150, seed=8) + ["\\x41\\n \\t", "<s>a<s>"]) > 150
    assert tok.encode("\u00e9").tokens and tok.token_bytes(tok.encode_ids("\u00e9")[0]) == "\u00e9".encode()


@pytest.mark.parametrize("model", ["botchan_en_unigram_1000", "kyoto_ja_unigram_8000"])
def test_plamo2_as_llama_cpp(tmp_path, model):
    """A PLaMo-2 vocabulary laid out as the converter lays out PLaMo's (built from sentencepiece's
    test models: PLaMo-2's own is not bundled), including the [PAD] tokens scoring -1000."""
    llama_cpp = _oracle()
    kv = gguf_files.plamo2_kv(REAL / "sentencepiece-suite" / f"{model}.model.xz")
    path = gguf_files.write_gguf(tmp_path / "plamo2.gguf", "plamo2", kv)
    tok = tokviz.load(path)
    llm = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    texts = gguf_files.mixed_texts(100, seed=9) + ["\ufeffHello world", "[PAD1] x", "<|plamo:eos|>a</s>"]
    assert _agree_with_decode(tok, llm, texts) > 100


def test_plamo2_without_all_byte_tokens_is_refused(tmp_path):
    kv = gguf_files.plamo2_kv(REAL / "sentencepiece-suite" / "botchan_en_unigram_1000.model.xz")
    kv["tokenizer.ggml.token_type"] = [gguf_files.NORMAL if t == "<0x41>" else k
                                       for t, k in zip(kv["tokenizer.ggml.tokens"], kv["tokenizer.ggml.token_type"])]
    path = gguf_files.write_gguf(tmp_path / "plamo2.gguf", "plamo2", kv)
    with pytest.raises(TokvizError, match=r"byte token <0x41> is missing"):
        tokviz.load(path)
    llama_cpp = _oracle()
    with pytest.raises(ValueError):
        llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)


def test_llama_cpp_test_tokenizer(tmp_path, base_kv):
    """tokenizer.ggml.model "test": llama.cpp's stand-in, hashes of 5-byte chunks, decoded as hex."""
    llama_cpp = _oracle()
    kv = base_kv("byte-level")
    kv["tokenizer.ggml.model"] = "test"
    path = gguf_files.write_gguf(tmp_path / "test.gguf", "llama", kv)
    tok = tokviz.load(path)
    llm = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    assert _agree_with_decode(tok, llm, gguf_files.mixed_texts(60, seed=10)) > 60


@pytest.mark.slow
@pytest.mark.first_cases(1)
@pytest.mark.parametrize("rule", ["jina-v2-code", "nomic-bert-moe", "modern-bert", "phi-3"])
def test_strip_rules_by_name_as_llama_cpp(tmp_path, rule):
    """llama.cpp's per-model strip rules: <mask> swallows the spaces before it (jina-v2 names,
    nomic-bert-moe architecture), [MASK] too (a "modern-bert" model name), and a Phi-3 model name
    makes every special or user-defined token swallow the spaces after it except <unk> <s>
    <|endoftext|>.  (ASCII spaces: the Unicode ones are tests/test_real_files_more.py's known
    difference.)"""
    llama_cpp = _oracle()
    data = gguf_files.bpe_kv(REAL / "qwen2.5", "qwen2", name={"phi-3": "Phi-3 test", "modern-bert": "modern-bert test"}
                             .get(rule, "strip test"))
    tokens = list(data["tokenizer.ggml.tokens"])
    for old, new in (("<|box_start|>", "<mask>"), ("<|box_end|>", "[MASK]")):  # (</s> <s> <unk> are Qwen's)
        tokens[tokens.index(old)] = new
    data["tokenizer.ggml.tokens"] = tokens
    if rule == "jina-v2-code":
        data["tokenizer.ggml.pre"] = rule
    arch = "nomic-bert-moe" if rule == "nomic-bert-moe" else "qwen2"
    path = gguf_files.write_gguf(tmp_path / "strip.gguf", arch, data)
    tok, llm = tokviz.load(path), llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False,
                                                  embedding=arch != "qwen2")
    texts = [f"{a}{t}{b}x" for t in ("<mask>", "[MASK]", "</s>", "<s>", "<unk>", "<tool_call>", "<|endoftext|>",
                                     "<|im_end|>") for a in ("a", "a ", "a \t\n ") for b in ("", " ", "  \n")]
    _agree(tok, llm, texts, special=True)
    _agree(tok, llm, texts, special=False)


def test_phi3_name_without_its_tokens_is_refused(tmp_path):
    llama_cpp = _oracle()
    data = gguf_files.bpe_kv(REAL / "qwen2.5", "qwen2", name="Phi-3 mini")
    tokens = list(data["tokenizer.ggml.tokens"])
    tokens[tokens.index("</s>")] = "</s >"
    data["tokenizer.ggml.tokens"] = tokens
    path = gguf_files.write_gguf(tmp_path / "phi.gguf", "qwen2", data)
    with pytest.raises(TokvizError, match=r"general.name says Phi-3, whose strip rule names '</s>'"):
        tokviz.load(path)
    with pytest.raises(ValueError):
        llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)


@pytest.mark.parametrize("pre, tag_type", [("gpt-2", gguf_files.NORMAL), ("qwen2", gguf_files.CONTROL),
                                           ("gemma4", gguf_files.NORMAL)])
def test_hybriddna_as_llama_cpp(tmp_path, base_kv, pre, tag_type):
    """tokenizer.ggml.model "hybriddna": DNA between <dna> and </dna> as 6-mers (or <oov>), the
    rest the name's BPE; <dna> tags that are control tokens are cut out first when special tokens
    are parsed, and their DNA is then text."""
    llama_cpp = _oracle()
    kv = gguf_files.hybriddna_kv(base_kv("utf-8" if pre in UTF8_NAMES else "byte-level"), tag_type)
    kv["tokenizer.ggml.pre"] = pre
    path = gguf_files.write_gguf(tmp_path / "dna.gguf", "llama", kv)
    tok = tokviz.load(path)
    llm = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    texts = gguf_files.mixed_texts(60, seed=12) + [
        "x<dna>acgtacGGTTAAC</dna> y", "<dna>ACGTN", "a<dna></dna>b", "<dna>AC</dna><dna>\u00e9T</dna>z",
        "The gene <dna>ATGCGTACGTTAGC</dna> codes <dna>GGG", "<dna>ACGTAC</dna>ACGTAC"]
    assert _agree_with_decode(tok, llm, texts) > 60
    if tag_type == gguf_files.NORMAL:  # (the last 6-mer padded with A, written without its marker)
        assert tok.decode(tok.encode("<dna>ACGTACGG</dna>").ids) == "<dna>ACGTACGGAAAA</dna>"


def test_unigram_leaves_unused_control_tokens_as_llama_cpp(tmp_path):
    """llama.cpp marks a control token whose text holds "unused" as unused too, but only after its
    Unigram trie (which holds unused tokens) is built: such a token is not matched in plain text."""
    llama_cpp = _oracle()
    data = gguf_files.t5_kv(REAL / "sentencepiece-suite" / "botchan_en_unigram_1000.model.xz")
    tokens, types = list(data["tokenizer.ggml.tokens"]), list(data["tokenizer.ggml.token_type"])
    for i, new in ((500, "<unused0>"), (501, "<ctrl1>")):
        tokens[i], types[i] = new.encode(), gguf_files.CONTROL
    data.update({"tokenizer.ggml.tokens": tokens, "tokenizer.ggml.token_type": types})
    path = gguf_files.write_gguf(tmp_path / "t5.gguf", "t5", data)
    tok = tokviz.load(path)
    llm = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False, embedding=True)
    texts = ["a<unused0>b <ctrl1> <unused0>", "<unused0><unused0>x"]
    _agree(tok, llm, texts, special=False)
    _agree(tok, llm, texts, special=True)
    assert 500 not in tok.encode("a<unused0>b", allow_special=False).ids


def test_unigram_matchers_use_the_files_types_as_llama_cpp(tmp_path):
    """llama.cpp builds its Unigram matchers from the file's token types, before it turns
    end-of-generation tokens into control ones: a normal <eos> is still matched in plain text, and a
    user-defined <|endoftext|> keeps its zero score."""
    llama_cpp = _oracle()
    data = gguf_files.t5_kv(REAL / "sentencepiece-suite" / "botchan_en_unigram_1000.model.xz")
    tokens, types = list(data["tokenizer.ggml.tokens"]), list(data["tokenizer.ggml.token_type"])
    for i, new, kind in ((500, "<eos>", gguf_files.NORMAL), (501, "<|endoftext|>", gguf_files.USER_DEFINED)):
        tokens[i], types[i] = new.encode(), kind
    data.update({"tokenizer.ggml.tokens": tokens, "tokenizer.ggml.token_type": types})
    path = gguf_files.write_gguf(tmp_path / "t5.gguf", "t5", data)
    tok = tokviz.load(path)
    llm = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False, embedding=True)
    texts = ["a<eos>b <|endoftext|> x<eos>", "<eos><|endoftext|>y", "the<|endoftext|>end"]
    _agree(tok, llm, texts, special=False)
    _agree(tok, llm, texts, special=True)
    assert 500 in tok.encode("a<eos>b", allow_special=False).ids
