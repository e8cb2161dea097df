"""The Training panel: train a tokenizer on your files, watch it learn, and use the result at once.

Pick files and folders (folders: their text files), the algorithm and every parameter of
`train.TrainOptions` (each with its default and a tooltip), then Train: training runs on a worker
with a progress bar, Cancel, and two live plots — the count of each new merge as it is learned
(BPE family), and the tokens learned against time (for a Unigram model, the pieces left after each
pruning round).  The finished tokenizer is announced with `trained(tokenizer)`: the window opens it
in the explorer and can add it to the Compare tab; Export… writes it (`tokviz.save`).
"""
from __future__ import annotations

import os
import re
import threading
import time
from pathlib import Path

import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ..analysis.corpus_stats import corpus_files
from ..core.patterns import NAMED_PATTERNS
from ..errors import Cancelled, TokvizError
from ..train import TRAINERS, TrainOptions, train
from .style import DEFAULT_THEME, TokenTheme
from .workers import TaskRunner, describe_error

MODELS = {
    "bytelevel-bpe": "Byte-level BPE (GPT-2 style)",
    "bpe": "Character BPE (words end in </w>)",
    "wordpiece": "WordPiece (BERT style)",
    "unigram": "Unigram (sentencepiece style)",
}
_MERGE = re.compile(r"^merge (\d+): .* \((\d+)\)$")
_PRUNED = re.compile(r"pruned to (\d+) pieces")


def _words(text: str) -> list[str]:
    """'a, b ,c' -> ['a', 'b', 'c'] (a list typed in one line)."""
    return [w.strip() for w in text.split(",") if w.strip()]


