"""The Statistics view: how the current tokenizer does on a corpus you choose, and a comparison of
several tokenizers on the same corpora.

* Corpus: files and folders (searched for text files); Run measures them on a worker, streamed,
  with a progress bar and Cancel: bytes and characters per token, tokens per word, Han characters
  per token, unknown and byte-fallback rates, vocabulary utilisation and never-used tokens, Shannon
  and Rényi entropy and their efficiency, Gini, throughput (`analysis.corpus_stats`; the same
  numbers as `tokviz stats --json`), and the Zipf plot of token frequencies (log-log).
* Compare: the current tokenizer and others you add (files or the Library's), on the corpus files
  grouped by name, in the seed material's layout (vocabulary size, tokens, chars/token, time);
  Copy as CSV or Markdown, or Save.
"""
from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ..analysis.corpus_stats import CorpusStats, comparison_rows, corpus_stats, table_csv, table_markdown, unique_name
from ..errors import Cancelled
from .open_tokenizers import open_tokenizer
from .style import DEFAULT_THEME, TokenTheme
from .workers import TaskRunner, describe_error

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
        self._runner = TaskRunner(1, self)
        self._cancel: threading.Event | None = None
        self._job = 0
        self._progress = [0]
        self.result: CorpusStats | None = None
        self.rows: list[dict] = []
        self._compare_paths: list[str] = []

        self.corpus_list = QListWidget()
        self.corpus_list.setToolTip("Files and folders to measure on (folders: their text files)")
        add_files = QPushButton("Add files…")
        add_files.clicked.connect(self._ask_files)
        add_folder = QPushButton("Add folder…")
        add_folder.clicked.connect(self._ask_folder)
        remove = QPushButton("Remove")
        remove.clicked.connect(self._remove_selected)
        self.run_button = QPushButton("Measure")
        self.run_button.clicked.connect(self.run)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel)
        self.cancel_button.hide()
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.hide()
        self.status = QLabel("Add files or folders, then Measure.")
        self.status.setWordWrap(True)
        self._timer = QTimer(self)
        self._timer.setInterval(50)
        self._timer.timeout.connect(lambda: self.progress.setValue(self._progress[0]))

        self.metrics = QTableWidget(len(METRICS), 2)
        self.metrics.setHorizontalHeaderLabels(["metric", "value"])
        self.metrics.verticalHeader().setVisible(False)
        self.metrics.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.metrics.horizontalHeader().setStretchLastSection(True)
        for r, (label, _, _) in enumerate(METRICS):
            self.metrics.setItem(r, 0, QTableWidgetItem(label))
            self.metrics.setItem(r, 1, QTableWidgetItem(""))
        self.zipf = pg.PlotWidget()
        self.zipf.setTitle("Zipf: token frequency by rank")
        self.zipf.setLogMode(x=True, y=True)
        self.zipf.setLabel("bottom", "rank")
        self.zipf.setLabel("left", "count")

        # compare tab
        self.compare_list = QListWidget()
        add_tok = QPushButton("Add tokenizer…")
        add_tok.clicked.connect(self._ask_tokenizer)
        remove_tok = QPushButton("Remove")
        remove_tok.clicked.connect(self._remove_tokenizer)
        self.compare_button = QPushButton("Compare on the corpus")
        self.compare_button.clicked.connect(self.compare)
        self.compare_table = QTableWidget(0, 0)
        self.compare_table.verticalHeader().setVisible(False)
        copy_csv = QPushButton("Copy CSV")
        copy_csv.clicked.connect(lambda: QGuiApplication.clipboard().setText(table_csv(self.rows)))
        copy_md = QPushButton("Copy Markdown")
        copy_md.clicked.connect(lambda: QGuiApplication.clipboard().setText(table_markdown(self.rows)))
        save = QPushButton("Save…")
        save.clicked.connect(self._save_table)

        corpus_buttons = QHBoxLayout()
        for b in (add_files, add_folder, remove):
            corpus_buttons.addWidget(b)
        corpus_buttons.addStretch(1)
        run_row = QHBoxLayout()
        run_row.addWidget(self.run_button)
        run_row.addWidget(self.progress, 1)
        run_row.addWidget(self.cancel_button)
        left = QWidget()
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(QLabel("Corpus"))
        ll.addWidget(self.corpus_list, 1)
        ll.addLayout(corpus_buttons)
        ll.addLayout(run_row)
        ll.addWidget(self.status)
        measure = QSplitter(Qt.Orientation.Horizontal)
        measure.addWidget(left)
        measure.addWidget(self.metrics)
        measure.addWidget(self.zipf)
        measure.setSizes([260, 360, 380])

        tok_buttons = QHBoxLayout()
        for b in (add_tok, remove_tok, self.compare_button):
            tok_buttons.addWidget(b)
        tok_buttons.addStretch(1)
        for b in (copy_csv, copy_md, save):
            tok_buttons.addWidget(b)
        compare = QWidget()
        cl = QVBoxLayout(compare)
        cl.addWidget(QLabel("Tokenizers to compare with the current one (the corpus files, grouped by name)"))
        cl.addWidget(self.compare_list)
        cl.addLayout(tok_buttons)
        cl.addWidget(self.compare_table, 2)

        self.tabs = QTabWidget()
        self.tabs.addTab(measure, "Corpus metrics")
        self.tabs.addTab(compare, "Compare tokenizers")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.tabs)
        self.set_theme(theme)

    # ---- inputs -----------------------------------------------------------------------------------
    def set_tokenizer(self, tokenizer) -> None:
        self.cancel()
        self._tokenizer = tokenizer
        self.result = None
        self._clear_metrics()

    def set_corpus(self, paths) -> None:
        self.corpus_list.clear()
        for p in paths:
            self.corpus_list.addItem(os.fspath(p))

    def corpus(self) -> list[str]:
        return [self.corpus_list.item(k).text() for k in range(self.corpus_list.count())]

    def add_compare(self, path) -> None:
        self._compare_paths.append(os.fspath(path))
        self.compare_list.addItem(os.fspath(path))

    def _ask_files(self) -> None:
        names, _ = QFileDialog.getOpenFileNames(self, "Add corpus files")
        for n in names:
            self.corpus_list.addItem(n)

    def _ask_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Add a corpus folder")
        if folder:
            self.corpus_list.addItem(folder)

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
        self._start("Measuring…")
        job = self._job

        def work():
            return corpus_stats(tokenizer, paths, progress=self._report, cancel=self._cancel)

        def done(stats: CorpusStats) -> None:
            if job == self._job:
                self._stop()
                self.result = stats
                self._show(stats)
                self.status.setText(f"Measured {len(stats.files)} file(s), {stats.bytes / 1e6:.2f} MB.")
                self.finished.emit(stats)

        self._runner.submit(work, done, self._failed(job))

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
        self._start("Comparing…")
        job = self._job

        def work():
            tokenizers = {current.source.name or "current": current}
            for p in others:
                tok = open_tokenizer(p)
                tokenizers[unique_name(tok.source.name or Path(p).name, tokenizers)] = tok
            return comparison_rows(tokenizers, corpora, cancel=self._cancel)

        def done(rows) -> None:
            if job == self._job:
                self._stop()
                self.rows = rows
                self._show_rows(rows)
                self.status.setText(f"Compared {len(rows)} tokenizers.")
                self.compared.emit(rows)

        self._runner.submit(work, done, self._failed(job))

    def cancel(self) -> None:
        if self._cancel is not None:
            self._cancel.set()

    def is_running(self) -> bool:
        return self._cancel is not None

    def _report(self, done: int, total: int) -> None:  # (on the worker: the timer shows it)
        self._progress[0] = 1000 if total <= 0 else min(1000, done * 1000 // total)

    def _start(self, message: str) -> None:
        self.cancel()
        self._job += 1
        self._cancel = threading.Event()
        self._progress[0] = 0
        self.progress.setValue(0)
        self.progress.show()
        self.cancel_button.show()
        self.run_button.setEnabled(False)
        self.compare_button.setEnabled(False)
        self.status.setText(message)
        self._timer.start()

    def _stop(self) -> None:
        self._cancel = None
        self._timer.stop()
        self.progress.hide()
        self.cancel_button.hide()
        self.run_button.setEnabled(True)
        self.compare_button.setEnabled(True)

    def _failed(self, job: int):
        def failed(exc) -> None:
            if job != self._job:
                return
            self._stop()
            if isinstance(exc, Cancelled):
                self.status.setText("Cancelled.")
                self.cancelled.emit()
            else:
                self.status.setText(f"Failed: {describe_error(exc)}")
        return failed

    # ---- showing ----------------------------------------------------------------------------------
    def _clear_metrics(self) -> None:
        for r in range(len(METRICS)):
            self.metrics.item(r, 1).setText("")
        self.zipf.clear()

    def shown_values(self) -> dict[str, str]:
        """The metrics table as shown: key -> text."""
        return {key: self.metrics.item(r, 1).text() for r, (_, key, _) in enumerate(METRICS)}

    def _show(self, stats: CorpusStats) -> None:
        values = stats.as_dict()
        for r, (_, key, kind) in enumerate(METRICS):
            self.metrics.item(r, 1).setText(format_metric(values[key], kind))
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
        self.zipf.setBackground(theme.background)
        for axis in ("left", "bottom"):
            self.zipf.getAxis(axis).setTextPen(theme.text)
            self.zipf.getAxis(axis).setPen(theme.marker)
        if self.result is not None:
            self._show(self.result)

    def shutdown(self, timeout_ms: int = 5000) -> None:
        self.cancel()
        self._job += 1
        self._runner.shutdown(timeout_ms)
