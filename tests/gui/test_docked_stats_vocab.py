"""The Statistics and Vocabulary panels in a narrow dock (340-420 px, as the main window docks them):
their minimum size stays small whatever they show, nothing is squashed or needs sideways scrolling,
tables show their numbers whole and no two axis tick labels run into each other."""
from __future__ import annotations

import shutil

import numpy as np
import pyqtgraph as pg
import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFontMetricsF, QImage, QPainter
from PySide6.QtWidgets import QApplication, QScrollArea

import tokviz
from tokviz.defaults import default_tokenizer_path, sample_text_path
from tokviz.gui.widgets.plots import CategoryAxis, FittedAxis
from tokviz.gui.views.stats_view import StatsView
from tokviz.gui.widgets.style import DARK, LIGHT
from tokviz.gui.views.vocab_view import VocabView

from .helpers import DOCK_PANEL_MAX_MIN_HEIGHT, DOCK_PANEL_MAX_MIN_WIDTH, clipped_widgets, docked, shared_tokenizer

WINDOWS = [(1280, 800), (1600, 1000)]
DOCK_WIDTHS = [340, 420]
SCRIPT_NAMES = ["Latin", "CJK", "Hangul", "Cyrillic", "Greek", "Arabic", "Hebrew", "Devanagari", "Thai",
                "other letters", "digits", "punctuation", "whitespace", "symbols", "partial UTF-8", "special"]


@pytest.fixture(params=["demo", pytest.param("qwen2.5", marks=pytest.mark.slow)])  # (Qwen2.5: -m slow)
def tokenizer_path(request):
    if request.param == "demo":
        return default_tokenizer_path()
    return shared_tokenizer("qwen2.5/tokenizer.json")


@pytest.fixture
def panels(qtbot):
    """make(kind, tokenizer_path) -> a VocabView with its vocabulary shown, or a StatsView that
    measured the sample text; shut down after the test."""
    made = []

    def make(kind: str, path):
        tok = tokviz.load(path)
        if kind == "vocab":
            view = VocabView()
            made.append(view)
            with qtbot.waitSignal(view.ready, timeout=60_000):
                view.set_tokenizer(tok)
        else:
            view = StatsView()
            made.append(view)
            view.set_tokenizer(tok)
            view.set_corpus([sample_text_path()])
            with qtbot.waitSignal(view.finished, timeout=60_000):
                view.run()
        return view

    yield make
    for view in made:
        if shiboken6.isValid(view):  # (a docked one went with its window)
            view.shutdown()


def settle(qtbot) -> None:
    """Let pending layouts and repaints run."""
    qtbot.wait(50)
    QApplication.processEvents()


def assert_small_minimum(panel) -> None:
    hint = panel.minimumSizeHint()
    assert hint.width() <= DOCK_PANEL_MAX_MIN_WIDTH and hint.height() <= DOCK_PANEL_MAX_MIN_HEIGHT, \
        f"{type(panel).__name__} asks for at least {hint.width()}x{hint.height()}"


def scroll_pages(panel) -> list[QScrollArea]:
    return panel.findChildren(QScrollArea)


def squashed(root) -> list[str]:
    """clipped_widgets(root) but for a QSpinBox's own line edit, which Qt lays out smaller than its
    minimum size hint even at the spin box's natural size (35x20 < 38x23 in Fusion)."""
    return [line for line in clipped_widgets(root) if "qt_spinbox_lineedit" not in line]


# ---- minimum sizes ---------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["vocab", "stats"])
def test_minimum_size_is_small_whatever_the_panel_shows(qtbot, panels, tokenizer_path, kind, tmp_path):
    empty = VocabView() if kind == "vocab" else StatsView()
    qtbot.addWidget(empty)
    assert_small_minimum(empty)
    empty.shutdown()

    view = panels(kind, tokenizer_path)
    qtbot.addWidget(view)
    assert_small_minimum(view)
    if kind == "vocab":
        for text in ("a filter that goes on and on without a break" * 6, "/[" + "unclosed" * 40 + "/", "中文" * 80):
            view.filter_input.setText(text)
            view.apply_filter()
            assert ("bad regex" in view.count_label.text()) == text.startswith("/[")
            assert_small_minimum(view)
    else:
        long_path = tmp_path / ("corpus_file_with_a_name_that_has_no_spaces_" * 5 + "中文.txt")
        view.set_corpus([long_path, sample_text_path()])
        view.add_compare(tmp_path / ("another_tokenizer_" * 12 + ".json"))
        view.status.setText("Failed: " + str(long_path) * 3)
        assert_small_minimum(view)


