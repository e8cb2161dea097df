"""vocab.json + merges.txt without a tokenizer_config.json: GPT-2's byte-level pipeline."""
from __future__ import annotations

import pytest
from hypothesis import given, settings

import tokviz
from _shared import EDGE_CASES, assigned_text, examples
from tokviz.defaults import resource_path, sample_text

tk = pytest.importorskip("tokenizers")


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gpt2-layout")
    ref = tk.ByteLevelBPETokenizer(add_prefix_space=False)
    ref.train_from_iterator(resource_path("training.txt").read_text(encoding="utf-8").split("\n"), vocab_size=600,
                            show_progress=False)
    ref.save_model(str(folder))
    assert (folder / "merges.txt").read_text(encoding="utf-8").startswith("#version")
    loaded = tk.ByteLevelBPETokenizer(str(folder / "vocab.json"), str(folder / "merges.txt"), add_prefix_space=False)
    loaded.add_special_tokens(["<|endoftext|>"])  # (GPT2Tokenizer's default, appended as transformers does)
    return tokviz.load(folder), loaded


def check(tok, ref, text):
    ids = tok.encode(text).ids
    assert ids == ref.encode(text).ids
    assert tok.decode(ids) == ref.decode(ids, skip_special_tokens=False)  # (transformers' decode keeps them)


def test_folder_and_file_paths_agree(pair, tmp_path_factory):
    tok, ref = pair
    assert tok.source.format == "gpt2"
    for text in EDGE_CASES + [sample_text()]:
        check(tok, ref, text)


@settings(max_examples=examples(150), deadline=None)
@given(text=assigned_text(60))
def test_random_text(pair, text):
    check(*pair, text)
