"""The Training panel: train a tokenizer on your files, watch it learn, and use the result at once.

Pick files and folders (folders: their text files), the algorithm and every parameter of
`train.TrainOptions` (each with its default and a tooltip), then Train: training runs on a worker
with a progress bar, Cancel, and two live plots of what the trainer does.  A BPE-family trainer
(byte-level BPE, character BPE, WordPiece) shows the count of each new merge and the tokens learned
against time; a Unigram trainer shows its EM objective (log-likelihood) at each EM step and the
pieces left after each pruning round.  The finished tokenizer is announced with
`trained(tokenizer)`: the window opens it in the explorer and can add it to the Compare tab;
Export… writes it (`tokviz.save`).  "Run on" counts the words on a Dask cluster instead (an address,
or N worker processes started here; byte-level and character BPE only), with the same progress
and Cancel, and the cluster's dashboard link while it runs.  Docked in a narrow column the parameters scroll above the
plots; from WIDE px on they sit side by side.
"""
from __future__ import annotations

import math
import os
import re
import threading
import time

import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, QTimer, Signal
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

from ...analysis.corpus_stats import corpus_files
from ...core.patterns import NAMED_PATTERNS
from ...errors import Cancelled, TokvizError
from ...train import TrainOptions, train
from ...paths import distinct_files
from ..widgets.click_guard import guard_clicks
from ..widgets.messages import show
from ..widgets.layout import button_grid
from ..work.run_on import RunOnBox, ask_url, is_url, open_cluster, url_refusal
from ..widgets.style import DEFAULT_THEME, TokenTheme
from ..work.workers import TaskRunner, describe_error, error_text

# (English sources, translated where shown: QCoreApplication.translate("TrainPanel", …))
MODELS = {
    "bytelevel-bpe": QT_TRANSLATE_NOOP("TrainPanel", "Byte-level BPE (GPT-2 style)"),
    "bpe": QT_TRANSLATE_NOOP("TrainPanel", "Character BPE (words end in </w>)"),
    "wordpiece": QT_TRANSLATE_NOOP("TrainPanel", "WordPiece (BERT style)"),
    "unigram": QT_TRANSLATE_NOOP("TrainPanel", "Unigram (sentencepiece style)"),
}
SHORT_NAMES = {"bytelevel-bpe": QT_TRANSLATE_NOOP("TrainPanel", "Byte-level BPE"),
               "bpe": QT_TRANSLATE_NOOP("TrainPanel", "Character BPE"), "wordpiece": "WordPiece",
               "unigram": "Unigram"}
END_OF_WORD = {"separate": QT_TRANSLATE_NOOP("TrainPanel", "separate"),
               "glued": QT_TRANSLATE_NOOP("TrainPanel", "glued")}
_MERGE = re.compile(r"^merge (\d+): .* \((\d+)\)$")
_SEEDS = re.compile(r"^(\d+) seed pieces$")
_EM = re.compile(r"^EM round \d+, step \d+: \d+ pieces, objective (\S+)$")
_PRUNED = re.compile(r"pruned to (\d+) pieces")
# What each kind of trainer shows: (title, x label, y label, log y) of the upper and the lower plot;
# the time axis (x label None) is labelled by `time_unit`.
PLOTS = {
    "merges": ((QT_TRANSLATE_NOOP("TrainPanel", "Count of each new merge"), QT_TRANSLATE_NOOP("TrainPanel", "merge"),
                QT_TRANSLATE_NOOP("TrainPanel", "count"), True),
               (QT_TRANSLATE_NOOP("TrainPanel", "Tokens learned against time"), None,
                QT_TRANSLATE_NOOP("TrainPanel", "tokens"), False)),
    "unigram": ((QT_TRANSLATE_NOOP("TrainPanel", "EM objective (log-likelihood)"),
                 QT_TRANSLATE_NOOP("TrainPanel", "EM step"), QT_TRANSLATE_NOOP("TrainPanel", "log-likelihood"), False),
                (QT_TRANSLATE_NOOP("TrainPanel", "Pieces after each pruning round"),
                 QT_TRANSLATE_NOOP("TrainPanel", "round (0: seeds)"), QT_TRANSLATE_NOOP("TrainPanel", "pieces"),
                 False)),
}
SPECIALS_EXAMPLE = "<unk>, <s>, </s>"  # (data, not words to translate)
EXPORT_NAME = "tokenizer.json"
MS_UNTIL = 1.0  # a run shorter than this many seconds is plotted in milliseconds
WIDE = 760  # from this width on, the parameters and the plots sit side by side


