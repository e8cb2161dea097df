"""The Vocabulary view: what a vocabulary holds, as figures, two charts and a searchable table.

* figures: size and whether it is a multiple of 64 / 128, special, reserved, control,
  user-defined, byte and unused pieces, mean token length, single-Han-character tokens, which of
  0-999 are one token, the longest tokens;
* charts (pyqtgraph): token length in bytes (histogram) and the scripts of the tokens (bars);
* the table of every token (id, token string, text, bytes, characters, category, merge rank or
  score), filtered by text or /regex/, category and length, sorted by any column.

The figures and the table (`analysis.vocab_stats`: numpy columns, no object per token) are
computed on a worker (about a second for a 150k vocabulary); the figures equal `tokviz stats
--json`'s "vocab".
"""
from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QSpinBox,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ..analysis.vocab_stats import CATEGORIES, TokenTable, VocabStats, token_table, vocab_stats
from .style import DEFAULT_THEME, TokenTheme
from .vocab_table import VocabModel, VocabProxy
from .workers import TaskRunner, describe_error


class VocabView(QWidget):
    """`set_tokenizer(tok)` computes everything on a worker; `ready` follows with the VocabStats."""

    ready = Signal(object)

    def __init__(self, parent=None, theme: TokenTheme = DEFAULT_THEME):
        super().__init__(parent)
        self.theme = theme
        self.stats: VocabStats | None = None
        self._tokenizer = None
        self._job = 0
        self._runner = TaskRunner(1, self)

        self.summary = QLabel("No tokenizer.")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.filter_input = QLineEdit()
        self.filter_input.setPlaceholderText("Filter: text, or /regex/")
        self.filter_input.setClearButtonEnabled(True)
        self.category_box = QComboBox()
        self.category_box.addItem("All categories", "")
        for c in CATEGORIES:
            self.category_box.addItem(c, c)
        self.min_bytes = QSpinBox()
        self.max_bytes = QSpinBox()
        for box, tip in ((self.min_bytes, "at least this many bytes (0: any)"), (self.max_bytes, "at most (0: any)")):
            box.setRange(0, 1024)
            box.setToolTip(tip)
        self.count_label = QLabel("")
        self._filter_timer = QTimer(self)
        self._filter_timer.setSingleShot(True)
        self._filter_timer.setInterval(150)  # typing: filter once the keys pause
        self._filter_timer.timeout.connect(self.apply_filter)
        self.filter_input.textChanged.connect(self._filter_timer.start)
        self.category_box.currentIndexChanged.connect(self.apply_filter)
        self.min_bytes.valueChanged.connect(self.apply_filter)
        self.max_bytes.valueChanged.connect(self.apply_filter)

        self.model = VocabModel()
        self.proxy = VocabProxy(self)
        self.proxy.setSourceModel(self.model)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)

        pg.setConfigOptions(antialias=True)
        self.length_plot = pg.PlotWidget()
        self.length_plot.setTitle("Token length (bytes)")
        self.length_plot.setLabel("left", "tokens")
        self.script_plot = pg.PlotWidget()
        self.script_plot.setTitle("Scripts")
        for plot in (self.length_plot, self.script_plot):
            plot.setMouseEnabled(x=False, y=False)
            plot.setMinimumHeight(180)
        self.set_theme(theme)

        filters = QHBoxLayout()
        filters.addWidget(self.filter_input, 2)
        filters.addWidget(self.category_box, 1)
        filters.addWidget(QLabel("bytes"))
        filters.addWidget(self.min_bytes)
        filters.addWidget(QLabel("–"))
        filters.addWidget(self.max_bytes)
        filters.addWidget(self.count_label)
        charts = QSplitter(Qt.Orientation.Horizontal)
        charts.addWidget(self.length_plot)
        charts.addWidget(self.script_plot)
        table_box = QWidget()
        tl = QVBoxLayout(table_box)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addLayout(filters)
        tl.addWidget(self.table, 1)
        body = QSplitter(Qt.Orientation.Vertical)
        body.addWidget(charts)
        body.addWidget(table_box)
        body.setSizes([260, 440])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.summary)
        layout.addWidget(body, 1)

    # ---- content ----------------------------------------------------------------------------------
    def set_tokenizer(self, tokenizer) -> None:
        """Compute the vocabulary's figures and table on a worker, then show them."""
        self._tokenizer = tokenizer
        self._job += 1
        job = self._job
        self.stats = None
        self.model.set_table(None)
        if tokenizer is None:
            self.summary.setText("No tokenizer.")
            return
        self.summary.setText("Reading the vocabulary…")

        def work():
            table = token_table(tokenizer)
            return table, vocab_stats(tokenizer, table)

        def done(result) -> None:
            if job == self._job:
                table, stats = result
                self._show(table, stats)

        def failed(exc) -> None:
            if job == self._job:
                self.summary.setText(f"Could not read the vocabulary: {describe_error(exc)}")

        self._runner.submit(work, done, failed)

    def is_busy(self) -> bool:
        return self._runner.pending() > 0

    def _show(self, table: TokenTable, stats: VocabStats) -> None:
        self.stats = stats
        self.model.set_table(table)
        self.apply_filter()
        self.table.resizeColumnsToContents()
        widths = self.table.fontMetrics().horizontalAdvance("0000000")
        self.table.setColumnWidth(0, max(self.table.columnWidth(0), widths))
        for col in (1, 2):
            self.table.setColumnWidth(col, min(self.table.columnWidth(col), 260))
        self.summary.setText(self.summary_html(stats))
        self._plot(stats)
        self.ready.emit(stats)

    def summary_html(self, s: VocabStats) -> str:
        name = self._tokenizer.source.name if self._tokenizer is not None else ""
        yes = {True: "yes", False: "no"}
        numbers = len(s.numbers_single_token)
        longest = ", ".join(f"{html.escape(repr(t if len(t) <= 24 else t[:22] + '…'))} ({n} bytes)"
                            for _, t, n in s.longest[:3])
        return (
            f"<b>{html.escape(name or 'vocabulary')}</b>: <b>{s.size:,}</b> tokens "
            f"(multiple of 64: {yes[s.divisible_by_64]}, of 128: {yes[s.divisible_by_128]}) · "
            f"special {s.special:,} · other added {s.added:,} · reserved {s.reserved:,} · control {s.control:,} · "
            f"user-defined {s.user_defined:,} · byte pieces {s.byte_pieces:,} · unused {s.unused:,}<br>"
            f"mean length {s.mean_bytes:.2f} bytes · single-Han-character tokens {s.cjk_single_chars:,} · "
            f"one-token numbers of 0–999: {numbers:,} · longest: {longest}"
        )

    def summary_values(self) -> dict:
        """The figures shown, by name (the keys of `tokviz stats --json`'s "vocab")."""
        s = self.stats
        return {} if s is None else s.as_dict()

    def _plot(self, s: VocabStats) -> None:
        theme = self.theme
        brush = pg.mkBrush(theme.palette[1])
        self.length_plot.clear()
        lengths = np.array(sorted(s.length_bytes), float)
        counts = np.array([s.length_bytes[int(k)] for k in lengths], float)
        if len(lengths):
            self.length_plot.addItem(pg.BarGraphItem(x=lengths, height=counts, width=0.8, brush=brush))
        self.script_plot.clear()
        names = [c for c, n in s.script_counts.items() if n]
        values = [s.script_counts[c] for c in names]
        if names:
            y = np.arange(len(names), dtype=float)
            self.script_plot.addItem(pg.BarGraphItem(x0=0, y=y, height=0.7, width=values, brush=pg.mkBrush(theme.palette[3])))
            self.script_plot.getAxis("left").setTicks([[(float(i), n) for i, n in enumerate(names)]])
            self.script_plot.getViewBox().invertY(True)

    def set_theme(self, theme: TokenTheme) -> None:
        self.theme = theme
        for plot in (self.length_plot, self.script_plot):
            plot.setBackground(theme.background)
            for axis in ("left", "bottom"):
                plot.getAxis(axis).setTextPen(theme.text)
                plot.getAxis(axis).setPen(theme.marker)
        if self.stats is not None:
            self._plot(self.stats)

    # ---- filtering ----------------------------------------------------------------------------------
    def apply_filter(self) -> None:
        self._filter_timer.stop()
        self.proxy.set_filter(self.filter_input.text().strip(), self.category_box.currentData() or "",
                              self.min_bytes.value(), self.max_bytes.value())
        shown, total = self.proxy.rowCount(), self.model.rowCount()
        note = f" ({self.proxy.last_error})" if self.proxy.last_error else ""
        self.count_label.setText(f"{shown:,} of {total:,}{note}")

    def shutdown(self, timeout_ms: int = 5000) -> None:
        self._job += 1
        self._runner.shutdown(timeout_ms)
