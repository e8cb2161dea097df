"""The Robustness page: how tokens change when the text is perturbed (homoglyphs, styled letters,
full-width forms, diacritics, case, OCR typos, LaTeX; see `analysis.perturb`).

* Top: the perturbation, its rate (share of eligible characters changed) and seed, and the tokenizer
  whose tokens are shown.
* Side by side: the original and the perturbed text's tokens (`TokenView`s; a red bar marks each
  token that touches a changed character), their counts and the change (+N, ×r), and a table of the
  counts of every tokenizer.  Recomputed on a worker whenever the text, the tokenizers or a setting
  changes (the first PREVIEW_CHARS characters of a longer text).
* Corpus: every perturbation over the current text or a chosen file, cut in pieces, on a worker with
  a progress bar and Cancel (`analysis.robustness.corpus_robustness`): a grouped bar chart of the
  mean token-count inflation per perturbation, one colour per tokenizer, and the table.

Interface for the Analyses container: `set_tokenizers(dict)`, `set_text(str)`, `run()`, `finished`,
`is_busy()`, `shutdown(timeout_ms)`, `set_theme(theme)`.
"""
from __future__ import annotations

import html
import threading
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QGuiApplication
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...analysis.corpus_stats import table_markdown
from ...analysis.perturb import DEFAULT_RATE, PERTURBATIONS
from ...analysis.robustness import RobustnessReport, TextRobustness, compare_perturbed, corpus_robustness
from ...core.token_array import offsets_arrays
from ...errors import Cancelled, TokvizError
from ..widgets.click_guard import guard_clicks
from ..work.jobs import BackgroundJob
from ..widgets.plots import CategoryAxis, FittedAxis, RowsScroll, make_plot, theme_plot
from ..widgets.style import DEFAULT_THEME, TokenTheme
from ..views.token_view import TokenView
from ..widgets.layout import ReflowRow
from ..work.workers import TaskRunner, describe_error, error_text

