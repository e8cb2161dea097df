"""The Statistics view: how the current tokenizer does on a corpus you choose, and a comparison of
several tokenizers on the same corpora.

* Corpus: files and folders (searched for text files); Run measures them on a worker, streamed,
  with a progress bar and Cancel: bytes and characters per token, tokens per word, Han characters
  per token, unknown and byte-fallback rates, vocabulary utilisation and never-used tokens, Shannon
  and Rényi entropy and their efficiency, Gini, throughput (`analysis.corpus_stats`; the same
  numbers as `tokviz stats --json`), and the Zipf plot of token frequencies (log-log).  "Run on"
  measures on a Dask cluster instead (an address, or N worker processes started here), with the
  same progress and Cancel and the cluster's dashboard link; the workers load the tokenizer from
  its file, so one with no file yet (trained, not kept) is measured here.
* Compare: the current tokenizer and others you add (files or the Library's), on the corpus files
  grouped by name, in the seed material's layout (vocabulary size, tokens, chars/token, time);
  Copy as CSV or Markdown, or Save.

The view fits a narrow dock (300 px and up): below about 760 px the corpus, the figures and the
plot stack instead of standing side by side, a page scrolls when its dock is shorter than it, long
texts are elided or wrapped instead of widening the window, and the plots' axes space their labels
so they never run into each other.  Those layout pieces (ResponsivePanes, ReflowRow, ElidedLabel,
WrappedLabel, FigureTable, FittedAxis, CategoryAxis) serve the Vocabulary view too.
"""
from __future__ import annotations

import math
import os
import re
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, QSize, Qt, Signal
from PySide6.QtGui import QFont, QFontMetricsF, QGuiApplication, QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QBoxLayout,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLayout,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QStackedLayout,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ..analysis.corpus_stats import CorpusStats, comparison_rows, corpus_stats, table_csv, table_markdown, unique_name
from ..errors import Cancelled, TokvizError
from .jobs import BackgroundJob
from .open_tokenizers import open_tokenizer
from .run_on import RunOnBox, open_cluster
from .style import DEFAULT_THEME, TokenTheme
from .workers import describe_error

def cluster_refusal(tokenizer) -> str | None:
    """Why `tokenizer` cannot be measured on a Dask cluster (its workers load it from its file), or None."""
    if tokenizer is None:
        return "Load a tokenizer first"
    path = tokenizer.source.path
    if not path or not os.path.exists(path):
        return ("The cluster's workers load the tokenizer from its file, and this one has none yet "
                "(export it, or wait until it is kept)")
    return None


# (label, key of CorpusStats.as_dict, format)
METRICS = [
    ("files", "files", "count"),
    ("text", "bytes", "mb"),
    ("characters", "chars", "int"),
    ("tokens", "tokens", "int"),
    ("bytes per token", "bytes_per_token", "f3"),
    ("characters per token", "chars_per_token", "f3"),
    ("tokens per word (fertility)", "fertility", "f3"),
    ("Han characters per token", "han_chars_per_token", "f3"),
    ("unknown tokens", "unknown_rate", "pct"),
    ("byte-fallback tokens", "byte_fallback_rate", "pct"),
    ("vocabulary used", "used", "int"),
    ("vocabulary utilisation", "utilisation", "pct"),
    ("never-used tokens", "never_used", "int"),
    ("Shannon entropy (bits)", "shannon_entropy", "f3"),
    ("Shannon efficiency", "shannon_efficiency", "f3"),
    ("Rényi entropy, α = 2.5 (bits)", "renyi_entropy", "f3"),
    ("Rényi efficiency", "renyi_efficiency", "f3"),
    ("Gini coefficient", "gini", "f3"),
    ("time (s)", "seconds", "f2"),
    ("throughput (MB/s)", "mb_per_second", "f2"),
]


def _button_row(*buttons: QPushButton) -> QHBoxLayout:
    row = QHBoxLayout()
    row.setSpacing(4)
    for b in buttons:
        row.addWidget(b)
    row.addStretch(1)
    return row


def _add_path(paths: QListWidget, path) -> None:
    """A path as an item of `paths`, elided in the middle when narrow, whole in its tooltip."""
    item = QListWidgetItem(os.fspath(path))
    item.setToolTip(os.fspath(path))
    paths.addItem(item)


def format_metric(value, kind: str) -> str:
    if kind == "count":
        return f"{len(value):,}"
    if kind == "mb":
        return f"{value / 1e6:.2f} MB"
    if kind == "int":
        return f"{int(value):,}"
    if kind == "pct":
        return f"{value:.4%}"
    return f"{value:.{kind[1]}f}"