def test_a_long_tokenizer_name_is_elided_not_widening(qtbot, panels, tmp_path):
    long_name = tmp_path / ("a_tokenizer_whose_file_name_never_breaks_" * 4 + "中文分词器.model")
    shutil.copy(default_tokenizer_path(), long_name)
    view = panels("vocab", long_name)
    window, dock = docked(qtbot, view, size=(1280, 800), dock_width=340)
    settle(qtbot)
    assert_small_minimum(view)
    assert view.summary.text().startswith(long_name.stem) and f"{view.stats.size:,} tokens" in view.summary.text()
    assert view.summary.is_elided() and view.summary.toolTip() == view.summary.text()
    assert view.summary.width() <= dock.width()


def test_typing_a_long_filter_does_not_widen_the_dock(qtbot, panels, tokenizer_path):
    view = panels("vocab", tokenizer_path)
    window, dock = docked(qtbot, view, size=(1600, 1000), dock_width=340)
    settle(qtbot)
    before = (window.width(), dock.width(), dock.minimumSizeHint().width())
    qtbot.keyClicks(view.filter_input, "/[the token that is looked for, typed key by key ")
    view.filter_input.insert("中文分词")  # (QTest types ASCII only: CJK comes as an input method commits it)
    qtbot.keyClicks(view.filter_input, " and more/")
    qtbot.waitUntil(lambda: "bad regex" in view.count_label.text(), timeout=10_000)
    settle(qtbot)
    assert (window.width(), dock.width(), dock.minimumSizeHint().width()) == before
    assert view.count_label.is_elided() and "bad regex" in view.count_label.toolTip()
    assert view.filter_input.width() >= 150, "the message leaves the filter box room to type in"
    view.filter_input.clear()
    qtbot.keyClicks(view.filter_input, "e" * 300)
    qtbot.waitUntil(lambda: view.count_label.text().startswith("0 of"), timeout=10_000)
    settle(qtbot)
    assert (window.width(), dock.width(), dock.minimumSizeHint().width()) == before
    assert all(page.horizontalScrollBar().maximum() == 0 for page in scroll_pages(view))


# ---- docked at 340 / 420 px ------------------------------------------------------------------------
@pytest.mark.parametrize("size", WINDOWS)
@pytest.mark.parametrize("dock_width", DOCK_WIDTHS)
@pytest.mark.parametrize("kind", ["vocab", "stats"])
def test_docked_nothing_is_squashed_or_scrolled_sideways(qtbot, panels, tokenizer_path, kind, size, dock_width):
    view = panels(kind, tokenizer_path)
    if kind == "stats":  # (a message of several lines, with a word longer than the dock)
        view.status.setText("Failed: /corpus/" + "a_file_name_without_spaces_" * 4 + ".txt: no such file or directory")
    window, dock = docked(qtbot, view, size=size, dock_width=dock_width)
    settle(qtbot)
    assert abs(dock.width() - dock_width) <= 2 and window.width() == size[0]
    assert squashed(view) == []
    pages = scroll_pages(view)
    assert pages
    tabs = view.tabs if kind == "stats" else view.panes.tabs
    assert kind == "stats" or not view.panes.is_wide()
    for tab in range(tabs.count()):
        tabs.setCurrentIndex(tab)
        settle(qtbot)
        for page in pages:
            if page.isVisible():
                assert squashed(page.widget()) == [], (tab, page.widget())
                assert page.horizontalScrollBar().maximum() == 0, "the panel needs sideways scrolling"
    if size == (1600, 1000):
        assert all(page.verticalScrollBar().maximum() == 0 for page in pages if page.isVisible())


@pytest.mark.parametrize("dock_width", DOCK_WIDTHS)
def test_docked_statistics_show_their_numbers_whole(qtbot, panels, tokenizer_path, dock_width):
    view = panels("stats", tokenizer_path)
    window, dock = docked(qtbot, view, size=(1280, 800), dock_width=dock_width)
    settle(qtbot)
    table = view.metrics
    fm = table.fontMetrics()
    values = [table.value(r) for r in range(table.rowCount())]
    assert all(values)
    assert [table.item(r, 1).text() for r in range(table.rowCount())] == values  # (none elided)
    assert table.columnWidth(1) >= max(fm.horizontalAdvance(v) for v in values)
    assert table.columnWidth(0) >= fm.horizontalAdvance("characters per token")
    assert table.horizontalScrollBar().maximum() == 0