PREVIEW_CHARS = 32 * 1024
PREVIEW_DELAY_MS = 120
# Bar colours, one per tokenizer: saturated and far apart (the token palette is pastel, for boxes)
BAR_COLORS = ("#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#eeca3b", "#9d755d")
CURRENT_TEXT = QT_TRANSLATE_NOOP("RobustnessView", "The current text")  # (shown translated)
# The perturbations' names and descriptions as shown (analysis.perturb.PERTURBATIONS' label and
# description, translated; a perturbation not listed here, or whose English differs, shows its own)
LABELS = {
    "homoglyph": QT_TRANSLATE_NOOP("Perturbations", "homoglyphs"),
    "styled-bold": QT_TRANSLATE_NOOP("Perturbations", "math bold"),
    "styled-italic": QT_TRANSLATE_NOOP("Perturbations", "math italic"),
    "styled-sans": QT_TRANSLATE_NOOP("Perturbations", "math sans"),
    "styled-mono": QT_TRANSLATE_NOOP("Perturbations", "math mono"),
    "fullwidth": QT_TRANSLATE_NOOP("Perturbations", "full-width"),
    "diacritics-add": QT_TRANSLATE_NOOP("Perturbations", "+diacritics"),
    "diacritics-remove": QT_TRANSLATE_NOOP("Perturbations", "−diacritics"),
    "upper": QT_TRANSLATE_NOOP("Perturbations", "UPPER"),
    "lower": QT_TRANSLATE_NOOP("Perturbations", "lower"),
    "random-case": QT_TRANSLATE_NOOP("Perturbations", "rAnDoM case"),
    "ocr": QT_TRANSLATE_NOOP("Perturbations", "OCR typos"),
    "latex": QT_TRANSLATE_NOOP("Perturbations", "LaTeX"),
}
DESCRIPTIONS = {
    "homoglyph": QT_TRANSLATE_NOOP("Perturbations", "Latin letters replaced by Cyrillic/Greek look-alikes"),
    "styled-bold": QT_TRANSLATE_NOOP("Perturbations", "letters and digits as mathematical bold alphanumerics"),
    "styled-italic": QT_TRANSLATE_NOOP("Perturbations", "letters and digits as mathematical italic alphanumerics"),
    "styled-sans": QT_TRANSLATE_NOOP("Perturbations", "letters and digits as mathematical sans-serif alphanumerics"),
    "styled-mono": QT_TRANSLATE_NOOP("Perturbations", "letters and digits as mathematical monospace alphanumerics"),
    "fullwidth": QT_TRANSLATE_NOOP("Perturbations", "ASCII as full-width forms (ＡＢＣ１２３！)"),
    "diacritics-add": QT_TRANSLATE_NOOP("Perturbations", "ASCII letters given an accent (e → é, è, ë...)"),
    "diacritics-remove": QT_TRANSLATE_NOOP("Perturbations", "accents removed (é → e, ø → o)"),
    "upper": QT_TRANSLATE_NOOP("Perturbations", "words in upper case"),
    "lower": QT_TRANSLATE_NOOP("Perturbations", "words in lower case"),
    "random-case": QT_TRANSLATE_NOOP("Perturbations", "letters' case swapped at random"),
    "ocr": QT_TRANSLATE_NOOP("Perturbations", "OCR confusions: rn↔m, cl↔d, l↔1, O↔0, e↔c..."),
    "latex": QT_TRANSLATE_NOOP("Perturbations",
                               "LaTeX escapes: accents (\\'e), special characters (\\&), math ($\\alpha$, $\\leq$)"),
}
# the figures of the corpus table's columns ("<tokenizer> mean ×" ...), shown translated
FIGURES = {
    "perturbation": QT_TRANSLATE_NOOP("RobustnessView", "perturbation"),
    "changed": QT_TRANSLATE_NOOP("RobustnessView", "changed"),
    "eligible": QT_TRANSLATE_NOOP("RobustnessView", "eligible"),
    "mean ×": QT_TRANSLATE_NOOP("RobustnessView", "mean ×"),
    "corpus ×": QT_TRANSLATE_NOOP("RobustnessView", "corpus ×"),
}


def perturbation_label(name: str) -> str:
    """The name of perturbation `name` as shown (translated)."""
    english = PERTURBATIONS[name].label
    return QCoreApplication.translate("Perturbations", english) if LABELS.get(name) == english else english


def perturbation_description(name: str) -> str:
    """What perturbation `name` does, as shown (translated)."""
    english = PERTURBATIONS[name].description
    return QCoreApplication.translate("Perturbations", english) if DESCRIPTIONS.get(name) == english else english


def _column_title(col: str) -> str:
    """A corpus table column's header: the figure translated, under the tokenizer's name."""
    for figure in ("mean ×", "corpus ×"):
        if col.endswith(" " + figure):
            return col[:-len(figure) - 1] + "\n" + QCoreApplication.translate("RobustnessView", FIGURES[figure])
    return QCoreApplication.translate("RobustnessView", FIGURES[col]) if col in FIGURES else col


def _change_text(original: int, perturbed: int) -> str:
    ratio = perturbed / original if original else 1.0
    return f"{perturbed - original:+,} (×{ratio:.2f})"