# ---- layout pieces for narrow docks (the Vocabulary view uses them too) ----------------------------
def scroll_page(content: QWidget) -> QScrollArea:
    """`content` in a frameless scroll area: it fills the area, and scrolls only when the area is
    smaller than the content's minimum size, so the page itself asks for almost no room."""
    area = QScrollArea()
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidgetResizable(True)
    area.setWidget(content)
    return area


_LONG_WORD = re.compile(r"\S{25,}")
_BREAK_AFTER = re.compile(r"([/\\_.,:;=-])")


def breakable(text: str, longest: int = 24) -> str:
    """`text` with zero-width spaces where a word longer than `longest` characters (a path, a file
    name) may wrap: after / \\ _ . , : ; = - and at least every `longest` characters."""
    def split(word: str) -> str:
        pieces = _BREAK_AFTER.sub("\\1\u200b", word).split("\u200b")
        return "\u200b".join(p[i:i + longest] for p in pieces for i in range(0, max(len(p), 1), longest))
    return _LONG_WORD.sub(lambda m: split(m.group()), text)


class WrappedLabel(QLabel):
    """Word-wrapped text that never widens its panel: a long word (a path, a name) wraps too.  Its
    minimum height is the height of its lines at the width it has, so a splitter or a scroll area
    gives it room.  `text()` is the text as set."""

    def __init__(self, text: str = "", parent=None):
        super().__init__(parent)
        self._text = ""
        self._lines_height = -1
        self.setWordWrap(True)
        self.setText(text)

    def setText(self, text: str) -> None:
        self._text = str(text)
        super().setText(breakable(self._text))
        self._lines_height = -1
        self.updateGeometry()

    def text(self) -> str:
        return self._text

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        hint.setHeight(self.heightForWidth(self.width()))
        return hint

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        height = self.heightForWidth(event.size().width())
        if height != self._lines_height:  # (more or fewer lines: the layouts above must know)
            self._lines_height = height
            self.updateGeometry()


class ElidedLabel(QLabel):
    """One line of plain text elided to the label's width (the full text in its tooltip), so a long
    name or message never raises its panel's minimum width.  `text()` is the full text;
    `hint_chars`: ask for at most about that many characters' width, leaving the rest of a row to
    its neighbours."""

    def __init__(self, text: str = "", parent=None, mode=Qt.TextElideMode.ElideRight, hint_chars: int | None = None):
        super().__init__(parent)
        self._mode = mode
        self._hint_chars = hint_chars
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setText(text)

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        if self._hint_chars is not None:
            margins = self.contentsMargins()
            most = self.fontMetrics().averageCharWidth() * self._hint_chars + margins.left() + margins.right()
            hint.setWidth(min(hint.width(), most))
        return hint

    def setText(self, text: str) -> None:
        super().setText(" ".join(str(text).splitlines()))
        self._update_tooltip()

    def minimumSizeHint(self) -> QSize:
        margins = self.contentsMargins()
        width = self.fontMetrics().horizontalAdvance("M…") * 2 + margins.left() + margins.right()
        return QSize(width, super().minimumSizeHint().height())

    def is_elided(self) -> bool:
        return self.fontMetrics().horizontalAdvance(self.text()) > self.contentsRect().width()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._update_tooltip()

    def _update_tooltip(self) -> None:
        self.setToolTip(self.text() if self.is_elided() else "")

    def paintEvent(self, event) -> None:
        rect = self.contentsRect()
        shown = self.fontMetrics().elidedText(self.text(), self._mode, rect.width())
        painter = QPainter(self)
        self.style().drawItemText(painter, rect, int(self.alignment()), self.palette(), self.isEnabled(),
                                  shown, self.foregroundRole())


class ReflowRow(QWidget):
    """Groups of controls on one row when the row is at least `wide_width` px wide, else one row
    per group, so a narrow dock wraps the controls instead of squeezing or widening."""

    def __init__(self, groups: list[tuple[QLayout, int]], wide_width: int, parent=None):
        super().__init__(parent)
        self._wide_width = wide_width
        self._groups = [group for group, _ in groups]
        self._box = QBoxLayout(QBoxLayout.Direction.TopToBottom, self)
        self._box.setContentsMargins(0, 0, 0, 0)
        for group, stretch in groups:
            self._box.addLayout(group, stretch)

    def is_wide(self) -> bool:
        return self._box.direction() == QBoxLayout.Direction.LeftToRight

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        one_row = sum(g.minimumSize().width() for g in self._groups) + self._box.spacing() * (len(self._groups) - 1)
        wide = event.size().width() >= max(self._wide_width, one_row)
        direction = QBoxLayout.Direction.LeftToRight if wide else QBoxLayout.Direction.TopToBottom
        if direction != self._box.direction():
            self._box.setDirection(direction)


