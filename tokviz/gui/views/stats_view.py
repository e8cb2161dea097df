"""The Statistics view: how the current tokenizer does on a corpus you choose, and a comparison of
several tokenizers on the same corpora.

* Corpus: files and folders (searched for text files); Run measures them on a worker, streamed,
  with a progress bar and Cancel: bytes and characters per token, tokens per word, Han characters
  per token, unknown and byte-fallback rates, vocabulary utilisation and never-used tokens, Shannon
  and Rényi entropy and their efficiency, Gini, throughput (`analysis.corpus_stats`; the same
  numbers as `tokviz stats --json`), and the Zipf plot of token frequencies (log-log).  "Run on"
  measures on a Dask cluster instead (an address, or N worker processes started here), with the
  same progress and Cancel and the cluster's dashboard link; the tokenizer goes to the workers as
  its bytes (one trained or edited and not kept too), and the corpus may hold URLs (Add URL…:
  s3://bucket/corpus/*.txt), read by the workers.
* Compare: the current tokenizer and others you add (files or the Library's), on the corpus files
  grouped by name, in the seed material's layout (vocabulary size, tokens, chars/token, time);
  Copy as CSV or Markdown, or Save.

The view fits a narrow dock (300 px and up): below about 760 px the corpus, the figures and the
plot stack instead of standing side by side, a page scrolls when its dock is shorter than it, long
texts are elided or wrapped instead of widening the window, and the plots' axes space their labels
so they never run into each other.  Those layout pieces (ResponsivePanes, ReflowRow, ElidedLabel,
WrappedLabel, FigureTable in `gui.widgets`; FittedAxis, CategoryAxis in `gui.plots`) serve the
Vocabulary view and the analysis pages too.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QT_TRANSLATE_NOOP, Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ...analysis.corpus_stats import CorpusStats, comparison_rows, corpus_stats, table_csv, table_markdown, unique_name
from ...errors import Cancelled
from ..widgets.click_guard import guard_clicks
from ..work.jobs import BackgroundJob
from ..window.open_tokenizers import open_tokenizer
from ..widgets.plots import FittedAxis, make_plot, theme_plot
from ..work.run_on import RunOnBox, ask_url, is_url, open_cluster, url_refusal
from ..widgets.style import DEFAULT_THEME, TokenTheme
from ..widgets.layout import FigureTable, ResponsivePanes, WrappedLabel, button_grid, scroll_page
from ..work.workers import describe_error

def cluster_refusal(tokenizer) -> str | None:
    """Why `tokenizer` cannot be measured on a Dask cluster, or None (it goes to the workers as its
    bytes: one without a file, or edited, goes as it is)."""
    if tokenizer is None:
        return QCoreApplication.translate("StatsView", "Load a tokenizer first")
    return None


# (label, key of CorpusStats.as_dict, format); the labels are shown translated (metric_label)
METRICS = [
    (QT_TRANSLATE_NOOP("StatsView", "files"), "files", "count"),
    (QT_TRANSLATE_NOOP("StatsView", "text"), "bytes", "mb"),
    (QT_TRANSLATE_NOOP("StatsView", "characters"), "chars", "int"),
    (QT_TRANSLATE_NOOP("StatsView", "tokens"), "tokens", "int"),
    (QT_TRANSLATE_NOOP("StatsView", "bytes per token"), "bytes_per_token", "f3"),
    (QT_TRANSLATE_NOOP("StatsView", "characters per token"), "chars_per_token", "f3"),
    (QT_TRANSLATE_NOOP("StatsView", "tokens per word (fertility)"), "fertility", "f3"),
    (QT_TRANSLATE_NOOP("StatsView", "Han characters per token"), "han_chars_per_token", "f3"),
    (QT_TRANSLATE_NOOP("StatsView", "unknown tokens"), "unknown_rate", "pct"),
    (QT_TRANSLATE_NOOP("StatsView", "byte-fallback tokens"), "byte_fallback_rate", "pct"),
    (QT_TRANSLATE_NOOP("StatsView", "vocabulary used"), "used", "int"),
    (QT_TRANSLATE_NOOP("StatsView", "vocabulary utilisation"), "utilisation", "pct"),
    (QT_TRANSLATE_NOOP("StatsView", "never-used tokens"), "never_used", "int"),
    (QT_TRANSLATE_NOOP("StatsView", "Shannon entropy (bits)"), "shannon_entropy", "f3"),
    (QT_TRANSLATE_NOOP("StatsView", "Shannon efficiency"), "shannon_efficiency", "f3"),
    (QT_TRANSLATE_NOOP("StatsView", "Rényi entropy, α = 2.5 (bits)"), "renyi_entropy", "f3"),
    (QT_TRANSLATE_NOOP("StatsView", "Rényi efficiency"), "renyi_efficiency", "f3"),
    (QT_TRANSLATE_NOOP("StatsView", "Gini coefficient"), "gini", "f3"),
    (QT_TRANSLATE_NOOP("StatsView", "time (s)"), "seconds", "f2"),
    (QT_TRANSLATE_NOOP("StatsView", "throughput (MB/s)"), "mb_per_second", "f2"),
]
# The comparison table's columns (the keys of `corpus_stats.comparison_rows`, which Copy and Save keep):
# whole keys, and the figures of each corpus ("<corpus> tokens"), longest suffix first.
COMPARE_COLUMNS = {
    "tokenizer": QT_TRANSLATE_NOOP("StatsView", "tokenizer"),
    "vocab size": QT_TRANSLATE_NOOP("StatsView", "vocab size"),
}
CORPUS_COLUMNS = (
    (" Han chars/token", QT_TRANSLATE_NOOP("StatsView", "{corpus} Han chars/token")),
    (" chars/token", QT_TRANSLATE_NOOP("StatsView", "{corpus} chars/token")),
    (" tokens", QT_TRANSLATE_NOOP("StatsView", "{corpus} tokens")),
    (" time (s)", QT_TRANSLATE_NOOP("StatsView", "{corpus} time (s)")),
)


def metric_label(label: str) -> str:
    """A METRICS label as shown."""
    return QCoreApplication.translate("StatsView", label)


def compare_column_name(key: str) -> str:
    """A column of the comparison table as shown: its key translated, a corpus's name kept."""
    if key in COMPARE_COLUMNS:
        return QCoreApplication.translate("StatsView", COMPARE_COLUMNS[key])
    for suffix, template in CORPUS_COLUMNS:
        if key.endswith(suffix) and len(key) > len(suffix):
            return QCoreApplication.translate("StatsView", template).format(corpus=key[:-len(suffix)])
    return key