@pytest.mark.parametrize("dock_width", DOCK_WIDTHS)
def test_docked_vocabulary_shows_its_numbers_whole(qtbot, panels, tokenizer_path, dock_width):
    view = panels("vocab", tokenizer_path)
    window, dock = docked(qtbot, view, size=(1280, 800), dock_width=dock_width)
    view.panes.tabs.setCurrentWidget(view.figures)
    settle(qtbot)
    figures = view.figures
    fm = figures.fontMetrics()
    numbers = [r for r in range(figures.rowCount()) if not figures.item(r, 0).text().startswith("longest")]
    assert numbers and all(figures.item(r, 1).text() == figures.value(r) for r in numbers)
    assert figures.columnWidth(1) >= max(fm.horizontalAdvance(figures.value(r)) for r in numbers)
    assert figures.columnWidth(0) >= fm.horizontalAdvance("other added")
    assert figures.horizontalScrollBar().maximum() == 0
    view.panes.tabs.setCurrentIndex(0)
    settle(qtbot)
    table = view.table
    assert table.isVisible() and view.panes.tabs.tabText(0) == "Tokens"
    table.sortByColumn(0, Qt.SortOrder.DescendingOrder)  # (the widest ids on screen: what they need)
    settle(qtbot)
    assert table.columnWidth(0) >= table.sizeHintForColumn(0)
    assert table.columnWidth(1) + table.columnWidth(0) < table.viewport().width()  # (more than the token shows)
    assert view.filter_input.width() >= 150