class ResponsivePanes(QWidget):
    """Pages side by side in a splitter (`row`) when there is room (`wide_width` px, and at least the
    sum of their minimum widths), else stacked in a vertical splitter or, with `tabs`, on tabs.
    `below`: a (widget, title) under the row when wide (the row as tall as it needs, or dragged
    away) and the first tab when narrow (tabs only).  Pages move between the arrangements with their
    state; `wide_changed(bool)` tells which is shown.  `pages`: (widget, title, (share of the width
    side by side, share of the height stacked))."""

    wide_changed = Signal(bool)

    def __init__(self, pages: list[tuple[QWidget, str, tuple[int, int]]], *, wide_width: int, tabs: bool = False,
                 below: tuple[QWidget, str] | None = None, parent=None):
        super().__init__(parent)
        self._pages = pages
        self._below = below
        self._wide_width = wide_width
        self.row = QSplitter(Qt.Orientation.Vertical)
        self.row.setChildrenCollapsible(False)
        self.column: QSplitter | None = None
        self.tabs = QTabWidget() if tabs or below is not None else None
        self._stack = QStackedLayout(self)
        if below is not None:
            self.column = QSplitter(Qt.Orientation.Vertical)
            self.column.addWidget(self.row)
            self._stack.addWidget(self.column)
        else:
            self._stack.addWidget(self.row)
        if self.tabs is not None:
            self.tabs.setDocumentMode(True)
            self._stack.addWidget(self.tabs)
        self._tab = 0
        self._wide: bool | None = None
        self._arrange(False)  # (docks start narrow; the first resize decides)

    def is_wide(self) -> bool:
        return bool(self._wide)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        side_by_side = sum(qsmart_min_width(w) for w, _, _ in self._pages) + \
            self.row.handleWidth() * (len(self._pages) - 1)
        self._arrange(event.size().width() >= max(self._wide_width, side_by_side))

    def _arrange(self, wide: bool) -> None:
        if wide == self._wide:
            return
        if self.tabs is not None and self.tabs.count():
            self._tab = self.tabs.currentIndex()
        self._wide = wide
        if self.tabs is not None and not wide:
            for page, title in ([self._below] if self._below else []) + [(p, t) for p, t, _ in self._pages]:
                self.tabs.addTab(page, title)
            self.tabs.setCurrentIndex(self._tab)
            self._stack.setCurrentWidget(self.tabs)
            self.wide_changed.emit(wide)
            return
        shares = [share[0 if wide else 1] for _, _, share in self._pages]
        for index, (page, _, _) in enumerate(self._pages):
            _move_into(self.row, page)
            self.row.setStretchFactor(index, shares[index])
        self.row.setOrientation(Qt.Orientation.Horizontal if wide else Qt.Orientation.Vertical)
        self.row.setSizes([1000 * share for share in shares])
        if self.column is not None:
            _move_into(self.column, self._below[0])
            self.column.setCollapsible(0, True)
            self.column.setCollapsible(1, False)
            self.column.setStretchFactor(0, 0)
            self.column.setStretchFactor(1, 1)
            self.column.setSizes([1, 1000])
        self._stack.setCurrentWidget(self.column if self.column is not None else self.row)
        self.wide_changed.emit(wide)


def _move_into(splitter: QSplitter, page: QWidget) -> None:
    """Append `page` to `splitter` unless it is there, shown (a tab page that was not current is hidden)."""
    if page.parentWidget() is not splitter:
        splitter.addWidget(page)
        page.show()


def qsmart_min_width(widget: QWidget) -> int:
    """The width below which a layout will not shrink `widget` (as Qt's qSmartMinSize)."""
    if widget.sizePolicy().horizontalPolicy() == QSizePolicy.Policy.Ignored:
        return widget.minimumWidth()
    return max(widget.minimumWidth(), widget.minimumSizeHint().width())


