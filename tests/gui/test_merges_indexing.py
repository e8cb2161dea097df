"""The merge tables (a trace's rank table, the merge index) are built on a worker, never on the UI
thread: the Merges panel and a token's tooltip read "indexing…" until they arrive, then show what
the synchronous `analysis.merges` functions give; the last token asked for meanwhile wins."""
from __future__ import annotations

import gc
import json
import shutil
import weakref

import pytest
from PySide6.QtCore import Qt

import tokviz
import tokviz.defaults
from tokviz.analysis.merges import built_merge_index, merge_tree, trace_bpe, trace_ready, used_by
from tokviz.analysis.token_info import token_facts

from .helpers import shared_tokenizer, wait_encoded
from .test_merges_panel import panel  # noqa: F401  (the shown MergesPanel fixture)


def _fresh_qwen():
    """Qwen2.5 loaded here: no merge table of it is built yet."""
    tok = tokviz.load(shared_tokenizer("qwen2.5/tokenizer.json"))
    assert built_merge_index(tok.model) is None and not trace_ready(tok.model)
    return tok


def _shape(node):
    return [(n.token, n.id, n.rank, n.reachable if n is node else True) for n in node.walk()]


def _used_by_shown(panel):
    return [panel.used_by.item(k).data(Qt.ItemDataRole.UserRole) for k in range(panel.used_by.count())]


def test_a_token_asked_before_the_index_exists_shows_indexing_then_the_tree(qtbot, panel):
    tok = _fresh_qwen()
    model = tok.model
    panel.set_tokenizer(tok)
    text = "The tokenizer works"
    enc = tok.encode(text)
    k = enc.pieces.index("Ġtokenizer")
    panel.show_in_context(text, enc.offsets[k][0], "Ġtokenizer")
    # it returned without building anything: the tree and "used by" say so (the trace too, unless
    # the worker built the rank table it reads in the meantime)
    assert panel.is_indexing()
    assert panel.tree_view.tree() is None and "indexing…" in panel.tree_info.text()
    assert "indexing…" in panel.used_toggle.text()
    if not trace_ready(model):
        assert panel.step_count() == 0 and "indexing…" in panel.step_label.text()
    assert panel.current_token() == "Ġtokenizer"
    qtbot.waitUntil(lambda: not panel.is_indexing(), timeout=60_000)
    # then the same as the synchronous functions
    assert _shape(panel.tree_view.tree()) == _shape(merge_tree(model, "Ġtokenizer"))
    assert f"merge #{merge_tree(model, 'Ġtokenizer').rank}" in panel.tree_info.text()
    users = used_by(model, "Ġtokenizer")
    assert _used_by_shown(panel) == [m for _, m in users[:500]]
    assert f"Used by {len(users):,} merge" in panel.used_toggle.text()
    trace = trace_bpe(model, "Ġtokenizer")
    assert panel.word_box.currentData() == "Ġtokenizer"
    assert panel.step_count() == len(trace.steps)
    assert panel.current_segmentation() == tuple(panel.label_of(s) for s in trace.result)
    # and "used by" lists what the file's merges say (tokenizer.json read with json)
    merges = json.loads(shared_tokenizer("qwen2.5/tokenizer.json").read_text(encoding="utf-8"))["model"]["merges"]
    pairs = [m.split(" ") if isinstance(m, str) else m for m in merges]
    listed = [(r, a + b) for r, (a, b) in enumerate(pairs) if "Ġtoken" in (a, b)]
    panel.show_token("Ġtoken")
    assert not panel.is_indexing()  # (built: at once)
    assert _used_by_shown(panel) == [m for _, m in listed[:500]]


def test_the_last_token_asked_for_wins(qtbot, panel):
    tok = _fresh_qwen()
    panel.set_tokenizer(tok)
    panel.trace_text(" lowering tokens")
    assert panel.step_count() == 0 and "indexing…" in panel.step_label.text()
    panel.word_box.setCurrentIndex(1)
    assert panel.show_token("Ġtokenizer")
    assert panel.show_token("Ġlower")
    assert "indexing…" in panel.used_toggle.text()
    qtbot.waitUntil(lambda: not panel.is_indexing(), timeout=60_000)
    assert panel.tree_view.tree().token == "Ġlower" == panel.current_token() == panel.token_input.text()
    assert _shape(panel.tree_view.tree()) == _shape(merge_tree(tok.model, "Ġlower"))
    assert _used_by_shown(panel) == [m for _, m in used_by(tok.model, "Ġlower")[:500]]
    assert panel.word_box.currentData() == "Ġtokens"
    assert panel.step_count() == len(trace_bpe(tok.model, "Ġtokens").steps)
    panel.back_button.click()  # the token asked for before is in the history
    assert panel.tree_view.tree().token == "Ġtokenizer"


def test_a_tokenizer_switched_away_is_released(qtbot, panel):
    """Twenty tokenizers, each indexed for the panel: none is kept once the panel shows another."""
    refs = []
    for _ in range(20):
        tok = tokviz.load(tokviz.defaults.default_tokenizer_path())
        panel.set_tokenizer(tok)
        token = max((t for t in tok.model.vocab if len(t) > 3), key=len)
        assert panel.show_token(token)
        panel.trace_text(" tokenizer")
        qtbot.waitUntil(lambda: not panel.is_indexing(), timeout=30_000)
        assert built_merge_index(tok.model) is not None
        refs.append(weakref.ref(tok))
        del tok
    panel.set_tokenizer(None)
    qtbot.waitUntil(lambda: not panel.tables.is_busy(), timeout=30_000)
    gc.collect()
    assert [r() for r in refs] == [None] * 20


@pytest.mark.slow
def test_a_tooltip_reads_indexing_until_the_index_is_built(qtbot, make_window, qwen_path, tmp_path):
    private = tmp_path / "tokenizer.json"  # (a tokenizer no earlier test has opened, and indexed)
    shutil.copy(qwen_path, private)
    window = make_window(private, "The tokenizer works")
    enc = wait_encoded(qtbot, window, "The tokenizer works")
    tok = window.controller.tokenizer
    assert built_merge_index(tok.model) is None
    k = enc.pieces.index("Ġtokenizer")
    assert "indexing…" in window.token_view.tooltip_text(k)
    qtbot.waitUntil(lambda: built_merge_index(tok.model) is not None, timeout=60_000)
    rank = token_facts(tok, int(enc.ids[k]))["merge rank"]
    tip = window.token_view.tooltip_text(k)
    assert "indexing…" not in tip and f">{rank}<" in tip