class _CountAxis(pg.AxisItem):
    """A y axis that, in log mode, labels 1, 2, 5 x 10^n as plain numbers (pyqtgraph labels every
    2..9 over a short range, and they overlap on a small plot)."""

    def tickValues(self, minVal, maxVal, size):
        if not self.logMode or maxVal <= minVal:
            return super().tickValues(minVal, maxVal, size)
        pixels = size / (maxVal - minVal)  # per decade
        best = []
        for steps in ((1,), (1, 2, 5), tuple(range(1, 10))):  # the finest whose labels keep apart
            values = [d + math.log10(m) for d in range(math.floor(minVal), math.ceil(maxVal) + 1) for m in steps]
            values = [v for v in values if minVal <= v <= maxVal]
            if len(best) > 1 and min(b - a for a, b in zip(values, values[1:])) * pixels < 18:
                break
            best = values
        if len(best) < 2:  # (a range inside one decade: pyqtgraph's own few ticks do)
            return super().tickValues(minVal, maxVal, size)
        return [(None, best)]

    def tickStrings(self, values, scale, spacing):
        if not self.logMode:
            return super().tickStrings(values, scale, spacing)
        return [f"{10 ** v:,.0f}" if v >= 0 else f"{10 ** v:.2g}" for v in values]


def _tr(text: str) -> str:
    return QCoreApplication.translate("TrainPanel", text)


def time_unit(longest: float) -> tuple[float, str]:
    """(scale, axis label) of the time axis for a run that has lasted `longest` seconds:
    milliseconds while it is short, seconds after.  (pyqtgraph's own SI prefixes on a unitless
    label read "seconds (x0.001)".)"""
    if longest < MS_UNTIL:
        return 1000.0, QCoreApplication.translate("TrainPanel", "time (ms)")
    return 1.0, QCoreApplication.translate("TrainPanel", "time (s)")


