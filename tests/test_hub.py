"""Tokenizers by their Hub name, from a Hugging Face cache laid out as huggingface_hub writes it
(checked with its own scanner): revisions by branch, tag or commit, the errors that say what is
missing, the Library's listing, and nothing downloaded."""
from __future__ import annotations

import functools
import json
import lzma
import os

import pytest

import tokviz
from tokviz.cli import main as cli_main
from tokviz.errors import TokvizError
from tokviz.formats import hub
from tokviz.formats.discover import HF_CACHE, discover

from _shared import write_hf_cache

pytest.importorskip("huggingface_hub")
from huggingface_hub import scan_cache_dir  # noqa: E402

REAL = os.path.join(os.path.dirname(__file__), "data", "real")
OLD, NEW = "1" * 40, "a7c3e9" + "0" * 34


@functools.lru_cache(maxsize=None)
def unpacked(rel: str) -> bytes:
    """The bytes of tests/data/real/REL.xz (unpacked once per session: every cache below holds them)."""
    with open(os.path.join(REAL, rel + ".xz"), "rb") as fh:
        return lzma.decompress(fh.read())


def qwen_files(chat_template: str | None = None) -> dict[str, bytes]:
    tokenizer = unpacked("qwen2.5/tokenizer.json")
    with open(os.path.join(REAL, "qwen2.5", "tokenizer_config.json"), "rb") as fh:
        config = json.loads(fh.read())
    if chat_template is not None:
        config["chat_template"] = chat_template
    return {"tokenizer.json": tokenizer, "tokenizer_config.json": json.dumps(config).encode(),
            "model.safetensors.index.json": b"{}"}


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A hub cache with Qwen/Qwen2.5-0.5B-Instruct at two revisions (main and the tag v1), a
    BERT-style repo and a repo without a tokenizer; HF_HUB_CACHE points at it."""
    hub_dir = tmp_path / "hub"
    write_hf_cache(hub_dir, "Qwen/Qwen2.5-0.5B-Instruct", qwen_files("{{ 'old' }}"), OLD, refs=("v1",))
    write_hf_cache(hub_dir, "Qwen/Qwen2.5-0.5B-Instruct", qwen_files("{{ 'new' }}"), NEW, refs=("main",))
    write_hf_cache(hub_dir, "sentence-transformers/all-MiniLM-L6-v2", {"tokenizer.json": unpacked("bert-minilm/tokenizer.json")},
                   "b" * 40)
    write_hf_cache(hub_dir, "org/weights-only", {"config.json": b"{}"}, "c" * 40)
    info = scan_cache_dir(hub_dir)
    assert info.warnings == [] and len(info.repos) == 3  # huggingface_hub reads it as its own
    monkeypatch.setenv("HF_HUB_CACHE", str(hub_dir))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return hub_dir


@pytest.mark.parametrize("text, expected", [
    ("Qwen/Qwen2.5-7B-Instruct", ("Qwen/Qwen2.5-7B-Instruct", None)),
    ("Qwen/Qwen2.5-7B-Instruct@main", ("Qwen/Qwen2.5-7B-Instruct", "main")),
    ("meta-llama/Llama-3.1-8B@0e9e39f", ("meta-llama/Llama-3.1-8B", "0e9e39f")),
    ("tokenizer.json", None), ("a/b/c", None), ("../x", None), ("/abs/path", None), ("org/model@", None),
    ("./org", None), ("org/..", None),
])
def test_parse_name(text, expected):
    assert hub.parse_name(text) == expected


def test_load_by_name(cache):
    tok = tokviz.load("Qwen/Qwen2.5-0.5B-Instruct")
    folder = tokviz.load(cache / "models--Qwen--Qwen2.5-0.5B-Instruct" / "snapshots" / NEW)
    assert tok.encode_ids("Hello, 世界!") == folder.encode_ids("Hello, 世界!")
    assert tok.source.name == "Qwen/Qwen2.5-0.5B-Instruct" and tok.source.extra["hub_revision"] == NEW
    assert tok.chat_templates.pick().source == "{{ 'new' }}"  # main's revision


@pytest.mark.first_cases(1)
@pytest.mark.parametrize("revision, template", [("main", "new"), ("v1", "old"), (OLD[:7], "old"), (NEW, "new")])
def test_load_a_revision(cache, revision, template):
    tok = tokviz.load(f"Qwen/Qwen2.5-0.5B-Instruct@{revision}")
    assert tok.chat_templates.pick().source == f"{{{{ '{template}' }}}}"


def test_names_are_matched_without_case(cache):
    assert tokviz.load("qwen/qwen2.5-0.5b-instruct").source.name == "Qwen/Qwen2.5-0.5B-Instruct"


def test_what_is_missing_is_named(cache):
    with pytest.raises(TokvizError, match=r"org/absent is not in the Hugging Face cache \(.*hub\); fetch its "
                                          r"tokenizer files with `tokviz fetch org/absent`"):
        tokviz.load("org/absent")
    with pytest.raises(TokvizError, match=r"revision 'v9' is not in the Hugging Face cache \(it has "):
        tokviz.load("Qwen/Qwen2.5-0.5B-Instruct@v9")
    with pytest.raises(TokvizError, match=r"^org/weights-only: is in the Hugging Face cache \(revision cccccccccccc\) "
                                          r"but holds no tokenizer files"):
        tokviz.load("org/weights-only")


def test_an_existing_path_wins(cache, tmp_path, monkeypatch):
    local = tmp_path / "Qwen" / "Qwen2.5-0.5B-Instruct"
    local.mkdir(parents=True)
    (local / "tokenizer.json").write_bytes(unpacked("bert-minilm/tokenizer.json"))
    monkeypatch.chdir(tmp_path)
    assert tokviz.load("Qwen/Qwen2.5-0.5B-Instruct").model.kind == "WordPiece"


def test_no_cache_at_all(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "nothing"))
    assert hub.cached_models() == []
    with pytest.raises(TokvizError, match="is not in the Hugging Face cache"):
        tokviz.load("Qwen/Qwen2.5-0.5B-Instruct")


def test_the_library_lists_the_cache(cache):
    found = [f for f in discover(env={"HF_HUB_CACHE": str(cache)}, shipped=False, tiktoken_cache=False, packages=False)
             if f.origin == HF_CACHE]
    assert [(f.name, f.format) for f in found] == [("Qwen/Qwen2.5-0.5B-Instruct", "hf-json"),
                                                   ("sentence-transformers/all-MiniLM-L6-v2", "hf-json")]
    assert found[0].detail == f"revision {NEW[:12]} (main)"
    assert found[0].load().encode_ids("hi") == tokviz.load("Qwen/Qwen2.5-0.5B-Instruct").encode_ids("hi")



def test_cli_info_and_fetch_offline(cache, capsys):
    assert cli_main(["info", "-t", "Qwen/Qwen2.5-0.5B-Instruct", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["name"] == "Qwen/Qwen2.5-0.5B-Instruct" and info["hub_revision"] == NEW
    assert cli_main(["fetch", "org/absent"]) == 2  # HF_HUB_OFFLINE: nothing is downloaded
    assert "org/absent: could not download the tokenizer files" in capsys.readouterr().err
    assert cli_main(["fetch", "not a name"]) == 2
    assert "is not a Hub model name" in capsys.readouterr().err
