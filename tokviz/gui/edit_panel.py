"""The Edit vocabulary panel: change a vocabulary, see what breaks first, apply, undo.

Choose an edit (add special or reserved tokens, pad to a multiple of N, add BPE merges, add tokens
matched whole, remove tokens), type its arguments and Check: on a worker the edit is made on a copy
and `analysis.vocab_edit.check_edit` compares it with the original (tokens that become unreachable,
words of the vocabulary and of the current text that are cut differently).  Apply uses the edited
tokenizer (`applied(tokenizer)`); Undo goes back one edit.  Tokens and merges are written in the
model's own alphabet ('Ġtoken' for a byte-level BPE), merges as "left right" pairs separated by ";".
"""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ..analysis import vocab_edit
from ..errors import TokvizError
from .workers import TaskRunner, describe_error

EDITS = {
    "special": "Add special tokens",
    "reserved": "Add reserved tokens",
    "pad": "Pad to a multiple of",
    "merges": "Add merges (BPE)",
    "tokens": "Add tokens matched whole",
    "remove": "Remove tokens (BPE)",
}


def parse_merges(text: str) -> list[tuple[str, str]]:
    """'a b; c d' -> [('a', 'b'), ('c', 'd')]."""
    out = []
    for part in text.split(";"):
        part = part.strip()
        if not part:
            continue
        pieces = part.split()
        if len(pieces) != 2:
            raise TokvizError(f"a merge is two tokens separated by a space, not {part!r}")
        out.append((pieces[0], pieces[1]))
    if not out:
        raise TokvizError("no merge given: write them as 'left right; left right'")
    return out


def _list(text: str) -> list[str]:
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise TokvizError("no token given (separate several with commas)")
    return items