class FigureTable(QTableWidget):
    """Named figures, one per row, read only.  The value column is as wide as its widest value, up to
    `value_share` of the table (longer values are elided); the name column takes the rest and
    elides, so the table fits a narrow dock.  Full texts are in the tooltips."""

    FULL_TEXT = Qt.ItemDataRole.UserRole

    def __init__(self, headers=("figure", "value"), value_share: float = 0.45, parent=None):
        super().__init__(0, 2, parent)
        self.value_share = value_share
        self.setHorizontalHeaderLabels(list(headers))
        rows = self.verticalHeader()
        rows.setVisible(False)
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(self.fontMetrics().height() + 8)
        columns = self.horizontalHeader()
        columns.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        columns.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.setWordWrap(False)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)

    def set_rows(self, rows) -> None:
        """(name, value) pairs, one per row."""
        rows = list(rows)
        self.setRowCount(len(rows))
        for r, (name, value) in enumerate(rows):
            self.set_name(r, name)
            self.set_value(r, value)

    def set_name(self, row: int, name: str) -> None:
        item = QTableWidgetItem(name)
        item.setToolTip(name)
        self.setItem(row, 0, item)

    def set_value(self, row: int, value: str) -> None:
        item = self.item(row, 1)
        if item is None:
            item = QTableWidgetItem()
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.setItem(row, 1, item)
        item.setData(self.FULL_TEXT, value)
        self._elide(item)

    def value(self, row: int) -> str:
        """The full value of a row (the cell may show it elided)."""
        item = self.item(row, 1)
        return "" if item is None else item.data(self.FULL_TEXT) or ""

    def value_width(self) -> int:
        """The widest a value is shown, in px."""
        return max(60, int(self.viewport().width() * self.value_share))

    def _elide(self, item: QTableWidgetItem) -> None:
        value = item.data(self.FULL_TEXT) or ""
        shown = self.fontMetrics().elidedText(value, Qt.TextElideMode.ElideRight, self.value_width())
        item.setText(shown)
        item.setToolTip(value if shown != value else "")

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            for r in range(self.rowCount()):
                if self.item(r, 1) is not None:
                    self._elide(self.item(r, 1))


# ---- plots ---------------------------------------------------------------------------------------------
_UNITS = ((1e9, "G"), (1e6, "M"), (1e3, "k"))


def compact_numbers(values, step: float) -> list[str]:
    """Axis labels for `values` (a tick every `step`): 0, 850, 20k, 1.5M..., one unit for all of them
    (the largest's), with the decimals `step` needs."""
    values = [float(v) for v in values]
    top = max((abs(v) for v in values), default=0.0)
    div, suffix = next(((d, s) for d, s in _UNITS if top >= d), (1.0, ""))
    places = max(0, math.ceil(-math.log10(step / div) - 1e-9)) if step > 0 else 0
    return ["0" if abs(v) < step * 1e-6 else f"{v / div:.{places}f}{suffix}" for v in values]


