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
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, Signal
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
from ..widgets.plots import CategoryAxis, FittedAxis, RowsScroll, make_plot, theme_plot
from ..widgets.style import DEFAULT_THEME, TokenTheme
from ..widgets.layout import ElidedLabel, WrappedLabel
from ..widgets.messages import show
from ..work.workers import describe_error

COLUMNS = ("A", "B", "shared", "Jaccard", "A in B", "B in A", "common merge prefix", "rank correlation", "verdict")
# each column's header (short, on up to two lines: it is never clipped) and its tooltip, translated where shown
HEADERS = {
    "A": QT_TRANSLATE_NOOP("OverlapView", "A"),
    "B": QT_TRANSLATE_NOOP("OverlapView", "B"),
    "shared": QT_TRANSLATE_NOOP("OverlapView", "shared"),
    "Jaccard": QT_TRANSLATE_NOOP("OverlapView", "Jaccard"),
    "A in B": QT_TRANSLATE_NOOP("OverlapView", "A in B"),
    "B in A": QT_TRANSLATE_NOOP("OverlapView", "B in A"),
    "common merge prefix": QT_TRANSLATE_NOOP("OverlapView", "common\nprefix"),
    "rank correlation": QT_TRANSLATE_NOOP("OverlapView", "rank\ncorrelation"),
    "verdict": QT_TRANSLATE_NOOP("OverlapView", "verdict"),
}
HEADER_TIPS = {
    "A": QT_TRANSLATE_NOOP("OverlapView", "The first tokenizer of the pair"),
    "B": QT_TRANSLATE_NOOP("OverlapView", "The second tokenizer of the pair"),
    "shared": QT_TRANSLATE_NOOP("OverlapView", "Tokens in both vocabularies (compared as bytes)"),
    "Jaccard": QT_TRANSLATE_NOOP("OverlapView", "Shared tokens over the tokens of either vocabulary"),
    "A in B": QT_TRANSLATE_NOOP("OverlapView", "Share of A's tokens that B has too"),
    "B in A": QT_TRANSLATE_NOOP("OverlapView", "Share of B's tokens that A has too"),
    "common merge prefix": QT_TRANSLATE_NOOP("OverlapView", "Common merge prefix: how many merges both lists "
                                                            "start with, in the same order"),
    "rank correlation": QT_TRANSLATE_NOOP("OverlapView", "Rank correlation (Spearman) of the merges both lists have"),
    "verdict": QT_TRANSLATE_NOOP("OverlapView", "Was one derived from the other? (the full text below the table)"),
}
SCRIPTS_TITLE = QT_TRANSLATE_NOOP("OverlapView", "Tokens per category")
RANKS_TITLE = QT_TRANSLATE_NOOP("OverlapView", "Merge ranks")
# the token categories (analysis.vocab_stats.CATEGORIES) as shown
CATEGORY_NAMES = {
    "Latin": QT_TRANSLATE_NOOP("TokenCategory", "Latin"),
    "CJK": QT_TRANSLATE_NOOP("TokenCategory", "CJK"),
    "Hangul": QT_TRANSLATE_NOOP("TokenCategory", "Hangul"),
    "Cyrillic": QT_TRANSLATE_NOOP("TokenCategory", "Cyrillic"),
    "Greek": QT_TRANSLATE_NOOP("TokenCategory", "Greek"),
    "Arabic": QT_TRANSLATE_NOOP("TokenCategory", "Arabic"),
    "Hebrew": QT_TRANSLATE_NOOP("TokenCategory", "Hebrew"),
    "Devanagari": QT_TRANSLATE_NOOP("TokenCategory", "Devanagari"),
    "Thai": QT_TRANSLATE_NOOP("TokenCategory", "Thai"),
    "other letters": QT_TRANSLATE_NOOP("TokenCategory", "other letters"),
    "mixed scripts": QT_TRANSLATE_NOOP("TokenCategory", "mixed scripts"),
    "digits": QT_TRANSLATE_NOOP("TokenCategory", "digits"),
    "punctuation": QT_TRANSLATE_NOOP("TokenCategory", "punctuation"),
    "whitespace": QT_TRANSLATE_NOOP("TokenCategory", "whitespace"),
    "symbols": QT_TRANSLATE_NOOP("TokenCategory", "symbols"),
    "partial UTF-8": QT_TRANSLATE_NOOP("TokenCategory", "partial UTF-8"),
    "byte piece": QT_TRANSLATE_NOOP("TokenCategory", "byte piece"),
    "control": QT_TRANSLATE_NOOP("TokenCategory", "control"),
    "user-defined": QT_TRANSLATE_NOOP("TokenCategory", "user-defined"),
    "special": QT_TRANSLATE_NOOP("TokenCategory", "special"),
}