class EditPanel(QWidget):
    """See the module docstring.  `set_tokenizer`, `set_text`, `propose(kind, argument)`,
    `apply()`, `undo()`; `checked(EditReport)` and `applied(tokenizer)`."""

    checked = Signal(object)
    applied = Signal(object)

    def __init__(self, parent=None):
        super().__init__(parent)
        self._tokenizer = None
        self._text = ""
        self._proposal = None  # the edited tokenizer waiting for Apply
        self._history: list = []
        self._runner = TaskRunner(1, self)
        self._job = 0
        self.report = None

        self.kind_box = QComboBox()
        for key, label in EDITS.items():
            self.kind_box.addItem(label, key)
        self.kind_box.currentIndexChanged.connect(self._kind_changed)
        self.argument = QLineEdit()
        self.count = QSpinBox()
        self.count.setRange(1, 1_000_000)
        self.count.setValue(128)
        self.rank = QSpinBox()
        self.rank.setRange(-1, 10_000_000)
        self.rank.setValue(-1)
        self.rank.setSpecialValueText("last")
        self.rank.setToolTip("Rank of the first added merge (last: after all the others)")
        self.check_button = QPushButton("Check")
        self.check_button.clicked.connect(lambda: self.propose(self.kind_box.currentData(), self._argument()))
        self.apply_button = QPushButton("Apply")
        self.apply_button.setEnabled(False)
        self.apply_button.clicked.connect(self.apply)
        self.undo_button = QPushButton("Undo")
        self.undo_button.setEnabled(False)
        self.undo_button.clicked.connect(self.undo)
        self.summary = QLabel("Choose an edit and Check it: nothing changes before Apply.")
        self.summary.setWordWrap(True)
        self.details = QListWidget()

        row = QHBoxLayout()
        row.addWidget(self.kind_box)
        row.addWidget(self.argument, 1)
        row.addWidget(self.count)
        row.addWidget(QLabel("at rank"))
        row.addWidget(self.rank)
        buttons = QHBoxLayout()
        for b in (self.check_button, self.apply_button, self.undo_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(row)
        layout.addLayout(buttons)
        layout.addWidget(self.summary)
        layout.addWidget(self.details, 1)
        self._kind_changed()

    def _kind_changed(self) -> None:
        kind = self.kind_box.currentData()
        self.count.setVisible(kind in ("reserved", "pad"))
        self.rank.setVisible(kind == "merges")
        self.argument.setVisible(kind not in ("reserved", "pad"))
        self.argument.setPlaceholderText({"merges": "left right; left right", "special": "<|im_start|>, <|im_end|>",
                                          "tokens": "token, token", "remove": "token, token"}.get(kind, ""))

    def _argument(self):
        kind = self.kind_box.currentData()
        if kind in ("reserved", "pad"):
            return self.count.value()
        if kind == "merges":
            return (self.argument.text(), None if self.rank.value() < 0 else self.rank.value())
        return self.argument.text()

    # ---- state -------------------------------------------------------------------------------------
    def set_tokenizer(self, tokenizer) -> None:
        """The tokenizer edits start from (the window's; an applied edit comes back here)."""
        if tokenizer is self._tokenizer:
            return
        self._tokenizer = tokenizer
        self._proposal = None
        self.apply_button.setEnabled(False)
        # another tokenizer: the undo history was of the previous one's edits (and would keep
        # every tokenizer edited since the start alive)
        self._history.clear()
        self.undo_button.setEnabled(False)

    def set_text(self, text: str) -> None:
        """Text whose words the check also looks at (the text being explored)."""
        self._text = text[:20_000]

    # ---- edits -------------------------------------------------------------------------------------
    def make_edit(self, kind: str, argument):
        """The edited copy of the current tokenizer (raises TokvizError for a bad argument)."""
        tok = self._tokenizer
        if tok is None:
            raise TokvizError("no tokenizer loaded")
        if kind == "special":
            return vocab_edit.add_special_tokens(tok, _list(argument))
        if kind == "tokens":
            return vocab_edit.add_special_tokens(tok, _list(argument), special=False)
        if kind == "reserved":
            return vocab_edit.add_reserved_tokens(tok, int(argument))
        if kind == "pad":
            return vocab_edit.pad_to_multiple(tok, int(argument))
        if kind == "merges":
            text, rank = argument if isinstance(argument, tuple) else (argument, None)
            return vocab_edit.add_merges(tok, parse_merges(text), rank)
        if kind == "remove":
            return vocab_edit.remove_tokens(tok, _list(argument))
        raise TokvizError(f"unknown edit {kind!r}")

    def propose(self, kind: str, argument) -> bool:
        """Make and check an edit on a worker; `checked(report)` follows, and Apply is enabled."""
        try:
            edited = self.make_edit(kind, argument)
        except TokvizError as exc:
            self.summary.setText(str(exc))
            return False
        before, text = self._tokenizer, self._text
        self._job += 1
        job = self._job
        self._proposal = None
        self.apply_button.setEnabled(False)
        self.summary.setText("Checking what the edit changes…")
        self.details.clear()

        def done(report) -> None:
            if job != self._job:
                return
            self.report = report
            self._proposal = edited
            self.apply_button.setEnabled(True)
            warn = "" if report.safe else "⚠ "
            self.summary.setText(warn + report.summary() + ". Apply to use it.")
            for i, t in report.newly_unreachable[:500]:
                self.details.addItem(f"unreachable after the edit: {i} {t!r}")
            for w, a, b in report.changed_words[:500]:
                self.details.addItem(f"{w!r}: {' | '.join(a)}  →  {' | '.join(b)}")
            self.checked.emit(report)

        def failed(exc) -> None:
            if job == self._job:
                self.summary.setText(f"Could not check the edit: {describe_error(exc)}")

        self._runner.submit(lambda: vocab_edit.check_edit(before, edited, text=text), done, failed)
        return True

    def apply(self) -> None:
        if self._proposal is None:
            return
        self._history.append(self._tokenizer)
        self._tokenizer, self._proposal = self._proposal, None
        self.apply_button.setEnabled(False)
        self.undo_button.setEnabled(True)
        self.summary.setText(f"Applied: the vocabulary has {self._tokenizer.vocab_size:,} tokens. Undo to go back.")
        self.applied.emit(self._tokenizer)

    def undo(self) -> None:
        if not self._history:
            return
        self._tokenizer = self._history.pop()
        self._proposal = None
        self.apply_button.setEnabled(False)
        self.undo_button.setEnabled(bool(self._history))
        self.summary.setText(f"Undone: the vocabulary has {self._tokenizer.vocab_size:,} tokens.")
        self.applied.emit(self._tokenizer)

    def tokenizer(self):
        return self._tokenizer

    def is_busy(self) -> bool:
        return self._runner.pending() > 0

    def shutdown(self, timeout_ms: int = 5000) -> None:
        self._job += 1
        self._runner.shutdown(timeout_ms)
