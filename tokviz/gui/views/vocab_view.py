"""The Vocabulary view: what a vocabulary holds, as figures, two charts and a searchable table.

* figures: size and whether it is a multiple of 64 / 128, special, reserved, control,
  user-defined, byte and unused pieces, mean token length, single-Han-character tokens, which of
  0-999 are one token, the longest tokens;
* charts (pyqtgraph): token length in bytes (histogram; the longest 0.5% of the tokens, when they
  would squeeze the rest, are one last "≥ N" bar, which the chart's title explains) and the scripts
  of the tokens (bars);
* the table of every token (id, token string, text, bytes, characters, category, merge rank or
  score), filtered by text or /regex/, category, length and health (`analysis.token_health`:
  undecodable, unproduced specials, intermediate-only, added duplicates, same decode, stray
  bytes), sorted by any column.

The figures and the table (`analysis.vocab_stats`: numpy columns, no object per token) are
computed on a worker (about a second for a 150k vocabulary); the figures equal `tokviz stats
--json`'s "vocab".  The health findings are computed on a worker too, with a progress bar and
Cancel, the first time a health filter is chosen (about a second for a 150k vocabulary).

In a narrow dock (300 px and up) the table, the figures and the charts are tabs (from 720 px the
figures and charts stand side by side above the table), the filters wrap onto two rows and long
names and messages are elided, so nothing the view shows can widen the window.
"""
from __future__ import annotations

import itertools

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QT_TRANSLATE_NOOP, Qt, QTimer, Signal
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QSpinBox,
    QStyle,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ...analysis.token_health import SECTIONS, TokenHealth, token_health
from ...analysis.vocab_stats import CATEGORIES, TokenTable, VocabStats, token_table, vocab_stats
from ..work.jobs import BackgroundJob
from ..widgets.plots import MIN_PLOT_HEIGHT, PLOT_TITLE_SIZE, CategoryAxis, FittedAxis, make_plot, theme_plot
from ..widgets.style import DEFAULT_THEME, TokenTheme
from .token_runs import runs_display, text_runs
from .vocab_table import VocabModel, VocabProxy, category_name
from ..widgets.layout import ElidedLabel, FigureTable, ReflowRow, ResponsivePanes, scroll_page
from ..work.workers import TaskRunner, describe_error

LENGTH_TITLE = QT_TRANSLATE_NOOP("VocabView", "Token length (bytes)")
SCRIPTS_TITLE = QT_TRANSLATE_NOOP("VocabView", "Scripts of the tokens")
LENGTH_SHOWN = 0.995  # the length histogram's axis ends where this share of the tokens is; the rest is one bar
HEALTH_COLUMN = 7
# The token health sections (analysis.token_health.SECTIONS) as shown, and what each means
HEALTH_NAMES = {
    "undecodable": QT_TRANSLATE_NOOP("VocabView", "undecodable"),
    "unproduced specials": QT_TRANSLATE_NOOP("VocabView", "unproduced specials"),
    "intermediate-only": QT_TRANSLATE_NOOP("VocabView", "intermediate-only"),
    "added duplicates": QT_TRANSLATE_NOOP("VocabView", "added duplicates"),
    "same decode": QT_TRANSLATE_NOOP("VocabView", "same decode"),
    "stray bytes": QT_TRANSLATE_NOOP("VocabView", "stray bytes"),
}
HEALTH_TIPS = {
    "undecodable": QT_TRANSLATE_NOOP("VocabView", "decode([id]) encoded again never gives the id (plain, after a "
                                                  "space, or after a word)"),
    "unproduced specials": QT_TRANSLATE_NOOP("VocabView", "special / control tokens that encoding text never gives "
                                                          "(templates, post-processor)"),
    "intermediate-only": QT_TRANSLATE_NOOP("VocabView", "IoS >= 0.9 on the sample texts: almost always merged again "
                                                        "into a longer token"),
    "added duplicates": QT_TRANSLATE_NOOP("VocabView", "added tokens whose content is also a model token with "
                                                       "another id (both ids shown)"),
    "same decode": QT_TRANSLATE_NOOP("VocabView", "several ids that decode to the same text (e.g. <0x41> and 'A')"),
    "stray bytes": QT_TRANSLATE_NOOP("VocabView", "tokens that are not UTF-8 alone: they make text only with "
                                                  "their neighbours"),
}


