"""The Round trip panel: what the normalizer changes in the text, and where decode(encode(text))
differs from it.

`analysis.roundtrip.round_trip` runs on a worker (progress bar, Cancel) for the explorer's current
tokenizer and text, only while the panel is shown (`set_active`).  A summary line; a list of the
differences — the original span, what normalizing gives, what decoding gives, the kind — of the
decode or of the normalizer (the first MAX_ROWS of them, with the count of all); double-clicking
(or pressing Enter on) one emits `spanActivated(start, end)` (the window selects it in the editor
and the token view); a plot of the differences by kind, and one of where along the text they fall.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...analysis.roundtrip import DECODE_KINDS, NORMALIZER_KINDS, RoundTripReport, positions, round_trip
from ..work.jobs import BackgroundJob
from ..widgets.plots import FittedAxis, make_plot, theme_plot
from ..widgets.style import DEFAULT_THEME, TokenTheme
from ..views.token_view import runs_display, text_runs
from ..work.workers import describe_error

MAX_ROWS = 1000  # differences listed; the count says how many there are
POSITION_BINS = 60
PLOT_MIN_WIDTH = 130
MAX_COLUMN_WIDTH = 72
PLOT_MIN_HEIGHT = 110
# (English, shown through QCoreApplication.translate("RoundTripPanel", …))
COLUMNS = (QT_TRANSLATE_NOOP("RoundTripPanel", "at"), QT_TRANSLATE_NOOP("RoundTripPanel", "original"),
           QT_TRANSLATE_NOOP("RoundTripPanel", "normalized"), QT_TRANSLATE_NOOP("RoundTripPanel", "decoded"),
           QT_TRANSLATE_NOOP("RoundTripPanel", "kind"))
STAGES = (("decode", QT_TRANSLATE_NOOP("RoundTripPanel", "Decode differences")),
          ("normalizer", QT_TRANSLATE_NOOP("RoundTripPanel", "Normalizer changes")))
# analysis.roundtrip's NORMALIZER_KINDS and DECODE_KINDS, as shown
KINDS = {
    "case": QT_TRANSLATE_NOOP("RoundTripPanel", "case"),
    "accents": QT_TRANSLATE_NOOP("RoundTripPanel", "accents"),
    "unicode form": QT_TRANSLATE_NOOP("RoundTripPanel", "unicode form"),
    "whitespace": QT_TRANSLATE_NOOP("RoundTripPanel", "whitespace"),
    "space added": QT_TRANSLATE_NOOP("RoundTripPanel", "space added"),
    "spacing": QT_TRANSLATE_NOOP("RoundTripPanel", "spacing"),
    "removed": QT_TRANSLATE_NOOP("RoundTripPanel", "removed"),
    "replaced": QT_TRANSLATE_NOOP("RoundTripPanel", "replaced"),
    "normalizer": QT_TRANSLATE_NOOP("RoundTripPanel", "normalizer"),
    "unknown token": QT_TRANSLATE_NOOP("RoundTripPanel", "unknown token"),
    "special token": QT_TRANSLATE_NOOP("RoundTripPanel", "special token"),
    "collapsed spaces": QT_TRANSLATE_NOOP("RoundTripPanel", "collapsed spaces"),
    "added spaces": QT_TRANSLATE_NOOP("RoundTripPanel", "added spaces"),
    "dropped": QT_TRANSLATE_NOOP("RoundTripPanel", "dropped"),
    "other": QT_TRANSLATE_NOOP("RoundTripPanel", "other"),
    "none": QT_TRANSLATE_NOOP("RoundTripPanel", "none"),
}
DECODE_COLOR = "#e03131"  # the token view's mark for what does not come back
NORMALIZER_COLOR = "#f08c00"  # ... and for what the normalizer changed


def _tr(text: str) -> str:
    return QCoreApplication.translate("RoundTripPanel", text)


def kind_label(kind: str) -> str:
    """A kind of difference (analysis.roundtrip) as shown."""
    return _tr(KINDS[kind]) if kind in KINDS else kind


def difference_label(d) -> str:
    """`d.label` as shown: its kind, and the normalizer's kind that explains it."""
    if not d.detail:
        return kind_label(d.kind)
    return QCoreApplication.translate("RoundTripPanel", "{kind} ({detail})").format(kind=kind_label(d.kind),
                                                                                     detail=kind_label(d.detail))