class TrainPanel(QWidget):
    """See the module docstring.  `set_files`, `options()`, `start()`, `cancel()`, `export(path)`;
    `trained(tokenizer)`, `cancelled()`, `failed(reason)`."""

    trained = Signal(object)
    cancelled = Signal()
    failed = Signal(str)

    def __init__(self, parent=None, theme: TokenTheme = DEFAULT_THEME):
        super().__init__(parent)
        self.theme = theme
        self.result = None
        self.seconds = 0.0
        self._runner = TaskRunner(1, self)
        self._cancel: threading.Event | None = None
        self._job = 0
        self._events: list = []  # (kind, ...) from the worker, drained by the timer
        self._lock = threading.Lock()
        self._merge_x: list[int] = []
        self._merge_y: list[int] = []
        self._size_t: list[float] = []
        self._size_y: list[int] = []

        self.files = QListWidget()
        add_files = QPushButton("Add files…")
        add_files.clicked.connect(self._ask_files)
        add_folder = QPushButton("Add folder…")
        add_folder.clicked.connect(self._ask_folder)
        remove = QPushButton("Remove")
        remove.clicked.connect(lambda: [self.files.takeItem(self.files.row(i)) for i in self.files.selectedItems()])

        self.model_box = QComboBox()
        for key, label in MODELS.items():
            self.model_box.addItem(label, key)
        self.model_box.currentIndexChanged.connect(self._update_fields)
        self.pattern_box = QComboBox()
        self.pattern_box.setEditable(True)
        self.pattern_box.addItems(list(NAMED_PATTERNS))
        self.pattern_box.setToolTip("Split pattern (byte-level BPE): a known name or a regex")
        self.end_of_word = QComboBox()
        self.end_of_word.addItems(["separate", "glued"])
        self.end_of_word.setToolTip("Character BPE: </w> as a symbol of its own (Sennrich) or glued to the "
                                    "last character (HF tokenizers)")
        self.lowercase = QCheckBox("lower-case the text")
        self.lowercase.setChecked(True)
        self.vocab_size = self._spin(1, 1_000_000, 1000, "Tokens in the trained vocabulary, everything included")
        self.min_frequency = self._spin(0, 1_000_000, 2, "A pair or piece must occur this often to be learned")
        self.special_tokens = QLineEdit()
        self.special_tokens.setPlaceholderText("<unk>, <s>, </s>")
        self.special_tokens.setToolTip("Special tokens (comma-separated), ids 0.. in this order")
        self.user_symbols = QLineEdit()
        self.user_symbols.setToolTip("User-defined symbols: always one token, never split")
        self.reserved = self._spin(0, 100_000, 0, "Extra special tokens named <|reserved_special_token_N|>")
        self.split_digits = QCheckBox("every digit its own pre-token")
        self.max_length = self._spin(0, 1024, 0, "Longest token in characters (bytes for byte-level BPE); 0: no limit")
        self.coverage = QDoubleSpinBox()
        self.coverage.setRange(0.5, 1.0)
        self.coverage.setDecimals(4)
        self.coverage.setSingleStep(0.0005)
        self.coverage.setValue(1.0)
        self.coverage.setToolTip("Share of the text's characters covered; the rarest others become unknown")
        self.byte_fallback = QCheckBox("unknown characters as <0xNN> byte tokens")
        self.initial_alphabet = QLineEdit()
        self.initial_alphabet.setToolTip("Characters always in the vocabulary (typed together, e.g. abc)")
        self.limit_alphabet = self._spin(0, 1_000_000, 0, "Keep at most this many characters (0: all)")
        self.collapse_ws = QCheckBox("runs of white space count as one space")
        self.pad_to = self._spin(0, 4096, 0, "Round the vocabulary up with reserved tokens to a multiple of this "
                                             "(64, 128...; 0: no rounding)")
        self.threads = self._spin(1, 64, max(1, os.cpu_count() or 1), "Worker threads for counting")
        for box in (self.max_length, self.limit_alphabet, self.pad_to):
            box.setSpecialValueText("none")

        form = QFormLayout()
        form.addRow("Algorithm", self.model_box)
        form.addRow("Split pattern", self.pattern_box)
        form.addRow("End of word", self.end_of_word)
        form.addRow("", self.lowercase)
        form.addRow("Vocabulary size", self.vocab_size)
        form.addRow("Min frequency", self.min_frequency)
        form.addRow("Special tokens", self.special_tokens)
        form.addRow("User-defined symbols", self.user_symbols)
        form.addRow("Reserved tokens", self.reserved)
        form.addRow("Pad to a multiple of", self.pad_to)
        form.addRow("", self.split_digits)
        form.addRow("Max token length", self.max_length)
        form.addRow("Character coverage", self.coverage)
        form.addRow("", self.byte_fallback)
        form.addRow("Initial alphabet", self.initial_alphabet)
        form.addRow("Limit alphabet", self.limit_alphabet)
        form.addRow("", self.collapse_ws)
        form.addRow("Threads", self.threads)
        self._rows = {"pattern": self.pattern_box, "end": self.end_of_word, "lower": self.lowercase}
        self._form = form

        self.train_button = QPushButton("Train")
        self.train_button.clicked.connect(self.start)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel)
        self.cancel_button.hide()
        self.export_button = QPushButton("Export…")
        self.export_button.setEnabled(False)
        self.export_button.clicked.connect(self._ask_export)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.status = QLabel("Add training files, choose the parameters, then Train.")
        self.status.setWordWrap(True)
        self._timer = QTimer(self)
        self._timer.setInterval(100)
        self._timer.timeout.connect(self._drain)

        self.merge_plot = pg.PlotWidget()
        self.merge_plot.setTitle("Count of each new merge")
        self.merge_plot.setLabel("bottom", "merge")
        self.merge_plot.setLogMode(y=True)
        self.size_plot = pg.PlotWidget()
        self.size_plot.setTitle("Tokens learned against time")
        self.size_plot.setLabel("bottom", "seconds")
        self._merge_curve = self.merge_plot.plot([], [])
        self._size_curve = self.size_plot.plot([], [])

        buttons = QHBoxLayout()
        for b in (add_files, add_folder, remove):
            buttons.addWidget(b)
        left = QWidget()
        ll = QVBoxLayout(left)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(QLabel("Training files"))
        ll.addWidget(self.files, 1)
        ll.addLayout(buttons)
        params = QWidget()
        params.setLayout(form)
        scroll = QScrollArea()
        scroll.setWidget(params)
        scroll.setWidgetResizable(True)
        ll.addWidget(scroll, 2)
        run = QHBoxLayout()
        run.addWidget(self.train_button)
        run.addWidget(self.cancel_button)
        run.addWidget(self.export_button)
        ll.addLayout(run)
        ll.addWidget(self.progress)
        ll.addWidget(self.status)
        plots = QSplitter(Qt.Orientation.Vertical)
        plots.addWidget(self.merge_plot)
        plots.addWidget(self.size_plot)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(plots)
        split.setSizes([420, 520])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(split)
        self.set_theme(theme)
        self._update_fields()

    @staticmethod
    def _spin(lo: int, hi: int, value: int, tip: str) -> QSpinBox:
        box = QSpinBox()
        box.setRange(lo, hi)
        box.setValue(value)
        box.setToolTip(tip)
        box.setGroupSeparatorShown(True)
        return box

    def _update_fields(self) -> None:
        model = self.model()
        for key, widget in self._rows.items():
            visible = {"pattern": model == "bytelevel-bpe", "end": model == "bpe", "lower": model == "wordpiece"}[key]
            self._form.setRowVisible(widget, visible)

    # ---- inputs -------------------------------------------------------------------------------------
    def model(self) -> str:
        return self.model_box.currentData()

    def set_model(self, model: str) -> None:
        self.model_box.setCurrentIndex(self.model_box.findData(model))

    def set_files(self, paths) -> None:
        self.files.clear()
        for p in paths:
            self.files.addItem(os.fspath(p))

    def training_files(self) -> list[Path]:
        return corpus_files(self.files.item(k).text() for k in range(self.files.count()))

    def options(self) -> TrainOptions:
        """The parameters as set (raises TokvizError for impossible ones)."""
        opt = lambda box: box.value() or None  # noqa: E731 - 0 in a spin box means "no limit"
        return TrainOptions(
            vocab_size=self.vocab_size.value(),
            min_frequency=self.min_frequency.value(),
            special_tokens=_words(self.special_tokens.text()),
            user_defined_symbols=_words(self.user_symbols.text()),
            reserved_tokens=self.reserved.value(),
            split_digits=self.split_digits.isChecked(),
            max_token_length=opt(self.max_length),
            character_coverage=self.coverage.value(),
            byte_fallback=self.byte_fallback.isChecked(),
            initial_alphabet=list(dict.fromkeys(self.initial_alphabet.text())),
            limit_alphabet=opt(self.limit_alphabet),
            collapse_whitespace=self.collapse_ws.isChecked(),
            pad_to_multiple_of=opt(self.pad_to),
        )

    def _model_options(self) -> dict:
        model = self.model()
        if model == "bytelevel-bpe":
            return {"pattern": self.pattern_box.currentText().strip() or "gpt2"}
        if model == "bpe":
            return {"end_of_word": self.end_of_word.currentText()}
        if model == "wordpiece":
            return {"lowercase": self.lowercase.isChecked()}
        return {}

    def _ask_files(self) -> None:
        names, _ = QFileDialog.getOpenFileNames(self, "Training files")
        for n in names:
            self.files.addItem(n)

    def _ask_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "A folder of training text")
        if folder:
            self.files.addItem(folder)

    # ---- training -----------------------------------------------------------------------------------
    def start(self) -> bool:
        """Train on a worker; False (and the reason in the status line) when it cannot start."""
        try:
            files = self.training_files()
            options = self.options()
            if not files:
                raise TokvizError("no training files: add files or folders")
        except TokvizError as exc:
            self.status.setText(str(exc))
            return False
        model, extra = self.model(), self._model_options()
        self.cancel()
        self._job += 1
        job = self._job
        cancel = self._cancel = threading.Event()
        self._merge_x, self._merge_y, self._size_t, self._size_y = [], [], [], []
        self._events = []
        t0 = time.perf_counter()
        threads = self.threads.value()

        def progress(fraction: float, message: str) -> None:  # on the worker
            with self._lock:
                self._events.append((time.perf_counter() - t0, fraction, message))

        def work():
            return train(model, files, options, progress=progress, cancel=cancel.is_set, threads=threads, **extra)

        def done(tok) -> None:
            if job != self._job:
                return
            self._stopped()
            self.result = tok
            self.seconds = time.perf_counter() - t0
            self.progress.setValue(1000)
            self.export_button.setEnabled(True)
            self.status.setText(f"Trained a {MODELS[model]} of {tok.vocab_size:,} tokens in {self.seconds:.1f} s.")
            self.trained.emit(tok)

        def failed(exc) -> None:
            if job != self._job:
                return
            self._stopped()
            if isinstance(exc, Cancelled):
                self.status.setText("Cancelled.")
                self.cancelled.emit()
            else:
                reason = describe_error(exc)
                self.status.setText(f"Training failed: {reason}")
                self.failed.emit(reason)

        self.train_button.setEnabled(False)
        self.cancel_button.show()
        self.progress.setValue(0)
        self.status.setText(f"Training on {len(files)} file(s)…")
        self._timer.start()
        self._runner.submit(work, done, failed)
        return True

    def cancel(self) -> None:
        if self._cancel is not None:
            self._cancel.set()

    def is_training(self) -> bool:
        return self._cancel is not None

    def _stopped(self) -> None:
        self._drain()
        self._timer.stop()
        self._cancel = None
        self.train_button.setEnabled(True)
        self.cancel_button.hide()

    def _drain(self) -> None:
        """Show what the worker reported since the last look: progress, status, plot points."""
        with self._lock:
            events, self._events = self._events, []
        if not events:
            return
        for t, fraction, message in events:
            m = _MERGE.match(message)
            if m:
                self._merge_x.append(int(m.group(1)))
                self._merge_y.append(max(1, int(m.group(2))))
                self._size_t.append(t)
                self._size_y.append(int(m.group(1)))
            p = _PRUNED.search(message)
            if p:
                self._size_t.append(t)
                self._size_y.append(int(p.group(1)))
        t, fraction, message = events[-1]
        self.progress.setValue(int(1000 * min(max(fraction, 0.0), 1.0)))
        self.status.setText(message)
        pen = pg.mkPen(self.theme.hover_outline, width=1.5)
        self._merge_curve.setData(self._merge_x, self._merge_y, pen=pen)
        self._size_curve.setData(self._size_t, self._size_y, pen=pen)

    def merge_points(self) -> list[tuple[int, int]]:
        return list(zip(self._merge_x, self._merge_y))

    # ---- exporting ----------------------------------------------------------------------------------
    def export(self, path: str | os.PathLike, *, overwrite: bool = False):
        """Write the trained tokenizer (`tokviz.save`; the format follows the name; an existing
        file is replaced only with overwrite=True — the save dialog has asked)."""
        from .. import save

        if self.result is None:
            raise TokvizError("nothing trained yet")
        return save(self.result, path, overwrite=overwrite)

    def _ask_export(self) -> None:
        name, _ = QFileDialog.getSaveFileName(
            self, "Export the trained tokenizer", "tokenizer.json",
            "HF tokenizer.json (*.json);;WordPiece vocab.txt (*.txt);;tiktoken (*.tiktoken);;"
            "sentencepiece or minbpe (*.model);;vocabulary listing (*.tsv *.csv);;All files (*)")
        if not name:
            return
        try:
            out = self.export(name, overwrite=True)  # (the dialog asked before replacing a file)
            self.status.setText(f"Written: {out}")
        except TokvizError as exc:
            self.status.setText(str(exc))

    def set_theme(self, theme: TokenTheme) -> None:
        self.theme = theme
        for plot in (self.merge_plot, self.size_plot):
            plot.setBackground(theme.background)
            for axis in ("left", "bottom"):
                plot.getAxis(axis).setTextPen(theme.text)
                plot.getAxis(axis).setPen(theme.marker)

    def shutdown(self, timeout_ms: int = 5000) -> None:
        self.cancel()
        self._job += 1
        self._timer.stop()
        self._runner.shutdown(timeout_ms)
