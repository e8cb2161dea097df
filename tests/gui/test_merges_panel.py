"""The Merges panel: stepping through traces, navigating merge trees, and the health check."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt

import tokviz
import tokviz.defaults
from tokviz.analysis.merges import merge_tree, trace_bpe, used_by
from tokviz.core import Tokenizer
from tokviz.core.models.bpe import BPE
from tokviz.gui.views.merge_tree_view import MIN_LEGIBLE_PT
from tokviz.gui.panels.merges_panel import MIN_TREE_HEIGHT, MergesPanel

from .helpers import shared_tokenizer


@pytest.fixture(scope="module")
def qwen():
    return tokviz.load(shared_tokenizer("qwen2.5/tokenizer.json"))


def indexed(qtbot, panel):
    """Wait for the merge tables the panel asked a worker for (it shows "indexing…" meanwhile)."""
    qtbot.waitUntil(lambda: not panel.is_indexing(), timeout=60_000)


@pytest.fixture
def panel(qtbot):
    p = MergesPanel()
    qtbot.addWidget(p)
    p.resize(1000, 800)
    p.show()
    yield p
    p.shutdown()


def test_stepping_through_a_bpe_trace(qtbot, panel, qwen):
    panel.set_tokenizer(qwen)
    assert panel.trace_text(" lower") == 1
    indexed(qtbot, panel)
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
    indexed(qtbot, panel)
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


@pytest.mark.shared
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


@pytest.mark.slow
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
    indexed(qtbot, panel)
    assert panel.tree_view.tree().token == "Ġtokenizer"


# ---- the tree in a side dock --------------------------------------------------------------------

@pytest.fixture
def demo():
    return tokviz.load(tokviz.defaults.default_tokenizer_path())


def _docked_panel(qtbot, tokenizer, width=360, size=(1280, 800)):
    from .helpers import docked

    panel = MergesPanel()
    panel.set_tokenizer(tokenizer)
    window, dock = docked(qtbot, panel, size=size, dock_width=width)
    qtbot.waitUntil(lambda: abs(dock.width() - width) <= 2, timeout=5_000)
    return panel, window, dock


def _visible_scene(view):
    return view.mapToScene(view.viewport().rect()).boundingRect()


def _smallest_text_pt(view) -> float:
    return view._small.pointSizeF() * view.scale_factor()


def test_a_small_tree_fits_the_docked_view_whole(qtbot, demo):
    panel, window, dock = _docked_panel(qtbot, demo, 340)
    try:
        token = next(t for t in demo.model.vocab if len(merge_tree(demo.model, t).leaves()) == 3)
        assert panel.show_token(token)
        indexed(qtbot, panel)
        view = panel.tree_view
        visible = _visible_scene(view)
        for item in view.node_items():
            assert visible.contains(item.sceneBoundingRect())
        assert 0 < view.scale_factor() <= 1.0
        assert view.height() >= MIN_TREE_HEIGHT
    finally:
        panel.shutdown()


def test_a_wide_tree_stays_legible_and_scrolls_then_fits_when_the_dock_widens(qtbot, demo):
    """At 340 px 'Ġtokenizer' (10 symbols) would need a scale with unreadable text: it is drawn at
    the smallest legible scale and scrolls, its root in sight; a wider dock fits it whole."""
    from PySide6.QtCore import Qt as _Qt

    panel, window, dock = _docked_panel(qtbot, demo, 340)
    try:
        assert panel.show_token("Ġtokenizer")
        indexed(qtbot, panel)
        view = panel.tree_view
        scene = view.scene().sceneRect()
        assert scene.width() * view.legible_scale() > view.viewport().width()  # (it cannot fit legibly)
        assert _smallest_text_pt(view) >= MIN_LEGIBLE_PT - 1e-6
        assert view.horizontalScrollBar().maximum() > 0
        root = view.node_items()[0]
        assert _visible_scene(view).contains(root.sceneBoundingRect())
        window.resizeDocks([dock], [1000], _Qt.Orientation.Horizontal)
        qtbot.waitUntil(lambda: dock.width() > 900, timeout=5_000)
        qtbot.waitUntil(lambda: view.horizontalScrollBar().maximum() == 0, timeout=5_000)
        visible = _visible_scene(view)
        assert all(visible.contains(item.sceneBoundingRect()) for item in view.node_items())
        assert _smallest_text_pt(view) >= MIN_LEGIBLE_PT - 1e-6
    finally:
        panel.shutdown()


def test_the_build_tab_gives_the_tree_the_larger_share(qtbot, demo):
    panel, window, dock = _docked_panel(qtbot, demo, 360, size=(1280, 800))
    try:
        assert panel.show_token("Ġtokenizer")
        panel.trace_text(" tokenizer")
        indexed(qtbot, panel)
        tree_h = panel.tree_view.height()
        assert tree_h >= MIN_TREE_HEIGHT
        assert tree_h > panel.trace_scroll.height()
        assert tree_h >= 0.35 * panel.height()
        # a short dock: the tab scrolls instead of squashing the tree
        window.resize(1280, 420)
        qtbot.waitUntil(lambda: panel.tabs.widget(0).verticalScrollBar().maximum() > 0, timeout=5_000)
        assert panel.tree_view.height() >= MIN_TREE_HEIGHT
    finally:
        panel.shutdown()


def test_zoom_and_fit(qtbot, demo):
    from PySide6.QtCore import Qt as _Qt

    panel, window, dock = _docked_panel(qtbot, demo, 420)
    try:
        assert panel.show_token("Ġtokenizer")
        indexed(qtbot, panel)
        view = panel.tree_view
        fitted = view.scale_factor()
        assert view.is_fitting()
        panel.zoom_in_button.click()
        assert view.scale_factor() == pytest.approx(fitted * 1.25) and not view.is_fitting()
        window.resizeDocks([dock], [360], _Qt.Orientation.Horizontal)  # a zoomed tree keeps its zoom
        qtbot.waitUntil(lambda: abs(dock.width() - 360) <= 2, timeout=5_000)
        assert view.scale_factor() == pytest.approx(fitted * 1.25)
        qtbot.keyClick(view, _Qt.Key.Key_Minus)
        assert view.scale_factor() == pytest.approx(fitted)
        for _ in range(30):  # zooming out stops at seeing the whole tree (or the legible scale, if smaller)
            panel.zoom_out_button.click()
        whole = min(view.viewport().width() / view.sceneRect().width(),
                    view.viewport().height() / view.sceneRect().height())
        assert view.scale_factor() == pytest.approx(min(whole, view.legible_scale()))
        panel.fit_button.click()
        assert view.is_fitting() and view.scale_factor() == pytest.approx(view.fit_scale())
    finally:
        panel.shutdown()


def test_used_by_is_folded_under_the_tree(qtbot, demo):
    panel, window, dock = _docked_panel(qtbot, demo, 360)
    try:
        assert panel.show_token("Ġtoken")
        indexed(qtbot, panel)
        users = used_by(demo.model, "Ġtoken")
        assert users and panel.used_by.count() == min(500, len(users))
        assert f"Used by {len(users)} merge" in panel.used_toggle.text()
        assert not panel.used_by.isVisible()
        panel.used_toggle.click()
        assert panel.used_by.isVisible()
        assert panel.tree_view.height() >= MIN_TREE_HEIGHT
    finally:
        panel.shutdown()


def test_a_byte_level_word_is_listed_as_its_text(panel):
    tok = tokviz.load(tokviz.defaults.default_tokenizer_path())
    panel.set_tokenizer(tok)
    panel.trace_text(" 分词器吗")
    assert panel.word_box.count() == 1
    assert panel.word_box.itemText(0).endswith("→ ·分词器吗")


def _mistral(tmp_path):
    """Mistral 7B's sentencepiece model from tests/data/real, unpacked (byte pieces, byte fallback)."""
    import lzma
    from pathlib import Path

    path = tmp_path / "mistral-v1.model"
    src = Path(__file__).parents[1] / "data" / "real" / "mistral-v1.model.xz"
    path.write_bytes(lzma.decompress(src.read_bytes()))
    return path


