"""analysis.merges: the merge index per model is built once (whichever threads ask) and lives only
as long as its model; `built_merge_index`, `trace_ready` and `token_facts(build=False)` never build."""
from __future__ import annotations

import gc
import json
import threading
import weakref

import pytest

import tokviz
import tokviz.defaults
from tokviz.analysis.merges import (
    built_merge_index,
    merge_index,
    merge_tree,
    prepare_trace,
    trace_bpe,
    trace_ready,
    traced_tree,
    used_by,
)
from tokviz.analysis.token_info import NOT_INDEXED, token_facts
from tokviz.core.models.bpe import BPE

from _shared import TOKENIZERS, need


def test_two_threads_asking_at_once_get_one_index():
    tok = tokviz.load(need(TOKENIZERS / "qwen2.5" / "tokenizer.json"))
    model = tok.model
    assert built_merge_index(model) is None
    start = threading.Barrier(3)
    got = []

    def ask():
        start.wait()
        got.append(merge_index(model))

    threads = [threading.Thread(target=ask) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 3 and got[0] is got[1] is got[2] is built_merge_index(model) is merge_index(model)
    # and it answers as the file lists its merges (tokenizer.json, read here with json)
    merges = json.loads((TOKENIZERS / "qwen2.5" / "tokenizer.json").read_text(encoding="utf-8"))["model"]["merges"]
    pairs = [m.split(" ") if isinstance(m, str) else m for m in merges]
    for token in ("Ġtoken", "ing"):
        assert used_by(model, token) == [(r, a + b) for r, (a, b) in enumerate(pairs) if token in (a, b)]


def test_the_index_does_not_keep_its_model_alive():
    refs = []
    for _ in range(20):
        tok = tokviz.load(tokviz.defaults.default_tokenizer_path())
        merge_index(tok.model)
        prepare_trace(tok.model)
        refs.append((weakref.ref(tok), weakref.ref(tok.model)))
        del tok
    gc.collect()
    assert [(t(), m()) for t, m in refs] == [(None, None)] * 20


def test_asking_whether_it_is_built_builds_nothing():
    tok = tokviz.load(tokviz.defaults.default_tokenizer_path())
    model = tok.model
    token = max((t for t in model.vocab if len(t) > 3), key=len)
    i = model.vocab[token]
    assert built_merge_index(model) is None and not trace_ready(model)
    assert token_facts(tok, i, build=False) == {"merge rank": NOT_INDEXED}
    assert built_merge_index(model) is None and not trace_ready(model)
    prepare_trace(model)
    assert trace_ready(model)
    assert traced_tree(model, token) is not None  # (reachable: no index needed)
    assert built_merge_index(model) is None
    assert token_facts(tok, i) == token_facts(tok, i, build=False) == {"merge rank": merge_tree(model, token).rank}
    assert built_merge_index(model) is not None


def test_a_model_ranked_by_token_id_needs_no_index_for_its_rank():
    tok = tokviz.load(need(TOKENIZERS / "cl100k_base.tiktoken"))
    model = tok.model
    assert trace_ready(model)  # (no merge list: pairs are ranked by the merged token's id)
    i = tok.encode(" tokenizer").ids[0]
    assert token_facts(tok, i, build=False) == {"merge rank": i}
    assert built_merge_index(model) is None


@pytest.mark.shared
@pytest.mark.slow
def test_the_rank_table_built_for_traces_is_the_models_own():
    """`prepare_trace` builds, a slice at a time, the table `BPE.ranks` builds in one go."""
    path = need(TOKENIZERS / "llama3" / "tokenizer.json")
    prepared, plain = tokviz.load(path).model, tokviz.load(path).model
    prepare_trace(prepared)
    assert prepared._ranks == plain.ranks and len(plain.ranks) > 200_000
    twice = BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b"), ("a", "b")])  # (listed twice: the later rank)
    prepare_trace(twice)
    assert twice._ranks == BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b"), ("a", "b")]).ranks == {("a", "b"): 1}
    word = "Ġtokenization"
    assert trace_bpe(prepared, word) == trace_bpe(plain, word)