def _tr(text: str) -> str:
    """`text` (marked with QT_TRANSLATE_NOOP("VocabView", …)) in the app's language."""
    return QCoreApplication.translate("VocabView", text)


def length_bins(length_counts: dict[int, int], shown: float = LENGTH_SHOWN):
    """The bars of the token length histogram: (lengths, counts, tail), where `tail` is None when
    every length has its own bar, else (first length, last length, tokens) of the longest tokens
    beyond the `shown` share, which are one last bar at `first length` (drawn as "≥ first")
    rather than a long flat tail that squeezes the rest of the chart."""
    lengths = np.array(sorted(length_counts), np.int64)
    counts = np.array([length_counts[int(k)] for k in lengths], np.int64)
    if not len(lengths) or counts.sum() <= 0:
        return lengths, counts, None
    share = np.cumsum(counts) / counts.sum()
    last = int(np.searchsorted(share, shown - 1e-12))  # the last length of the shown share
    if last >= len(lengths) - 2:  # (one or two lengths beyond: as well shown as they are)
        return lengths, counts, None
    first_tail = int(lengths[last]) + 1
    tail = (first_tail, int(lengths[-1]), int(counts[last + 1:].sum()))
    return (np.append(lengths[:last + 1], first_tail), np.append(counts[:last + 1], tail[2]), tail)


FIT_ROWS = 60  # rows measured to size the columns to their contents (each cell read through Python, 8 roles)