def test_health_tab_adds_token_health_and_charts_the_counts(qtbot, panel, tmp_path):
    import math

    import pyqtgraph as pg

    spm = pytest.importorskip("sentencepiece")
    path = _mistral(tmp_path)
    sp = spm.SentencePieceProcessor(model_file=str(path))
    panel.set_tokenizer(tokviz.load(path))
    panel.tabs.setCurrentIndex(1)
    assert panel.health_plot.isHidden()  # (no chart before a check)
    with qtbot.waitSignal(panel.healthFinished, timeout=60_000) as blocker:
        panel.check_health()
    report = blocker.args[0]
    counts = report.counts()
    # byte pieces 0x80-0xFF decode to U+FFFD alone (sentencepiece): the stray bytes
    stray = {i for i in range(sp.get_piece_size()) if sp.is_byte(i) and "\ufffd" in sp.decode([i])}
    assert counts["stray bytes"] == len(stray) == 128
    titles = [panel.health_tree.topLevelItem(k).text(0) for k in range(panel.health_tree.topLevelItemCount())]
    assert len(titles) == len(counts) == 11
    assert any(t.startswith("Stray bytes") and t.endswith("(128)") for t in titles)
    same = next(panel.health_tree.topLevelItem(k) for k, t in enumerate(titles) if t.startswith("Ids that decode alike"))
    rows = {same.child(k).text(0): same.child(k).text(1) for k in range(same.childCount())}
    assert set(rows["'A'"].removeprefix("ids ").split(", ")) == {str(sp.piece_to_id("<0x41>")), str(sp.piece_to_id("A"))}
    # the chart: a bar per non-zero finding on a log axis, every count written beside it
    assert panel.health_plot.isVisible() and panel.health_axis.names == list(counts)
    bars = [i for i in panel.health_plot.getPlotItem().items if isinstance(i, pg.BarGraphItem)]
    assert len(bars) == 1
    ends = bars[0].opts["x0"] + bars[0].opts["width"]
    assert sorted(10 ** ends) == pytest.approx(sorted(v for v in counts.values() if v))
    labels = sorted(i.textItem.toPlainText().strip() for i in panel.health_plot.getPlotItem().items
                    if isinstance(i, pg.TextItem))
    assert labels == sorted(f"{v:,}" for v in counts.values())
    assert math.isclose(panel.health_plot.getViewBox().viewRange()[0][0], math.log10(0.5))


def test_a_token_typed_as_digits_int_cannot_read_is_not_taken_for_an_id(qtbot, panel):
    tok = tokviz.load(tokviz.defaults.default_tokenizer_path())
    panel.set_tokenizer(tok)
    indexed(qtbot, panel)
    for text in ("¹", "²³"):  # (str.isdigit is true for both, and int() reads neither)
        assert panel.show_token(text) is (text in tok.model.vocab)  # (raised ValueError from a click on "¹")
    assert panel.show_token("300") and panel.current_token() == tok.id_to_token(300)
