"""The Merges panel: stepping through traces, navigating merge trees, and the health check."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt

import tokviz
from tokviz.analysis.merges import trace_bpe
from tokviz.core import Tokenizer
from tokviz.core.models.bpe import BPE
from tokviz.gui.merges_panel import MergesPanel

from .helpers import shared_tokenizer


@pytest.fixture(scope="module")
def qwen():
    return tokviz.load(shared_tokenizer("qwen2.5/tokenizer.json"))


@pytest.fixture
def panel(qtbot):
    p = MergesPanel()
    qtbot.addWidget(p)
    p.resize(1000, 800)
    p.show()
    yield p
    p.shutdown()


def test_stepping_through_a_bpe_trace(panel, qwen):
    panel.set_tokenizer(qwen)
    assert panel.trace_text(" lower") == 1
    trace = trace_bpe(qwen.model, "Ġlower")
    assert panel.step_count() == len(trace.steps) > 2
    assert panel.step() == panel.step_count()  # it opens on the result
    label = panel.label_of
    assert panel.current_segmentation() == tuple(label(s) for s in trace.result)
    panel.set_step(0)
    assert panel.current_segmentation() == tuple(label(s) for s in trace.initial)
    assert not panel.prev_button.isEnabled()
    for k, step in enumerate(trace.steps, 1):
        panel.next_button.click()
        assert panel.step() == k
        assert panel.current_segmentation() == tuple(label(s) for s in step.symbols)
        assert f"merge #{step.rank}" in panel.step_label.text()
        assert panel.trace_view.current() == k
    assert not panel.next_button.isEnabled()
    # the picture: one row per step, the current one outlined
    assert len(panel.trace_view.rows()) == panel.step_count() + 1
    image = panel.trace_view.grab().toImage()
    assert image.width() > 50


def test_navigating_the_merge_tree(qtbot, panel, qwen):
    panel.set_tokenizer(qwen)
    assert panel.show_token("Ġtokenizer")
    view = panel.tree_view
    items = view.node_items()
    assert items[0].node.token == "Ġtokenizer" and items[0].label == panel.label_of("Ġtokenizer")
    child = next(i for i in items if i.node.token == "Ġtoken")
    view.centerOn(child)
    qtbot.wait(10)
    point = view.mapFromScene(child.scenePos() + child.boundingRect().center())
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert panel.current_token() == "Ġtoken"
    assert "id" in panel.tree_info.text()
    # "used by" lists the merges that take it, Ġtokenizer among them; activating one goes there
    used = [panel.used_by.item(k).data(Qt.ItemDataRole.UserRole) for k in range(panel.used_by.count())]
    assert "Ġtokenizer" in used
    panel.back_button.click()
    assert panel.current_token() == "Ġtokenizer"
    item = panel.used_by.item(0) if panel.used_by.count() else None
    if item is not None:
        panel.used_by.itemActivated.emit(item)
        assert panel.current_token() == item.data(Qt.ItemDataRole.UserRole)
    # by id, and a miss is explained
    assert panel.show_token(str(qwen.model.vocab["Ġlower"]))
    assert panel.current_token() == "Ġlower"
    assert not panel.show_token("no such token at all")
    assert "not a token" in panel.tree_info.text()


def _wulumuqi():
    chars = ["乌", "鲁", "木", "齐"]
    merges = [("鲁", "木"), ("乌", "鲁"), ("木", "齐"), ("乌鲁", "木齐")]
    vocab = {c: i for i, c in enumerate(chars)}
    for a, b in merges:
        vocab[a + b] = len(vocab)
    return Tokenizer(BPE(vocab, merges))


def test_health_check_finds_the_unreachable_token(qtbot, panel):
    panel.set_tokenizer(_wulumuqi())
    with qtbot.waitSignal(panel.healthFinished, timeout=30_000) as blocker:
        panel.check_health()
    report = blocker.args[0]
    assert [t for _, t, _ in report.unreachable] == ["乌鲁木齐"]
    section = panel.health_tree.topLevelItem(0)
    assert section.text(0).startswith("Unreachable tokens (1)")
    item = section.child(0)
    assert "乌鲁木齐" in item.text(0) and "乌 | 鲁木 | 齐" in item.text(1)
    panel.health_tree.itemActivated.emit(item, 0)
    assert panel.current_token() == "乌鲁木齐" and "unreachable" in panel.tree_info.text()
    assert not panel.tree_view.tree().reachable
    # the trace shows why: 鲁木 merges first
    panel.trace_text("乌鲁木齐")
    assert panel.current_segmentation() == ("乌", "鲁木", "齐")


def test_repeated_health_checks_leave_no_objects_behind(qtbot, panel):
    """Each check shows its progress with the panel's one timer (a timer per check piled up)."""
    from PySide6.QtCore import QObject

    panel.set_tokenizer(_wulumuqi())
    counts = []
    for _ in range(3):
        with qtbot.waitSignal(panel.healthFinished, timeout=30_000):
            panel.check_health()
        counts.append(len(panel.findChildren(QObject)))
    assert counts[0] == counts[1] == counts[2]
    assert not panel.is_checking()


def test_health_check_can_be_cancelled(qtbot, panel, qwen):
    panel.set_tokenizer(qwen)
    with qtbot.waitSignal(panel.healthCancelled, timeout=30_000):
        panel.check_health()
        qtbot.waitUntil(lambda: panel.health_progress.value() > 0, timeout=20_000)
        panel.cancel_health()
    assert not panel.is_checking() and panel.report is None


def test_wordpiece_and_unigram_traces(panel):
    bert = tokviz.load(shared_tokenizer("bert-minilm/tokenizer.json"))
    panel.set_tokenizer(bert)
    assert not panel.tree_box.isVisible()
    panel.trace_text("unaffable")
    assert panel.current_segmentation() == tuple(bert.model.id_to_token(i) for i, _, _ in bert.model.tokenize("unaffable"))
    panel.set_step(1)
    assert len(panel.current_segmentation()) == 1
    sp = tokviz.load(shared_tokenizer("sentencepiece/unigram_8k.model"))
    panel.set_tokenizer(sp)
    panel.trace_text("hello world")
    bars = panel.trace_view.lattice_bars()
    best = [b.label for b in sorted(bars, key=lambda b: b.start) if b.best]
    assert best == [sp.model.pieces[i][0] for i, _, _ in sp.model.viterbi("▁hello▁world")]
    assert panel.nbest.rowCount() > 1
    assert float(panel.nbest.item(0, 2).text()) >= float(panel.nbest.item(1, 2).text())


def test_clicking_a_token_in_the_explorer_shows_its_tree(qtbot, make_window, qwen_path):
    window = make_window(qwen_path, "The tokenizer works")
    window.merges_dock.show()
    view = window.token_view
    enc = view.encoding()
    index = next(i for i, p in enumerate(enc.pieces) if p == "Ġtokenizer")
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.token_rects(index)[0].center().toPoint())
    panel = window.merges_panel
    assert panel.current_token() == "Ġtokenizer"
    assert panel.word_box.currentData() == "Ġtokenizer"