def report_summary(report: RoundTripReport) -> str:
    """`report.summary()` in the app's language."""
    numbers = {"length": f"{report.text_length:,}", "tokens": f"{report.tokens:,}",
               "changes": f"{len(report.normalizer_changes):,}", "count": f"{len(report.decode_differences):,}",
               "changed": f"{sum(d.end - d.start for d in report.decode_differences):,}"}
    if not report.decode_differences:
        text = QCoreApplication.translate("RoundTripPanel", "decode(encode(text)) == text ({length} characters, "
                                                            "{tokens} tokens); {changes} normalizer changes")
    else:
        text = QCoreApplication.translate("RoundTripPanel", "{count} decode differences over {changed} of "
                                                            "{length} characters ({tokens} tokens); {changes} "
                                                            "normalizer changes")
    return text.format(**numbers)


def visible(s: str, limit: int = 40) -> str:
    """`s` as the token view draws it (· for a space, ↵ for a newline...), cut at `limit`; ∅ for ''."""
    if not s:
        return "∅"
    shown = runs_display(text_runs(s[: limit + 1]))
    return shown if len(s) <= limit else shown[:limit] + "…"


class RoundTripPanel(QWidget):
    """See the module docstring.  `set_tokenizer(tok)`, `set_text(text, encoding)`,
    `set_active(on)`, `analyse()`, `cancel()`, `set_stage(name)` drive it; `finished(report)`,
    `cancelled()` and `spanActivated(start, end)` report; `report` is the last result."""

    finished = Signal(object)  # RoundTripReport
    cancelled = Signal()
    spanActivated = Signal(int, int)  # original [start, end) of a difference

    def __init__(self, parent=None, theme: TokenTheme = DEFAULT_THEME):
        super().__init__(parent)
        self.theme = theme
        self._tokenizer = None
        self._text: str | None = None
        self._encoding = None
        self._active = False
        self._stale = False  # the text or tokenizer changed since the last analysis
        self.report: RoundTripReport | None = None

        self.summary = QLabel(self.tr("Open a tokenizer and type some text."))
        self.summary.setWordWrap(True)
        self.job = BackgroundJob(status=self.summary, interval_ms=100, parent=self)
        self.progress, self.cancel_button = self.job.progress_bar, self.job.cancel_button
        self.progress.setTextVisible(False)
        self.progress.setMaximumHeight(14)

        self.stage_box = QComboBox()
        for name, label in STAGES:
            self.stage_box.addItem(_tr(label), name)
        self.stage_box.currentIndexChanged.connect(lambda _i: self._show_report())
        self.count_label = QLabel("")

        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setMinimumHeight(60)
        self.table.setHorizontalHeaderLabels([_tr(c) for c in COLUMNS])
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        self.table.itemActivated.connect(self._activate_row)
        self.table.itemClicked.connect(self._activate_row)

        self.kind_plot = make_plot(self.tr("kinds"), {"left": pg.AxisItem("left"), "bottom": FittedAxis("bottom")})
        self.kind_plot.setMouseEnabled(False, False)
        self.kind_plot.hideButtons()
        self.where_plot = make_plot(self.tr("where (%)"), {"left": FittedAxis("left"),
                                                  "bottom": FittedAxis("bottom", integer=False)})
        self.where_plot.setMouseEnabled(False, False)
        self.where_plot.hideButtons()
        for plot in (self.kind_plot, self.where_plot):
            plot.setMinimumSize(PLOT_MIN_WIDTH, PLOT_MIN_HEIGHT)  # (side by side in a narrow dock)

        top = QHBoxLayout()
        top.addWidget(self.progress, 1)
        top.addWidget(self.cancel_button)
        row = QHBoxLayout()
        row.addWidget(self.stage_box)
        row.addWidget(self.count_label, 1)
        listing = QWidget()
        lay = QVBoxLayout(listing)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(3)
        lay.addLayout(row)
        lay.addWidget(self.table, 1)
        plots = QWidget()
        plots_layout = QHBoxLayout(plots)
        plots_layout.setContentsMargins(0, 0, 0, 0)
        plots_layout.setSpacing(3)
        plots_layout.addWidget(self.kind_plot, 3)
        plots_layout.addWidget(self.where_plot, 2)
        self.split = QSplitter(Qt.Orientation.Vertical)
        self.split.setChildrenCollapsible(False)
        self.split.addWidget(listing)
        self.split.addWidget(plots)
        self.split.setStretchFactor(0, 3)
        self.split.setStretchFactor(1, 1)
        self.split.setSizes([480, 240])
        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        outer.setSpacing(4)
        outer.addWidget(self.summary)
        outer.addLayout(top)
        outer.addWidget(self.split, 1)
        self.set_theme(theme)

    # ---- input ------------------------------------------------------------------------------------
    def set_tokenizer(self, tokenizer) -> None:
        """A new tokenizer: analysed with the next `set_text` (the explorer encodes again), or when
        `analyse()` is called."""
        self._tokenizer = tokenizer
        self._encoding = None
        self._stale = True
        self.cancel()

    def set_text(self, text: str, encoding=None) -> None:
        """The explorer's text and (when it has it) its encoding by the current tokenizer."""
        self._text = text
        self._encoding = encoding
        self._changed()

    def set_active(self, on: bool) -> None:
        """Compute only while shown: a change while hidden is analysed when shown again."""
        self._active = bool(on)
        if self._active and self._stale:
            self.analyse()

    def _changed(self) -> None:
        self._stale = True
        if self._active:
            self.analyse()
        else:
            self.cancel()

    # ---- the worker -------------------------------------------------------------------------------
    def analyse(self) -> None:
        """Analyse the current text on a worker (progress bar, Cancel); `finished` follows."""
        tok, text, encoding = self._tokenizer, self._text, self._encoding
        if tok is None or text is None:
            return
        if encoding is not None and getattr(encoding, "text", text) != text:
            encoding = None
        self._stale = False

        def done(report):
            self.report = report
            self._show_report()
            self.finished.emit(report)

        def failed(exc):
            self.summary.setText(self.tr("The round trip failed: {reason}").format(reason=describe_error(exc)))

        self.summary.setText(self.tr("Decoding {count} characters…").format(count=f"{len(text):,}"))
        self.job.start(lambda cancel, progress: round_trip(tok, text, encoding, cancel=cancel, progress=progress),
                       done, on_failed=failed, on_cancelled=self.cancelled.emit)

    def cancel(self) -> None:
        self.job.cancel()

    def is_busy(self) -> bool:
        return self.job.is_running()

    def shutdown(self, timeout_ms: int = 5000) -> bool:
        return self.job.shutdown(timeout_ms)

    # ---- showing ----------------------------------------------------------------------------------
    def stage(self) -> str:
        return self.stage_box.currentData()

    def set_stage(self, name: str) -> None:
        """Show the "decode" differences or the "normalizer" changes."""
        index = self.stage_box.findData(name)
        if index < 0:
            raise ValueError(f"unknown stage {name!r}: decode or normalizer")
        self.stage_box.setCurrentIndex(index)

    def differences(self):
        """The differences of the stage shown (all of them, not only the listed ones)."""
        if self.report is None:
            return []
        return self.report.decode_differences if self.stage() == "decode" else self.report.normalizer_changes

    def _show_report(self) -> None:
        report = self.report
        if report is None:
            return
        self.summary.setText(self.tr("{summary} · {seconds} s").format(summary=report_summary(report),
                                                                        seconds=f"{report.seconds:.2f}"))
        items = self.differences()
        shown = items[:MAX_ROWS]
        decode = self.stage() == "decode"
        count, first = f"{len(items):,}", f"{MAX_ROWS:,}"
        if not items:
            self.count_label.setText(self.tr("none: decode gives the text back") if decode
                                     else self.tr("none: the normalizer keeps the text"))
        elif len(items) <= MAX_ROWS:
            self.count_label.setText(self.tr("{count} differences").format(count=count) if decode
                                     else self.tr("{count} changes").format(count=count))
        else:
            self.count_label.setText(self.tr("first {first} of {count} differences").format(first=first, count=count)
                                     if decode else
                                     self.tr("first {first} of {count} changes").format(first=first, count=count))
        table = self.table
        table.setUpdatesEnabled(False)
        table.setRowCount(len(shown))
        for r, d in enumerate(shown):
            at = f"{d.start:,}" if d.end == d.start + 1 or d.end == d.start else f"{d.start:,}–{d.end:,}"
            cells = (at, visible(d.original), visible(d.normalized), visible(d.decoded) if d.stage == "decode" else "",
                     difference_label(d))
            for c, value in enumerate(cells):
                item = QTableWidgetItem(value)
                if c == 0:
                    item.setData(Qt.ItemDataRole.UserRole, (d.start, d.end))
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if c in (1, 2, 3):
                    item.setToolTip(repr({1: d.original, 2: d.normalized, 3: d.decoded}[c]))
                table.setItem(r, c, item)
        table.setColumnHidden(3, self.stage() != "decode")
        table.resizeColumnsToContents()
        for c in range(len(COLUMNS) - 1):  # (narrow columns: a cell's tooltip has it all)
            table.setColumnWidth(c, min(table.columnWidth(c), MAX_COLUMN_WIDTH))
        table.setUpdatesEnabled(True)
        self._plot(items, report)

    def _plot(self, items, report: RoundTripReport) -> None:
        kinds = DECODE_KINDS if self.stage() == "decode" else NORMALIZER_KINDS
        color = DECODE_COLOR if self.stage() == "decode" else NORMALIZER_COLOR
        counts = report.counts(self.stage())
        names = [k for k in kinds if counts.get(k)] or ["none"]
        values = [counts.get(k, 0) for k in names]
        plot = self.kind_plot
        plot.clear()
        ys = np.arange(len(names))[::-1].astype(float)
        plot.addItem(pg.BarGraphItem(x0=0, y=ys, height=0.7, width=values, brush=QColor(color), pen=None))
        plot.getAxis("left").setTicks([[(float(y), kind_label(n)) for y, n in zip(ys, names)]])
        plot.setYRange(-0.6, len(names) - 0.4, padding=0)
        plot.setXRange(0, max(values + [1]) * 1.05, padding=0)
        hist = positions(items, report.text_length, POSITION_BINS)
        where = self.where_plot
        where.clear()
        width = 100.0 / POSITION_BINS
        xs = (np.arange(POSITION_BINS) + 0.5) * width
        where.addItem(pg.BarGraphItem(x=xs, height=hist.astype(float), width=width * 0.9, brush=QColor(color),
                                      pen=None))
        where.setXRange(0, 100, padding=0)
        where.setYRange(0, max(1, int(hist.max()) if len(hist) else 1) * 1.05, padding=0)

    def _activate_row(self, item: QTableWidgetItem) -> None:
        first = self.table.item(item.row(), 0)
        if first is None:
            return
        start, end = first.data(Qt.ItemDataRole.UserRole)
        self.spanActivated.emit(int(start), int(end))

    def set_theme(self, theme: TokenTheme) -> None:
        self.theme = theme
        for plot in (self.kind_plot, self.where_plot):
            theme_plot(plot, theme)
        if self.report is not None:
            self._show_report()
