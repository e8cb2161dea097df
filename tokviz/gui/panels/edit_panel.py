"""The Edit vocabulary panel: change a vocabulary, see what breaks first, apply, undo.

Choose an edit (add special or reserved tokens, pad to a multiple of N, add BPE merges, add tokens
matched whole, remove tokens); only the inputs that edit uses are shown.  Check makes the edit on a
copy, on a worker, and `analysis.vocab_edit.check_edit` compares it with the original: the tokens
added (or removed) with their ids and text, tokens that become unreachable, and the words of the
vocabulary and of the current text that are cut differently, before → after.  Apply uses the
edited tokenizer (`applied(tokenizer)`); Undo goes back one edit.  Tokens and merges are written
in the model's own alphabet ('Ġtoken' for a byte-level BPE), merges as "left right" pairs
separated by ";", applied in that order: a merge may use a token an earlier one made
("pp le; ĠA pple").  In the lists, text is shown as the explorer shows it (· a space, ↵ a newline,
⟨e6⟩ a byte that is not a whole character).
"""
from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, Signal
from PySide6.QtGui import QFont, QIntValidator
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ...analysis import vocab_edit
from ...errors import TokvizError
from ..views.token_view import byte_runs, runs_display, text_runs
from ..work.workers import TaskRunner, describe_error

EDITS = {  # (English; shown through QCoreApplication.translate("EditPanel", …))
    "special": QT_TRANSLATE_NOOP("EditPanel", "Add special tokens"),
    "reserved": QT_TRANSLATE_NOOP("EditPanel", "Add reserved tokens"),
    "pad": QT_TRANSLATE_NOOP("EditPanel", "Pad to a multiple of"),
    "merges": QT_TRANSLATE_NOOP("EditPanel", "Add merges (BPE)"),
    "tokens": QT_TRANSLATE_NOOP("EditPanel", "Add tokens matched whole"),
    "remove": QT_TRANSLATE_NOOP("EditPanel", "Remove tokens (BPE)"),
}
# what each edit's text box takes: an example (data, not translated) and a note
PLACEHOLDERS = {"merges": "left right; left right", "special": "<|im_start|>, <|im_end|>",
                "tokens": "token, token", "remove": "token, token"}
HINTS = {
    "merges": QT_TRANSLATE_NOOP("EditPanel", "Pairs in the model's alphabet (Ġ for a space in a byte-level BPE), "
                                             "applied in order: a merge may use what an earlier one made."),
    "special": QT_TRANSLATE_NOOP("EditPanel", "Separate tokens with commas; each gets a new id."),
    "tokens": QT_TRANSLATE_NOOP("EditPanel", "Matched whole wherever they appear in text; separate with commas."),
    "remove": QT_TRANSLATE_NOOP("EditPanel", "In the model's alphabet; the merges that make or use them go too."),
}
PAD_MULTIPLES = (8, 64, 128, 256)
SHOWN = 500  # at most this many lines of each list in the details


def _tr(text: str) -> str:
    return QCoreApplication.translate("EditPanel", text)


def edit_summary(report) -> str:
    """`report.summary()` (analysis.vocab_edit.EditReport) in the app's language."""
    n = {"before": f"{report.size_before:,}", "after": f"{report.size_after:,}",
         "added": f"{len(report.added_tokens):,}", "removed": f"{len(report.removed_tokens):,}",
         "unreachable": f"{len(report.newly_unreachable):,}",
         "tokens": ", ".join(repr(t) for _, t in report.newly_unreachable[:5]),
         "changed": f"{len(report.changed_words):,}", "checked": f"{report.words_checked:,}"}
    parts = [QCoreApplication.translate("EditPanel", "vocabulary {before} → {after}")]
    if report.added_tokens:
        parts.append(QCoreApplication.translate("EditPanel", "{added} token(s) added"))
    if report.removed_tokens:
        parts.append(QCoreApplication.translate("EditPanel", "{removed} token(s) removed"))
    if report.newly_unreachable:
        parts.append(QCoreApplication.translate("EditPanel", "{unreachable} token(s) become unreachable: {tokens}"))
    else:
        parts.append(QCoreApplication.translate("EditPanel", "no token becomes unreachable"))
    if report.unit == "words":
        parts.append(QCoreApplication.translate("EditPanel", "{changed} of {checked} words checked cut differently"))
    else:
        parts.append(QCoreApplication.translate("EditPanel",
                                                "{changed} of {checked} lines of the text checked cut differently"))
    return QCoreApplication.translate("EditPanel", "; ").join(part.format(**n) for part in parts)