class RobustnessView(QWidget):
    """See the module docstring.  `previewed(TextRobustness)` follows each side-by-side update,
    `finished(RobustnessReport)` each corpus run, `cancelled()` a cancelled one."""

    finished = Signal(object)  # RobustnessReport
    previewed = Signal(object)  # TextRobustness
    cancelled = Signal()
    failed = Signal(str)

    KEY = "robustness"  # (AnalysesView.index_of)

    def __init__(self, parent=None, theme: TokenTheme = DEFAULT_THEME):
        super().__init__(parent)
        self.setObjectName("RobustnessPage")
        self.theme = theme
        self._tokenizers: dict = {}
        self._text = ""
        self._closed = False  # after shutdown(): nothing more is started
        self._preview_runner = TaskRunner(1, self)
        self._preview_job = 0
        self._preview_cancel: threading.Event | None = None
        self.preview: TextRobustness | None = None
        self.report: RobustnessReport | None = None
        self._rebalanced = False

        # -- settings
        self.perturbation_box = QComboBox()
        for name in PERTURBATIONS:
            self.perturbation_box.addItem(self.tr("{perturbation} — {description}").format(
                perturbation=perturbation_label(name), description=perturbation_description(name)), name)
            self.perturbation_box.setItemData(self.perturbation_box.count() - 1, perturbation_description(name),
                                              Qt.ItemDataRole.ToolTipRole)
        self.perturbation_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.perturbation_box.setMinimumContentsLength(16)
        self.rate_box = QDoubleSpinBox()
        self.rate_box.setRange(0.0, 1.0)
        self.rate_box.setSingleStep(0.05)
        self.rate_box.setDecimals(2)
        self.rate_box.setValue(DEFAULT_RATE)
        self.rate_box.setToolTip(self.tr("Share of the eligible characters (or letter groups, words) that are changed"))
        self.seed_box = QSpinBox()
        self.seed_box.setRange(0, 1_000_000)
        self.seed_box.setToolTip(self.tr("Seed of the random choices: the same seed gives the same perturbed text"))
        self.tokenizer_box = QComboBox()
        self.tokenizer_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.tokenizer_box.setMinimumContentsLength(12)
        self.tokenizer_box.setToolTip(self.tr("The tokenizer whose tokens are shown side by side"))
        self._preview_timer = QTimer(self)
        self._preview_timer.setSingleShot(True)
        self._preview_timer.setInterval(PREVIEW_DELAY_MS)
        self._preview_timer.timeout.connect(self.update_preview)
        self.perturbation_box.currentIndexChanged.connect(self._schedule_preview)
        self.rate_box.valueChanged.connect(self._schedule_preview)
        self.seed_box.valueChanged.connect(self._schedule_preview)
        self.tokenizer_box.currentIndexChanged.connect(self._show_pair)

        # one row when there is room, else the perturbation above the rest (the window never grows)
        which, how = QHBoxLayout(), QHBoxLayout()
        for row, label, widget, stretch in ((which, self.tr("Perturbation"), self.perturbation_box, 1),
                                            (how, self.tr("Rate"), self.rate_box, 0),
                                            (how, self.tr("Seed"), self.seed_box, 0),
                                            (how, self.tr("Tokenizer"), self.tokenizer_box, 1)):
            row.addWidget(QLabel(label))
            row.addWidget(widget, stretch)
            row.addSpacing(8)
        top = ReflowRow([(which, 3), (how, 2)], wide_width=760)

        # -- side by side
        self.original_label = QLabel(self.tr("Original"))
        self.perturbed_label = QLabel(self.tr("Perturbed"))
        for label in (self.original_label, self.perturbed_label):
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setWordWrap(True)
        self.original_view = TokenView(theme=theme)
        self.perturbed_view = TokenView(theme=theme)
        self._syncing = False
        self.original_view.verticalScrollBar().valueChanged.connect(
            lambda _v: self._sync_scroll(self.original_view, self.perturbed_view, True))
        self.perturbed_view.verticalScrollBar().valueChanged.connect(
            lambda _v: self._sync_scroll(self.perturbed_view, self.original_view, False))
        self.original_view.tokenHovered.connect(
            lambda i: self._link_hover(self.original_view, self.perturbed_view, i, True))
        self.perturbed_view.tokenHovered.connect(
            lambda i: self._link_hover(self.perturbed_view, self.original_view, i, False))
        self.preview_status = QLabel("")
        self.preview_status.setWordWrap(True)
        self.counts_table = QTableWidget(0, 4)
        self.counts_table.setHorizontalHeaderLabels([self.tr("tokenizer"), self.tr("original"), self.tr("perturbed"),
                                                     self.tr("change")])
        self._fit_table(self.counts_table)
        self.counts_table.horizontalHeader().setStretchLastSection(True)
        self.counts_table.itemSelectionChanged.connect(self._on_counts_selection)

        def column(label, view) -> QWidget:
            box = QWidget()
            lay = QVBoxLayout(box)
            lay.setContentsMargins(0, 0, 0, 0)
            lay.setSpacing(2)
            lay.addWidget(label)
            lay.addWidget(view, 1)
            return box

        counts_box = QWidget()
        counts_layout = QVBoxLayout(counts_box)
        counts_layout.setContentsMargins(0, 0, 0, 0)
        counts_layout.setSpacing(2)
        counts_layout.addWidget(QLabel(self.tr("Tokens of this text, every tokenizer")))
        counts_layout.addWidget(self.counts_table, 1)
        counts_layout.addWidget(self.preview_status)
        self.pair_split = QSplitter(Qt.Orientation.Horizontal)
        self.pair_split.setChildrenCollapsible(False)
        self.pair_split.addWidget(column(self.original_label, self.original_view))
        self.pair_split.addWidget(column(self.perturbed_label, self.perturbed_view))
        self.pair_split.addWidget(counts_box)
        self.pair_split.setStretchFactor(0, 3)
        self.pair_split.setStretchFactor(1, 3)
        self.pair_split.setStretchFactor(2, 2)
        self.pair_split.setSizes([450, 450, 330])

        # -- corpus run
        self.source_box = QComboBox()
        self.source_box.addItem(self.tr(CURRENT_TEXT), None)
        self.source_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.source_box.setMinimumContentsLength(12)
        self.source_box.setToolTip(self.tr("What the corpus run measures: the current text or a text file"))
        self.file_button = QPushButton(self.tr("File…"))
        self.file_button.clicked.connect(self._choose_file)
        self.run_button = QPushButton(self.tr("Run on the corpus"))
        self.run_button.setToolTip(self.tr("Every perturbation at this rate and seed, every tokenizer: the mean "
                                           "token-count inflation over the pieces (paragraphs, lines) of the text"))
        self.run_button.clicked.connect(self.run)
        guard_clicks(self.run_button)  # (enabled again as the job ends, under a click meant for Cancel)
        self.copy_button = QPushButton(self.tr("Copy table"))
        self.copy_button.setToolTip(self.tr("Copy the table as Markdown"))
        self.copy_button.clicked.connect(self.copy_table)
        self.copy_button.setEnabled(False)
        self.status = QLabel(self.tr("Run the corpus analysis to compare every perturbation."))
        self.status.setWordWrap(True)
        self.corpus_job = BackgroundJob(status=self.status, parent=self)
        self.corpus_job.ended.connect(self._update_enabled)
        self.progress, self.cancel_button = self.corpus_job.progress_bar, self.corpus_job.cancel_button

        run_row = QHBoxLayout()
        run_row.addWidget(QLabel(self.tr("Corpus")))
        run_row.addWidget(self.source_box)
        run_row.addWidget(self.file_button)
        run_row.addWidget(self.run_button)
        run_row.addWidget(self.cancel_button)
        run_row.addWidget(self.progress, 1)
        run_row.addStretch(0)
        run_row.addWidget(self.copy_button)

        # Horizontal bars: the perturbations' names stack down the left axis, all of them legible.
        self.category_axis = CategoryAxis("left")
        self.value_axis = FittedAxis("bottom", integer=False)
        # (a short title: a plot's title does not wrap, and the page may be narrow; the rest in the tooltip)
        self.plot = make_plot(self.tr("Mean token-count inflation"),
                              {"bottom": self.value_axis, "left": self.category_axis})
        self.plot.setToolTip(self.tr("Mean token-count inflation: perturbed / original tokens, averaged over the "
                                     "pieces of the text (1 = no change)"))
        self.plot.setMouseEnabled(False, False)
        self.plot.hideButtons()
        self.plot.setMenuEnabled(False)
        self.plot.getPlotItem().invertY(True)
        self.value_axis.setLabel(self.tr("× tokens (1 = no change)"))
        # one row per perturbation, its name always drawn and its bars never thinner than MIN_BAR_PX:
        # the chart scrolls when the page is short
        self.plot_scroll = RowsScroll(self.plot, self.category_axis)
        # the key above the plot, not inside it: in a narrow plot an inner legend covers the bars
        self.key = QLabel()
        self.key.setTextFormat(Qt.TextFormat.RichText)
        self.key.setWordWrap(True)
        chart = QWidget()
        chart_layout = QVBoxLayout(chart)
        chart_layout.setContentsMargins(0, 0, 0, 0)
        chart_layout.setSpacing(2)
        chart_layout.addWidget(self.key)
        chart_layout.addWidget(self.plot_scroll, 1)
        self.results_table = QTableWidget(0, 0)
        self._fit_table(self.results_table)
        self.results_split = QSplitter(Qt.Orientation.Horizontal)
        self.results_split.setChildrenCollapsible(False)
        self.results_split.addWidget(chart)
        self.results_split.addWidget(self.results_table)
        self.results_split.setStretchFactor(0, 3)
        self.results_split.setStretchFactor(1, 2)
        self.results_split.setSizes([560, 670])

        corpus_box = QWidget()
        corpus_layout = QVBoxLayout(corpus_box)
        corpus_layout.setContentsMargins(0, 0, 0, 0)
        corpus_layout.setSpacing(3)
        corpus_layout.addLayout(run_row)
        corpus_layout.addWidget(self.status)
        corpus_layout.addWidget(self.results_split, 1)

        self.main_split = QSplitter(Qt.Orientation.Vertical)
        self.main_split.setChildrenCollapsible(False)
        self.main_split.addWidget(self.pair_split)
        self.main_split.addWidget(corpus_box)
        self.main_split.setSizes([370, 430])

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(top)
        layout.addWidget(self.main_split, 1)
        self.set_theme(theme)
        self._update_enabled()

    @staticmethod
    def _fit_table(table: QTableWidget) -> None:
        table.verticalHeader().setVisible(False)
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        table.setSelectionMode(QTableWidget.SelectionMode.SingleSelection)
        table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 8)

    # ---- the container's interface ----------------------------------------------------------------

    def set_tokenizers(self, tokenizers: dict) -> None:
        """The tokenizers analysed (names unique, in display order)."""
        self._tokenizers = dict(tokenizers)
        current = self.tokenizer_box.currentText()
        self.tokenizer_box.blockSignals(True)
        self.tokenizer_box.clear()
        self.tokenizer_box.addItems(list(self._tokenizers))
        if current in self._tokenizers:
            self.tokenizer_box.setCurrentText(current)
        self.tokenizer_box.blockSignals(False)
        self._update_enabled()
        self._schedule_preview()

    def set_text(self, text: str) -> None:
        """The explorer's current text: shown side by side, and the corpus when no file is chosen."""
        if text == self._text:
            return
        self._text = text
        self._schedule_preview()

    def run(self) -> None:
        """Start the corpus analysis on a worker (progress bar, Cancel); `finished` follows."""
        if self._closed:
            return
        if not self._tokenizers:
            self.status.setText(self.tr("No tokenizer to analyse: open one, or add some to the Compare tab."))
            return
        tokenizers = dict(self._tokenizers)
        path = self.source_box.currentData()
        text = self._text
        names = list(PERTURBATIONS)
        rate, seed = self.rate_box.value(), self.seed_box.value()

        def work(cancel, progress):
            corpus = text if path is None else _read_text(path)
            if not corpus.strip():
                raise TokvizError(QCoreApplication.translate("RobustnessView", "the text is empty"), path)
            return corpus_robustness(tokenizers, corpus, names, rate=rate, seed=seed, cancel=cancel,
                                     progress=progress)

        def done(report: RobustnessReport) -> None:
            self._show_report(report)
            self.finished.emit(report)

        def failed(exc) -> None:
            reason = error_text(exc)
            self.status.setText(self.tr("The analysis failed: {reason}").format(reason=reason))
            self.failed.emit(reason)

        self.run_button.setEnabled(False)
        if path is None:
            message = (self.tr("Perturbing the current text and encoding it with 1 tokenizer…") if len(tokenizers) == 1
                       else self.tr("Perturbing the current text and encoding it with {n} tokenizers…"))
        else:
            message = (self.tr("Perturbing {file} and encoding it with 1 tokenizer…") if len(tokenizers) == 1
                       else self.tr("Perturbing {file} and encoding it with {n} tokenizers…"))
        self.status.setText(message.format(file=Path(path).name if path else "", n=len(tokenizers)))
        self.corpus_job.start(work, done, on_failed=failed, on_cancelled=self.cancelled.emit)

    def cancel(self) -> None:
        """Stop the running corpus analysis (its `cancelled` signal follows)."""
        self.corpus_job.cancel()

    def is_busy(self) -> bool:
        return (self.corpus_job.is_pending() or self._preview_runner.pending() > 0
                or self._preview_timer.isActive())

    def shutdown(self, timeout_ms: int = 5000) -> None:
        """Stop the workers (cancel what runs) and wait for them."""
        self._closed = True
        self._preview_timer.stop()
        if self._preview_cancel is not None:
            self._preview_cancel.set()
        self.corpus_job.shutdown(timeout_ms)
        self._preview_runner.shutdown(timeout_ms)

    def set_theme(self, theme: TokenTheme) -> None:
        self.theme = theme
        self.original_view.set_theme(theme)
        self.perturbed_view.set_theme(theme)
        theme_plot(self.plot, theme)
        if self.report is not None:
            self._draw_chart(self.report)

    def page_title(self) -> str:
        """The title of this page's tab."""
        return self.tr("Robustness")

    # ---- more API (code and tests) ----------------------------------------------------------------

    def set_perturbation(self, name: str) -> None:
        self.perturbation_box.setCurrentIndex(self.perturbation_box.findData(name))

    def perturbation_name(self) -> str:
        return self.perturbation_box.currentData()

    def set_corpus_file(self, path: str | None) -> None:
        """Measure the corpus run on this file (None: the current text)."""
        if path is None:
            self.source_box.setCurrentIndex(0)
            return
        k = self.source_box.findData(str(path))
        if k < 0:
            self.source_box.addItem(Path(path).name, str(path))
            k = self.source_box.count() - 1
            self.source_box.setItemData(k, str(path), Qt.ItemDataRole.ToolTipRole)
        self.source_box.setCurrentIndex(k)

    def table_markdown(self) -> str:
        return table_markdown(self.report.rows()) if self.report is not None else ""

    def copy_table(self) -> None:
        if self.report is not None:
            QGuiApplication.clipboard().setText(self.table_markdown())

    # ---- side by side -----------------------------------------------------------------------------

    def _schedule_preview(self, *_args) -> None:
        if not self._closed:
            self._preview_timer.start()

    def update_preview(self) -> None:
        """Perturb the text and encode both on a worker; `previewed` follows."""
        self._preview_timer.stop()
        if self._closed:
            return
        if self._preview_cancel is not None:
            self._preview_cancel.set()
        self._preview_job += 1
        job = self._preview_job
        if not self._tokenizers or not self._text:
            self.preview = None
            self._show_pair()
            self._fill_counts()
            self.preview_status.setText(self.tr("No tokenizer.") if not self._tokenizers else self.tr("No text."))
            return
        cancel = self._preview_cancel = threading.Event()
        tokenizers = dict(self._tokenizers)
        text = self._text[:PREVIEW_CHARS]
        name, rate, seed = self.perturbation_name(), self.rate_box.value(), self.seed_box.value()

        def done(result: TextRobustness) -> None:
            if job == self._preview_job:
                self.preview = result
                self._show_pair()
                self._fill_counts()
                p = result.perturbed
                message = (self.tr("{changed} of {eligible} eligible places changed (the first {chars} characters). "
                                   "A red bar marks a token that touches a change.")
                           if len(self._text) > PREVIEW_CHARS else
                           self.tr("{changed} of {eligible} eligible places changed. "
                                   "A red bar marks a token that touches a change."))
                self.preview_status.setText(message.format(changed=f"{p.changed:,}", eligible=f"{p.eligible:,}",
                                                           chars=f"{PREVIEW_CHARS:,}"))
                self.previewed.emit(result)

        def failed(exc) -> None:
            if job == self._preview_job and not isinstance(exc, Cancelled):
                self.preview_status.setText(self.tr("Could not perturb the text: {reason}").format(
                    reason=describe_error(exc)))

        self.preview_status.setText(self.tr("Perturbing…"))
        self._preview_runner.submit(lambda: compare_perturbed(tokenizers, text, name, rate, seed, cancel=cancel),
                                    done, failed, is_current=lambda: job == self._preview_job)

    def _show_pair(self, *_args) -> None:
        diff = None
        if self.preview is not None:
            name = self.tokenizer_box.currentText()
            diff = next((d for d in self.preview.diffs if d.name == name), None)
        if diff is None:
            self.original_view.set_encoding(None)
            self.perturbed_view.set_encoding(None)
            self.original_label.setText(self.tr("Original"))
            self.perturbed_label.setText(self.tr("Perturbed"))
            return
        self.original_view.set_encoding(diff.original)
        self.perturbed_view.set_encoding(diff.perturbed)
        self.original_view.set_marks(diff.touched_original)
        self.perturbed_view.set_marks(diff.touched_perturbed)
        label = perturbation_label(self.preview.perturbed.name)
        self.original_label.setText(self.tr("Original — {tokens} tokens").format(tokens=f"{diff.original_tokens:,}"))
        self.perturbed_label.setText(self.tr("{perturbation} — {tokens} tokens, {change}").format(
            perturbation=label, tokens=f"{diff.perturbed_tokens:,}",
            change=_change_text(diff.original_tokens, diff.perturbed_tokens)))

    def _matching_token(self, source: TokenView, target: TokenView, index: int, to_perturbed: bool) -> int:
        """The token of `target` over the place in its text where `source`'s token `index` starts;
        -1 when either view is empty."""
        if self.preview is None or source.encoding() is None or target.encoding() is None or index < 0:
            return -1
        pos = self.preview.map_position(int(offsets_arrays(source.encoding())[0][index]), to_perturbed=to_perturbed)
        starts = offsets_arrays(target.encoding())[0]
        return max(0, int(np.searchsorted(starts, pos, side="right")) - 1) if len(starts) else -1

    def _link_hover(self, source: TokenView, target: TokenView, index: int, to_perturbed: bool) -> None:
        """Outline in `target` the token at the place of the one hovered in `source`."""
        target.set_linked_hover(self._matching_token(source, target, index, to_perturbed))

    def _sync_scroll(self, source: TokenView, target: TokenView, to_perturbed: bool) -> None:
        """Scroll `target` to the place in its text that `source` shows at its top."""
        if self._syncing:
            return
        index = self._matching_token(source, target, source.top_token(), to_perturbed)
        if index < 0:
            return
        self._syncing = True
        try:
            target.scroll_to_token(index)
        finally:
            self._syncing = False

    def _fill_counts(self) -> None:
        table = self.counts_table
        diffs = self.preview.diffs if self.preview is not None else []
        table.blockSignals(True)
        table.setRowCount(len(diffs))
        for r, d in enumerate(diffs):
            cells = (d.name, f"{d.original_tokens:,}", f"{d.perturbed_tokens:,}",
                     _change_text(d.original_tokens, d.perturbed_tokens))
            for c, value in enumerate(cells):
                item = QTableWidgetItem(value)
                if c:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                table.setItem(r, c, item)
        table.blockSignals(False)

    def _on_counts_selection(self) -> None:
        rows = self.counts_table.selectionModel().selectedRows()
        if rows:
            self.tokenizer_box.setCurrentText(self.counts_table.item(rows[0].row(), 0).text())

    # ---- corpus -------------------------------------------------------------------------------------

    def _choose_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Text to measure the perturbations on"), "",
                                              self.tr("Text files (*.txt *.md *.rst *.py *.json);;All files (*)"))
        if path:
            self.set_corpus_file(path)

    def _update_enabled(self) -> None:
        self.run_button.setEnabled(bool(self._tokenizers) and not self.corpus_job.is_running())

    def _show_report(self, report: RobustnessReport) -> None:
        self.report = report
        originals = self.tr(", ").join(f"{n} {v:,}" for n, v in report.original_tokens.items())
        self.status.setText(self.tr("{chars} characters in {pieces} pieces, rate {rate}, seed {seed}, {seconds} s. "
                                    "Original tokens: {originals}. Bars: perturbed / original tokens, averaged over "
                                    "the pieces (1 = no change).").format(
            chars=f"{report.chars:,}", pieces=f"{report.pieces:,}", rate=f"{report.rate:g}", seed=report.seed,
            seconds=f"{report.seconds:.1f}", originals=originals))
        self._draw_chart(report)
        self._fill_results(report)
        self.copy_button.setEnabled(True)
        if not self._rebalanced:  # (the first report: the chart and table get most of the page, once)
            self._rebalanced = True
            sizes = self.main_split.sizes()
            total = sum(sizes)
            if total and sizes[1] < 0.6 * total:
                self.main_split.setSizes([total - int(0.6 * total), int(0.6 * total)])

    def _draw_chart(self, report: RobustnessReport) -> None:
        plot = self.plot.getPlotItem()
        plot.clear()
        means = report.mean_matrix()
        n_p, n_t = len(report.perturbations), len(report.tokenizers)
        self.category_axis.set_names([perturbation_label(p) for p in report.perturbations])
        self.plot_scroll.set_rows(n_p, n_t, 0.8 * 0.9)
        thickness = 0.8 / max(1, n_t)
        for j, name in enumerate(report.tokenizers):
            color = QColor(BAR_COLORS[j % len(BAR_COLORS)])
            y = [k - 0.4 + thickness * (j + 0.5) for k in range(n_p)]
            lengths = [means[k, j] - 1.0 for k in range(n_p)]
            bars = pg.BarGraphItem(x0=1.0, y=y, width=lengths, height=thickness * 0.9, brush=color,
                                   pen=pg.mkPen(color.darker(130)))
            plot.addItem(bars)
        self.key.setText("&nbsp;&nbsp; ".join(
            f"<span style='color: {BAR_COLORS[j % len(BAR_COLORS)]}'>■</span>&nbsp;{html.escape(name)}"
            for j, name in enumerate(report.tokenizers)))
        plot.addItem(pg.InfiniteLine(pos=1.0, angle=90, pen=pg.mkPen(self.theme.marker, style=Qt.PenStyle.DashLine)))
        top = float(means.max()) if means.size else 1.0
        low = min(1.0, float(means.min()) if means.size else 1.0)
        span = max(top - low, 0.05)
        plot.setYRange(-0.6, n_p - 0.4, padding=0)
        plot.setXRange(low - 0.04 * span, top + 0.04 * span, padding=0)

    def _fill_results(self, report: RobustnessReport) -> None:
        rows = report.rows()
        cols = list(rows[0]) if rows else []
        table = self.results_table
        table.clear()
        table.setColumnCount(len(cols))
        table.setHorizontalHeaderLabels([_column_title(c) for c in cols])
        table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, key in enumerate(cols):
                v = row[key]
                if key == "perturbation":
                    item = QTableWidgetItem(perturbation_label(v))
                    item.setToolTip(f"{v}: {perturbation_description(v)}")
                else:
                    item = QTableWidgetItem(f"{v:.3f}" if isinstance(v, float) else f"{v:,}")
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                table.setItem(r, c, item)


def _read_text(path: str) -> str:
    from ..window import files

    return files.read_text_file(path)
