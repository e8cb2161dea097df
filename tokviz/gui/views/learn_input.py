"""The Learn view's input: the corpus (word counts or a text), the algorithm and its options.

`LearnInput` is the form; `request()` reads it into a `LearnRequest` (plain data, checked), and
`prepare(request)` turns that into what `tokviz.train.learn.learn` takes, counting the words as the
trainer counts its corpus.  `prepare` runs on a worker (a pasted text may be long), so it uses no Qt.
The defaults are `tokviz learn`'s: the textbook's word list, a vocabulary big enough that a merge
model stops when no pair is frequent enough, min frequency 2 and HF's tie rule.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ...core.patterns import NAMED_PATTERNS
from ...errors import TokvizError
from ...train.learn.merges import TIE_RULES
from ..widgets.messages import show

EXAMPLE_WORDS = "low:5 lowest:2 new:6 widest:3"  # (data: the textbook's word counts)
EXAMPLE_TEXT = "low low low low low lowest lowest newer newer newer newer newer newer wider wider wider"
MAX_FILE_BYTES = 2 * 1024 * 1024  # Learn is for small corpora: a file bigger than this is refused

MODELS = {
    "bpe": QT_TRANSLATE_NOOP("LearnInput", "BPE (characters)"),
    "bytelevel-bpe": QT_TRANSLATE_NOOP("LearnInput", "Byte-level BPE"),
    "wordpiece": "WordPiece",
    "unigram": "Unigram",
}
END_OF_WORD = {
    "separate": QT_TRANSLATE_NOOP("LearnInput", "separate symbol"),
    "glued": QT_TRANSLATE_NOOP("LearnInput", "glued (HF)"),
    "none": QT_TRANSLATE_NOOP("LearnInput", "none"),
}
KINDS = {
    "words": QT_TRANSLATE_NOOP("LearnInput", "Word counts"),
    "text": QT_TRANSLATE_NOOP("LearnInput", "Text"),
}


@dataclass(frozen=True)
class LearnRequest:
    """What the form says: the corpus and how to learn from it (vocab_size 0: the default)."""

    model: str = "bpe"
    corpus: str = EXAMPLE_WORDS
    kind: str = "words"              # "words" (word:count items) or "text" (counted as the trainer counts)
    vocab_size: int = 0
    min_frequency: int = 2
    tie_break: str = "hf"
    end_of_word: str = "separate"    # bpe: "separate", "glued" or "none"
    marker: str = "</w>"
    pattern: str = "gpt2"            # bytelevel-bpe: the split pattern (core.patterns.NAMED_PATTERNS)


def prepare(request: LearnRequest):
    """(words, counts, TrainOptions, model options) for `learn`, the words counted as the trainer
    counts them.  Raises TokvizError for a word list it cannot read or a corpus too big."""
    from ...train.learn import count_text, parse_word_counts
    from ...train.learn.words import count_listed_words, default_vocab_size
    from ...train.options import TrainOptions

    base = TrainOptions(vocab_size=1, min_frequency=request.min_frequency, tie_break=request.tie_break)
    pattern = request.pattern if request.model == "bytelevel-bpe" else None
    if request.kind == "text":
        words, counts = count_text(request.model, request.corpus, base, pattern=pattern)
    else:
        words, counts = count_listed_words(request.model, *parse_word_counts(request.corpus), base, pattern=pattern)
    vocab_size = request.vocab_size or default_vocab_size(request.model, words)
    options = TrainOptions(vocab_size=vocab_size, min_frequency=request.min_frequency, tie_break=request.tie_break)
    model_options: dict = {}
    if request.model == "bpe":
        model_options = {"end_of_word": request.end_of_word, "marker": request.marker or "</w>"}
    elif request.model == "bytelevel-bpe":
        model_options = {"pattern": pattern}
    return words, counts, options, model_options


def learn_request(request: LearnRequest, cancel=None):
    """The LearnRun of `request` (on a worker)."""
    from ...train.learn import learn

    words, counts, options, model_options = prepare(request)
    return learn(request.model, words, counts, options, cancel=cancel, **model_options)


def read_corpus_file(path: str | os.PathLike) -> str:
    """The text of a small corpus file (on a worker); TokvizError for one too big or unreadable."""
    from ..window.files import read_text_file

    size = os.stat(path).st_size if os.path.isfile(path) else 0
    if size > MAX_FILE_BYTES:
        reason = QCoreApplication.translate("LearnInput", "the file holds {size} MB: Learn steps through small corpora "
                                                          "(up to {limit} MB); train on big ones in the Training panel")
        raise TokvizError(reason.format(size=f"{size / 2**20:.1f}", limit=MAX_FILE_BYTES // 2**20), path)
    return read_text_file(path)


class LearnInput(QWidget):
    """The corpus box and the options; `changed()` on every edit, `openFileRequested(path)` when
    a file is picked (the view reads it on a worker)."""

    changed = Signal()
    openFileRequested = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.kind = QComboBox()
        self.kind.setObjectName("LearnKind")
        for key, label in KINDS.items():
            self.kind.addItem(QCoreApplication.translate("LearnInput", label), key)
        self.kind.setToolTip(self.tr("Word counts: items such as low:5, lines of 'word count', or a JSON object. "
                                     "Text: any text, cut into words and counted as the trainer counts its corpus."))
        self.open_button = QPushButton(self.tr("Open file…"))
        self.open_button.setObjectName("LearnOpenFile")
        self.open_button.clicked.connect(self._ask_file)
        self.corpus = QPlainTextEdit(EXAMPLE_WORDS)
        self.corpus.setObjectName("LearnCorpus")
        self.corpus.setPlaceholderText(self.tr("Word counts, for example low:5 lowest:2 new:6 widest:3"))
        self.corpus.setMinimumHeight(60)

        self.model = QComboBox()
        self.model.setObjectName("LearnModel")
        for key, label in MODELS.items():
            self.model.addItem(QCoreApplication.translate("LearnInput", label), key)
        self.marker = QLineEdit("</w>")
        self.marker.setObjectName("LearnMarker")
        self.marker.setMaximumWidth(70)
        self.marker.setToolTip(self.tr("The end-of-word marker BPE adds to each word"))
        self.end_of_word = QComboBox()
        self.end_of_word.setObjectName("LearnEndOfWord")
        for key, label in END_OF_WORD.items():
            self.end_of_word.addItem(QCoreApplication.translate("LearnInput", label), key)
        self.end_of_word.setToolTip(self.tr("separate symbol: the marker is a symbol of its own (l o w </w>); glued: "
                                            "it is glued to each word's last character (l o w</w>), as HF's "
                                            "BpeTrainer's end_of_word_suffix; none: no marker"))
        self.pattern = QComboBox()
        self.pattern.setObjectName("LearnPattern")
        for name in NAMED_PATTERNS:
            self.pattern.addItem(name, name)
        self.pattern.setToolTip(self.tr("How byte-level BPE cuts a text into words before counting them"))
        self.vocab_size = QSpinBox()
        self.vocab_size.setObjectName("LearnVocabSize")
        self.vocab_size.setRange(0, 10_000_000)
        self.vocab_size.setSpecialValueText(self.tr("automatic"))
        self.vocab_size.setToolTip(self.tr("Stop when the vocabulary holds this many tokens.  Automatic: 100,000 for "
                                           "the merge models, so that training stops when no pair is frequent "
                                           "enough; Unigram: <unk>, the characters and one piece per distinct word"))
        self.min_frequency = QSpinBox()
        self.min_frequency.setObjectName("LearnMinFrequency")
        self.min_frequency.setRange(1, 1_000_000)
        self.min_frequency.setValue(2)
        self.min_frequency.setToolTip(self.tr("Pairs occurring fewer times are never merged (2: training stops when "
                                              "the best pair occurs once)"))
        self.tie_break = QComboBox()
        self.tie_break.setObjectName("LearnTieRule")
        for key in ("hf", "minbpe"):
            self.tie_break.addItem(key, key)
            self.tie_break.setItemData(self.tie_break.count() - 1, show(TIE_RULES[key]),
                                       Qt.ItemDataRole.ToolTipRole)
        self.tie_break.setToolTip(self.tr("Which of the pairs of equal count is merged"))

        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.kind, 1)
        top.addWidget(self.open_button)
        end = QHBoxLayout()
        end.setContentsMargins(0, 0, 0, 0)
        end.addWidget(self.marker)
        end.addWidget(self.end_of_word, 1)
        form = QFormLayout()
        form.setContentsMargins(0, 0, 0, 0)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow(self.tr("Algorithm"), self.model)
        form.addRow(self.tr("End of word"), end)
        form.addRow(self.tr("Split pattern"), self.pattern)
        form.addRow(self.tr("Vocabulary size"), self.vocab_size)
        form.addRow(self.tr("Min frequency"), self.min_frequency)
        form.addRow(self.tr("Tie rule"), self.tie_break)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(top)
        lay.addWidget(self.corpus, 1)
        lay.addLayout(form)

        self.kind.currentIndexChanged.connect(self._kind_changed)
        self.model.currentIndexChanged.connect(self._update_fields)
        self.end_of_word.currentIndexChanged.connect(self._update_fields)
        for signal in (self.corpus.textChanged, self.model.currentIndexChanged, self.marker.textChanged,
                       self.end_of_word.currentIndexChanged, self.pattern.currentIndexChanged,
                       self.vocab_size.valueChanged,
                       self.min_frequency.valueChanged, self.tie_break.currentIndexChanged):
            signal.connect(self.changed)
        self._update_fields()

    def request(self) -> LearnRequest:
        """The form as a LearnRequest; TokvizError when it cannot be learned from as it stands."""
        model = self.model.currentData()
        end_of_word = self.end_of_word.currentData()
        marker = self.marker.text().strip()
        if model == "bpe" and end_of_word != "none" and not marker:
            raise TokvizError(self.tr("give an end-of-word marker (such as </w>), or choose none"))
        if not self.corpus.toPlainText().strip():
            raise TokvizError(self.tr("type some words (low:5 lowest:2 …) or a text to learn from"))
        return LearnRequest(model=model, corpus=self.corpus.toPlainText(), kind=self.kind.currentData(),
                            vocab_size=self.vocab_size.value(), min_frequency=self.min_frequency.value(),
                            tie_break=self.tie_break.currentData(), end_of_word=end_of_word, marker=marker,
                            pattern=self.pattern.currentData())

    def set_model(self, model: str) -> None:
        self.model.setCurrentIndex(self.model.findData(model))

    def set_corpus(self, text: str, kind: str | None = None) -> None:
        if kind is not None:
            self.kind.blockSignals(True)
            self.kind.setCurrentIndex(self.kind.findData(kind))
            self.kind.blockSignals(False)
        self.corpus.setPlainText(text)

    def _kind_changed(self) -> None:
        """The other kind's example becomes this kind's; a corpus of one's own stays."""
        text = self.corpus.toPlainText().strip()
        if self.kind.currentData() == "text" and text == EXAMPLE_WORDS:
            self.corpus.setPlainText(EXAMPLE_TEXT)
        elif self.kind.currentData() == "words" and text == EXAMPLE_TEXT:
            self.corpus.setPlainText(EXAMPLE_WORDS)
        else:
            self.changed.emit()

    def _update_fields(self) -> None:
        model = self.model.currentData()
        self.end_of_word.setEnabled(model == "bpe")
        self.marker.setEnabled(model == "bpe" and self.end_of_word.currentData() != "none")
        self.pattern.setEnabled(model == "bytelevel-bpe")
        self.min_frequency.setEnabled(model != "unigram")
        self.tie_break.setEnabled(model != "unigram")

    def _ask_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("A word list or a text to learn from"), "",
                                              self.tr("Text files (*.txt *.json *.md);;All files (*)"))
        if path:
            self.openFileRequested.emit(path)