DEFAULT_SAVE_NAME = "comparison.md"  # (a file name: not translated)


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
        return QCoreApplication.translate("StatsView", "{mb:.2f} MB").format(mb=value / 1e6)
    if kind == "int":
        return f"{int(value):,}"
    if kind == "pct":
        return f"{value:.4%}"
    return f"{value:.{kind[1]}f}"



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
        self.corpus_list.setToolTip(self.tr("Files and folders to measure on (folders: their text files)"))
        self.corpus_list.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.corpus_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        add_files = QPushButton(self.tr("Add files…"))
        add_files.clicked.connect(self._ask_files)
        add_folder = QPushButton(self.tr("Add folder…"))
        add_folder.clicked.connect(self._ask_folder)
        add_url = QPushButton(self.tr("Add URL…"))
        add_url.setToolTip(self.tr("A corpus in object storage (s3://bucket/corpus/*.txt), read on a Dask cluster"))
        add_url.clicked.connect(self._ask_url)
        remove = QPushButton(self.tr("Remove"))
        remove.clicked.connect(self._remove_selected)
        self.run_button = QPushButton(self.tr("Measure"))
        self.run_button.clicked.connect(self.run)
        self.status = WrappedLabel(self.tr("Add files or folders, then Measure."))
        self.job = BackgroundJob(status=self.status, parent=self)
        self.job.timer.timeout.connect(self._show_dashboard)
        self.job.ended.connect(self._ended)
        self.progress, self.cancel_button = self.job.progress_bar, self.job.cancel_button
        self.run_on = RunOnBox()
        self.run_on.set_refused(cluster_refusal(None))

        self.metrics = FigureTable((self.tr("metric"), self.tr("value")))
        self.metrics.set_rows((metric_label(label), "") for label, _, _ in METRICS)
        self.zipf = make_plot(self.tr("Zipf: token frequency by rank"),
                              {"bottom": FittedAxis("bottom"), "left": FittedAxis("left")})
        self.zipf.setLogMode(x=True, y=True)
        self.zipf.setLabel("bottom", self.tr("rank"))
        self.zipf.setLabel("left", self.tr("count"))

        # compare tab
        self.compare_list = QListWidget()
        self.compare_list.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.compare_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        add_tok = QPushButton(self.tr("Add tokenizer…"))
        add_tok.clicked.connect(self._ask_tokenizer)
        remove_tok = QPushButton(self.tr("Remove"))
        remove_tok.clicked.connect(self._remove_tokenizer)
        self.compare_button = QPushButton(self.tr("Compare"))
        self.compare_button.setToolTip(self.tr("Compare the tokenizers on the corpus files, grouped by name"))
        self.compare_button.clicked.connect(self.compare)
        guard_clicks(self.run_button, self.compare_button)  # (enabled again as a job ends, maybe under a click)
        self.compare_table = QTableWidget(0, 0)
        self.compare_table.verticalHeader().setVisible(False)
        self.compare_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        copy_csv = QPushButton(self.tr("Copy CSV"))
        copy_csv.clicked.connect(lambda: QGuiApplication.clipboard().setText(table_csv(self.rows)))
        copy_md = QPushButton(self.tr("Copy Markdown"))
        copy_md.clicked.connect(lambda: QGuiApplication.clipboard().setText(table_markdown(self.rows)))
        save = QPushButton(self.tr("Save…"))
        save.clicked.connect(self._save_table)

        corpus = QWidget()
        cl = QVBoxLayout(corpus)
        cl.setContentsMargins(0, 0, 0, 0)
        cl.addWidget(QLabel(self.tr("Corpus")))
        cl.addWidget(self.corpus_list, 1)
        cl.addLayout(button_grid(add_files, add_folder, add_url, remove))
        cl.addWidget(self.run_on)
        run_row = QHBoxLayout()
        run_row.addWidget(self.run_button)
        run_row.addWidget(self.progress, 1)
        run_row.addWidget(self.cancel_button)
        cl.addLayout(run_row)
        cl.addWidget(self.status)
        self.measure_panes = ResponsivePanes(
            [(corpus, self.tr("Corpus"), (26, 14)), (self.metrics, self.tr("Figures"), (36, 52)),
             (self.zipf, self.tr("Zipf plot"), (38, 34))],
            wide_width=760)

        compare = QWidget()
        pl = QVBoxLayout(compare)
        pl.setContentsMargins(4, 4, 4, 4)
        pl.addWidget(WrappedLabel(self.tr("Tokenizers to compare with the current one (on the corpus files, "
                                          "grouped by name)")))
        pl.addWidget(self.compare_list, 1)
        pl.addLayout(_button_row(add_tok, remove_tok, self.compare_button))
        pl.addWidget(self.compare_table, 3)
        pl.addLayout(_button_row(copy_csv, copy_md, save))

        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(scroll_page(self.measure_panes), self.tr("Corpus metrics"))
        self.tabs.addTab(scroll_page(compare), self.tr("Compare tokenizers"))
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
        names, _ = QFileDialog.getOpenFileNames(self, self.tr("Add corpus files"))
        for n in names:
            _add_path(self.corpus_list, n)

    def _ask_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Add a corpus folder"))
        if folder:
            _add_path(self.corpus_list, folder)

    def _ask_url(self) -> None:
        url = ask_url(self)
        if url:
            _add_path(self.corpus_list, url)

    def _remove_selected(self) -> None:
        for item in self.corpus_list.selectedItems():
            self.corpus_list.takeItem(self.corpus_list.row(item))

    def _ask_tokenizer(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, self.tr("Add a tokenizer to compare"))
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
            self.status.setText(self.tr("Load a tokenizer and add files or folders first."))
            return
        tokenizer = self._tokenizer
        self.run_on.set_refused(cluster_refusal(tokenizer))  # (a trained tokenizer gets its file once kept)
        where = self.run_on.choice()
        if where == ("scheduler", ""):
            self.status.setText(self.tr("Give the address of the Dask scheduler (tcp://host:port)."))
            return
        refusal = url_refusal(paths, where)
        if refusal:
            self.status.setText(refusal)
            return
        dashboard = self._dashboard = [None]  # (this run's: a run it replaces writes to its own)

        def work(cancel, progress):
            if where[0] == "here":
                return corpus_stats(tokenizer, paths, progress=progress, cancel=cancel)
            from ...cluster import corpus_stats_on

            cluster = open_cluster(where, cancel)
            try:
                if cancel.is_set():
                    raise Cancelled("cancelled")
                dashboard[0] = cluster.dashboard_link
                # (the tokenizer goes to the workers as its bytes, as it is here)
                return corpus_stats_on(cluster, tokenizer, paths, progress=progress, cancel=cancel)
            finally:
                cluster.close()

        def done(stats: CorpusStats) -> None:
            self.result = stats
            self._show(stats)
            files = len(stats.files)
            self.status.setText((self.tr("Measured 1 file, {mb:.2f} MB.") if files == 1 else
                                 self.tr("Measured {files:,} files, {mb:.2f} MB.")).format(files=files,
                                                                                        mb=stats.bytes / 1e6))
            self.finished.emit(stats)

        self._start(self.tr("Measuring…") if where[0] == "here" else
                    self.tr("Connecting to the Dask scheduler at {address}…").format(address=where[1])
                    if where[0] == "scheduler" else
                    self.tr("Starting {n} worker process(es)…").format(n=where[1]), work, done)
        self.run_on.set_running(True)

    def compare(self) -> None:
        """Compare the current tokenizer and the added ones on the corpus, on a worker."""
        paths = self.corpus()
        if self._tokenizer is None or not paths:
            self.status.setText(self.tr("Load a tokenizer and add files or folders first."))
            return
        url = next((p for p in paths if is_url(p)), None)
        if url is not None:  # (a comparison runs here)
            self.status.setText(self.tr("Compare runs on this machine and cannot read {url}: measure it with Run on "
                                        "a Dask cluster").format(url=url))
            return
        current = self._tokenizer
        current_name = current.source.name or self.tr("current")
        others = list(self._compare_paths)
        corpora: dict[str, list] = {}
        for p in paths:
            corpora.setdefault(Path(p).stem, []).append(p)

        def work(cancel, _progress):
            tokenizers = {current_name: current}
            for p in others:
                tok = open_tokenizer(p)
                tokenizers[unique_name(tok.source.name or Path(p).name, tokenizers)] = tok
            return comparison_rows(tokenizers, corpora, cancel=cancel)

        def done(rows) -> None:
            self.rows = rows
            self._show_rows(rows)
            self.status.setText(self.tr("Compared {n} tokenizers.").format(n=len(rows)))
            self.compared.emit(rows)

        self._dashboard = [None]  # (no cluster: no link)
        self._start(self.tr("Comparing…"), work, done)

    def cancel(self) -> None:
        self.job.cancel()

    def is_running(self) -> bool:
        return self.job.is_running()

    def _start(self, message: str, work, done) -> None:
        """Run `work` (measuring or comparing) with the buttons off until it ends."""
        self.run_button.setEnabled(False)
        self.compare_button.setEnabled(False)
        self.status.setText(message)
        self.job.start(work, done, on_failed=lambda exc: self.status.setText(
                           self.tr("Failed: {error}").format(error=describe_error(exc))),
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
        table.setHorizontalHeaderLabels([compare_column_name(c) for c in cols])
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
        name, _ = QFileDialog.getSaveFileName(self, self.tr("Save the comparison"), DEFAULT_SAVE_NAME,
                                              self.tr("Markdown (*.md);;CSV (*.csv)"))
        if not name:
            return
        from ...formats.atomic_write import write_text_atomic

        text = table_csv(self.rows) if name.endswith(".csv") else table_markdown(self.rows)
        write_text_atomic(Path(name), text)

    def set_theme(self, theme: TokenTheme) -> None:
        self.theme = theme
        theme_plot(self.zipf, theme)
        for curve in self.zipf.listDataItems():  # (the curve _show draws, in the new colour)
            curve.setPen(pg.mkPen(theme.hover_outline, width=2))

    def shutdown(self, timeout_ms: int = 5000) -> None:
        self.job.shutdown(timeout_ms)
