"""A BPE model read from merge lines keeps them as one string (core/models/merge_lines.py): the
same lines, pairs, ranks, encodings and exports as a list of strings gave, in a fraction of the
memory."""
from __future__ import annotations

import copy
import json
import pickle
import sys

import pytest

import tokviz
from tokviz.core.models import BPE
from tokviz.core.models.merge_lines import MergeLines, MergePairs

from _shared import bundled_qwen_folder

LINES = ["a b", "ab c", "é ü", "中 文", "x y", "Ġ t", "Ġt he"]


def test_lines_read_back_as_given():
    m = MergeLines(LINES)
    assert len(m) == len(LINES)
    assert list(m) == m.to_list() == LINES
    assert [m[k] for k in range(-len(LINES), len(LINES))] == LINES + LINES
    for a in range(-2, len(LINES) + 2):
        for b in range(-2, len(LINES) + 2):
            assert m[a:b] == LINES[a:b]
    assert m[::2] == LINES[::2] and m[::-1] == LINES[::-1]
    with pytest.raises(IndexError):
        m[len(LINES)]
    assert MergeLines([]).to_list() == [] and list(MergeLines([])) == []
    assert m == LINES and m != LINES[:-1] and m == MergeLines(list(LINES))
    assert pickle.loads(pickle.dumps(m)) == m and copy.deepcopy(m) == m


def test_pairs_read_as_split_lines():
    pairs = MergePairs(MergeLines(LINES))
    want = [tuple(line.split(" ")) for line in LINES]
    assert len(pairs) == len(want) and list(pairs) == want and pairs[1:3] == want[1:3] and pairs[-1] == want[-1]
    assert pairs == want and pairs == [list(p) for p in want] and pairs != want[1:]


def test_many_lines_in_chunks():
    lines = [f"t{k} u{k % 97}" for k in range(10_000)]  # (more than one chunk of iteration)
    m = MergeLines(lines)
    assert list(m) == lines and m[4095:4098] == lines[4095:4098]


def _qwen(tmp_path):
    return tokviz.load(bundled_qwen_folder(tmp_path) / "tokenizer.json")


def test_a_real_model_keeps_its_merges_small_and_exact(tmp_path):
    tok = _qwen(tmp_path)
    raw = json.loads((tmp_path / "tokenizer.json").read_text(encoding="utf-8"))["model"]["merges"]
    model = tok.model
    assert isinstance(model._merge_lines, MergeLines)
    assert model.merge_lines() == raw and model.merge_count == len(raw)
    as_list = sys.getsizeof(raw) + sum(map(sys.getsizeof, raw))
    kept = sys.getsizeof(model._merge_lines._text) + sys.getsizeof(model._merge_lines._ends)
    assert kept < as_list / 3
    assert model.merges == [tuple(line.split(" ")) for line in raw]
    ranks = model.ranks
    assert ranks[raw[0]] == 0 and ranks[raw[-1]] == len(raw) - 1

    # the same model from a plain list of pairs encodes alike (the Python path, which reads ranks)
    pairs = BPE(model.vocab, [tuple(line.split(" ")) for line in raw])
    text = "Hello wörld, 中文分词 and tokenizers: 12345!"
    for word in ["Ġhello", "ĠwÃ¶rld", "Ġtokenizers", "12345"]:
        assert model.tokenize(word) == pairs.tokenize(word)
    python = tokviz.load(tmp_path / "tokenizer.json").use_native(False)
    assert tok.encode(text).ids == python.encode(text).ids


@pytest.mark.slow
def test_export_of_a_model_from_lines_writes_the_same_merges(tmp_path):
    tok = _qwen(tmp_path)
    out = tmp_path / "out" / "tokenizer.json"
    out.parent.mkdir()
    tokviz.save(tok, out)
    written = json.loads(out.read_text(encoding="utf-8"))["model"]["merges"]
    assert written == tok.model.merge_lines()
    folder = tmp_path / "vocab-merges"
    tokviz.save(tok, folder, format="vocab-merges")
    assert (folder / "merges.txt").read_text(encoding="utf-8").splitlines()[1:] == tok.model.merge_lines()


def test_describe_and_checks_do_not_build_the_rank_table(tmp_path):
    """The explorer's header describes the tokenizer on the UI thread: telling a merge list from a
    tiktoken-style ranking must not build a dict of every merge (Llama 3: 35 MB, kept)."""
    from tokviz.formats.gpt2_writer import vocab_merges_problem

    tok = _qwen(tmp_path)
    assert "ranked by token" not in tok.describe()["model_detail"]
    assert vocab_merges_problem(tok) is None
    assert tok.model._ranks is None
    tiktoken_style = BPE({"a": 0, "b": 1, "ab": 2}, None)
    assert "ranked by token" in tiktoken_style.describe()


def test_a_merge_the_model_has_is_refused_for_a_model_read_from_lines(tmp_path):
    from tokviz.analysis.vocab_edit import add_merges
    from tokviz.errors import TokvizError

    tok = _qwen(tmp_path)
    a, b = tok.model.merges[3]
    with pytest.raises(TokvizError, match="is already merge 3 of this model"):
        add_merges(tok, [(a, b)])
    assert tok.model.rank_of(a, b) == 3 and tok.model.rank_of(b, a) is None