class VocabView(QWidget):
    """`set_tokenizer(tok)` computes everything on a worker; `ready` follows with the VocabStats."""

    ready = Signal(object)
    healthReady = Signal(object)  # TokenHealth
    healthCancelled = Signal()

    def __init__(self, parent=None, theme: TokenTheme = DEFAULT_THEME):
        super().__init__(parent)
        self.theme = theme
        self.stats: VocabStats | None = None
        self.token_health: TokenHealth | None = None
        self._tokenizer = None
        self._job = 0
        self._runner = TaskRunner(1, self)

        self.summary = ElidedLabel(self.tr("No tokenizer."))
        bold = self.summary.font()
        bold.setBold(True)
        self.summary.setFont(bold)
        self.figures = FigureTable((self.tr("figure"), self.tr("value")))
        self.filter_input = QLineEdit()
        self.filter_input.setPlaceholderText(self.tr("Filter: text, or /regex/"))
        self.filter_input.setClearButtonEnabled(True)
        self.filter_input.setMinimumWidth(120)
        self.category_box = QComboBox()
        self.category_box.addItem(self.tr("All categories"), "")
        for c in CATEGORIES:
            self.category_box.addItem(category_name(c), c)
        self.health_box = QComboBox()
        self.health_box.addItem(self.tr("Any health"), "")
        for k, name in enumerate(SECTIONS, 1):
            self.health_box.addItem(_tr(HEALTH_NAMES.get(name, name)), name)
            if name in HEALTH_TIPS:
                self.health_box.setItemData(k, _tr(HEALTH_TIPS[name]), Qt.ItemDataRole.ToolTipRole)
        self.health_box.setToolTip(self.tr("Token health (Land & Bartolo 2024; IoS: Chizhov et al. 2024): checked "
                                           "on a worker the first time one is chosen"))
        self.health_job = BackgroundJob(cancel_button=QToolButton(), parent=self)
        self.health_progress, self.health_cancel = self.health_job.progress_bar, self.health_job.cancel_button
        self.health_progress.setRange(0, 100)
        self.health_progress.setTextVisible(False)
        self.health_progress.setMaximumWidth(90)
        self.min_bytes = QSpinBox()
        self.max_bytes = QSpinBox()
        for box, tip in ((self.min_bytes, self.tr("at least this many bytes (0: any)")),
                         (self.max_bytes, self.tr("at most this many bytes (0: any)"))):
            box.setRange(0, 1024)
            box.setToolTip(tip)
        self.count_label = ElidedLabel("", hint_chars=24)
        self.count_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self._filter_timer = QTimer(self)
        self._filter_timer.setSingleShot(True)
        self._filter_timer.setInterval(150)  # typing: filter once the keys pause
        self._filter_timer.timeout.connect(self.apply_filter)
        self.filter_input.textChanged.connect(self._filter_timer.start)
        self.category_box.currentIndexChanged.connect(self.apply_filter)
        self.health_box.currentIndexChanged.connect(self._health_chosen)
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
        self._content_widths: list[int] | None = None
        self._user_sized_columns = False
        self._fitting = False
        self.table.horizontalHeader().sectionResized.connect(self._column_resized)

        pg.setConfigOptions(antialias=True)
        self.length_plot = make_plot(_tr(LENGTH_TITLE), {"bottom": FittedAxis("bottom"), "left": FittedAxis("left")})
        self.length_plot.setLabel("bottom", self.tr("bytes"))
        self.length_plot.setLabel("left", self.tr("tokens"))
        self.length_tail = None  # (first, last length, tokens) of the last "≥ first" bar, if any
        self.scripts_axis = CategoryAxis("left")
        self.script_plot = make_plot(_tr(SCRIPTS_TITLE), {"bottom": FittedAxis("bottom"), "left": self.scripts_axis})
        self.script_plot.setLabel("bottom", self.tr("tokens"))
        self.script_plot.getViewBox().invertY(True)
        for plot in (self.length_plot, self.script_plot):
            plot.setMouseEnabled(x=False, y=False)

        search = QHBoxLayout()
        search.addWidget(self.filter_input, 1)
        search.addWidget(self.count_label)
        limits = QHBoxLayout()
        limits.addWidget(self.category_box, 1)
        limits.addWidget(QLabel(self.tr("bytes")))
        limits.addWidget(self.min_bytes)
        limits.addWidget(QLabel("–"))
        limits.addWidget(self.max_bytes)
        health = QHBoxLayout()
        health.addWidget(self.health_box, 1)
        health.addWidget(self.health_progress)
        health.addWidget(self.health_cancel)
        self.filters = ReflowRow([(search, 4), (limits, 1), (health, 1)], wide_width=820)
        table_box = QWidget()
        tl = QVBoxLayout(table_box)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addWidget(self.filters)
        tl.addWidget(self.table, 1)
        self.panes = ResponsivePanes([(self.figures, self.tr("Figures"), (30, 1)),
                                      (self.length_plot, self.tr("Lengths"), (35, 1)),
                                      (self.script_plot, self.tr("Scripts"), (35, 1))],
                                     below=(table_box, self.tr("Tokens")), wide_width=720)
        self.panes.wide_changed.connect(self._show_titles)
        content = QWidget()
        cl = QVBoxLayout(content)
        cl.setContentsMargins(0, 0, 0, 0)
        cl.addWidget(self.summary)
        cl.addWidget(self.panes, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(scroll_page(content))
        self._show_titles(self.panes.is_wide())
        self.set_theme(theme)

    # ---- content ----------------------------------------------------------------------------------
    def set_tokenizer(self, tokenizer) -> None:
        """Compute the vocabulary's figures and table on a worker, then show them."""
        self.health_job.abandon()
        self._tokenizer = tokenizer
        self._job += 1
        job = self._job
        self.stats = None
        self.token_health = None
        self.health_box.blockSignals(True)
        self.health_box.setCurrentIndex(0)
        self.health_box.blockSignals(False)
        self.model.set_table(None)
        self.figures.setRowCount(0)
        self._content_widths = None
        self._user_sized_columns = False
        if tokenizer is None:
            self.summary.setText(self.tr("No tokenizer."))
            return
        self.summary.setText(self.tr("Reading the vocabulary…"))

        def work():
            table = token_table(tokenizer)
            return table, vocab_stats(tokenizer, table)

        def done(result) -> None:
            if job == self._job:
                table, stats = result
                self._show(table, stats)

        def failed(exc) -> None:
            if job == self._job:
                self.summary.setText(
                    self.tr("Could not read the vocabulary: {error}").format(error=describe_error(exc)))

        self._runner.submit(work, done, failed)

    def tokenizer(self):
        """The tokenizer whose vocabulary is shown (or being read), None for none."""
        return self._tokenizer

    def is_busy(self) -> bool:
        return self._runner.pending() > 0 or self.health_job.is_pending()

    # ---- token health ---------------------------------------------------------------------------------
    def set_health_filter(self, section: str) -> None:
        """Show only the tokens of a health section (one of `SECTIONS`; "" for all), checking the
        vocabulary on a worker first if it was not yet."""
        self.health_box.setCurrentIndex(max(0, self.health_box.findData(section)))

    def _health_chosen(self) -> None:
        if self.health_box.currentData() and self.token_health is None and not self.health_job.is_running():
            self.check_health()
        self.apply_filter()

    def check_health(self) -> None:
        """Find the token health sections on a worker (progress bar, Cancel); `healthReady` follows."""
        tokenizer = self._tokenizer
        if tokenizer is None:
            return

        def done(result: TokenHealth) -> None:
            self.token_health = result
            self.apply_filter()
            self.healthReady.emit(result)

        def cancelled() -> None:
            self.health_box.blockSignals(True)
            self.health_box.setCurrentIndex(0)
            self.health_box.blockSignals(False)
            self.apply_filter()
            self.healthCancelled.emit()

        def failed(exc) -> None:
            self.count_label.setText(self.tr("health check failed: {error}").format(error=describe_error(exc)))

        self.health_job.start(lambda cancel, progress: token_health(tokenizer, progress=progress, cancel=cancel),
                              done, on_failed=failed, on_cancelled=cancelled)

    def cancel_health(self) -> None:
        self.health_job.cancel()

    def is_checking_health(self) -> bool:
        return self.health_job.is_running()

    def _show(self, table: TokenTable, stats: VocabStats) -> None:
        self.stats = stats
        self.model.set_table(table)
        self.apply_filter()
        self._fit_columns()
        name = self._tokenizer.source.name if self._tokenizer is not None else ""
        self.summary.setText(self.tr("{name}: {n:,} tokens").format(name=name or self.tr("vocabulary"), n=stats.size))
        self.figures.set_rows(self.figure_rows(stats))
        self._plot(stats)
        self.ready.emit(stats)

    def _fit_columns(self) -> None:
        """Columns as wide as their contents (measured once per vocabulary), the token and text
        columns capped to a third of the table, so that a narrow dock still shows the numbers
        beside them.  Once the user resizes a column, the widths are theirs."""
        table = self.table
        self._fitting = True
        try:
            if self._content_widths is None:
                # measured on the first rows: each cell is read through Python, and Qt's default
                # sample of 1000 rows x 8 columns held the UI thread half a second on Qwen2.5
                header = table.horizontalHeader()
                header.setResizeContentsPrecision(FIT_ROWS)
                table.resizeColumnsToContents()
                ids = self.model.table().ids
                widest = str(int(ids.max())) if len(ids) else "0"
                margin = 2 * (table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, table) + 1) + 4
                id_width = table.fontMetrics().horizontalAdvance(widest) + margin
                table.setColumnWidth(0, max(table.columnWidth(0), id_width))
                self._content_widths = [table.columnWidth(c) for c in range(table.model().columnCount())]
            cap = max(90, min(260, table.viewport().width() // 3))
            moved = table.horizontalHeader().visualIndex(HEALTH_COLUMN) != HEALTH_COLUMN
            for col, width in enumerate(self._content_widths):
                if not (moved and col == HEALTH_COLUMN):  # (sized to its notes when shown)
                    table.setColumnWidth(col, min(width, cap) if col in (1, 2) else width)
        finally:
            self._fitting = False

    def _column_resized(self, column: int) -> None:
        if not self._fitting and column != self.proxy.columnCount() - 1:  # (the last one stretches)
            self._user_sized_columns = True

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self._content_widths is not None and not self._user_sized_columns:
            self._fit_columns()

    @staticmethod
    def figure_rows(s: VocabStats) -> list[tuple[str, str]]:
        """The figures shown, as (name, value) texts."""
        yes = {True: QCoreApplication.translate("VocabView", "yes"),
               False: QCoreApplication.translate("VocabView", "no")}
        rows = [
            (QCoreApplication.translate("VocabView", "tokens"), f"{s.size:,}"),
            (QCoreApplication.translate("VocabView", "multiple of 64 / of 128"),
             f"{yes[s.divisible_by_64]} / {yes[s.divisible_by_128]}"),
            (QCoreApplication.translate("VocabView", "special"), f"{s.special:,}"),
            (QCoreApplication.translate("VocabView", "other added"), f"{s.added:,}"),
            (QCoreApplication.translate("VocabView", "reserved"), f"{s.reserved:,}"),
            (QCoreApplication.translate("VocabView", "control"), f"{s.control:,}"),
            (QCoreApplication.translate("VocabView", "user-defined"), f"{s.user_defined:,}"),
            (QCoreApplication.translate("VocabView", "byte pieces"), f"{s.byte_pieces:,}"),
            (QCoreApplication.translate("VocabView", "unused"), f"{s.unused:,}"),
            (QCoreApplication.translate("VocabView", "mean length"),
             QCoreApplication.translate("VocabView", "{n:.2f} bytes").format(n=s.mean_bytes)),
            (QCoreApplication.translate("VocabView", "single-Han-character tokens"), f"{s.cjk_single_chars:,}"),
            (QCoreApplication.translate("VocabView", "one-token numbers of 0–999"),
             f"{len(s.numbers_single_token):,}"),
        ]
        longest = QCoreApplication.translate("VocabView", "longest #{k} ({n} bytes)")
        rows += [(longest.format(k=k, n=n), runs_display(text_runs(text)))
                 for k, (_, text, n) in enumerate(s.longest[:3], 1)]
        return rows

    def summary_values(self) -> dict:
        """The figures shown, by name (the keys of `tokviz stats --json`'s "vocab")."""
        s = self.stats
        return {} if s is None else s.as_dict()

    def _plot(self, s: VocabStats) -> None:
        theme = self.theme
        brush = pg.mkBrush(theme.palette[1])
        self.length_plot.clear()
        lengths, counts, self.length_tail = length_bins(s.length_bytes)
        if len(lengths):
            self.length_plot.addItem(pg.BarGraphItem(x=lengths.astype(float), height=counts.astype(float), width=0.8,
                                                     brush=brush))
        if self.length_tail is not None:  # the last bar is the tail: another colour, and "≥ N" over it
            first, _, tokens = self.length_tail
            self.length_plot.addItem(pg.BarGraphItem(x=[float(first)], height=[float(tokens)], width=0.8,
                                                     brush=pg.mkBrush(theme.palette[3])))
            # (over the bar, its right end at the bar's: the last bar is at the plot's right edge)
            label = pg.TextItem(self.tr("≥ {n}").format(n=first), color=theme.text, anchor=(1.0, 1.0))
            label.setPos(float(first) + 0.4, float(tokens))
            self.length_plot.addItem(label)
        self._show_titles(self.panes.is_wide())
        self.script_plot.clear()
        names = [c for c, n in s.script_counts.items() if n]
        values = [s.script_counts[c] for c in names]
        self.scripts_axis.set_names([category_name(c) for c in names])
        self._fit_script_plot()
        if names:
            y = np.arange(len(names), dtype=float)
            self.script_plot.addItem(pg.BarGraphItem(x0=0, y=y, height=0.7, width=values, brush=pg.mkBrush(theme.palette[3])))

    def _fit_script_plot(self) -> None:
        """Side by side, tall enough to name every script on a line of its own (the names, the
        view's padding of two lines, the title, x axis and margins: 110 px).  On a tab it takes the
        height the dock has, naming every 2nd or 3rd script if it must (the Tokens tab's height
        is not held to it)."""
        line = QFontMetrics(self.scripts_axis.style["tickFont"]).height()
        needed = (len(self.scripts_axis.names) + 2) * line + 110 if self.panes.is_wide() else 0
        self.script_plot.setMinimumHeight(max(MIN_PLOT_HEIGHT, needed))

    def length_title(self) -> str:
        """The length chart's title: what it shows, and what its last bar holds when the longest
        tokens are one "≥ N" bar."""
        if self.length_tail is None:
            return _tr(LENGTH_TITLE)
        first, last, tokens = self.length_tail
        note = self.tr("last bar: the longest {tokens:,} tokens ({first}–{last} bytes)").format(
            tokens=tokens, first=first, last=last)
        return f"{_tr(LENGTH_TITLE)}<br><span style='font-size:small'>{note}</span>"

    def _show_titles(self, wide: bool) -> None:
        """Titles over the charts, side by side or on tabs."""
        for plot, title in ((self.length_plot, self.length_title()), (self.script_plot, _tr(SCRIPTS_TITLE))):
            plot.setTitle(title, color=self.theme.text, size=PLOT_TITLE_SIZE)
        self._fit_script_plot()

    def set_theme(self, theme: TokenTheme) -> None:
        self.theme = theme
        for plot in (self.length_plot, self.script_plot):
            theme_plot(plot, theme)
        if self.stats is not None:
            self._plot(self.stats)

    # ---- filtering ----------------------------------------------------------------------------------
    def apply_filter(self) -> None:
        self._filter_timer.stop()
        section = self.health_box.currentData() or ""
        ids = self.token_health.ids(section) if section and self.token_health is not None else None
        notes = self.token_health.notes_by_id(section) if ids is not None else None
        self.model.set_notes(notes)
        self._place_health_column(notes)
        self.proxy.set_filter(self.filter_input.text().strip(), self.category_box.currentData() or "",
                              self.min_bytes.value(), self.max_bytes.value(), ids=ids)
        shown, total = self.proxy.rowCount(), self.model.rowCount()
        text = self.tr("{shown:,} of {total:,}").format(shown=shown, total=total)
        if self.proxy.last_error:
            text += " " + self.tr("({error})").format(error=self.proxy.last_error)
        if section and ids is None:
            text += " " + self.tr("(checking health…)")
        self.count_label.setText(text)

    def _place_health_column(self, notes: dict[int, str] | None) -> None:
        """With a health filter, its "health" notes right after the token (in a narrow dock they
        would be out of sight at the end), as wide as the first notes need up to half the table;
        without, the empty column last."""
        header = self.table.horizontalHeader()
        where = header.visualIndex(HEALTH_COLUMN)
        if notes is not None and where != 2:
            header.moveSection(where, 2)
            # measured on a sample of the notes: Qt's resizeColumnToContents would ask the model for
            # thousands of cells through Python (about 70 ms on Qwen2.5's undecodable tokens)
            metrics = self.table.fontMetrics()
            sample = itertools.islice(notes.values(), 200)
            wanted = max((metrics.horizontalAdvance(n) for n in sample), default=0) + 16
            cap = max(160, self.table.viewport().width() // 2)
            self._fitting = True
            try:
                self.table.setColumnWidth(HEALTH_COLUMN, max(80, min(wanted, cap)))
            finally:
                self._fitting = False
        elif notes is None and where != HEALTH_COLUMN:
            header.moveSection(where, HEALTH_COLUMN)

    def shutdown(self, timeout_ms: int = 5000) -> None:
        self._job += 1
        self.health_job.shutdown(timeout_ms)
        self._runner.shutdown(timeout_ms)