def category_name(category: str) -> str:
    """A token category's name as shown (translated)."""
    return QCoreApplication.translate("TokenCategory", CATEGORY_NAMES[category]) if category in CATEGORY_NAMES \
        else category
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

    KEY = "overlap"  # (AnalysesView.index_of)

    def __init__(self, parent=None, theme: TokenTheme = DEFAULT_THEME):
        super().__init__(parent)
        self.setObjectName("OverlapPage")
        self.theme = theme
        self._tokenizers: dict = {}
        self.report: OverlapReport | None = None
        self._pair: PairOverlap | None = None

        self.run_button = QPushButton(self.tr("Run"))
        self.run_button.setToolTip(self.tr("Compare the vocabularies and merge lists of every pair of tokenizers"))
        self.run_button.clicked.connect(self.run)
        guard_clicks(self.run_button)  # (enabled again as the job ends, under a click meant for Cancel)
        self.status = ElidedLabel(self.tr("Add at least two tokenizers, then Run."))
        self.job = BackgroundJob(status=self.status, parent=self)
        self.job.ended.connect(lambda: self.run_button.setEnabled(True))
        self.progress, self.cancel_button = self.job.progress_bar, self.job.cancel_button
        self.copy_button = QPushButton(self.tr("Copy Markdown"))
        self.copy_button.setToolTip(self.tr("Copy the table (with the verdicts) as Markdown; Shift+click: CSV"))
        self.copy_button.clicked.connect(self._copy)
        self.copy_button.setEnabled(False)

        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels([self.tr(HEADERS[c]) for c in COLUMNS])
        for c, key in enumerate(COLUMNS):
            self.table.horizontalHeaderItem(c).setToolTip(self.tr(HEADER_TIPS[key]))
        self.table.horizontalHeader().setDefaultAlignment(Qt.AlignmentFlag.AlignCenter)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setWordWrap(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self._fit_headers()

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
        self.scripts_plot = make_plot(self.tr(SCRIPTS_TITLE), {"bottom": FittedAxis("bottom", integer=False),
                                                               "left": self.scripts_axis})
        self.scripts_plot.setLabel("bottom", self.tr("share of the category"))
        self.scripts_plot.getViewBox().invertY(True)
        self.scripts_plot.setMouseEnabled(x=False, y=False)
        # one row per category, its name always drawn: the chart scrolls when the page is short
        self.scripts_scroll = RowsScroll(self.scripts_plot, self.scripts_axis)
        self.ranks_plot = make_plot(self.tr(RANKS_TITLE), {"bottom": FittedAxis("bottom"), "left": FittedAxis("left")})
        self.ranks_plot.setLabel("bottom", self.tr("rank in A"))
        self.ranks_plot.setLabel("left", self.tr("rank in B"))

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
        for key, plot in ((self.scripts_key, self.scripts_scroll), (self.ranks_key, self.ranks_plot)):
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
        self.status.setText(self.tr("{n} tokenizers: Run to compare them.").format(n=n) if n >= 2
                            else self.tr("Add at least two tokenizers, then Run."))

    def set_text(self, text: str) -> None:
        """(The overlap of vocabularies does not depend on the text.)"""

    def page_title(self) -> str:
        """The title of this page's tab."""
        return self.tr("Overlap")

    def run(self) -> None:
        """Compare every pair of the tokenizers, on a worker."""
        tokenizers = dict(self._tokenizers)
        if len(tokenizers) < 2:
            self.status.setText(self.tr("Add at least two tokenizers, then Run."))
            return
        self.run_button.setEnabled(False)
        self.status.setText(self.tr("Comparing {n} tokenizers…").format(n=len(tokenizers)))

        def done(result: OverlapReport) -> None:
            self._show(result)
            self.status.setText(self.tr("Compared {pairs} pair(s) in {seconds} s.").format(
                pairs=len(result.pairs), seconds=f"{result.seconds:.2f}"))
            self.finished.emit(result)

        def failed(exc) -> None:
            reason = describe_error(exc)
            self.status.setText(self.tr("Failed: {reason}").format(reason=reason))
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
                    text = show(value)  # (the verdict: a Message, in the app's language)
                item = QTableWidgetItem(text)
                if key not in ("A", "B", "verdict"):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if key == "verdict":
                    item.setToolTip(text)
                table.setItem(r, c, item)
        self._fit_headers()
        self._fit_table()
        if rows:
            table.selectRow(0)

    def _fit_headers(self) -> None:
        """Columns as wide as their contents up to 180 px, never narrower than their header's text
        (the verdict stretches over the rest, elided; its tooltip has it all)."""
        table = self.table
        header = table.horizontalHeader()
        table.resizeColumnsToContents()
        for c in range(len(COLUMNS) - 1):
            header.resizeSection(c, max(min(header.sectionSize(c), 180), self.header_text_width(c)))
        header.resizeSection(len(COLUMNS) - 1, max(120, self.header_text_width(len(COLUMNS) - 1)))

    def header_text_width(self, column: int) -> int:
        """The width column `column`'s header needs for its text (its widest line) and margins."""
        header = self.table.horizontalHeader()
        metrics = header.fontMetrics()
        text = self.table.horizontalHeaderItem(column).text()
        margin = 2 * header.style().pixelMetric(header.style().PixelMetric.PM_HeaderMargin, None, header)
        return max(metrics.horizontalAdvance(line) for line in text.split("\n")) + margin + 8

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
        self.verdict.setText(self.tr("{a} vs {b}: {verdict}").format(a=pair.a, b=pair.b, verdict=show(pair.verdict)))
        lines = [self.tr("Tokens: {tokens_a} in {a}, {tokens_b} in {b}, {shared} shared ({same_id} with the same "
                         "id). Special and added tokens, compared apart: {special_shared} shared, {special_only_a} "
                         "only in {a}, {special_only_b} only in {b}.").format(
            a=pair.a, b=pair.b, tokens_a=f"{pair.tokens_a:,}", tokens_b=f"{pair.tokens_b:,}", shared=f"{pair.shared:,}",
            same_id=f"{pair.same_id:,}", special_shared=f"{pair.special_shared:,}",
            special_only_a=f"{pair.special_only_a:,}", special_only_b=f"{pair.special_only_b:,}")]
        m = pair.merges
        if m is not None:
            how = {True: self.tr("derived from ranks"), False: self.tr("listed")}
            figures = dict(a=pair.a, b=pair.b, merges_a=f"{m.merges_a:,}", merges_b=f"{m.merges_b:,}",
                           how_a=how[m.derived_a], how_b=how[m.derived_b], shared=f"{m.shared:,}",
                           prefix=f"{m.common_prefix:,}")
            if m.first_difference is not None:
                rank, ma, mb = m.first_difference
                part = self.tr("Merges: {merges_a} in {a} ({how_a}), {merges_b} in {b} ({how_b}); {shared} shared; "
                               "common prefix {prefix} (at rank {rank}: {merge_a} in {a}, {merge_b} in {b}).").format(
                    rank=f"{rank:,}", merge_a=ma, merge_b=mb, **figures)
            else:
                part = self.tr("Merges: {merges_a} in {a} ({how_a}), {merges_b} in {b} ({how_b}); {shared} shared; "
                               "common prefix {prefix}.").format(**figures)
            lines.append(part)
        self.details.setText("\n".join(lines))
        self._plot(pair)

    def _plot(self, pair: PairOverlap) -> None:
        self.scripts_plot.clear()
        self.scripts_key.setText("&nbsp;&nbsp; ".join(
            f"<span style='color: {colour}'>■</span>&nbsp;{html.escape(label)}" for label, colour in
            ((self.tr("shared"), SHARED_COLOUR), (self.tr("only in {name}").format(name=pair.a), ONLY_A_COLOUR),
             (self.tr("only in {name}").format(name=pair.b), ONLY_B_COLOUR))))
        names = list(pair.scripts)
        counts = np.array([pair.scripts[n] for n in names], float).reshape(-1, 3)
        totals = counts.sum(axis=1)
        shares = counts / np.maximum(totals, 1)[:, None]
        self.scripts_axis.set_names([f"{category_name(n)} ({int(t):,})" for n, t in zip(names, totals)])
        self.scripts_scroll.set_rows(len(names), 1, 0.7)
        y = np.arange(len(names), dtype=float)
        left = np.zeros(len(names))
        for k, colour in enumerate((SHARED_COLOUR, ONLY_A_COLOUR, ONLY_B_COLOUR)):
            bars = pg.BarGraphItem(x0=left.copy(), y=y, height=0.7, width=shares[:, k], brush=pg.mkBrush(colour),
                                   pen=pg.mkPen(None))
            self.scripts_plot.addItem(bars)
            left += shares[:, k]
        self.scripts_plot.setXRange(0, 1.0, padding=0.02)
        self.scripts_plot.setYRange(-0.6, max(len(names) - 0.4, 0.4), padding=0)

        plot = self.ranks_plot
        plot.clear()
        plot.setLabel("bottom", self.tr("rank in {name}").format(name=pair.a), color=self.theme.text)
        plot.setLabel("left", self.tr("rank in {name}").format(name=pair.b), color=self.theme.text)
        m = pair.merges
        if m is None or not len(m.rank_a):
            self.ranks_key.setText(self.tr("No merges to compare: {why}.").format(why=show(pair.merges_note)) if m is None
                                   else self.tr("No merge is in both lists."))
            return
        self.ranks_key.setText(self.tr("Each shared merge at its rank in {a} and in {b} ({shown} of {shared} shown): "
                                       "the same order climbs steadily; the dashes are equal ranks.").format(
            a=pair.a, b=pair.b, shown=f"{len(m.rank_a):,}", shared=f"{m.shared:,}"))
        top = float(max(m.rank_a.max(), m.rank_b.max()))
        plot.plot([0, top], [0, top], pen=pg.mkPen(self.theme.marker, width=1, style=Qt.PenStyle.DashLine))
        plot.addItem(pg.ScatterPlotItem(x=m.rank_a.astype(float), y=m.rank_b.astype(float), size=3,
                                        pen=pg.mkPen(None), brush=pg.mkBrush(ONLY_A_COLOUR)))
        if 0.01 * top < m.common_prefix < max(m.merges_a, m.merges_b):  # (a line at rank 1 tells nothing)
            line = pg.InfiniteLine(pos=m.common_prefix, angle=90, pen=pg.mkPen(ONLY_B_COLOUR, width=1),
                                   label=self.tr("lists part at {rank}").format(rank=f"{m.common_prefix:,}"),
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