def parse_merges(text: str) -> list[tuple[str, str]]:
    """'a b; c d' -> [('a', 'b'), ('c', 'd')]."""
    out = []
    for part in text.split(";"):
        part = part.strip()
        if not part:
            continue
        pieces = part.split()
        if len(pieces) != 2:
            raise TokvizError(QCoreApplication.translate(
                "EditPanel", "a merge is two tokens separated by a space, not {part}").format(part=repr(part)))
        out.append((pieces[0], pieces[1]))
    if not out:
        raise TokvizError(QCoreApplication.translate("EditPanel",
                                                     "no merge given: write them as 'left right; left right'"))
    return out


def _list(text: str) -> list[str]:
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise TokvizError(QCoreApplication.translate("EditPanel", "no token given (separate several with commas)"))
    return items


def readable_token(tokenizer, token_id: int) -> str:
    """A token's text as the explorer shows it: '·Apple' for ' Apple', ⟨e6⟩ for a stray byte."""
    return runs_display(byte_runs(tokenizer.token_bytes(token_id)))


def _readable_pieces(tokenizer, pieces: list[str], in_model_alphabet: bool) -> list[str]:
    """Pieces of a cut, readable: model-alphabet pieces through their ids, display strings as they are."""
    if not in_model_alphabet:
        return [runs_display(text_runs(p)) for p in pieces]
    vocab = tokenizer.model.vocab
    return [readable_token(tokenizer, vocab[p]) if p in vocab else p for p in pieces]


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
            self.kind_box.addItem(_tr(label), key)
        self.kind_box.currentIndexChanged.connect(self._kind_changed)
        self.argument = QLineEdit()
        self.argument.setClearButtonEnabled(True)
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        self.hint.setEnabled(False)  # (drawn greyed: a note, not a value)
        self.count = QSpinBox()
        self.count.setRange(1, 1_000_000)
        self.count.setValue(8)
        self.count.setToolTip(self.tr("How many <|reserved_special_token_N|> to add"))
        self.pad_box = QComboBox()
        self.pad_box.setEditable(True)
        self.pad_box.setValidator(QIntValidator(1, 1_000_000, self))
        for m in PAD_MULTIPLES:
            self.pad_box.addItem(str(m))
        self.pad_box.setCurrentText("64")
        self.pad_box.setToolTip(self.tr("Round the vocabulary up to a multiple of this with reserved tokens "
                                        "(pick one or type your own)"))
        self.pad_box.currentTextChanged.connect(self._update_pad_note)
        self.pad_note = QLabel()
        self.pad_note.setWordWrap(True)
        self.rank = QSpinBox()
        self.rank.setRange(-1, 10_000_000)
        self.rank.setValue(-1)
        self.rank.setSpecialValueText(self.tr("last"))
        self.rank.setToolTip(self.tr("Rank of the first added merge (last: after all the others)"))
        self.check_button = QPushButton(self.tr("Check"))
        self.check_button.clicked.connect(self._check_clicked)
        self.apply_button = QPushButton(self.tr("Apply"))
        self.apply_button.setEnabled(False)
        self.apply_button.clicked.connect(self.apply)
        self.undo_button = QPushButton(self.tr("Undo"))
        self.undo_button.setEnabled(False)
        self.undo_button.clicked.connect(self.undo)
        self.summary = QLabel(self.tr("Choose an edit and Check it: nothing changes before Apply."))
        self.summary.setWordWrap(True)
        self.details = QListWidget()
        self.details.setWordWrap(True)
        self.details.setMinimumHeight(60)

        self.form = QFormLayout()
        self.form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.form.addRow(self.tr("Edit"), self.kind_box)
        self.form.addRow(self.tr("Tokens"), self.argument)
        self.form.addRow(self.hint)
        self.form.addRow(self.tr("Count"), self.count)
        self.form.addRow(self.tr("Multiple"), self.pad_box)
        self.form.addRow(self.pad_note)
        self.form.addRow(self.tr("At rank"), self.rank)
        buttons = QHBoxLayout()
        for b in (self.check_button, self.apply_button, self.undo_button):
            buttons.addWidget(b)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(self.form)
        layout.addLayout(buttons)
        layout.addWidget(self.summary)
        layout.addWidget(self.details, 1)
        self._kind_changed()
        for signal in (self.kind_box.currentIndexChanged, self.argument.textChanged, self.count.valueChanged,
                       self.pad_box.currentTextChanged, self.rank.valueChanged):
            signal.connect(self._inputs_changed)

    def _inputs_changed(self) -> None:
        """A checked edit waiting for Apply was of the inputs as they were: changing them drops it."""
        if self._proposal is None and not self.is_busy():
            return
        self._job += 1
        self._proposal = None
        self.apply_button.setEnabled(False)
        self.details.clear()
        self.summary.setText(self.tr("The edit changed: Check it again before applying."))

    def _kind_changed(self) -> None:
        """Show the inputs the chosen edit takes, and nothing else."""
        kind = self.kind_box.currentData()
        uses_text = kind in ("special", "tokens", "remove", "merges")
        self.form.setRowVisible(self.argument, uses_text)
        self.form.setRowVisible(self.hint, uses_text)
        self.form.setRowVisible(self.count, kind == "reserved")
        self.form.setRowVisible(self.pad_box, kind == "pad")
        self.form.setRowVisible(self.pad_note, kind == "pad")
        self.form.setRowVisible(self.rank, kind == "merges")
        self.form.labelForField(self.argument).setText(self.tr("Merges") if kind == "merges" else self.tr("Tokens"))
        self.argument.setPlaceholderText(PLACEHOLDERS.get(kind, ""))
        self.hint.setText(_tr(HINTS[kind]) if kind in HINTS else "")
        self._update_pad_note()

    def _pad_multiple(self) -> int:
        text = self.pad_box.currentText().strip()
        if not text.isdecimal() or int(text) < 1:
            raise TokvizError(self.tr("pad to a multiple of a whole number (64, 128...), not {text}").format(
                text=repr(text)))
        return int(text)

    def _update_pad_note(self) -> None:
        """'768 → 832: adds 64 reserved tokens' for the multiple chosen (and each one offered)."""
        if self._tokenizer is None:
            self.pad_note.setText("")
            return
        for k in range(self.pad_box.count()):
            size, add = vocab_edit.padding(self._tokenizer, int(self.pad_box.itemText(k)))
            self.pad_box.setItemData(k, f"{size:,} → {size + add:,} (+{add:,})", Qt.ItemDataRole.ToolTipRole)
        try:
            size, add = vocab_edit.padding(self._tokenizer, self._pad_multiple())
        except TokvizError as exc:
            self.pad_note.setText(describe_error(exc))
            return
        sizes = {"size": f"{size:,}", "padded": f"{size + add:,}", "add": f"{add:,}"}
        if add == 1:
            self.pad_note.setText(self.tr("{size} → {padded} tokens: adds 1 reserved token").format(**sizes))
        elif add:
            self.pad_note.setText(self.tr("{size} → {padded} tokens: adds {add} reserved tokens").format(**sizes))
        else:
            self.pad_note.setText(self.tr("{size} tokens: already a multiple, nothing to add").format(**sizes))

    def _argument(self):
        kind = self.kind_box.currentData()
        if kind == "reserved":
            return self.count.value()
        if kind == "pad":
            return self._pad_multiple()
        if kind == "merges":
            return (self.argument.text(), None if self.rank.value() < 0 else self.rank.value())
        return self.argument.text()

    def _check_clicked(self) -> None:
        try:
            argument = self._argument()
        except TokvizError as exc:
            self.summary.setText(describe_error(exc))
            return
        self.propose(self.kind_box.currentData(), argument)

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
        self._tokenizer_changed()

    def _tokenizer_changed(self) -> None:
        """Inputs that depend on the tokenizer: the padding note, the highest merge rank."""
        model = getattr(self._tokenizer, "model", None)
        count = getattr(model, "merge_count", None)  # (BPE's; not building its 150k pairs here)
        self.rank.setMaximum(count if count is not None else 10_000_000)
        self._update_pad_note()

    def set_text(self, text: str) -> None:
        """Text whose words the check also looks at (the text being explored)."""
        self._text = text[:20_000]

    # ---- edits -------------------------------------------------------------------------------------
    def make_edit(self, kind: str, argument):
        """The edited copy of the current tokenizer (raises TokvizError for a bad argument)."""
        tok = self._tokenizer
        if tok is None:
            raise TokvizError(self.tr("no tokenizer loaded"))
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
        raise TokvizError(self.tr("unknown edit {kind}").format(kind=repr(kind)))

    def propose(self, kind: str, argument) -> bool:
        """Make and check an edit on a worker; `checked(report)` follows, and Apply is enabled."""
        try:
            edited = self.make_edit(kind, argument)
        except TokvizError as exc:
            self._job += 1  # (a check still running was of an earlier edit)
            self._proposal = None
            self.apply_button.setEnabled(False)
            self.details.clear()
            self.summary.setText(describe_error(exc))
            return False
        before, text = self._tokenizer, self._text
        self._job += 1
        job = self._job
        self._proposal = None
        self.apply_button.setEnabled(False)
        self.summary.setText(self.tr("Checking what the edit changes…"))
        self.details.clear()

        def done(report) -> None:
            if job != self._job:
                return
            self.report = report
            self._proposal = edited
            self.apply_button.setEnabled(True)
            warn = "" if report.safe else "⚠ "
            self.summary.setText(warn + self.tr("{summary}. Apply to use it.").format(summary=edit_summary(report)))
            self._show_report(report, before, edited)
            self.checked.emit(report)

        def failed(exc) -> None:
            if job == self._job:
                self.summary.setText(self.tr("Could not check the edit: {reason}").format(reason=describe_error(exc)))

        self._runner.submit(lambda: vocab_edit.check_edit(before, edited, text=text), done, failed)
        return True

    def _show_report(self, report, before, after) -> None:
        """The details of a check: tokens added and removed, tokens that become unreachable, and
        each word (or line of the text) cut differently, before → after."""
        self.details.clear()

        def section(title: str) -> None:
            item = QListWidgetItem(title)
            font = QFont(item.font())
            font.setBold(True)
            item.setFont(font)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled)
            self.details.addItem(item)

        def tokens(rows, tokenizer) -> None:
            for i, piece in rows[:SHOWN]:
                text = readable_token(tokenizer, i)
                same = text == runs_display(text_runs(piece))
                item = QListWidgetItem(f"{i:,}  {text}" + ("" if same else f"   ({piece})"))
                item.setToolTip(self.tr("id {id}: {token}").format(id=i, token=repr(piece)))
                self.details.addItem(item)

        if report.added_tokens:
            section(self.tr("Added tokens ({count})").format(count=f"{len(report.added_tokens):,}"))
            tokens(report.added_tokens, after)
        if report.removed_tokens:
            section(self.tr("Removed tokens ({count})").format(count=f"{len(report.removed_tokens):,}"))
            tokens(report.removed_tokens, before)
        if report.newly_unreachable:
            section(self.tr("Unreachable after the edit ({count})").format(count=f"{len(report.newly_unreachable):,}"))
            tokens(report.newly_unreachable, after)
        changed, checked = f"{len(report.changed_words):,}", f"{report.words_checked:,}"
        section(self.tr("Cut differently: {changed} of {checked} words").format(changed=changed, checked=checked)
                if report.unit == "words" else
                self.tr("Cut differently: {changed} of {checked} lines of the text").format(changed=changed,
                                                                                             checked=checked))
        pieces = report.unit == "words"  # words in the model's alphabet, else lines cut into display strings
        for word, a, b in report.changed_words[:SHOWN]:
            shown_a = _readable_pieces(before, a, pieces)
            shown_b = _readable_pieces(after, b, pieces)
            head = "".join(shown_a) if pieces else runs_display(text_runs(word))
            item = QListWidgetItem(f"{head}:  {' | '.join(shown_a)}  →  {' | '.join(shown_b)}")
            item.setToolTip(self.tr("{word}\nbefore: {before}\nafter: {after}").format(word=repr(word), before=a,
                                                                                          after=b))
            self.details.addItem(item)

    def apply(self) -> None:
        if self._proposal is None:
            return
        self._history.append(self._tokenizer)
        self._tokenizer, self._proposal = self._proposal, None
        self.apply_button.setEnabled(False)
        self.undo_button.setEnabled(True)
        self._tokenizer_changed()
        self.summary.setText(self.tr("Applied: the vocabulary has {size} tokens. Undo to go back.").format(
            size=f"{self._tokenizer.vocab_size:,}"))
        self.applied.emit(self._tokenizer)

    def undo(self) -> None:
        if not self._history:
            return
        self._tokenizer = self._history.pop()
        self._proposal = None
        self.apply_button.setEnabled(False)
        self.undo_button.setEnabled(bool(self._history))
        self._tokenizer_changed()
        self.summary.setText(self.tr("Undone: the vocabulary has {size} tokens.").format(
            size=f"{self._tokenizer.vocab_size:,}"))
        self.applied.emit(self._tokenizer)

    def tokenizer(self):
        return self._tokenizer

    def original(self):
        """The tokenizer the edits started from: what Undo comes back to at last."""
        return self._history[0] if self._history else self._tokenizer

    def is_busy(self) -> bool:
        return self._runner.pending() > 0

    def shutdown(self, timeout_ms: int = 5000) -> None:
        self._job += 1
        self._runner.shutdown(timeout_ms)
