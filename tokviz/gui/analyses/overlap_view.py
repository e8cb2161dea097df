"""The Overlap page of the Analyses tab: was one tokenizer derived from another?

* a table with a row per pair of the tokenizers analysed: tokens shared, Jaccard, containment each
  way, the common merge prefix, the rank correlation of the shared merges and the verdict in words;
* for the selected pair: the verdict in full, the special tokens compared on their own, and two
  plots — per script, the share of its tokens both have, only A has and only B has (stacked bars),
  and each shared merge's rank in A against its rank in B (a sample of the points), where a
  derived merge list runs along the diagonal and the orders part where the points leave it.

`analysis.overlap` computes it on a worker (`run`, with a progress bar and Cancel); the figures
equal `tokviz overlap --json`'s.
"""
from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...analysis.corpus_stats import table_csv, table_markdown
from ...analysis.overlap import OverlapReport, PairOverlap, overlap
from ..widgets.click_guard import guard_clicks
from ..work.jobs import BackgroundJob
from ..widgets.plots import CategoryAxis, FittedAxis, make_plot, theme_plot
from ..widgets.style import DEFAULT_THEME, TokenTheme
from ..widgets.layout import ElidedLabel, WrappedLabel
from ..work.workers import describe_error

COLUMNS = ("A", "B", "shared", "Jaccard", "A in B", "B in A", "common merge prefix", "rank correlation", "verdict")
SCRIPTS_TITLE = "Tokens per category"
RANKS_TITLE = "Merge ranks"
# the three parts of a category's bar (fixed hues: they read on the light and the dark theme)
SHARED_COLOUR, ONLY_A_COLOUR, ONLY_B_COLOUR = "#2f9e44", "#1c7ed6", "#f08c00"


def _percent(x: float) -> str:
    return f"{x:.1%}"


