"""The Learn tab: step through training as textbooks do, on a learner's own words.

Type word counts (low:5 lowest:2 new:6 widest:3, the textbook's example, is there to start with) or
a text, pick an algorithm and its options (`learn_input.LearnInput`), and the run is learned on a
worker (`tokviz.train.learn.learn`, the real trainers recording every step).  Step → and ← Back
(Ctrl+Right / Ctrl+Left), Run to end, Reset and the slider move through it; each step's tables are
filled by `learn_pages` (merges: the corpus as symbols, the pair counts or WordPiece's scores, ties
and the tie rule, the vocabulary and the merges so far; Unigram: the pieces and probabilities, the
expected counts or the loss of each piece pruned, each word's Viterbi segmentation).  Below, a
sample text is cut by the tokenizer as it stands at that step (`LearnRun.tokenizer_at`, built and
encoded on a worker) in a `TokenView`, so the cut changes as merges are added.  "Open as tokenizer"
hands the learned tokenizer to the explorer (`openRequested(tokenizer)`).

Signals: `learned(run)` once a run is shown, `failed(reason)`, `stepShown(position)`,
`encoded(encoding)` once the sample is shown at a step, `openRequested(tokenizer)`.
"""
from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSlider,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from ...core.gcpause import paused_gc
from ...errors import TokvizError
from ..widgets.layout import WrappedLabel, scroll_page
from ..widgets.style import DEFAULT_THEME, TokenTheme, mono_font
from ..work.jobs import BackgroundJob
from ..work.workers import TaskRunner, error_text
from .learn_input import LearnInput, learn_request, read_corpus_file
from .learn_pages import MergePage, UnigramPage
from .token_view import TokenView

SAMPLE = "lowest newer wider"  # (data: the sample text cut at each step)
RELEARN_MS = 400  # an edit of the words or options is learned this long after the last one
INPUT_WIDTH = 270
ERROR_STYLE = "color: #c0392b;"