class FittedAxis(pg.AxisItem):
    """A plot axis whose tick labels never run into each other: the tick spacing is chosen from the
    size of the labels at the length the axis is laid out at (as many labels as fit).  Numbers read
    0, 850, 20k, 1.5M; in log mode the labels are powers of ten (1, 10, 100, 1k...) or, when the
    axis is too short for that, every 2nd, 3rd... decade; the rest get unlabelled ticks.
    `integer`: the values are counts, so no ticks between whole numbers."""

    LABEL_GAP = 6  # px kept free between neighbouring labels side by side (stacked: none, as lines of text)

    def __init__(self, orientation: str, *, integer: bool = True, **kwargs):
        super().__init__(orientation, **kwargs)
        self.integer = integer
        self.setStyle(maxTextLevel=0)  # (only the chosen ticks are labelled; the minor ones never)
        self.setTickFont(QFont(QGuiApplication.font()))

    def label_extent(self, text: str) -> float:
        """The room a label takes along the axis, in px."""
        metrics = QFontMetricsF(self.style["tickFont"])
        if self.orientation in ("left", "right"):
            return metrics.height()
        return metrics.boundingRect(QRectF(0, 0, 100, 100), Qt.AlignmentFlag.AlignCenter, text).width()

    def labels_fit(self, values, px_per_unit: float, *, spaced: bool = True) -> bool:
        """Whether labels at `values` (sorted) leave LABEL_GAP px between neighbours; `spaced`: and
        stacked numbers at least two lines apart (a label on every line is hard to read)."""
        extents = [self.label_extent(s) for s in self.tickStrings(values, 1.0, None)]
        stacked = self.orientation in ("left", "right")
        gap = 0 if stacked else self.LABEL_GAP
        pitch = 2 * QFontMetricsF(self.style["tickFont"]).height() if stacked and spaced else 0
        return all(abs(values[k] - values[k - 1]) * px_per_unit >= max(pitch, (extents[k] + extents[k - 1]) / 2 + gap)
                   for k in range(1, len(values)))

    def tickValues(self, minVal, maxVal, size):
        lo, hi = sorted((float(minVal), float(maxVal)))
        if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo or size <= 0:
            return []
        px_per_unit = size / (hi - lo)
        return self._log_ticks(lo, hi, px_per_unit) if self.logMode else self._linear_ticks(lo, hi, px_per_unit)

    def _linear_ticks(self, lo: float, hi: float, px_per_unit: float):
        labelled, step, minor_step = [], hi - lo, None
        for step, minor_step in self._steps(lo, hi, px_per_unit):
            labelled = _multiples(lo, hi, step)
            if self.labels_fit(labelled, px_per_unit):
                break
        else:
            labelled = labelled[:1]  # (not even two labels fit: one)
        levels = [(step, labelled)]
        if minor_step and minor_step * px_per_unit >= 5 and not (self.integer and minor_step < 1):
            levels.append((minor_step, [v for v in _multiples(lo, hi, minor_step)
                                        if abs(v / step - round(v / step)) > 1e-6]))
        return levels

    def _steps(self, lo: float, hi: float, px_per_unit: float):
        """Candidate (step, minor step) pairs, densest first: 1, 2, 5 x 10^k."""
        first = math.floor(math.log10(hi - lo)) - 3
        for exponent in range(first, first + 12):
            for mantissa, parts in ((1, 5), (2, 4), (5, 5)):
                step = mantissa * 10.0 ** exponent
                if step * px_per_unit >= 4 and not (self.integer and step < 1):
                    yield step, step / parts

    def _log_ticks(self, lo: float, hi: float, px_per_unit: float):
        """Ticks on a log10 axis: labelled decades (every one, or every 2nd, 3rd...; on an axis
        spanning less than two decades 1-9, 1-2-5... of each), unlabelled ticks at the others and,
        where a decade is 30 px or more, at 2..9 of it."""
        decades = range(math.floor(lo), math.ceil(hi) + 1)
        inside = [float(d) for d in decades if lo - 1e-9 <= d <= hi + 1e-9]
        candidates = [[v for v in inside if int(v) % every == 0] for every in (1, 2, 3, 4, 5, 10, 20, 50, 100)] \
            if len(inside) >= 2 else []
        candidates += [[v for d in decades for m in mantissas if lo - 1e-9 <= (v := d + math.log10(m)) <= hi + 1e-9]
                       for mantissas in ((1, 2, 3, 4, 5, 6, 7, 8, 9), (1, 2, 5), (1, 3), (1,))]
        labelled = next((c for c in candidates if c and self.labels_fit(c, px_per_unit)), candidates[-1][:1])
        sub = range(1, 10) if px_per_unit >= 30 else (1,)
        minor = [v for d in decades for m in sub
                 if lo <= (v := d + math.log10(m)) <= hi and all(abs(v - u) > 1e-6 for u in labelled)]
        return [(None, labelled), (None, minor)]

    def tickStrings(self, values, scale, spacing):
        if self.logMode:
            return [compact_numbers([10.0 ** v], 10.0 ** math.floor(v + 1e-9))[0] for v in values]
        step = spacing if spacing else (abs(values[1] - values[0]) if len(values) > 1 else 1.0)
        return compact_numbers([v * scale for v in values], step * scale)


def _multiples(lo: float, hi: float, step: float) -> list[float]:
    """The multiples of `step` in [lo, hi]."""
    first, last = math.ceil(lo / step - 1e-9), math.floor(hi / step + 1e-9)
    return [k * step for k in range(first, min(last, first + 1000) + 1)]


class CategoryAxis(FittedAxis):
    """Names at 0, 1, 2...: all of them when they fit, else every 2nd, 3rd... (the others get an
    unlabelled tick), never overlapping."""

    def __init__(self, orientation: str, **kwargs):
        super().__init__(orientation, **kwargs)
        self.names: list[str] = []

    def set_names(self, names) -> None:
        self.names = list(names)
        self.picture = None
        self.update()

    def tickValues(self, minVal, maxVal, size):
        lo, hi = sorted((float(minVal), float(maxVal)))
        shown = [float(k) for k in range(len(self.names)) if lo - 1e-9 <= k <= hi + 1e-9]
        if not shown or hi <= lo or size <= 0:
            return []
        px_per_unit = size / (hi - lo)
        for every in range(1, len(shown) + 1):
            labelled = [v for v in shown if int(v) % every == 0]
            if self.labels_fit(labelled, px_per_unit, spaced=False):
                break
        return [(None, labelled), (None, [v for v in shown if v not in labelled])]

    def tickStrings(self, values, scale, spacing):
        return [self.names[int(round(v))] if 0 <= round(v) < len(self.names) else "" for v in values]