class OverlapView(QWidget):
    """See the module docstring.  `set_tokenizers(dict)` then `run()`; `finished(OverlapReport)` or
    `cancelled()` / `failed(reason)` report; `select_pair(row)` shows a pair's plots."""

    finished = Signal(object)
    cancelled = Signal()
    failed = Signal(str)

    def __init__(self, parent=None, theme: TokenTheme = DEFAULT_THEME):
        super().__init__(parent)
        self.theme = theme
        self._tokenizers: dict = {}
        self.report: OverlapReport | None = None
        self._pair: PairOverlap | None = None

        self.run_button = QPushButton("Run")
        self.run_button.setToolTip("Compare the vocabularies and merge lists of every pair of tokenizers")
        self.run_button.clicked.connect(self.run)
        guard_clicks(self.run_button)  # (enabled again as the job ends, under a click meant for Cancel)
        self.status = ElidedLabel("Add at least two tokenizers, then Run.")
        self.job = BackgroundJob(status=self.status, parent=self)
        self.job.ended.connect(lambda: self.run_button.setEnabled(True))
        self.progress, self.cancel_button = self.job.progress_bar, self.job.cancel_button
        self.copy_button = QPushButton("Copy Markdown")
        self.copy_button.setToolTip("Copy the table (with the verdicts) as Markdown; Shift+click: CSV")
        self.copy_button.clicked.connect(self._copy)
        self.copy_button.setEnabled(False)

        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setWordWrap(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.itemSelectionChanged.connect(self._selection_changed)

        self.verdict = WrappedLabel("")
        self.verdict.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details = WrappedLabel("")

        self.scripts_key = QLabel("")  # (rich text: not a WrappedLabel, which breaks long words)
        self.scripts_key.setTextFormat(Qt.TextFormat.RichText)
        self.scripts_key.setWordWrap(True)
        self.ranks_key = WrappedLabel("")
        for label in (self.verdict, self.details, self.ranks_key):
            label.setTextFormat(Qt.TextFormat.PlainText)
        pg.setConfigOptions(antialias=True)
        self.scripts_axis = CategoryAxis("left")
        self.scripts_plot = make_plot(SCRIPTS_TITLE, {"bottom": FittedAxis("bottom", integer=False),
                                                      "left": self.scripts_axis})
        self.scripts_plot.setLabel("bottom", "share of the category")
        self.scripts_plot.getViewBox().invertY(True)
        self.scripts_plot.setMouseEnabled(x=False, y=False)
        self.ranks_plot = make_plot(RANKS_TITLE, {"bottom": FittedAxis("bottom"), "left": FittedAxis("left")})
        self.ranks_plot.setLabel("bottom", "rank in A")
        self.ranks_plot.setLabel("left", "rank in B")

        top = QHBoxLayout()
        top.addWidget(self.run_button)
        top.addWidget(self.progress, 1)
        top.addWidget(self.cancel_button)
        top.addWidget(self.status, 3)
        top.addWidget(self.copy_button)

        about = QWidget()
        al = QVBoxLayout(about)
        al.setContentsMargins(0, 2, 0, 0)
        al.addWidget(self.verdict)
        al.addWidget(self.details)
        plots = QSplitter(Qt.Orientation.Horizontal)
        plots.setChildrenCollapsible(False)
        for key, plot in ((self.scripts_key, self.scripts_plot), (self.ranks_key, self.ranks_plot)):
            box = QWidget()
            bl = QVBoxLayout(box)
            bl.setContentsMargins(0, 0, 0, 0)
            bl.setSpacing(2)
            bl.addWidget(key)
            bl.addWidget(plot, 1)
            plots.addWidget(box)
        plots.setSizes([1000, 1000])
        lower = QWidget()
        ll = QVBoxLayout(lower)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(about)
        ll.addWidget(plots, 1)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(lower)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 3)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.splitter, 1)
        self.set_theme(theme)

    # ---- the container's interface ------------------------------------------------------------------
    def set_tokenizers(self, tokenizers: dict) -> None:
        """The tokenizers to compare (name -> Tokenizer, in display order); results of another set
        are cleared."""
        if list(tokenizers.items()) == list(self._tokenizers.items()):
            return
        self.job.abandon()  # (a result for the old set is not shown)
        self._tokenizers = dict(tokenizers)
        self._show(None)
        n = len(self._tokenizers)
        self.status.setText(f"{n} tokenizers: Run to compare them." if n >= 2
                            else "Add at least two tokenizers, then Run.")

    def set_text(self, text: str) -> None:
        """(The overlap of vocabularies does not depend on the text.)"""

    def run(self) -> None:
        """Compare every pair of the tokenizers, on a worker."""
        tokenizers = dict(self._tokenizers)
        if len(tokenizers) < 2:
            self.status.setText("Add at least two tokenizers, then Run.")
            return
        self.run_button.setEnabled(False)
        self.status.setText(f"Comparing {len(tokenizers)} tokenizers…")

        def done(result: OverlapReport) -> None:
            self._show(result)
            self.status.setText(f"Compared {len(result.pairs)} pair(s) in {result.seconds:.2f} s.")
            self.finished.emit(result)

        def failed(exc) -> None:
            reason = describe_error(exc)
            self.status.setText(f"Failed: {reason}")
            self.failed.emit(reason)

        self.job.start(lambda cancel, progress: overlap(tokenizers, progress=progress, cancel=cancel),
                       done, on_failed=failed, on_cancelled=self.cancelled.emit)

    def cancel(self) -> None:
        self.job.cancel()

    def is_busy(self) -> bool:
        return self.job.is_pending()

    def shutdown(self, timeout_ms: int = 5000) -> None:
        self.job.shutdown(timeout_ms)

    def set_theme(self, theme: TokenTheme) -> None:
        self.theme = theme
        for plot in (self.scripts_plot, self.ranks_plot):
            theme_plot(plot, theme)
        if self._pair is not None:
            self._plot(self._pair)

    # ---- showing -------------------------------------------------------------------------------------
    def _show(self, report: OverlapReport | None) -> None:
        self.report = report
        self._pair = None
        table = self.table
        table.blockSignals(True)
        table.setRowCount(0)
        table.blockSignals(False)
        for label in (self.verdict, self.details, self.scripts_key, self.ranks_key):
            label.setText("")
        self.scripts_plot.clear()
        self.ranks_plot.clear()
        self.copy_button.setEnabled(report is not None)
        if report is None:
            return
        rows = report.rows()
        table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, key in enumerate(COLUMNS):
                value = row[key]
                if value is None:
                    text = "—"
                elif key in ("A in B", "B in A"):
                    text = _percent(value)
                elif isinstance(value, float):
                    text = f"{value:.3f}"
                elif isinstance(value, int):
                    text = f"{value:,}"
                else:
                    text = str(value)
                item = QTableWidgetItem(text)
                if key not in ("A", "B", "verdict"):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if key == "verdict":
                    item.setToolTip(text)
                table.setItem(r, c, item)
        table.resizeColumnsToContents()
        header = table.horizontalHeader()
        for c in range(len(COLUMNS) - 1):
            header.resizeSection(c, min(header.sectionSize(c), 180))
        header.resizeSection(len(COLUMNS) - 1, 120)  # (the verdict stretches over the rest, elided; tooltip)
        self._fit_table()
        if rows:
            table.selectRow(0)

    def _fit_table(self) -> None:
        """The table as tall as its rows, up to eight of them (the plots keep the rest)."""
        table = self.table
        rows = min(max(table.rowCount(), 1), 8)
        height = table.horizontalHeader().height() + rows * table.verticalHeader().defaultSectionSize() + \
            2 * table.frameWidth() + table.horizontalScrollBar().sizeHint().height()
        total = sum(self.splitter.sizes())
        if total > height:
            self.splitter.setSizes([height, total - height])

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self.report is not None:
            self._fit_table()

    def select_pair(self, row: int) -> None:
        self.table.selectRow(row)

    def selected_pair(self) -> PairOverlap | None:
        return self._pair

    def _selection_changed(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        if self.report is None or not rows:
            return
        pair = self.report.pairs[rows[0].row()]
        self._pair = pair
        self.verdict.setText(f"{pair.a} vs {pair.b}: {pair.verdict}")
        lines = [f"Tokens: {pair.tokens_a:,} in {pair.a}, {pair.tokens_b:,} in {pair.b}, {pair.shared:,} shared "
                 f"({pair.same_id:,} with the same id). Special and added tokens, compared apart: "
                 f"{pair.special_shared:,} shared, {pair.special_only_a:,} only in {pair.a}, "
                 f"{pair.special_only_b:,} only in {pair.b}."]
        m = pair.merges
        if m is not None:
            how = {True: "derived from ranks", False: "listed"}
            part = f"Merges: {m.merges_a:,} in {pair.a} ({how[m.derived_a]}), {m.merges_b:,} in {pair.b} " \
                   f"({how[m.derived_b]}); {m.shared:,} shared; common prefix {m.common_prefix:,}"
            if m.first_difference is not None:
                rank, ma, mb = m.first_difference
                part += f" (at rank {rank:,}: {ma} in {pair.a}, {mb} in {pair.b})"
            lines.append(part + ".")
        self.details.setText("\n".join(lines))
        self._plot(pair)

    def _plot(self, pair: PairOverlap) -> None:
        self.scripts_plot.clear()
        self.scripts_key.setText("&nbsp;&nbsp; ".join(
            f"<span style='color: {colour}'>■</span>&nbsp;{html.escape(label)}" for label, colour in
            (("shared", SHARED_COLOUR), (f"only in {pair.a}", ONLY_A_COLOUR), (f"only in {pair.b}", ONLY_B_COLOUR))))
        names = list(pair.scripts)
        counts = np.array([pair.scripts[n] for n in names], float).reshape(-1, 3)
        totals = counts.sum(axis=1)
        shares = counts / np.maximum(totals, 1)[:, None]
        self.scripts_axis.set_names([f"{n} ({int(t):,})" for n, t in zip(names, totals)])
        y = np.arange(len(names), dtype=float)
        left = np.zeros(len(names))
        for k, (label, colour) in enumerate((("shared", SHARED_COLOUR), (f"only {pair.a}", ONLY_A_COLOUR),
                                             (f"only {pair.b}", ONLY_B_COLOUR))):
            bars = pg.BarGraphItem(x0=left.copy(), y=y, height=0.7, width=shares[:, k], brush=pg.mkBrush(colour),
                                   pen=pg.mkPen(None))
            self.scripts_plot.addItem(bars)
            left += shares[:, k]
        self.scripts_plot.setXRange(0, 1.0, padding=0.02)
        self.scripts_plot.setYRange(-0.6, max(len(names) - 0.4, 0.4), padding=0)

        plot = self.ranks_plot
        plot.clear()
        plot.setLabel("bottom", f"rank in {pair.a}", color=self.theme.text)
        plot.setLabel("left", f"rank in {pair.b}", color=self.theme.text)
        m = pair.merges
        if m is None or not len(m.rank_a):
            self.ranks_key.setText(f"No merges to compare: {pair.merges_note}." if m is None
                                   else "No merge is in both lists.")
            return
        self.ranks_key.setText(f"Each shared merge at its rank in {pair.a} and in {pair.b} ({len(m.rank_a):,} of "
                               f"{m.shared:,} shown): the same order climbs steadily; the dashes are equal ranks.")
        top = float(max(m.rank_a.max(), m.rank_b.max()))
        plot.plot([0, top], [0, top], pen=pg.mkPen(self.theme.marker, width=1, style=Qt.PenStyle.DashLine))
        plot.addItem(pg.ScatterPlotItem(x=m.rank_a.astype(float), y=m.rank_b.astype(float), size=3,
                                        pen=pg.mkPen(None), brush=pg.mkBrush(ONLY_A_COLOUR)))
        if 0.01 * top < m.common_prefix < max(m.merges_a, m.merges_b):  # (a line at rank 1 tells nothing)
            line = pg.InfiniteLine(pos=m.common_prefix, angle=90, pen=pg.mkPen(ONLY_B_COLOUR, width=1),
                                   label=f"lists part at {m.common_prefix:,}",
                                   labelOpts={"position": 0.9, "color": self.theme.text})
            plot.addItem(line)

    def _copy(self) -> None:
        if self.report is None:
            return
        shift = QGuiApplication.keyboardModifiers() & Qt.KeyboardModifier.ShiftModifier
        rows = self.report.rows()
        QGuiApplication.clipboard().setText(table_csv(rows) if shift else table_markdown(rows))

    def shown_rows(self) -> list[list[str]]:
        """The table as shown: a list of cell texts per row."""
        return [[self.table.item(r, c).text() for c in range(self.table.columnCount())]
                for r in range(self.table.rowCount())]