def plots_for(model: str) -> str:
    """Which plots a model's trainer feeds: 'unigram' (EM and pruning) or 'merges' (BPE family)."""
    return "unigram" if model == "unigram" else "merges"


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
        self._events: list = []  # (seconds, fraction, message) from the worker, drained by the timer
        self._lock = threading.Lock()
        self._dashboard: list = [None]  # the running cluster's dashboard link, set on the worker
        self._run_model: str | None = None  # the model of the running (or last) run
        self._shown: str | None = None  # the plot kind the plots are set up for
        self._series: dict[str, tuple[list, list]] = {}
        self._laid_out = False  # the splitter's first sizes are set at the first resize
        self._clear_series()

        self.files = QListWidget()
        self.files.setMinimumHeight(60)
        self.files.setMaximumHeight(130)
        add_files = QPushButton(self.tr("Add files…"))
        add_files.clicked.connect(self._ask_files)
        add_folder = QPushButton(self.tr("Add folder…"))
        add_folder.clicked.connect(self._ask_folder)
        add_url = QPushButton(self.tr("Add URL…"))
        add_url.setToolTip(self.tr("Training text in object storage (s3://bucket/corpus/*.txt), read on a Dask cluster"))
        add_url.clicked.connect(self._ask_url)
        remove = QPushButton(self.tr("Remove"))
        remove.clicked.connect(lambda: [self.files.takeItem(self.files.row(i)) for i in self.files.selectedItems()])

        self.model_box = QComboBox()
        for key, label in SHORT_NAMES.items():
            self.model_box.addItem(_tr(label), key)
            self.model_box.setItemData(self.model_box.count() - 1, _tr(MODELS[key]), Qt.ItemDataRole.ToolTipRole)
        self.model_box.currentIndexChanged.connect(self._update_fields)
        self.pattern_box = QComboBox()
        self.pattern_box.setEditable(True)
        self.pattern_box.addItems(list(NAMED_PATTERNS))
        self.pattern_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.pattern_box.setMinimumContentsLength(10)
        self.pattern_box.setToolTip(self.tr("Split pattern (byte-level BPE): a known name or a regex"))
        self.end_of_word = QComboBox()
        for key, label in END_OF_WORD.items():
            self.end_of_word.addItem(_tr(label), key)
        self.end_of_word.setToolTip(self.tr("Character BPE: </w> as a symbol of its own (Sennrich) or glued to "
                                            "the last character (HF tokenizers)"))
        self.tie_break = QComboBox()
        self.tie_break.addItem(self.tr("HF tokenizers: lowest ids"), "hf")
        self.tie_break.addItem(self.tr("minbpe: first in the text"), "minbpe")
        self.tie_break.setToolTip(self.tr("Which pair is merged when several occur equally often: HF "
                                          "tokenizers' rule or minbpe's (minbpe's is slower on a big corpus)"))
        self.lowercase = QCheckBox(self.tr("lower-case the text"))
        self.lowercase.setChecked(True)
        self.vocab_size = self._spin(1, 1_000_000, 1000, self.tr("Tokens in the trained vocabulary, everything "
                                                                  "included"))
        self.min_frequency = self._spin(0, 1_000_000, 2, self.tr("A pair or piece must occur this often to be "
                                                                 "learned"))
        self.min_word_count = self._spin(1, 1_000_000, 1, self.tr("Once the corpus is counted, words seen fewer times "
                                                                  "are dropped before learning (1: keep all; bounds "
                                                                  "memory on a big corpus)"))
        self.special_tokens = QLineEdit()
        self.special_tokens.setPlaceholderText(SPECIALS_EXAMPLE)
        self.special_tokens.setToolTip(self.tr("Special tokens (comma-separated), ids 0.. in this order"))
        self.user_symbols = QLineEdit()
        self.user_symbols.setToolTip(self.tr("User-defined symbols: always one token, never split"))
        self.reserved = self._spin(0, 100_000, 0, self.tr("Extra special tokens named <|reserved_special_token_N|>"))
        self.split_digits = QCheckBox(self.tr("every digit its own pre-token"))
        self.max_length = self._spin(0, 1024, 0, self.tr("Longest token in characters (bytes for byte-level BPE); "
                                                          "0: no limit"))
        self.coverage = QDoubleSpinBox()
        self.coverage.setRange(0.5, 1.0)
        self.coverage.setDecimals(4)
        self.coverage.setSingleStep(0.0005)
        self.coverage.setValue(1.0)
        self.coverage.setToolTip(self.tr("Share of the text's characters covered; the rarest others become unknown"))
        self.byte_fallback = QCheckBox(self.tr("unknown characters as <0xNN> bytes"))
        self.byte_fallback.setToolTip(self.tr("Characters outside the alphabet become <0xNN> byte tokens instead of "
                                              "unknown"))
        self.initial_alphabet = QLineEdit()
        self.initial_alphabet.setToolTip(self.tr("Characters always in the vocabulary (typed together, e.g. abc)"))
        self.limit_alphabet = self._spin(0, 1_000_000, 0, self.tr("Keep at most this many characters (0: all)"))
        self.collapse_ws = QCheckBox(self.tr("runs of white space count as one"))
        self.collapse_ws.setToolTip(self.tr("Runs of white space count as one space"))
        self.pad_to = self._spin(0, 4096, 0, self.tr("Round the vocabulary up with reserved tokens to a multiple of "
                                                     "this (64, 128...; 0: no rounding)"))
        self.threads = self._spin(1, 64, max(1, os.cpu_count() or 1), self.tr("Worker threads for counting"))
        self.run_on = RunOnBox(label=False, dashboard_inside=False)
        for box in (self.max_length, self.limit_alphabet, self.pad_to):
            box.setSpecialValueText(self.tr("none"))

        form = QFormLayout()
        # a narrow dock puts a field under its label rather than cutting either
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow(self.tr("Algorithm"), self.model_box)
        form.addRow(self.tr("Run on"), self.run_on)
        form.addRow(self.tr("Split pattern"), self.pattern_box)
        form.addRow(self.tr("End of word"), self.end_of_word)
        form.addRow(self.lowercase)
        form.addRow(self.tr("Equal counts"), self.tie_break)
        form.addRow(self.tr("Vocabulary size"), self.vocab_size)
        form.addRow(self.tr("Min frequency"), self.min_frequency)
        form.addRow(self.tr("Min word count"), self.min_word_count)
        form.addRow(self.tr("Special tokens"), self.special_tokens)
        form.addRow(self.tr("User symbols"), self.user_symbols)
        form.addRow(self.tr("Reserved tokens"), self.reserved)
        form.addRow(self.tr("Pad to multiple of"), self.pad_to)
        form.addRow(self.split_digits)
        form.addRow(self.tr("Max token length"), self.max_length)
        form.addRow(self.tr("Character coverage"), self.coverage)
        form.addRow(self.byte_fallback)
        form.addRow(self.tr("Initial alphabet"), self.initial_alphabet)
        form.addRow(self.tr("Limit alphabet"), self.limit_alphabet)
        form.addRow(self.collapse_ws)
        form.addRow(self.tr("Threads"), self.threads)
        self._rows = {"pattern": self.pattern_box, "end": self.end_of_word, "lower": self.lowercase,
                      "ties": self.tie_break}
        self._form = form

        self.train_button = QPushButton(self.tr("Train"))
        self.train_button.clicked.connect(self.start)
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.clicked.connect(self.cancel)
        self.cancel_button.hide()
        guard_clicks(self.train_button, self.cancel_button)  # (each appears where the other was)
        self.export_button = QPushButton(self.tr("Export…"))
        self.export_button.setEnabled(False)
        self.export_button.clicked.connect(self._ask_export)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setValue(0)
        self.progress.setFormat(self.tr("ready"))
        self.status = QLabel(self.tr("Add training files, choose the parameters, then Train."))
        self.status.setWordWrap(True)
        self._timer = QTimer(self)
        self._timer.setInterval(100)
        self._timer.timeout.connect(self._drain)

        self.main_plot = pg.PlotWidget(axisItems={"left": _CountAxis("left")})
        self.size_plot = pg.PlotWidget()
        for plot in (self.main_plot, self.size_plot):
            plot.setMinimumSize(120, 56)
            for side in ("left", "bottom"):  # (the labels say the units: no "(x0.001)" added to them)
                plot.getAxis(side).enableAutoSIPrefix(False)
        self._main_curve = self.main_plot.plot([], [])
        self._size_curve = self.size_plot.plot([], [])

        buttons = button_grid(add_files, add_folder, add_url, remove)
        setup = QWidget()
        sl = QVBoxLayout(setup)
        sl.setContentsMargins(4, 4, 4, 4)
        sl.addWidget(QLabel(self.tr("Training files")))
        sl.addWidget(self.files)
        sl.addLayout(buttons)
        sl.addLayout(form)
        sl.addStretch(1)
        self.setup_area = QScrollArea()
        self.setup_area.setWidget(setup)
        self.setup_area.setWidgetResizable(True)
        self.setup_area.setMinimumHeight(60)
        self.plots = QSplitter(Qt.Orientation.Vertical)
        self.plots.addWidget(self.main_plot)
        self.plots.addWidget(self.size_plot)
        self.plots.setChildrenCollapsible(False)
        self.split = QSplitter(Qt.Orientation.Vertical)
        self.split.addWidget(self.setup_area)
        self.split.addWidget(self.plots)
        self.split.setChildrenCollapsible(False)
        self.split.setStretchFactor(0, 1)
        self.split.setStretchFactor(1, 1)
        run = QHBoxLayout()  # (Cancel takes Train's place while training; the progress bar beside them)
        run.addWidget(self.train_button)
        run.addWidget(self.cancel_button)
        run.addWidget(self.export_button)
        run.addWidget(self.progress, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addWidget(self.split, 1)
        layout.addLayout(run)
        layout.addWidget(self.run_on.dashboard)
        layout.addWidget(self.status)
        self.set_theme(theme)
        self._update_fields()

    def resizeEvent(self, event) -> None:
        wide = event.size().width() >= WIDE
        orientation = Qt.Orientation.Horizontal if wide else Qt.Orientation.Vertical
        if self.split.orientation() != orientation or not self._laid_out:
            self._laid_out = True
            self.split.setOrientation(orientation)
            total = event.size().width() if wide else event.size().height()
            self.split.setSizes([total * 2 // 5, total * 3 // 5] if wide else [total * 11 // 20, total * 9 // 20])
        super().resizeEvent(event)

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
            visible = {"pattern": model == "bytelevel-bpe", "end": model == "bpe", "lower": model == "wordpiece",
                       "ties": model != "unigram"}[key]
            self._form.setRowVisible(widget, visible)
        self._update_plots()

    # ---- inputs -------------------------------------------------------------------------------------
    def model(self) -> str:
        return self.model_box.currentData()

    def set_model(self, model: str) -> None:
        self.model_box.setCurrentIndex(self.model_box.findData(model))

    def set_files(self, paths) -> None:
        self.files.clear()
        for p in paths:
            self.files.addItem(os.fspath(p))

    def training_files(self) -> list:
        """The listed files and the text files of the listed folders, each file once (a file listed
        alone and inside a listed folder, or through a link, is one file); URLs (read on a cluster)
        as they are, in their place."""
        items = [self.files.item(k).text() for k in range(self.files.count())]
        if not any(is_url(i) for i in items):
            return distinct_files(corpus_files(items))
        out, seen = [], set()
        for item in items:
            found = [item] if is_url(item) else distinct_files(corpus_files([item]))
            for f in found:
                key = f if isinstance(f, str) else os.path.realpath(f)
                if key not in seen:
                    seen.add(key)
                    out.append(f)
        return out

    def options(self) -> TrainOptions:
        """The parameters as set (raises TokvizError for impossible ones)."""
        opt = lambda box: box.value() or None  # noqa: E731 - 0 in a spin box means "no limit"
        return TrainOptions(
            vocab_size=self.vocab_size.value(),
            min_frequency=self.min_frequency.value(),
            min_word_count=self.min_word_count.value(),
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
            tie_break=self.tie_break.currentData(),
        )

    def _model_options(self) -> dict:
        model = self.model()
        if model == "bytelevel-bpe":
            return {"pattern": self.pattern_box.currentText().strip() or "gpt2"}
        if model == "bpe":
            return {"end_of_word": self.end_of_word.currentData()}
        if model == "wordpiece":
            return {"lowercase": self.lowercase.isChecked()}
        return {}

    def _ask_files(self) -> None:
        names, _ = QFileDialog.getOpenFileNames(self, self.tr("Training files"))
        for n in names:
            self.files.addItem(n)

    def _ask_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("A folder of training text"))
        if folder:
            self.files.addItem(folder)

    def _ask_url(self) -> None:
        url = ask_url(self)
        if url:
            self.files.addItem(url)

    # ---- training -----------------------------------------------------------------------------------
    def start(self) -> bool:
        """Train on a worker; False (and the reason in the status line) when it cannot start."""
        try:
            files = self.training_files()
            options = self.options()
            if not files:
                raise TokvizError(self.tr("no training files: add files or folders"))
            where = self.run_on.choice()
            if where == ("scheduler", ""):
                raise TokvizError(self.tr("give the address of the Dask scheduler (tcp://host:port)"))
            refusal = url_refusal(files, where)
            if refusal:
                raise TokvizError(refusal)
        except TokvizError as exc:
            self.status.setText(error_text(exc))
            return False
        model, extra = self.model(), self._model_options()
        self.cancel()
        self._job += 1
        job = self._job
        cancel = self._cancel = threading.Event()
        with self._lock:
            self._events = []
        self._dashboard[0] = None
        self._run_model = model
        self._clear_series()
        self._update_plots()
        t0 = time.perf_counter()
        threads = self.threads.value()
        connecting = self.tr("Connecting to the Dask scheduler at {address}…").format(address=where[1])
        starting = self.tr("Starting {count} worker process(es)…").format(count=where[1])

        def progress(fraction: float, message: str) -> None:  # on the worker
            with self._lock:
                if job == self._job:  # (a cancelled run still finishing must not feed the new one's plots)
                    self._events.append((time.perf_counter() - t0, fraction, message))

        def work():
            if where[0] == "here":
                return train(model, files, options, progress=progress, cancel=cancel.is_set, threads=threads, **extra)
            progress(0.0, connecting if where[0] == "scheduler" else starting)
            cluster = open_cluster(where, cancel)
            try:
                if cancel.is_set():
                    raise Cancelled("cancelled")
                if job == self._job:
                    self._dashboard[0] = cluster.dashboard_link
                return train(model, files, options, progress=progress, cancel=cancel.is_set, threads=threads,
                             cluster=cluster, **extra)
            finally:
                cluster.close()

        def done(tok) -> None:
            if job != self._job:
                return
            self._stopped()
            self.result = tok
            self.seconds = time.perf_counter() - t0
            self.progress.setValue(1000)
            self.progress.setFormat(self.tr("done"))
            self.export_button.setEnabled(True)
            self.status.setText(self.tr("Trained a {model} of {size} tokens in {seconds} s.").format(
                model=_tr(MODELS[model]), size=f"{tok.vocab_size:,}", seconds=f"{self.seconds:.1f}"))
            self.trained.emit(tok)

        def failed(exc) -> None:
            if job != self._job:
                return
            self._stopped()
            self.progress.setValue(0)
            if isinstance(exc, Cancelled):
                self.progress.setFormat(self.tr("cancelled"))
                self.status.setText(self.tr("Cancelled."))
                self.cancelled.emit()
            else:
                reason = describe_error(exc)
                self.progress.setFormat(self.tr("failed"))
                self.status.setText(self.tr("Training failed: {reason}").format(reason=reason))
                self.failed.emit(reason)

        self.run_on.set_running(True)
        self.train_button.setEnabled(False)
        self.train_button.hide()
        self.cancel_button.show()
        self.progress.setValue(0)
        self.progress.setFormat("%p%")
        self.status.setText(self.tr("Training on 1 file…") if len(files) == 1
                            else self.tr("Training on {count} files…").format(count=f"{len(files):,}"))
        self._timer.start()
        self._runner.submit(work, done, failed)
        return True

    def cancel(self) -> None:
        if self._cancel is not None:
            self._cancel.set()

    def is_training(self) -> bool:
        return self._cancel is not None

    def _stopped(self) -> None:
        """Back to a ready state once a run has ended, however it ended."""
        self._drain()
        self._timer.stop()
        self._cancel = None
        self._dashboard[0] = None
        self.run_on.set_running(False)
        self.train_button.setEnabled(True)
        self.train_button.show()
        self.cancel_button.hide()
        self._update_plots()  # (the algorithm may have been changed while it ran)

    def _clear_series(self) -> None:
        self._series = {name: ([], []) for name in ("merge", "size", "em", "pieces")}

    def _drain(self) -> None:
        """Show what the worker reported since the last look: progress, status, plot points."""
        with self._lock:
            events, self._events = self._events, []
        if self._dashboard[0] and self.is_training():
            self.run_on.show_dashboard(self._dashboard[0])
        if not events:
            return
        merge, size, em, pieces = (self._series[k] for k in ("merge", "size", "em", "pieces"))
        for t, fraction, message in events:
            m = _MERGE.match(message)
            if m:
                merge[0].append(int(m.group(1)))
                merge[1].append(max(1, int(m.group(2))))
                size[0].append(t)
                size[1].append(int(m.group(1)))
                continue
            if (m := _EM.match(message)) is not None:
                em[0].append(len(em[0]) + 1)
                em[1].append(float(m.group(1)))
            elif (m := _SEEDS.match(message) or _PRUNED.search(message)) is not None:
                pieces[0].append(len(pieces[0]))
                pieces[1].append(int(m.group(1)))
        t, fraction, message = events[-1]
        self.progress.setValue(int(1000 * min(max(fraction, 0.0), 1.0)))
        self.status.setText(show(message))  # (a trainer's Message: its English parsed above, shown translated)
        self._update_plots()

    def _update_plots(self) -> None:
        """Set the plots up for the running run's model (or, between runs, the chosen one) and
        show the points of the last run when they belong to these plots."""
        model = self._run_model if self.is_training() else self.model()
        kind = plots_for(model)
        if kind != self._shown:
            self._shown = kind
            for curve in (self._main_curve, self._size_curve):
                curve.setData([], [])  # (the other kind's points, negative log-likelihoods say, have no place on a log axis)
            for plot, (title, x, y, log_y) in zip((self.main_plot, self.size_plot), PLOTS[kind]):
                plot.setTitle(_tr(title), color=self.theme.text)
                plot.setLabel("bottom", _tr(x) if x is not None else time_unit(0.0)[1])
                plot.setLabel("left", _tr(y))
                plot.setLogMode(x=False, y=log_y)
        ours = self._run_model is not None and plots_for(self._run_model) == kind
        names = ("merge", "size") if kind == "merges" else ("em", "pieces")
        pen = pg.mkPen(self.theme.hover_outline, width=1.5)
        for plot, curve, name in zip((self.main_plot, self.size_plot), (self._main_curve, self._size_curve), names):
            xs, ys = self._series[name] if ours else ([], [])
            if name == "size":  # (the time axis: milliseconds or seconds as the run's length asks)
                scale, label = time_unit(xs[-1] if xs else 0.0)
                xs = [x * scale for x in xs]
                if plot.getAxis("bottom").labelText != label:
                    plot.setLabel("bottom", label)
            few = len(xs) <= 30  # (points marked: EM steps and rounds, or the start of a merge run)
            curve.setData(list(xs), list(ys), pen=pen, symbol="o" if few else None, symbolSize=6,
                          symbolBrush=self.theme.hover_outline, symbolPen=None)
            if not xs:  # (an empty plot would keep the last run's view, in the other plot kind's units)
                plot.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
                plot.getAxis("bottom").setTicks(None)
                # (0, 0.2 ... 1 on a linear axis a few lines high overlapped: its ends say enough)
                plot.getAxis("left").setTicks(None if plot.getAxis("left").logMode else [[(0.0, "0"), (1.0, "1")]])
                continue
            plot.enableAutoRange()
            plot.getAxis("left").setTicks(None)
            counted = kind == "unigram" and len(xs) <= 30  # a few EM steps or rounds: whole-number ticks
            plot.getAxis("bottom").setTicks([[(x, str(x)) for x in xs]] if counted else None)
            if kind == "unigram":
                # (one point would make an autoranged axis span a thousandth around it)
                plot.setXRange(xs[0], max(xs[-1], xs[0] + 1), padding=0.05)
                if name == "pieces":
                    plot.setYRange(0, max(ys), padding=0.05)

    def plot_kind(self) -> str | None:
        """What the plots show now: 'merges' or 'unigram'."""
        return self._shown

    def plotted(self) -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
        """The points on the upper and on the lower plot, as the curves hold them."""
        upper, lower = ([] if c.xData is None else list(zip(c.xData.tolist(), c.yData.tolist()))
                        for c in (self._main_curve, self._size_curve))
        return upper, lower

    def merge_points(self) -> list[tuple[int, int]]:
        """(merge number, count) of each merge the last BPE-family run reported."""
        return list(zip(*self._series["merge"]))

    def em_points(self) -> list[tuple[int, float]]:
        """(EM step, objective) of the last Unigram run."""
        return list(zip(*self._series["em"]))

    def pruning_points(self) -> list[tuple[int, int]]:
        """(round, pieces left) of the last Unigram run; round 0 is the seed pieces."""
        return list(zip(*self._series["pieces"]))

    # ---- exporting ----------------------------------------------------------------------------------
    def export(self, path: str | os.PathLike, *, overwrite: bool = False):
        """Write the trained tokenizer (`tokviz.save`; the format follows the name; an existing
        file is replaced only with overwrite=True — the save dialog has asked)."""
        from ... import save

        if self.result is None:
            raise TokvizError(self.tr("nothing trained yet"))
        return save(self.result, path, overwrite=overwrite)

    def _ask_export(self) -> None:
        name, _ = QFileDialog.getSaveFileName(
            self, self.tr("Export the trained tokenizer"), EXPORT_NAME,
            self.tr("HF tokenizer.json (*.json);;WordPiece vocab.txt (*.txt);;tiktoken (*.tiktoken);;"
                    "sentencepiece or minbpe (*.model);;vocabulary listing (*.tsv *.csv);;All files (*)"))
        if not name:
            return
        try:
            out = self.export(name, overwrite=True)  # (the dialog asked before replacing a file)
            self.status.setText(self.tr("Written: {path}").format(path=out))
        except TokvizError as exc:
            self.status.setText(error_text(exc))

    def set_theme(self, theme: TokenTheme) -> None:
        self.theme = theme
        self._shown = None  # (titles take the theme's colour when set up again)
        for plot in (self.main_plot, self.size_plot):
            plot.setBackground(theme.background)
            for axis in ("left", "bottom"):
                plot.getAxis(axis).setTextPen(theme.text)
                plot.getAxis(axis).setPen(theme.marker)
        self._update_plots()

    def shutdown(self, timeout_ms: int = 5000) -> None:
        self.cancel()
        self._job += 1
        self._timer.stop()
        self._runner.shutdown(timeout_ms)