PLOT_TITLE_SIZE = "10pt"
MIN_PLOT_HEIGHT = 140


def make_plot(title: str, axes: dict[str, pg.AxisItem]) -> pg.PlotWidget:
    """A plot with these axes ('left', 'bottom'...) and a title that fits a narrow dock."""
    plot = pg.PlotWidget(axisItems=axes)
    plot.setTitle(title, size=PLOT_TITLE_SIZE)
    plot.setMinimumSize(200, MIN_PLOT_HEIGHT)
    return plot


def theme_plot(plot: pg.PlotWidget, theme: TokenTheme) -> None:
    """Colour a plot's background, axes, title and axis titles with `theme`."""
    plot.setBackground(theme.background)
    title = plot.getPlotItem().titleLabel
    if title.isVisible():
        title.setText(title.text, color=theme.text, size=PLOT_TITLE_SIZE)
    for name in ("left", "bottom"):
        axis = plot.getAxis(name)
        axis.setTextPen(theme.text)
        axis.setPen(theme.marker)
        if axis.labelText:
            axis.setLabel(axis.labelText, color=theme.text)



class StatsView(QWidget):
    """See the module docstring.  `set_corpus(paths)`, `run()`, `cancel()`, `add_compare(path)` and
    `compare()` drive it from code; `finished(CorpusStats)` / `cancelled()` / `compared(rows)` report."""

    finished = Signal(object)
    cancelled = Signal()
    compared = Signal(object)

    def __init__(self, parent=None, theme: TokenTheme = DEFAULT_THEME):
        super().__init__(parent)
        self.theme = theme
        self._tokenizer = None
        self._dashboard: list = [None]  # the running cluster's dashboard link, set on the worker
        self.result: CorpusStats | None = None
        self.rows: list[dict] = []
        self._compare_paths: list[str] = []

        self.corpus_list = QListWidget()
        self.corpus_list.setToolTip("Files and folders to measure on (folders: their text files)")
        self.corpus_list.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.corpus_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        add_files = QPushButton("Add files…")
        add_files.clicked.connect(self._ask_files)
        add_folder = QPushButton("Add folder…")
        add_folder.clicked.connect(self._ask_folder)
        remove = QPushButton("Remove")
        remove.clicked.connect(self._remove_selected)
        self.run_button = QPushButton("Measure")
        self.run_button.clicked.connect(self.run)
        self.status = WrappedLabel("Add files or folders, then Measure.")
        self.job = BackgroundJob(status=self.status, parent=self)
        self.job.timer.timeout.connect(self._show_dashboard)
        self.job.ended.connect(self._ended)
        self.progress, self.cancel_button = self.job.progress_bar, self.job.cancel_button
        self.run_on = RunOnBox()
        self.run_on.set_refused("Load a tokenizer first")

        self.metrics = FigureTable(("metric", "value"))
        self.metrics.set_rows((label, "") for label, _, _ in METRICS)
        self.zipf = make_plot("Zipf: token frequency by rank",
                              {"bottom": FittedAxis("bottom"), "left": FittedAxis("left")})
        self.zipf.setLogMode(x=True, y=True)
        self.zipf.setLabel("bottom", "rank")
        self.zipf.setLabel("left", "count")

        # compare tab
        self.compare_list = QListWidget()
        self.compare_list.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.compare_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        add_tok = QPushButton("Add tokenizer…")
        add_tok.clicked.connect(self._ask_tokenizer)
        remove_tok = QPushButton("Remove")
        remove_tok.clicked.connect(self._remove_tokenizer)
        self.compare_button = QPushButton("Compare")
        self.compare_button.setToolTip("Compare the tokenizers on the corpus files, grouped by name")
        self.compare_button.clicked.connect(self.compare)
        self.compare_table = QTableWidget(0, 0)
        self.compare_table.verticalHeader().setVisible(False)
        self.compare_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        copy_csv = QPushButton("Copy CSV")
        copy_csv.clicked.connect(lambda: QGuiApplication.clipboard().setText(table_csv(self.rows)))
        copy_md = QPushButton("Copy Markdown")
        copy_md.clicked.connect(lambda: QGuiApplication.clipboard().setText(table_markdown(self.rows)))
        save = QPushButton("Save…")
        save.clicked.connect(self._save_table)

        corpus = QWidget()
        cl = QVBoxLayout(corpus)
        cl.setContentsMargins(0, 0, 0, 0)
        cl.addWidget(QLabel("Corpus"))
        cl.addWidget(self.corpus_list, 1)
        cl.addLayout(_button_row(add_files, add_folder, remove))
        cl.addWidget(self.run_on)
        run_row = QHBoxLayout()
        run_row.addWidget(self.run_button)
        run_row.addWidget(self.progress, 1)
        run_row.addWidget(self.cancel_button)
        cl.addLayout(run_row)
        cl.addWidget(self.status)
        self.measure_panes = ResponsivePanes(
            [(corpus, "Corpus", (26, 14)), (self.metrics, "Figures", (36, 52)), (self.zipf, "Zipf plot", (38, 34))],
            wide_width=760)

        compare = QWidget()
        pl = QVBoxLayout(compare)
        pl.setContentsMargins(4, 4, 4, 4)
        pl.addWidget(WrappedLabel("Tokenizers to compare with the current one (on the corpus files, grouped by name)"))
        pl.addWidget(self.compare_list, 1)
        pl.addLayout(_button_row(add_tok, remove_tok, self.compare_button))
        pl.addWidget(self.compare_table, 3)
        pl.addLayout(_button_row(copy_csv, copy_md, save))

        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(scroll_page(self.measure_panes), "Corpus metrics")
        self.tabs.addTab(scroll_page(compare), "Compare tokenizers")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.tabs)
        self.set_theme(theme)

    def showEvent(self, event) -> None:
        if not self.is_running():  # (a trained tokenizer gets its file once kept)
            self.run_on.set_refused(cluster_refusal(self._tokenizer))
        super().showEvent(event)

    # ---- inputs -----------------------------------------------------------------------------------
    def set_tokenizer(self, tokenizer) -> None:
        self.cancel()
        self._tokenizer = tokenizer
        self.result = None
        self._clear_metrics()
        self.run_on.set_refused(cluster_refusal(tokenizer))

    def set_corpus(self, paths) -> None:
        self.corpus_list.clear()
        for p in paths:
            _add_path(self.corpus_list, p)

    def corpus(self) -> list[str]:
        return [self.corpus_list.item(k).text() for k in range(self.corpus_list.count())]

    def add_compare(self, path) -> None:
        self._compare_paths.append(os.fspath(path))
        _add_path(self.compare_list, path)

    def _ask_files(self) -> None:
        names, _ = QFileDialog.getOpenFileNames(self, "Add corpus files")
        for n in names:
            _add_path(self.corpus_list, n)

    def _ask_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Add a corpus folder")
        if folder:
            _add_path(self.corpus_list, folder)

    def _remove_selected(self) -> None:
        for item in self.corpus_list.selectedItems():
            self.corpus_list.takeItem(self.corpus_list.row(item))

    def _ask_tokenizer(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, "Add a tokenizer to compare")
        if name:
            self.add_compare(name)

    def _remove_tokenizer(self) -> None:
        for item in self.compare_list.selectedItems():
            row = self.compare_list.row(item)
            self.compare_list.takeItem(row)
            del self._compare_paths[row]

    # ---- measuring --------------------------------------------------------------------------------
    def run(self) -> None:
        """Measure the current tokenizer on the corpus, on a worker."""
        paths = self.corpus()
        if self._tokenizer is None or not paths:
            self.status.setText("Load a tokenizer and add files or folders first.")
            return
        tokenizer = self._tokenizer
        self.run_on.set_refused(cluster_refusal(tokenizer))  # (a trained tokenizer gets its file once kept)
        where = self.run_on.choice()
        if where == ("scheduler", ""):
            self.status.setText("Give the address of the Dask scheduler (tcp://host:port).")
            return
        dashboard = self._dashboard = [None]  # (this run's: a run it replaces writes to its own)

        def work(cancel, progress):
            if where[0] == "here":
                return corpus_stats(tokenizer, paths, progress=progress, cancel=cancel)
            from ..cluster import corpus_stats_on

            spec = (tokenizer.source.path, tokenizer.source.extra.get("pattern"))
            cluster = open_cluster(where)
            try:
                if cancel.is_set():
                    raise Cancelled("cancelled")
                dashboard[0] = cluster.dashboard_link
                return corpus_stats_on(cluster, spec, paths, tokenizer=tokenizer, progress=progress,
                                       cancel=cancel)
            finally:
                cluster.close()

        def done(stats: CorpusStats) -> None:
            self.result = stats
            self._show(stats)
            self.status.setText(f"Measured {len(stats.files)} file(s), {stats.bytes / 1e6:.2f} MB.")
            self.finished.emit(stats)

        self._start("Measuring…" if where[0] == "here" else
                    f"Connecting to the Dask scheduler at {where[1]}…" if where[0] == "scheduler"
                    else f"Starting {where[1]} worker process(es)…", work, done)
        self.run_on.set_running(True)

    def compare(self) -> None:
        """Compare the current tokenizer and the added ones on the corpus, on a worker."""
        paths = self.corpus()
        if self._tokenizer is None or not paths:
            self.status.setText("Load a tokenizer and add files or folders first.")
            return
        current = self._tokenizer
        others = list(self._compare_paths)
        corpora: dict[str, list] = {}
        for p in paths:
            corpora.setdefault(Path(p).stem, []).append(p)

        def work(cancel, _progress):
            tokenizers = {current.source.name or "current": current}
            for p in others:
                tok = open_tokenizer(p)
                tokenizers[unique_name(tok.source.name or Path(p).name, tokenizers)] = tok
            return comparison_rows(tokenizers, corpora, cancel=cancel)

        def done(rows) -> None:
            self.rows = rows
            self._show_rows(rows)
            self.status.setText(f"Compared {len(rows)} tokenizers.")
            self.compared.emit(rows)

        self._dashboard = [None]  # (no cluster: no link)
        self._start("Comparing…", work, done)

    def cancel(self) -> None:
        self.job.cancel()

    def is_running(self) -> bool:
        return self.job.is_running()

    def _start(self, message: str, work, done) -> None:
        """Run `work` (measuring or comparing) with the buttons off until it ends."""
        self.run_button.setEnabled(False)
        self.compare_button.setEnabled(False)
        self.status.setText(message)
        self.job.start(work, done, on_failed=lambda exc: self.status.setText(f"Failed: {describe_error(exc)}"),
                       on_cancelled=self.cancelled.emit)

    def _show_dashboard(self) -> None:
        if self._dashboard[0]:
            self.run_on.show_dashboard(self._dashboard[0])
            self._dashboard[0] = None

    def _ended(self) -> None:
        self._show_dashboard()  # (a run shorter than a tick still shows its dashboard link, if only for a moment)
        self.run_on.set_running(False)
        self.run_button.setEnabled(True)
        self.compare_button.setEnabled(True)

    # ---- showing ----------------------------------------------------------------------------------
    def _clear_metrics(self) -> None:
        for r in range(len(METRICS)):
            self.metrics.set_value(r, "")
        self.zipf.clear()

    def shown_values(self) -> dict[str, str]:
        """The metrics table as shown: key -> text."""
        return {key: self.metrics.item(r, 1).text() for r, (_, key, _) in enumerate(METRICS)}

    def _show(self, stats: CorpusStats) -> None:
        values = stats.as_dict()
        for r, (_, key, kind) in enumerate(METRICS):
            self.metrics.set_value(r, format_metric(values[key], kind))
        self.zipf.clear()
        freq = stats.frequencies()
        if len(freq):
            ranks = np.arange(1, len(freq) + 1, dtype=float)
            self.zipf.plot(ranks, freq.astype(float), pen=pg.mkPen(self.theme.hover_outline, width=2))

    def _show_rows(self, rows: list[dict]) -> None:
        cols: list[str] = []
        for r in rows:
            cols.extend(k for k in r if k not in cols)
        table = self.compare_table
        table.clear()
        table.setColumnCount(len(cols))
        table.setRowCount(len(rows))
        table.setHorizontalHeaderLabels(cols)
        for i, r in enumerate(rows):
            for j, c in enumerate(cols):
                v = r.get(c, "")
                text = f"{v:,}" if isinstance(v, int) else (f"{v:.3f}" if isinstance(v, float) else str(v))
                table.setItem(i, j, QTableWidgetItem(text))
        table.resizeColumnsToContents()
        self.tabs.setCurrentIndex(1)

    def _save_table(self) -> None:
        if not self.rows:
            return
        name, _ = QFileDialog.getSaveFileName(self, "Save the comparison", "comparison.md",
                                              "Markdown (*.md);;CSV (*.csv)")
        if not name:
            return
        from ..formats.hf_json_writer import write_text_atomic

        text = table_csv(self.rows) if name.endswith(".csv") else table_markdown(self.rows)
        write_text_atomic(Path(name), text)

    def set_theme(self, theme: TokenTheme) -> None:
        self.theme = theme
        theme_plot(self.zipf, theme)
        if self.result is not None:
            self._show(self.result)

    def shutdown(self, timeout_ms: int = 5000) -> None:
        self.job.shutdown(timeout_ms)