# ---- axis tick labels ------------------------------------------------------------------------------
def label_spans(axis) -> list[tuple[float, float, str]]:
    """The tick labels an axis draws, as (start, end, text) along the axis in px, measured with the
    font they are drawn in."""
    image = QImage(1, 1, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        specs = axis.generateDrawSpecs(painter)
        font = axis.style["tickFont"] or painter.font()
    finally:
        painter.end()
    if specs is None:
        return []
    fm = QFontMetricsF(font)
    spans = []
    for rect, _, text in specs[2]:
        if not text:
            continue
        if axis.orientation in ("left", "right"):
            middle, extent = rect.center().y(), fm.height()
        else:
            middle, extent = rect.center().x(), fm.horizontalAdvance(text)
        spans.append((middle - extent / 2, middle + extent / 2, text))
    return sorted(spans)


def overlaps(spans) -> list[tuple[str, str]]:
    return [(a[2], b[2]) for a, b in zip(spans, spans[1:]) if b[0] < a[1] - 0.5]


def plot_axes(plot) -> dict:
    return {name: plot.getAxis(name) for name in ("left", "bottom")}


@pytest.mark.parametrize("size", WINDOWS)
@pytest.mark.parametrize("dock_width", [*DOCK_WIDTHS, None])
def test_axis_labels_do_not_overlap(qtbot, panels, tokenizer_path, size, dock_width):
    stats, vocab = panels("stats", tokenizer_path), panels("vocab", tokenizer_path)
    windows = []
    for view in (stats, vocab):
        if dock_width is None:  # undocked, large
            qtbot.addWidget(view)
            view.resize(*size)
            view.show()
            qtbot.waitExposed(view)
        else:
            windows.append(docked(qtbot, view, size=size, dock_width=dock_width))
    assert vocab.panes.is_wide() == (dock_width is None)
    for plot in (stats.zipf, vocab.length_plot, vocab.script_plot):
        if plot is not stats.zipf and not vocab.panes.is_wide():
            vocab.panes.tabs.setCurrentWidget(plot)
        settle(qtbot)
        assert plot.isVisible() and plot.width() >= 200 and plot.height() >= 140
        for name, axis in plot_axes(plot).items():
            spans = label_spans(axis)
            assert not overlaps(spans), (plot.getPlotItem().titleLabel.text, name, overlaps(spans))
            if isinstance(axis, CategoryAxis):
                assert [t for *_, t in spans] == axis.names, "every script is named"
            else:
                assert len(spans) >= 2, (name, spans)


def test_the_overlap_check_catches_pyqtgraph_default_axes(qtbot):
    """What the Scripts chart drew in a narrow dock with pyqtgraph's own axes overlaps; the same
    chart with the fitted axes does not."""
    counts = np.linspace(90_000, 500, len(SCRIPT_NAMES))

    def chart(axes):
        plot = pg.PlotWidget(axisItems=axes)
        qtbot.addWidget(plot)
        plot.addItem(pg.BarGraphItem(x0=0, y=np.arange(len(SCRIPT_NAMES), dtype=float), height=0.7, width=counts))
        plot.getViewBox().invertY(True)
        plot.resize(180, 170)
        plot.show()
        qtbot.waitExposed(plot)
        return plot

    default = chart({})
    default.getAxis("left").setTicks([[(float(k), n) for k, n in enumerate(SCRIPT_NAMES)]])
    settle(qtbot)
    assert overlaps(label_spans(default.getAxis("left")))
    assert overlaps(label_spans(default.getAxis("bottom")))

    names = CategoryAxis("left")
    names.set_names(SCRIPT_NAMES)
    fitted = chart({"left": names, "bottom": FittedAxis("bottom")})
    settle(qtbot)
    for axis in plot_axes(fitted).values():
        spans = label_spans(axis)
        assert spans and not overlaps(spans)


@pytest.mark.parametrize("length", [120, 200, 300, 420, 900])
@pytest.mark.parametrize("data", ["counts", "zipf", "few"])
def test_fitted_axes_at_any_length(qtbot, length, data):
    plot = pg.PlotWidget(axisItems={"left": FittedAxis("left"), "bottom": FittedAxis("bottom")})
    qtbot.addWidget(plot)
    if data == "counts":
        plot.addItem(pg.BarGraphItem(x=np.arange(130, dtype=float), height=np.linspace(151_665, 0, 130), width=0.8))
    elif data == "zipf":
        plot.setLogMode(x=True, y=True)
        ranks = np.arange(1, 150_001, dtype=float)
        plot.plot(ranks, 40_000 / ranks)
    else:
        plot.addItem(pg.BarGraphItem(x=np.arange(3, dtype=float), height=[1.0, 3.0, 2.0], width=0.8))
    plot.resize(length, length)
    plot.show()
    qtbot.waitExposed(plot)
    settle(qtbot)
    for name, axis in plot_axes(plot).items():
        spans = label_spans(axis)
        assert not overlaps(spans), (name, overlaps(spans))
        assert len(spans) >= (2 if length >= 200 else 1), (name, spans)
        if data != "zipf":
            assert all(t == "0" or t[0].isdigit() for *_, t in spans)


# ---- arrangements and themes -----------------------------------------------------------------------
def test_wide_and_narrow_arrangements_keep_what_they_show(qtbot, panels):
    vocab = panels("vocab", default_tokenizer_path())
    stats = panels("stats", default_tokenizer_path())
    for view in (vocab, stats):
        qtbot.addWidget(view)
        view.resize(1100, 700)
        view.show()
        qtbot.waitExposed(view)
    settle(qtbot)
    assert vocab.panes.is_wide() and stats.measure_panes.is_wide() and vocab.filters.is_wide()
    assert vocab.figures.isVisible() and vocab.length_plot.isVisible() and vocab.script_plot.isVisible()
    rows, bars = vocab.figures.rowCount(), len(vocab.script_plot.getPlotItem().items)
    shown = stats.shown_values()
    for view in (vocab, stats):
        view.resize(340, 700)
    settle(qtbot)
    assert not vocab.panes.is_wide() and not stats.measure_panes.is_wide() and not vocab.filters.is_wide()
    tabs = vocab.panes.tabs
    assert [tabs.tabText(k) for k in range(tabs.count())] == ["Tokens", "Figures", "Lengths", "Scripts"]
    assert vocab.table.isVisible() and vocab.figures.rowCount() == rows > 0
    assert len(vocab.script_plot.getPlotItem().items) == bars > 0
    assert stats.shown_values() == shown and stats.zipf.isVisible() and stats.metrics.isVisible()
    tabs.setCurrentWidget(vocab.script_plot)
    for width in (1100, 340):
        for view in (vocab, stats):
            view.resize(width, 700)
        settle(qtbot)
        if width == 1100:
            assert vocab.panes.is_wide() and vocab.panes.row.count() == 3
            assert vocab.script_plot.isVisible() and vocab.table.isVisible()
    assert tabs.currentWidget() is vocab.script_plot  # (back to narrow: the tab the user had)


@pytest.mark.parametrize("theme", [LIGHT, DARK])
def test_plots_follow_the_theme(qtbot, panels, theme):
    vocab = panels("vocab", default_tokenizer_path())
    stats = panels("stats", default_tokenizer_path())
    for view in (vocab, stats):
        qtbot.addWidget(view)
        view.set_theme(theme)
    for plot in (stats.zipf, vocab.length_plot, vocab.script_plot):
        assert plot.backgroundBrush().color() == QColor(theme.background)
        for axis in plot_axes(plot).values():
            assert axis.textPen().color() == QColor(theme.text)
            assert not axis.labelText or axis.labelStyle["color"] == theme.text
    assert all(stats.zipf.getAxis(name).labelText for name in ("left", "bottom"))
    assert stats.zipf.getPlotItem().titleLabel.opts["color"] == theme.text


# -- the health filter ---------------------------------------------------------------------------------------


def _mistral_view(qtbot, tmp_path):
    import lzma
    from pathlib import Path

    path = tmp_path / "mistral-v1.model"
    path.write_bytes(lzma.decompress((Path(__file__).parents[1] / "data" / "real" / "mistral-v1.model.xz").read_bytes()))
    view = VocabView()
    qtbot.addWidget(view)
    view.resize(900, 700)
    view.show()
    with qtbot.waitSignal(view.ready, timeout=60_000):
        view.set_tokenizer(tokviz.load(path))
    return view, path


def _shown_ids(view) -> set[int]:
    return set(view.model.table().ids[view.proxy.visible_rows()].tolist())


def test_health_filter_is_computed_on_a_worker_then_filters(qtbot, tmp_path):
    spm = pytest.importorskip("sentencepiece")
    view, path = _mistral_view(qtbot, tmp_path)
    sp = spm.SentencePieceProcessor(model_file=str(path))
    try:
        with qtbot.waitSignal(view.healthReady, timeout=60_000):
            view.set_health_filter("same decode")
            # the call returned at once: the check runs on its worker, with progress and Cancel
            assert view.is_checking_health() and view.token_health is None
            assert view.health_progress.isVisible() and view.health_cancel.isVisible()
            assert "checking health" in view.count_label.text()
        assert not view.health_progress.isVisible() and not view.is_checking_health()
        # the ids sentencepiece decodes alike (the text each adds after the anchor 'x')
        anchor = sp.encode("x")
        head = sp.decode(anchor)
        groups: dict[str, list[int]] = {}
        for i in range(sp.get_piece_size()):
            text = sp.decode([i])
            if sp.is_control(i) or sp.is_unknown(i) or ("\ufffd" in text and "\ufffd" not in sp.id_to_piece(i)):
                continue
            groups.setdefault(sp.decode(anchor + [i])[len(head):], []).append(i)
        want = {i for ids in groups.values() if len(ids) > 1 for i in ids}
        assert _shown_ids(view) == want
        a, byte_a = sp.piece_to_id("A"), sp.piece_to_id("<0x41>")
        row = int(view.proxy.mapFromSource(view.model.index(byte_a, 0)).row())
        assert view.proxy.index(row, 7).data() == f"decodes as 'A', like {a}"
        # the health notes sit right after the token while a health filter is on
        assert view.table.horizontalHeader().visualIndex(7) == 2
        # another section needs no second check
        view.set_health_filter("stray bytes")
        assert not view.is_checking_health()
        assert _shown_ids(view) == {i for i in range(sp.get_piece_size()) if sp.is_byte(i) and i - 3 >= 0x80}
        view.category_box.setCurrentIndex(view.category_box.findData("byte piece"))
        assert len(_shown_ids(view)) == 128  # (and the other filters still apply)
        view.category_box.setCurrentIndex(0)
        view.set_health_filter("")
        assert view.proxy.rowCount() == view.model.rowCount() == 32000
        assert view.table.horizontalHeader().visualIndex(7) == 7
    finally:
        view.shutdown()


@pytest.mark.slow
def test_health_check_can_be_cancelled_from_the_view(qtbot, tmp_path):
    view, _ = _mistral_view(qtbot, tmp_path)
    try:
        with qtbot.waitSignal(view.healthCancelled, timeout=60_000):
            view.set_health_filter("undecodable")
            view.health_cancel.click()
        assert view.token_health is None and view.health_box.currentData() == ""
        assert view.proxy.rowCount() == view.model.rowCount() and not view.health_progress.isVisible()
        with qtbot.waitSignal(view.healthReady, timeout=60_000):  # chosen again: checked again
            view.set_health_filter("undecodable")
        assert view.proxy.rowCount() == 0 == len(view.token_health.undecodable)
    finally:
        view.shutdown()