class LearnView(QWidget):
    """The Learn tab (see the module docstring)."""

    learned = Signal(object)
    failed = Signal(str)
    stepShown = Signal(int)
    encoded = Signal(object)
    openRequested = Signal(object)

    def __init__(self, parent=None, theme: TokenTheme = DEFAULT_THEME):
        super().__init__(parent)
        self.run = None                 # the LearnRun shown
        self.position = 0               # 0: before training; k: step k
        self._encode_id = 0             # the sample's encode asked last (older ones are dropped)
        self._started = False
        self.input = LearnInput()
        self.input.setMinimumWidth(220)
        self.learn_button = QPushButton(self.tr("Learn"))
        self.learn_button.setObjectName("LearnButton")
        self.learn_button.setToolTip(self.tr("Learn from these words with these options (edits are learned by "
                                             "themselves a moment after you stop typing)"))
        self.status = WrappedLabel()
        self.status.setObjectName("LearnStatus")
        self.job = BackgroundJob(status=self.status, parent=self)
        self.job.progress_bar.setRange(0, 0)  # (a run reports no progress: the bar says it is busy)
        self.runner = TaskRunner(1, self)  # the sample's encodings and files read, one at a time
        self._relearn = QTimer(self)
        self._relearn.setSingleShot(True)
        self._relearn.setInterval(RELEARN_MS)
        self._relearn.timeout.connect(self.learn)

        self.back_button = QPushButton(self.tr("← Back"))
        self.step_button = QPushButton(self.tr("Step →"))
        self.end_button = QPushButton(self.tr("Run to end"))
        self.reset_button = QPushButton(self.tr("Reset"))
        for button, name, key, tip in (
                (self.back_button, "LearnBack", "Ctrl+Left", self.tr("One step back ({key})")),
                (self.step_button, "LearnStep", "Ctrl+Right", self.tr("The next step ({key})")),
                (self.end_button, "LearnEnd", "Ctrl+End", self.tr("The last step ({key})")),
                (self.reset_button, "LearnReset", "Ctrl+Home", self.tr("Back to the words before training ({key})"))):
            button.setObjectName(name)
            button.setShortcut(QKeySequence(key))
            button.setToolTip(tip.format(key=QKeySequence(key).toString(QKeySequence.SequenceFormat.NativeText)))
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setObjectName("LearnSlider")
        self.slider.setRange(0, 0)
        self.slider.setPageStep(1)
        self.position_label = QLabel()
        self.position_label.setObjectName("LearnPosition")
        self.headline = WrappedLabel()
        self.headline.setObjectName("LearnHeadline")
        font = self.headline.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.1)
        self.headline.setFont(font)
        self.merge_page = MergePage()
        self.unigram_page = UnigramPage()
        self.pages = QStackedWidget()
        self.pages.addWidget(self.merge_page)
        self.pages.addWidget(self.unigram_page)
        self.notes = WrappedLabel()
        self.notes.setObjectName("LearnNotes")
        self.notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.sample_label = QLabel(self.tr("Cut at this step:"))
        self.sample_label.setObjectName("LearnSampleLabel")
        self.sample = QLineEdit(SAMPLE)
        self.sample.setObjectName("LearnSample")
        self.sample.setPlaceholderText(self.tr("A text to cut with the tokenizer at this step"))
        self.token_view = TokenView()
        self.token_view.setObjectName("LearnTokenView")
        self.token_view.setFont(mono_font())
        self.token_view.set_theme(theme)
        self.token_view.setMinimumHeight(48)
        self.token_view.setMaximumHeight(90)
        self.open_button = QPushButton(self.tr("Open as tokenizer"))
        self.open_button.setObjectName("LearnOpen")
        self.open_button.setToolTip(self.tr("Open the tokenizer learned to the end in the explorer"))
        self.open_button.setEnabled(False)
        self._build_layout()
        self._connect()
        self._update_controls()

    # ---- construction -------------------------------------------------------------------------------
    def _build_layout(self) -> None:
        left = QWidget()
        left_lay = QVBoxLayout(left)
        left_lay.setContentsMargins(6, 6, 6, 6)
        left_lay.addWidget(self.input, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(self.learn_button)
        buttons.addWidget(self.job.cancel_button)
        buttons.addStretch(1)
        left_lay.addLayout(buttons)
        left_lay.addWidget(self.job.progress_bar)
        left_lay.addWidget(self.status)

        controls = QHBoxLayout()
        for button in (self.back_button, self.step_button, self.end_button, self.reset_button):
            controls.addWidget(button)
        controls.addWidget(self.slider, 1)
        controls.addWidget(self.position_label)
        sample_row = QHBoxLayout()
        sample_row.addWidget(self.sample_label)
        sample_row.addWidget(self.sample, 1)
        sample_row.addWidget(self.open_button)
        right = QWidget()
        right_lay = QVBoxLayout(right)
        right_lay.setContentsMargins(6, 6, 6, 6)
        right_lay.addLayout(controls)
        right_lay.addWidget(self.headline)
        right_lay.addWidget(self.pages, 1)
        right_lay.addWidget(self.notes)
        right_lay.addLayout(sample_row)
        right_lay.addWidget(self.token_view)

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(scroll_page(left))
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([INPUT_WIDTH, 900])
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(scroll_page(self.splitter))  # (a window with every dock open leaves the tab little room)

    def _connect(self) -> None:
        self.learn_button.clicked.connect(self.learn)
        self.input.changed.connect(self._relearn.start)
        self.input.openFileRequested.connect(self.open_file)
        self.back_button.clicked.connect(self.back)
        self.step_button.clicked.connect(self.step)
        self.end_button.clicked.connect(self.run_to_end)
        self.reset_button.clicked.connect(self.reset)
        self.slider.valueChanged.connect(self.set_position)
        self.sample.textChanged.connect(self._encode_sample)
        self.open_button.clicked.connect(self._open_tokenizer)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not self._started:  # (the textbook's example, learned when the tab is first shown)
            self.learn()

    # ---- learning -------------------------------------------------------------------------------------
    def learn(self) -> bool:
        """Learn from the form on a worker; False (the reason shown) when the form cannot be learned from."""
        self._started = True
        self._relearn.stop()
        try:
            request = self.input.request()
        except TokvizError as exc:
            self._fail(error_text(exc))
            return False
        self.status.setStyleSheet("")
        self.status.setText(self.tr("Learning…"))
        self.job.start(lambda cancel, progress: learn_request(request, cancel.is_set), self._learned,
                       on_failed=lambda exc: self._fail(error_text(exc)))
        return True

    def _learned(self, run) -> None:
        same_model = self.run is not None and self.run.model == run.model
        self.run = run  # (the run before is let go: its steps and tokenizers with it)
        self.status.setStyleSheet("")
        self.status.setText(self.tr("{steps} steps learned from {words} distinct words.").format(
            steps=f"{len(run.steps):,}", words=f"{len(run.words):,}"))
        self.pages.setCurrentWidget(self.unigram_page if run.model == "unigram" else self.merge_page)
        self.slider.blockSignals(True)
        self.slider.setRange(0, len(run.steps))
        self.slider.blockSignals(False)
        self.open_button.setEnabled(True)
        self.set_position(self.position if same_model else 0)  # (words edited: the same step, as far as there is one)
        self.learned.emit(run)

    def _fail(self, reason: str) -> None:
        """Say why (the run shown before, if any, stays and can still be stepped through)."""
        self.status.setStyleSheet(ERROR_STYLE)
        self.status.setText(self.tr("Cannot learn: {reason}").format(reason=reason))
        self.failed.emit(reason)

    def open_file(self, path: str) -> None:
        """Put the text of `path` (read on a worker) in the corpus box: a word list if it reads as one."""
        from ...train.learn import parse_word_counts

        def read():
            text = read_corpus_file(path)
            try:
                parse_word_counts(text)
                kind = "words"
            except TokvizError:
                kind = "text"
            return text, kind

        def done(result) -> None:
            text, kind = result
            self.input.set_corpus(text, kind)
            self.learn()

        self.runner.submit(read, done, lambda exc: self._fail(error_text(exc)))

    # ---- stepping -------------------------------------------------------------------------------------
    def steps(self) -> int:
        return len(self.run.steps) if self.run is not None else 0

    def step(self) -> None:
        self.set_position(self.position + 1)

    def back(self) -> None:
        self.set_position(self.position - 1)

    def run_to_end(self) -> None:
        self.set_position(self.steps())

    def reset(self) -> None:
        self.set_position(0)

    def set_position(self, position: int) -> None:
        """Show step `position` (0: before training), clamped to the run's steps."""
        if self.run is None:
            return
        position = max(0, min(position, self.steps()))
        self.position = position
        self.slider.blockSignals(True)
        self.slider.setValue(position)
        self.slider.blockSignals(False)
        page = self.pages.currentWidget()
        with paused_gc():  # (a step's rows are thousands of small tuples: no collection walks the run for them)
            headline, notes = page.show_step(self.run, position)
        self.headline.setText(headline)
        self.notes.setText("\n".join(notes))
        self._update_controls()
        self._encode_sample()
        self.stepShown.emit(position)

    def _update_controls(self) -> None:
        n = self.steps()
        self.position_label.setText(self.tr("step {position} of {steps}").format(position=self.position, steps=n))
        self.back_button.setEnabled(self.position > 0)
        self.reset_button.setEnabled(self.position > 0)
        self.step_button.setEnabled(self.run is not None and self.position < n)
        self.end_button.setEnabled(self.run is not None and self.position < n)
        self.slider.setEnabled(self.run is not None)

    # ---- the sample cut at the step ----------------------------------------------------------------------
    def _encode_sample(self) -> None:
        if self.run is None:
            return
        self._encode_id += 1
        ask, run, position, text = self._encode_id, self.run, self.position, self.sample.text()

        def work():
            return run.tokenizer_at(position).encode(text)

        def done(encoding) -> None:
            if ask == self._encode_id:
                self.sample_label.setText(self.tr("Cut at step {position}:").format(position=position))
                self.token_view.set_encoding(encoding)
                self.encoded.emit(encoding)

        def failed(exc) -> None:
            if ask == self._encode_id:
                self.sample_label.setText(self.tr("Cut at step {position}:").format(position=position))
                self.token_view.set_encoding(None)
                self.token_view.set_message(error_text(exc))

        # (the tokenizer at a step is trained again up to it: on a corpus of a thousand words, seconds)
        self.sample_label.setText(self.tr("Cutting at step {position}…").format(position=position))

        self.runner.submit(work, done, failed, is_current=lambda: ask == self._encode_id)

    def _open_tokenizer(self) -> None:
        if self.run is not None:
            self.openRequested.emit(self.run.tokenizer)

    # ---- the container's interface ----------------------------------------------------------------------
    def is_busy(self) -> bool:
        return self.job.is_pending() or self.runner.pending() > 0 or self._relearn.isActive()

    def set_theme(self, theme: TokenTheme) -> None:
        self.token_view.set_theme(theme)

    def set_show_whitespace(self, on: bool) -> None:
        self.token_view.set_show_whitespace(on)

    def shutdown(self, timeout_ms: int = 5000) -> None:
        self._relearn.stop()
        self._encode_id += 1
        self.job.shutdown(timeout_ms)
        self.runner.shutdown(timeout_ms)


__all__ = ["LearnView", "SAMPLE"]
